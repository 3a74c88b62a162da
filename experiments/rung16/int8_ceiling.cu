// How fast is cuBLAS's own INT8 GEMM at the shapes rung 16 multiplies, beside rung 16's? One
// plane of rung 16 is an M x N x K product of signed bytes, both operands K-contiguous, INT32
// sums. cuBLAS (cublasGemmEx, CUDA_R_8I in, CUDA_R_32I out, column-major C^T = B^T A^T with
// both operands transposed: "TN", the layout its INT8 kernels require) on the same shape, timed
// with events over back-to-back runs after warm-up (sustained: the card at its power cap), and
// once alone (ncu). Seven planes of it are rung 16's GEMM at equal speed.
//   nvcc -O3 -std=c++17 -arch=sm_90a experiments/rung16/int8_ceiling.cu -lcublas -o int8_ceiling
//   ./int8_ceiling 4096 8192 16384
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                 \
  do {                                                                           \
    if (auto e = (x); e != 0) {                                                  \
      std::fprintf(stderr, "%s failed (%d) at line %d\n", #x, int(e), __LINE__); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {4096, 8192};
  cublasHandle_t handle;
  CHECK(cublasCreate(&handle));
  for (int n : sizes) {
    const size_t elements = static_cast<size_t>(n) * n;
    int8_t *A, *B;
    int32_t* C;
    CHECK(cudaMalloc(&A, elements));
    CHECK(cudaMalloc(&B, elements));
    CHECK(cudaMalloc(&C, elements * 4));
    CHECK(cudaMemset(A, 0x35, elements));  // values alike in every byte: the tensor cores' power
    CHECK(cudaMemset(B, 0x5b, elements));  // depends on the bits; these toggle about half
    const int32_t one = 1, zero = 0;
    auto gemm = [&] {
      CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, B, CUDA_R_8I, n, A,
                         CUDA_R_8I, n, &zero, C, CUDA_R_32I, n, CUBLAS_COMPUTE_32I,
                         CUBLAS_GEMM_DEFAULT));
    };
    for (int i = 0; i < 5; ++i) gemm();
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    const int reps = n >= 16384 ? 20 : 100;
    CHECK(cudaEventRecord(start));
    for (int i = 0; i < reps; ++i) gemm();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    const double per = ms / reps, tops = 2.0 * n * n * double(n) / per / 1e9;
    std::printf("%5d^3 INT8 cuBLAS: %.3f ms a GEMM (%.0f TOPS sustained), 7 planes %.2f ms\n", n,
                per, tops, 7 * per);
    CHECK(cudaFree(A));
    CHECK(cudaFree(B));
    CHECK(cudaFree(C));
  }
  CHECK(cublasDestroy(handle));
  return 0;
}
