// The kernels' runtime, tensor maps (tensor_map.h).
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime.h>

#include <atomic>

#include "runtime/device.h"  // RelaxedCapture
#include "runtime/tensor_map.h"

namespace sgemm::runtime {

namespace {

// cuTensorMapEncodeTiled is a driver function; the runtime hands out its address, so the
// library links the CUDA runtime only, not libcuda. Looked up once per process (a thread that
// races another looks it up too, harmlessly); a failed lookup is not cached.
cudaError_t tensor_map_encoder(PFN_cuTensorMapEncodeTiled_v12000* encode) {
  static std::atomic<PFN_cuTensorMapEncodeTiled_v12000> found{nullptr};
  *encode = found.load();
  if (*encode != nullptr) return cudaSuccess;
  RelaxedCapture relaxed;  // once: no part of a captured graph (device.h)
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult result = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  // 12000: the version of the function's ABI, the one in the typedef's name
  const cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                           cudaEnableDefault, &result);
#else  // CUDA 12.0 to 12.4 have only the unversioned lookup (deprecated since)
  const cudaError_t err =
      cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &result);
#endif
  if (err != cudaSuccess) return err;
  if (result == cudaDriverEntryPointVersionNotSufficent) return cudaErrorInsufficientDriver;
  if (result != cudaDriverEntryPointSuccess || fn == nullptr) return cudaErrorSymbolNotFound;
  *encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  found.store(*encode);
  return cudaSuccess;
}

int element_bytes(CUtensorMapDataType type) {
  switch (type) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8:
      return 1;
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
      return 8;
    default:
      return 4;  // FLOAT32, INT32, TFLOAT32 and the others the rungs use
  }
}

// A map of `rank` dimensions (dims and box innermost first; strides in bytes, of dims 1 ..),
// every element of the box read, out-of-bounds elements as zeros.
cudaError_t encode_tiled(CUtensorMap* map, const void* base, CUtensorMapDataType type,
                         cuuint32_t rank, const cuuint64_t* dims, const cuuint64_t* strides,
                         const cuuint32_t* box, CUtensorMapSwizzle swizzle) {
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  const cudaError_t err = tensor_map_encoder(&encode);
  if (err != cudaSuccess) return err;
  const cuuint32_t step[3] = {1, 1, 1};  // every element of the box, no stride
  const CUresult result =
      encode(map, type, rank, const_cast<void*>(base), dims, strides, box, step,
             CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  // The encoder only checks its arguments against TMA's rules (CUDA_ERROR_INVALID_VALUE).
  return result == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

}  // namespace

cudaError_t make_tensor_map(CUtensorMap* map, const void* base, CUtensorMapDataType type,
                            long long rows, long long cols, long long ld, int boxRows, int boxCols,
                            CUtensorMapSwizzle swizzle) {
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * element_bytes(type)};  // of dim 1
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(boxCols), static_cast<cuuint32_t>(boxRows)};
  return encode_tiled(map, base, type, 2, dims, strides, box, swizzle);
}

cudaError_t make_batch_tensor_map(CUtensorMap* map, const void* base, CUtensorMapDataType type,
                                  long long problems, long long rows, long long cols, long long ld,
                                  long long stride, int boxRows, int boxCols,
                                  CUtensorMapSwizzle swizzle) {
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(problems)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(ld) * element_bytes(type),
                                 static_cast<cuuint64_t>(stride) * element_bytes(type)};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(boxCols), static_cast<cuuint32_t>(boxRows), 1};
  return encode_tiled(map, base, type, 3, dims, strides, box, swizzle);
}

}  // namespace sgemm::runtime
