// The cuBLAS calls the checks and timings use: SGEMM in true FP32 or in TF32 mode, and DGEMM
// for the FP64 product, on row-major or column-major problems.
#include "harness_state.h"

namespace sgemm {

namespace {

cublasOperation_t cublas_op(Op op) { return op == Op::T ? CUBLAS_OP_T : CUBLAS_OP_N; }

// A problem as cuBLAS's column-major call takes it. A row-major matrix is the column-major view
// of its transpose, so a row-major problem is asked as C^T = op(B)^T op(A)^T: the operands swap,
// with their ops, and so do the roles of M and N. Column-major goes as it is.
template <typename T>
struct ColumnMajorCall {
  cublasOperation_t transa, transb;
  int m, n, k;
  const T *A, *B;
  int lda, ldb;
};
template <typename T>
ColumnMajorCall<T> column_major(const Operation& op, int M, int N, int K, const T* A, int lda,
                                const T* B, int ldb) {
  if (op.layout == Layout::col_major)
    return {cublas_op(op.a), cublas_op(op.b), M, N, K, A, B, lda, ldb};
  return {cublas_op(op.b), cublas_op(op.a), N, M, K, B, A, ldb, lda};
}

}  // namespace

void Harness::cublas(Precision precision, const Gemm& g, cudaStream_t stream) {
  cublas(precision, Operation{}, g, stream);
}

void Harness::cublas(Precision precision, const Operation& op, const Gemm& g, cudaStream_t stream) {
  CUBLAS_CHECK(cublasSetStream(impl_->cublas, stream ? stream : impl_->stream));
  const ColumnMajorCall<float> c = column_major(op, g.M, g.N, g.K, g.A, g.lda, g.B, g.ldb);
  if (precision == Precision::fp32) {
    CUBLAS_CHECK(cublasSgemm(impl_->cublas, c.transa, c.transb, c.m, c.n, c.k, &g.alpha, c.A, c.lda,
                             c.B, c.ldb, &g.beta, g.C, g.ldc));
    return;
  }
  // FP32 in and out, products of inputs converted to TF32 on the tensor cores, FP32 sums.
  CUBLAS_CHECK(cublasGemmEx(impl_->cublas, c.transa, c.transb, c.m, c.n, c.k, &g.alpha, c.A,
                            CUDA_R_32F, c.lda, c.B, CUDA_R_32F, c.ldb, &g.beta, g.C, CUDA_R_32F,
                            g.ldc, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
}

void Harness::cublas_dgemm(const Problem& p, const double* A, const double* B, double* C) {
  const Shape& s = p.shape;
  const double alpha = p.alpha, beta = p.beta;
  const ColumnMajorCall<double> c = column_major(s.op, s.M, s.N, s.K, A, s.a_ld(), B, s.b_ld());
  CUBLAS_CHECK(cublasSetStream(impl_->cublas, impl_->stream));
  CUBLAS_CHECK(cublasDgemm(impl_->cublas, c.transa, c.transb, c.m, c.n, c.k, &alpha, c.A, c.lda,
                           c.B, c.ldb, &beta, C, s.c_ld()));
}

}  // namespace sgemm
