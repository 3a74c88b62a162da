// The transpose that launch() runs before a rung when an operand is transposed in row-major
// terms (transpose.cu).
#pragma once

#include <cuda_runtime_api.h>

namespace sgemm::runtime {

// out = in^T: `in` is rows x cols (row-major, rows ld_in apart), `out` cols x rows (rows ld_out
// apart, ld_out >= rows; its padding is not written). A tiled transpose through shared memory,
// reads and writes coalesced, any alignment (library/transpose.cu). Queued on `stream`.
cudaError_t transpose(const float* in, int rows, int cols, int ld_in, float* out, int ld_out,
                      cudaStream_t stream);

}  // namespace sgemm::runtime
