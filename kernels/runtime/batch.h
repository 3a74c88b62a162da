// The kernels' runtime, a batch: how a kernel instantiated for batches (kBatched = true) finds
// its problem. The grid's z is the problem; each operand comes from a pointer array read on the
// device (cublasSgemmBatched's form) or at a stride from the one the kernel is passed
// (cublasSgemmStridedBatched's; a stride of 0 shares the operand). A persistent kernel, whose
// blocks walk the tiles of every problem, names the problem itself. A batch longer than a grid's
// 65535 problems is several launches, each given its first problem's pointers (or arrays).
// Instantiations with kBatched = false never read it: their machine code is the one-problem
// kernel's.
#pragma once

#include <cuda_runtime_api.h>

namespace sgemm::runtime {

struct Batch {
  const float* const* A = nullptr;  // device arrays of the problems' pointers, or null: strided
  const float* const* B = nullptr;
  float* const* C = nullptr;
  long long strideA = 0, strideB = 0, strideC = 0;  // elements between problems
};

#ifdef __CUDACC__
// A, B, C of problem z, from those of problem 0 (the strided form) or the arrays.
__device__ __forceinline__ void select_problem(const Batch& b, long long z, const float*& A,
                                               const float*& B, float*& C) {
  A = b.A ? b.A[z] : A + z * b.strideA;
  B = b.B ? b.B[z] : B + z * b.strideB;
  C = b.C ? b.C[z] : C + z * b.strideC;
}
// ... of this block's problem: the grid's z.
__device__ __forceinline__ void select_problem(const Batch& b, const float*& A, const float*& B,
                                               float*& C) {
  select_problem(b, blockIdx.z, A, B, C);
}
#endif

// Problems one launch takes: the grid's z.
constexpr int kMaxGridZ = 65535;

}  // namespace sgemm::runtime
