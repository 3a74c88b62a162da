// cublasSgemm's signature on the ladder's one call (sgemm.h: gemm), so that code written for
// cuBLAS swaps one name: `cublasSgemm(handle, ...)` becomes `sgemm::cublasSgemm(handle, ...)`.
// Link sgemm::cublas_compat (it links cuBLAS, for the handle's stream and pointer mode).
//
// As cublasSgemm: column-major; C (m x n) = alpha op(A) op(B) + beta C with op(A) m x k and
// op(B) k x n; CUBLAS_OP_C is CUBLAS_OP_T for real data; queued on the handle's stream
// (cublasSetStream); alpha and beta on the host, or with CUBLAS_POINTER_MODE_DEVICE in device
// memory, where they are read by a copy that waits for the handle's stream first (so that
// work queued before may compute them): the call then returns after that stream's earlier
// work, not at once. BLAS's quick returns: m == 0 or n == 0 does nothing; k == 0 (or
// *alpha == 0) sets C = beta C without reading A or B. The handle's math mode is not read: the
// result has FP32 accuracy in every mode.
//
// Status, from sgemm::Status:
//   CUBLAS_STATUS_SUCCESS           queued
//   CUBLAS_STATUS_NOT_INITIALIZED   a null handle
//   CUBLAS_STATUS_INVALID_VALUE     m, n or k < 0, a bad op, ld too small, a null scalar, or a
//                                   pointer the GPU cannot use (null, misaligned, host memory,
//                                   another device's)
//   CUBLAS_STATUS_NOT_SUPPORTED     a size cuBLAS takes and the ladder does not: m, n or k over
//                                   sgemm::kMaxDimension, or a matrix over 2^31 elements
//   CUBLAS_STATUS_ARCH_MISMATCH     no kernel for this GPU
//   CUBLAS_STATUS_ALLOC_FAILED      the workspace cannot hold what the call needs
//   CUBLAS_STATUS_EXECUTION_FAILED  a CUDA error (the error is not left pending)
// The library's sentence for a failure, which cublasSgemm's signature has no room for, is
// sgemm::last_why() below (for the batched forms below too).
#pragma once

#include <cublas_v2.h>

#include <string>

namespace sgemm {

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k, const float* alpha,
                           const float* A, int lda, const float* B, int ldb, const float* beta,
                           float* C, int ldc);

// The batched forms, with cuBLAS's signatures and the statuses above, on sgemm::
// gemm_strided_batched and gemm_batched (sgemm.h): batchCount == 0 does nothing, batchCount < 0
// is CUBLAS_STATUS_INVALID_VALUE, and so are C's problems overlapping (|strideC| below one C's
// extent, (n - 1) * ldc + m, where batchCount > 1). The pointer arrays are device memory, read
// by the kernels, never by the host.
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const float* alpha, const float* A, int lda,
                                         long long int strideA, const float* B, int ldb,
                                         long long int strideB, const float* beta, float* C,
                                         int ldc, long long int strideC, int batchCount);
cublasStatus_t cublasSgemmBatched(cublasHandle_t handle, cublasOperation_t transa,
                                  cublasOperation_t transb, int m, int n, int k, const float* alpha,
                                  const float* const Aarray[], int lda, const float* const Barray[],
                                  int ldb, const float* beta, float* const Carray[], int ldc,
                                  int batchCount);

// The sentence of the calling thread's last sgemm::cublasSgemm that did not succeed ("" after
// one that did): what cuBLAS's status alone cannot say.
const std::string& last_why();

}  // namespace sgemm
