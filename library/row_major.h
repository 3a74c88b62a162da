// BLAS's general form (sgemm/sgemm.h: Operation) as the rungs' own row-major N, N problem: the
// view that swaps A and B for column-major storage, and the leading dimension of an operand that
// must be copied transposed first. Read by the argument checks and by launch().
#pragma once

#include "sgemm/sgemm.h"

namespace sgemm {

// A transposed copy's leading dimension: a multiple of 4 floats, so that its rows start on
// 16-byte boundaries as TMA requires.
inline int padded(int n) { return (n + 3) / 4 * 4; }

// A problem in BLAS's general form seen as row-major: column-major C = op(A) op(B) is row-major
// C^T = op(B)^T op(A)^T, so A and B swap, and M and N, and nothing else changes. `a` and `b` are
// then the ops of gemm.A and gemm.B: T means that operand must be copied transposed before a
// rung can take it.
struct RowMajorView {
  Gemm gemm;
  Op a, b;
};

inline RowMajorView row_major_view(const Operation& operation, const Gemm& g) {
  if (operation.layout == Layout::row_major) return {g, operation.a, operation.b};
  return {Gemm{g.N, g.M, g.K, g.alpha, g.B, g.ldb, g.A, g.lda, g.beta, g.C, g.ldc}, operation.b,
          operation.a};
}

}  // namespace sgemm
