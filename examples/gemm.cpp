// The one call from C++, start to finish: allocate, copy, multiply, check the status, compare
// with cuBLAS SGEMM, and check every element against FP32's componentwise bound
// |c - c64| <= gamma_K * sum_k |a_ik||b_kj| with a reference in double.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "sgemm/sgemm.h"

namespace {

constexpr int kNoGpu = 77;  // the exit status of a machine without a GPU

bool ok(cudaError_t err, const char* what) {
  if (err != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
  return err == cudaSuccess;
}

bool ok(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) std::fprintf(stderr, "%s: cuBLAS status %d\n", what, status);
  return status == CUBLAS_STATUS_SUCCESS;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: nothing to run\n");
    return kNoGpu;
  }
  const int M = 1000, N = 777, K = 1531;  // row-major C (M x N) = A (M x K) B (K x N)
  std::mt19937 random(2026);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);  // full-precision values
  std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N), reference(C.size());
  for (float& x : A) x = uniform(random);
  for (float& x : B) x = uniform(random);

  float *dA = nullptr, *dB = nullptr, *dC = nullptr, *dReference = nullptr;
  if (!ok(cudaMalloc(&dA, A.size() * sizeof(float)), "cudaMalloc A") ||
      !ok(cudaMalloc(&dB, B.size() * sizeof(float)), "cudaMalloc B") ||
      !ok(cudaMalloc(&dC, C.size() * sizeof(float)), "cudaMalloc C") ||
      !ok(cudaMalloc(&dReference, C.size() * sizeof(float)), "cudaMalloc reference") ||
      !ok(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice), "copy A") ||
      !ok(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice), "copy B"))
    return 1;

  // The one call: C = 1 * A B + 0 * C, row-major, as BLAS would take it.
  std::string why;
  const sgemm::Status status =
      sgemm::gemm(sgemm::Layout::row_major, sgemm::Op::N, sgemm::Op::N, M, N, K, 1.f, dA, K, dB, N,
                  0.f, dC, N, /*stream*/ nullptr, &why);
  if (status != sgemm::Status::ok) {
    std::fprintf(stderr, "sgemm::gemm: %s: %s\n", sgemm::to_string(status), why.c_str());
    return status == sgemm::Status::unsupported_gpu ? kNoGpu : 1;
  }

  // cuBLAS SGEMM in true FP32 (column-major: C^T = B^T A^T).
  cublasHandle_t handle = nullptr;
  const float one = 1.f, zero = 0.f;
  if (!ok(cublasCreate(&handle), "cublasCreate") ||
      !ok(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, dB, N, dA, K, &zero,
                      dReference, N),
          "cublasSgemm") ||
      !ok(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost), "copy C") ||
      !ok(cudaMemcpy(reference.data(), dReference, C.size() * sizeof(float),
                     cudaMemcpyDeviceToHost),
          "copy cuBLAS's C"))
    return 1;

  // Every element against FP64, in units of u = 2^-24 of sum_k |a_ik||b_kj|.
  const double u = std::ldexp(1.0, -24), gamma = K * u / (1 - K * u);
  double worst = 0, worstCublas = 0;
  long long outside = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double exact = 0, magnitude = 0;
      for (int k = 0; k < K; ++k) {
        const double p = double(A[size_t(i) * K + k]) * B[size_t(k) * N + j];
        exact += p, magnitude += std::fabs(p);
      }
      const double error = std::fabs(C[size_t(i) * N + j] - exact);
      outside += !(error <= gamma * magnitude);  // NaN counts as outside
      worst = std::fmax(worst, error / (u * magnitude));
      worstCublas =
          std::fmax(worstCublas, std::fabs(reference[size_t(i) * N + j] - exact) / (u * magnitude));
    }
  std::printf(
      "%d x %d x %d: largest error %.2f u of sum |a||b| (cuBLAS SGEMM %.2f u); "
      "%lld elements outside gamma_K sum |a||b|\n",
      M, N, K, worst, worstCublas, outside);
  cublasDestroy(handle);
  cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dReference);
  return outside == 0 ? 0 : 1;
}
