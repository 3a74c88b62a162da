// sgemm::cublasSgemm (sgemm_cublas.h): cublasSgemm's arguments and statuses on sgemm::gemm.
#include "sgemm/sgemm_cublas.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>
#include <utility>

#include "cublas_status.h"  // cublas_status_of
#include "sgemm/sgemm.h"

namespace sgemm {
namespace {

thread_local std::string why_text;  // last_why()

cublasStatus_t answer(cublasStatus_t status, std::string why) {
  why_text = std::move(why);
  return status;
}

// CUBLAS_OP_C is the conjugate transpose: the transpose, for real data.
bool op_of(cublasOperation_t trans, Op* op) {
  switch (trans) {
    case CUBLAS_OP_N:
      return *op = Op::N, true;
    case CUBLAS_OP_T:
    case CUBLAS_OP_C:
      return *op = Op::T, true;
    default:
      return false;
  }
}

// alpha and beta from device memory, after the work queued on `stream` before (which may
// compute them). cudaMemcpyDefault: the pointer's kind is read from the pointer.
cublasStatus_t read_scalars(const float* alpha, const float* beta, float* a, float* b,
                            cudaStream_t stream) {
  cudaError_t err = cudaMemcpyAsync(a, alpha, sizeof(float), cudaMemcpyDefault, stream);
  if (err == cudaSuccess) err = cudaMemcpyAsync(b, beta, sizeof(float), cudaMemcpyDefault, stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  if (err == cudaSuccess) return CUBLAS_STATUS_SUCCESS;
  cudaGetLastError();  // answered here, not by the caller's next CUDA call
  return answer(
      err == cudaErrorInvalidValue ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_EXECUTION_FAILED,
      std::string("cannot read alpha and beta from device memory "
                  "(CUBLAS_POINTER_MODE_DEVICE): ") +
          cudaGetErrorString(err));
}

}  // namespace

const std::string& last_why() { return why_text; }

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k, const float* alpha,
                           const float* A, int lda, const float* B, int ldb, const float* beta,
                           float* C, int ldc) {
  if (handle == nullptr) return answer(CUBLAS_STATUS_NOT_INITIALIZED, "the handle is null");
  // BLAS's argument checks, which hold for empty matrices too, before its quick return.
  Op opA = Op::N, opB = Op::N;
  if (!op_of(transa, &opA)) return answer(CUBLAS_STATUS_INVALID_VALUE, "transa is not N, T or C");
  if (!op_of(transb, &opB)) return answer(CUBLAS_STATUS_INVALID_VALUE, "transb is not N, T or C");
  if (m < 0 || n < 0 || k < 0)
    return answer(CUBLAS_STATUS_INVALID_VALUE, "m, n and k must be >= 0");
  const int a_rows = opA == Op::N ? m : k, b_rows = opB == Op::N ? k : n;
  if (lda < std::max(1, a_rows) || ldb < std::max(1, b_rows) || ldc < std::max(1, m))
    return answer(CUBLAS_STATUS_INVALID_VALUE,
                  "a leading dimension is smaller than its matrix's rows (column-major: lda >= "
                  "max(1, op(A) == A ? m : k), ldb >= max(1, op(B) == B ? k : n), ldc >= "
                  "max(1, m))");
  if (alpha == nullptr || beta == nullptr)
    return answer(CUBLAS_STATUS_INVALID_VALUE, "alpha or beta is a null pointer");
  if (m == 0 || n == 0) return answer(CUBLAS_STATUS_SUCCESS, "");  // nothing to compute

  cudaStream_t stream = nullptr;
  cublasPointerMode_t mode = CUBLAS_POINTER_MODE_HOST;
  cublasStatus_t status = cublasGetStream(handle, &stream);
  if (status == CUBLAS_STATUS_SUCCESS) status = cublasGetPointerMode(handle, &mode);
  if (status != CUBLAS_STATUS_SUCCESS)
    return answer(status, std::string("the handle: ") + cublasGetStatusString(status));
  float a = 0.f, b = 0.f;
  if (mode == CUBLAS_POINTER_MODE_DEVICE) {
    status = read_scalars(alpha, beta, &a, &b, stream);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
  } else {
    a = *alpha, b = *beta;
  }
  // k == 0: C = beta C, as alpha == 0. The library takes K >= 1 and then reads neither A nor B
  // (alpha == 0), so K = 1 stands in, with C, which is checked anyway, in their place.
  const bool empty_sum = k == 0;
  std::string why;
  const Status s = gemm(Layout::col_major, opA, opB, m, n, empty_sum ? 1 : k, empty_sum ? 0.f : a,
                        empty_sum ? C : A, lda, empty_sum ? C : B, ldb, b, C, ldc, stream, &why);
  return answer(cublas_status_of(s, m, n, k), why);
}

}  // namespace sgemm
