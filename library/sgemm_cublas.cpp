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

namespace {

// What every call shares, before the library is asked: BLAS's argument checks (which hold for
// empty matrices too), the handle's stream, alpha and beta. *done: nothing more to do (a failure,
// or BLAS's quick return for m == 0 or n == 0, or batchCount == 0).
struct Prologue {
  Op opA = Op::N, opB = Op::N;
  cudaStream_t stream = nullptr;
  float alpha = 0.f, beta = 0.f;
};

cublasStatus_t prologue(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                        int m, int n, int k, const float* alpha, int lda, int ldb,
                        const float* beta, int ldc, int batchCount, Prologue* p, bool* done) {
  *done = true;
  if (handle == nullptr) return answer(CUBLAS_STATUS_NOT_INITIALIZED, "the handle is null");
  if (!op_of(transa, &p->opA))
    return answer(CUBLAS_STATUS_INVALID_VALUE, "transa is not N, T or C");
  if (!op_of(transb, &p->opB))
    return answer(CUBLAS_STATUS_INVALID_VALUE, "transb is not N, T or C");
  if (m < 0 || n < 0 || k < 0)
    return answer(CUBLAS_STATUS_INVALID_VALUE, "m, n and k must be >= 0");
  const int a_rows = p->opA == Op::N ? m : k, b_rows = p->opB == Op::N ? k : n;
  if (lda < std::max(1, a_rows) || ldb < std::max(1, b_rows) || ldc < std::max(1, m))
    return answer(CUBLAS_STATUS_INVALID_VALUE,
                  "a leading dimension is smaller than its matrix's rows (column-major: lda >= "
                  "max(1, op(A) == A ? m : k), ldb >= max(1, op(B) == B ? k : n), ldc >= "
                  "max(1, m))");
  if (batchCount < 0) return answer(CUBLAS_STATUS_INVALID_VALUE, "batchCount must be >= 0");
  if (alpha == nullptr || beta == nullptr)
    return answer(CUBLAS_STATUS_INVALID_VALUE, "alpha or beta is a null pointer");
  if (m == 0 || n == 0 || batchCount == 0)
    return answer(CUBLAS_STATUS_SUCCESS, "");  // nothing to compute

  cublasPointerMode_t mode = CUBLAS_POINTER_MODE_HOST;
  cublasStatus_t status = cublasGetStream(handle, &p->stream);
  if (status == CUBLAS_STATUS_SUCCESS) status = cublasGetPointerMode(handle, &mode);
  if (status != CUBLAS_STATUS_SUCCESS)
    return answer(status, std::string("the handle: ") + cublasGetStatusString(status));
  if (mode == CUBLAS_POINTER_MODE_DEVICE) {
    status = read_scalars(alpha, beta, &p->alpha, &p->beta, p->stream);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
  } else {
    p->alpha = *alpha, p->beta = *beta;
  }
  *done = false;
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k, const float* alpha,
                           const float* A, int lda, const float* B, int ldb, const float* beta,
                           float* C, int ldc) {
  Prologue p;
  bool done = false;
  const cublasStatus_t status =
      prologue(handle, transa, transb, m, n, k, alpha, lda, ldb, beta, ldc, 1, &p, &done);
  if (done) return status;
  // k == 0: C = beta C, as alpha == 0. The library takes K >= 1 and then reads neither A nor B
  // (alpha == 0), so K = 1 stands in, with C, which is checked anyway, in their place.
  const bool empty_sum = k == 0;
  std::string why;
  const Status s =
      gemm(Layout::col_major, p.opA, p.opB, m, n, empty_sum ? 1 : k, empty_sum ? 0.f : p.alpha,
           empty_sum ? C : A, lda, empty_sum ? C : B, ldb, p.beta, C, ldc, p.stream, &why);
  return answer(cublas_status_of(s, m, n, k), why);
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const float* alpha, const float* A, int lda,
                                         long long int strideA, const float* B, int ldb,
                                         long long int strideB, const float* beta, float* C,
                                         int ldc, long long int strideC, int batchCount) {
  Prologue p;
  bool done = false;
  const cublasStatus_t status =
      prologue(handle, transa, transb, m, n, k, alpha, lda, ldb, beta, ldc, batchCount, &p, &done);
  if (done) return status;
  const bool empty_sum = k == 0;  // as cublasSgemm: K = 1, alpha = 0, C in A's and B's place
  std::string why;
  const Status s = gemm_strided_batched(
      Layout::col_major, p.opA, p.opB, m, n, empty_sum ? 1 : k, empty_sum ? 0.f : p.alpha,
      empty_sum ? C : A, lda, empty_sum ? strideC : strideA, empty_sum ? C : B, ldb,
      empty_sum ? strideC : strideB, p.beta, C, ldc, strideC, batchCount, p.stream, &why);
  return answer(cublas_status_of(s, m, n, k), why);
}

cublasStatus_t cublasSgemmBatched(cublasHandle_t handle, cublasOperation_t transa,
                                  cublasOperation_t transb, int m, int n, int k, const float* alpha,
                                  const float* const Aarray[], int lda, const float* const Barray[],
                                  int ldb, const float* beta, float* const Carray[], int ldc,
                                  int batchCount) {
  Prologue p;
  bool done = false;
  const cublasStatus_t status =
      prologue(handle, transa, transb, m, n, k, alpha, lda, ldb, beta, ldc, batchCount, &p, &done);
  if (done) return status;
  const bool empty_sum = k == 0;  // as cublasSgemm: K = 1, alpha = 0, C in A's and B's place
  const float* const* Cread = const_cast<const float* const*>(Carray);
  std::string why;
  const Status s = gemm_batched(Layout::col_major, p.opA, p.opB, m, n, empty_sum ? 1 : k,
                                empty_sum ? 0.f : p.alpha, empty_sum ? Cread : Aarray, lda,
                                empty_sum ? Cread : Barray, ldb, p.beta, Carray, ldc, batchCount,
                                p.stream, &why);
  return answer(cublas_status_of(s, m, n, k), why);
}

}  // namespace sgemm
