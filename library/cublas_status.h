// sgemm::Status as cuBLAS's status, one mapping for sgemm::cublasSgemm (sgemm_cublas.cpp) and
// the preload library (preload/): include/sgemm/sgemm_cublas.h lists what each status means.
#pragma once

#include <cublas_api.h>

#include <algorithm>

#include "sgemm/sgemm.h"

namespace sgemm {

// The cuBLAS status for the library's answer to a call of m x n x k (column-major, cuBLAS's).
inline cublasStatus_t cublas_status_of(Status status, long long m, long long n, long long k) {
  switch (status) {
    case Status::ok:
      return CUBLAS_STATUS_SUCCESS;
    case Status::bad_size:  // negative and zero sizes are answered before the library is asked
      return std::max({m, n, k}) > kMaxDimension ? CUBLAS_STATUS_NOT_SUPPORTED
                                                 : CUBLAS_STATUS_INVALID_VALUE;
    case Status::bad_leading_dim:
    case Status::bad_pointer:
      return CUBLAS_STATUS_INVALID_VALUE;
    case Status::too_large:
      return CUBLAS_STATUS_NOT_SUPPORTED;
    case Status::unsupported_gpu:
      return CUBLAS_STATUS_ARCH_MISMATCH;
    case Status::no_workspace:
      return CUBLAS_STATUS_ALLOC_FAILED;
    case Status::unknown_rung:
      return CUBLAS_STATUS_INTERNAL_ERROR;
    case Status::cuda_error:
      break;
  }
  return CUBLAS_STATUS_EXECUTION_FAILED;
}

}  // namespace sgemm
