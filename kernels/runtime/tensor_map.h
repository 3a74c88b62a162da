// The kernels' runtime, tensor maps: TMA's description of a matrix in global memory, encoded
// through the driver (tensor_map.cu), for the Hopper rungs' copies.
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only: libcuda is not linked)
#include <cuda_runtime_api.h>

namespace sgemm::runtime {

// A tensor map of the row-major rows x cols matrix at `base`, rows `ld` elements apart, read in
// boxes of boxRows x boxCols elements. Dimension 0 is the contiguous one. Elements of a box
// outside the matrix arrive as zeros. cudaErrorInvalidValue when TMA's rules refuse it (a base
// not 16-byte aligned, rows not a multiple of 16 bytes apart, a box over 256 a side).
cudaError_t make_tensor_map(CUtensorMap* map, const void* base, CUtensorMapDataType type,
                            long long rows, long long cols, long long ld, int boxRows, int boxCols,
                            CUtensorMapSwizzle swizzle);

// The same for a batch of such matrices, `stride` elements apart (a multiple of 16 bytes, at
// least rows * ld: TMA's strides grow outward), as the three-dimensional tensor
// [problems][rows][cols]: boxes of boxRows x boxCols of one problem, which tma_load_3d names by
// (col, row, problem). Rows past `rows` arrive as zeros, not the next problem's.
cudaError_t make_batch_tensor_map(CUtensorMap* map, const void* base, CUtensorMapDataType type,
                                  long long problems, long long rows, long long cols, long long ld,
                                  long long stride, int boxRows, int boxCols,
                                  CUtensorMapSwizzle swizzle);

}  // namespace sgemm::runtime
