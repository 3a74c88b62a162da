// Rungs 12 and 13 prototype: checks and times kernels/12_mma_tf32.cu (TF32 mma.sync) and
// kernels/13_mma_3xtf32.cu (3xTF32 mma.sync) beside cuBLAS SGEMM and cuBLAS TF32, in one process.
//
//   1. odd shapes, padded and odd leading dimensions, pointers 4 bytes past 16-byte alignment,
//      beta != 0, beta == 0 over a C full of NaN; C's padding columns must stay untouched;
//      every launch runs twice and must repeat bit for bit:
//        exact mode  whole numbers in [-2, 2], alpha = 2, beta = -0.5: C must equal the FP64
//                    sum exactly (rung 12 too: whole numbers below 2^11 are TF32 numbers)
//        random mode uniform [-1, 1): rung 12 vs cuBLAS TF32 within
//                    (4 * 2^-10 + (2 sqrt(K) + 4) 2^-24) * scale, rung 13 vs cuBLAS SGEMM within
//                    (2 sqrt(K) + 4) 2^-24 * scale, scale = |alpha| sum_k |a||b| + |beta| |c0|
//   2. at 4096^3 and 8192^3: whole-number inputs must come out exact (vs DGEMM), and the
//      relative Frobenius error ||C - C64|| / ||C64|| of rungs 12, 13, cuBLAS SGEMM and cuBLAS
//      TF32 vs DGEMM on uniform [-1, 1) and wide-range (+-2^e, e uniform in [-10, 10)) inputs
//   3. times at 4096^3 and 8192^3 (and 4097^3: every ld odd) with CUDA events: warm-up, median
//      of `reps` launches, every variant and both cuBLAS references in the same run.
//
// Build and run (repository root; an H100 or H200):
//   nvcc -O3 -std=c++17 -arch=sm_90a -Xptxas -v -o proto experiments/rung12/proto.cu -lcublas
//   ./proto [reps]
// -DRUNG12='"file"' includes another rung 12 file (experiments: a variant made with sed).
#ifndef RUNG12
#define RUNG12 "../../kernels/12_mma_tf32.cu"
#endif
#include RUNG12
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "../../kernels/13_mma_3xtf32.cu"

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #x); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
#define CB(x)                                                                    \
  do {                                                                           \
    cublasStatus_t s_ = (x);                                                     \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                           \
      std::printf("cuBLAS error %d at %s:%d: %s\n", s_, __FILE__, __LINE__, #x); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

using Launch = cudaError_t (*)(int, int, int, float, const float*, int, const float*, int, float,
                               float*, int, cudaStream_t);
struct Variant {
  const char* name;
  Launch fn;
  int rung;  // 12: tf32 class, 13: fp32 class
};
namespace r12 = sgemm::mma_tf32;
namespace r13 = sgemm::mma_3xtf32;
const Variant kVariants[] = {
    {"r12 rung: 128x256x32 w64x64 s3", r12::launch, 12},
    {"r12 128x256x32 w64x64 s4", r12::launch_tile<128, 256, 32, 64, 64, 4>, 12},
    {"r12 256x128x32 w64x64 s3", r12::launch_tile<256, 128, 32, 64, 64, 3>, 12},
    {"r12 128x128x32 w64x64 s3 (2 blk/SM)", r12::launch_tile<128, 128, 32, 64, 64, 3>, 12},
    {"r12 128x256x32 w64x32 s3 (16 warps)", r12::launch_tile<128, 256, 32, 64, 32, 3>, 12},
    {"r12 128x256x64 w64x64 s2", r12::launch_tile<128, 256, 64, 64, 64, 2>, 12},
    {"r12 128x128x64 w64x64 s3", r12::launch_tile<128, 128, 64, 64, 64, 3>, 12},
    {"r13 rung: 128x256x32 w64x64 s3", r13::launch, 13},
    {"r13 128x256x32 w64x64 s4", r13::launch_tile<128, 256, 32, 64, 64, 4>, 13},
    {"r13 128x128x32 w64x64 s3 (2 blk/SM)", r13::launch_tile<128, 128, 32, 64, 64, 3>, 13},
    {"r13 256x128x32 w64x64 s3", r13::launch_tile<256, 128, 32, 64, 64, 3>, 13},
};

cublasHandle_t handle;
// Row-major C = alpha A B + beta C through cuBLAS's column-major view: C^T = B^T A^T.
void cublas_sgemm(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                  int ldb, float beta, float* C, int ldc, bool tf32) {
  CB(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, CUDA_R_32F, ldb, A,
                  CUDA_R_32F, lda, &beta, C, CUDA_R_32F, ldc,
                  tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

// ---- part 1: small shapes, host references

struct Case {
  int M, N, K, padA, padB, padC, off;  // off: floats past the allocation's 16-byte alignment
  float beta;                          // 0: C starts as NaN
};

int failures = 0;

void check_case(const Variant& v, const Case& c, bool exact, std::mt19937& rng) {
  const int lda = c.K + c.padA, ldb = c.N + c.padB, ldc = c.N + c.padC;
  const float alpha = exact ? 2.f : 1.25f, beta = c.beta == 0.f ? 0.f : (exact ? -0.5f : c.beta);
  const float pad = 12345.f;  // C's padding: must stay
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::uniform_int_distribution<int> w(-2, 2);
  auto gen = [&]() { return exact ? float(w(rng)) : u(rng); };
  std::vector<float> A(size_t(c.M) * lda, NAN), B(size_t(c.K) * ldb, NAN),
      C0(size_t(c.M) * ldc, pad);
  for (int i = 0; i < c.M; ++i)
    for (int k = 0; k < c.K; ++k) A[size_t(i) * lda + k] = gen();
  for (int k = 0; k < c.K; ++k)
    for (int j = 0; j < c.N; ++j) B[size_t(k) * ldb + j] = gen();
  for (int i = 0; i < c.M; ++i)
    for (int j = 0; j < c.N; ++j) C0[size_t(i) * ldc + j] = beta == 0.f ? NAN : gen();
  float *dA, *dB, *dC, *dR;
  CK(cudaMalloc(&dA, (A.size() + 4) * 4));
  CK(cudaMalloc(&dB, (B.size() + 4) * 4));
  CK(cudaMalloc(&dC, (C0.size() + 4) * 4));
  CK(cudaMalloc(&dR, (C0.size() + 4) * 4));
  CK(cudaMemcpy(dA + c.off, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB + c.off, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
  std::vector<float> got(C0.size()), again(C0.size()), ref(C0.size());
  auto run = [&](std::vector<float>& out) {
    CK(cudaMemcpy(dC + c.off, C0.data(), C0.size() * 4, cudaMemcpyHostToDevice));
    CK(v.fn(c.M, c.N, c.K, alpha, dA + c.off, lda, dB + c.off, ldb, beta, dC + c.off, ldc, 0));
    CK(cudaMemcpy(out.data(), dC + c.off, C0.size() * 4, cudaMemcpyDeviceToHost));
  };
  run(got);
  run(again);
  if (!exact) {
    CK(cudaMemcpy(dR + c.off, C0.data(), C0.size() * 4, cudaMemcpyHostToDevice));
    cublas_sgemm(c.M, c.N, c.K, alpha, dA + c.off, lda, dB + c.off, ldb, beta, dR + c.off, ldc,
                 v.rung == 12);
    CK(cudaMemcpy(ref.data(), dR + c.off, C0.size() * 4, cudaMemcpyDeviceToHost));
  }
  const double u24 = std::ldexp(1.0, -24), fp32 = (2 * std::sqrt(double(c.K)) + 4) * u24;
  long bad = 0, padBad = 0;
  double worst = 0;  // error / tolerance
  for (int i = 0; i < c.M; ++i) {
    for (int j = c.N; j < ldc; ++j) padBad += std::memcmp(&got[size_t(i) * ldc + j], &pad, 4) != 0;
    for (int j = 0; j < c.N; ++j) {
      double sum = 0, scale = 0;
      for (int k = 0; k < c.K; ++k) {
        const double a = A[size_t(i) * lda + k], b = B[size_t(k) * ldb + j];
        sum += a * b, scale += std::fabs(a * b);
      }
      const size_t at = size_t(i) * ldc + j;
      const double c0 = beta == 0.f ? 0.0 : C0[at];
      const double x = got[at];
      bool ok;
      if (exact) {
        ok = x == alpha * sum + beta * c0;
      } else {
        const double tol = (v.rung == 12 ? 4 * std::ldexp(1.0, -10) + fp32 : fp32) *
                           (std::fabs(alpha) * scale + std::fabs(beta * c0));
        const double err = std::fabs(x - ref[at]);
        ok = err <= tol;  // NaN fails
        if (tol > 0) worst = std::max(worst, err / tol);
      }
      if (!ok && bad++ < 3)
        std::printf("    (%d,%d) got %.9g want %.9g\n", i, j, x,
                    exact ? alpha * sum + beta * c0 : ref[at]);
    }
  }
  const bool same = std::memcmp(got.data(), again.data(), got.size() * 4) == 0;
  const bool pass = bad == 0 && padBad == 0 && same;
  failures += !pass;
  std::printf("  %-5s %-36s %4dx%4dx%4d pad %d,%d,%d off %d beta %-4g : %s",
              exact ? "exact" : "rand", v.name, c.M, c.N, c.K, c.padA, c.padB, c.padC, c.off, beta,
              pass ? "ok" : "FAIL");
  if (!exact) std::printf("  worst err/tol %.3f", worst);
  if (!pass) std::printf("  (bad %ld, padding touched %ld, repeatable %d)", bad, padBad, same);
  std::printf("\n");
  CK(cudaFree(dA));
  CK(cudaFree(dB));
  CK(cudaFree(dC));
  CK(cudaFree(dR));
}

// ---- part 2: large sizes, FP64 reference on the GPU

__device__ uint64_t mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// mode 0: uniform [-1, 1); 1: +-2^e, e uniform in [-10, 10); 2: whole numbers in [-2, 2]
__global__ void fill(float* x, double* xd, size_t n, uint64_t seed, int mode) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const uint64_t h = mix(seed * 0x100000001b3ull + i);
    const float u = float(h >> 40) * 0x1p-24f;  // [0, 1)
    float v;
    if (mode == 0)
      v = 2.f * u - 1.f;
    else if (mode == 1)
      v = ((h & 1) ? -1.f : 1.f) * exp2f(20.f * u - 10.f);
    else
      v = float(int(h % 5) - 2);
    x[i] = v;
    xd[i] = v;
  }
}
// sums[0] += (c - r)^2, sums[1] += r^2; sums[2] += (c != r) (the exact check)
__global__ void compare(const float* c, const double* r, size_t n, double* sums) {
  double e = 0, s = 0, bad = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const double d = double(c[i]) - r[i];
    e += d * d, s += r[i] * r[i], bad += !(double(c[i]) == r[i]);
  }
  for (int o = 16; o > 0; o /= 2) {
    e += __shfl_down_sync(~0u, e, o), s += __shfl_down_sync(~0u, s, o);
    bad += __shfl_down_sync(~0u, bad, o);
  }
  if (threadIdx.x % 32 == 0)
    atomicAdd(&sums[0], e), atomicAdd(&sums[1], s), atomicAdd(&sums[2], bad);
}

struct Big {
  int n;
  float *A, *B, *C;
  double *Ad, *Bd, *Cd, *sums;
  explicit Big(int n) : n(n) {
    const size_t e = size_t(n) * n;
    CK(cudaMalloc(&A, e * 4));
    CK(cudaMalloc(&B, e * 4));
    CK(cudaMalloc(&C, e * 4));
    CK(cudaMalloc(&Ad, e * 8));
    CK(cudaMalloc(&Bd, e * 8));
    CK(cudaMalloc(&Cd, e * 8));
    CK(cudaMalloc(&sums, 3 * 8));
  }
  ~Big() {
    cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(Ad), cudaFree(Bd), cudaFree(Cd), cudaFree(sums);
  }
  void inputs(int mode) {
    const size_t e = size_t(n) * n;
    fill<<<1024, 256>>>(A, Ad, e, 1, mode);
    fill<<<1024, 256>>>(B, Bd, e, 2, mode);
    CK(cudaGetLastError());
    const double one = 1, zero = 0;
    CB(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, Bd, n, Ad, n, &zero, Cd, n));
  }
  // {relative Frobenius error, elements not equal to the FP64 result}
  std::pair<double, double> error() {
    CK(cudaMemset(sums, 0, 24));
    compare<<<1024, 256>>>(C, Cd, size_t(n) * n, sums);
    double h[3];
    CK(cudaMemcpy(h, sums, 24, cudaMemcpyDeviceToHost));
    return {std::sqrt(h[0] / h[1]), h[2]};
  }
};

// What computes C in part 2 and 3: a variant, or cuBLAS (-1 SGEMM, -2 TF32).
void gemm(int which, int M, int N, int K, const float* A, const float* B, float* C, int ld) {
  if (which >= 0)
    CK(kVariants[which].fn(M, N, K, 1.f, A, ld, B, ld, 0.f, C, ld, 0));
  else
    cublas_sgemm(M, N, K, 1.f, A, ld, B, ld, 0.f, C, ld, which == -2);
}
const char* name_of(int which) {
  return which >= 0 ? kVariants[which].name : which == -1 ? "cuBLAS SGEMM" : "cuBLAS TF32";
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 15;
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int clock = 0, driver = 0, runtime = 0;
  cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, 0);
  cudaDriverGetVersion(&driver), cudaRuntimeGetVersion(&runtime);
  std::printf("GPU %s, %d SMs, max SM clock %d MHz, driver %d, runtime %d\n", p.name,
              p.multiProcessorCount, clock / 1000, driver, runtime);
  CB(cublasCreate(&handle));
  const int nv = sizeof(kVariants) / sizeof(kVariants[0]);

  std::printf("== part 1: shapes\n");
  const Case cases[] = {
      {1, 1, 1, 0, 0, 0, 0, 0.f},        {17, 33, 9, 0, 0, 0, 0, 0.5f},
      {127, 129, 131, 0, 0, 0, 0, 0.f},  {255, 257, 63, 0, 0, 0, 0, 0.75f},
      {255, 257, 63, 3, 5, 7, 0, 0.75f}, {255, 257, 63, 0, 0, 0, 1, 0.f},
      {255, 257, 63, 4, 4, 4, 1, 0.75f}, {256, 512, 128, 0, 0, 0, 0, 0.75f},
      {256, 512, 128, 4, 8, 4, 0, 0.f},  {300, 200, 1000, 1, 0, 2, 1, 0.f},
      {513, 300, 257, 0, 4, 1, 0, -1.f}, {256, 512, 130, 2, 0, 0, 0, 0.75f},
      {100, 510, 64, 0, 2, 2, 0, 0.f},
  };
  std::mt19937 rng(42);
  for (int i = 0; i < nv; ++i)
    for (const Case& c : cases)
      for (bool exact : {true, false}) check_case(kVariants[i], c, exact, rng);

  std::printf("== part 2: exactness and error vs FP64 (DGEMM), relative Frobenius\n");
  const int shown[] = {0, 7, -1, -2};
  for (int n : {4096, 8192}) {
    Big big(n);
    big.inputs(2);
    for (int w : {0, 7}) {
      gemm(w, n, n, n, big.A, big.B, big.C, n);
      const double bad = big.error().second;
      failures += bad != 0;
      std::printf("  %d^3 whole numbers: %-36s %s (%.0f elements differ from DGEMM)\n", n,
                  name_of(w), bad == 0 ? "exact" : "NOT EXACT", bad);
    }
    for (int mode : {0, 1}) {
      big.inputs(mode);
      double errs[4];
      for (int i = 0; i < 4; ++i) {
        gemm(shown[i], n, n, n, big.A, big.B, big.C, n);
        errs[i] = big.error().first;
      }
      std::printf("  %d^3 %-8s r12 %.3e  r13 %.3e  SGEMM %.3e  TF32 %.3e  r13/SGEMM %.2f%s\n", n,
                  mode == 0 ? "uniform" : "wide", errs[0], errs[1], errs[2], errs[3],
                  errs[1] / errs[2], errs[1] / errs[2] <= 1.5 ? "" : "  (over 1.5: FAIL)");
      failures += errs[1] / errs[2] > 1.5;
    }
  }

  std::printf("== part 3: time (median of %d, TFLOP/s = 2MNK / t)\n", reps);
  for (int n : {4096, 4097, 8192}) {
    Big big(n);
    big.inputs(0);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    auto time = [&](int w) {
      for (int i = 0; i < 3; ++i) gemm(w, n, n, n, big.A, big.B, big.C, n);
      std::vector<float> ms(reps);
      for (float& m : ms) {
        CK(cudaEventRecord(e0));
        gemm(w, n, n, n, big.A, big.B, big.C, n);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&m, e0, e1));
      }
      std::sort(ms.begin(), ms.end());
      return 2.0 * n * n * double(n) / (ms[reps / 2] * 1e-3) / 1e12;
    };
    const double sgemm = time(-1), tf32 = time(-2);
    std::printf("  %d^3  cuBLAS SGEMM %6.1f  cuBLAS TF32 %6.1f TFLOP/s\n", n, sgemm, tf32);
    for (int i = 0; i < nv; ++i) {
      if (n == 4097 && i != 0 && i != 7) continue;
      const double t = time(i);
      std::printf("  %d^3  %-36s %6.1f TFLOP/s  %6.1f%% of SGEMM  %6.1f%% of TF32\n", n,
                  kVariants[i].name, t, 100 * t / sgemm, 100 * t / tf32);
    }
  }
  std::printf("%s (%d failures)\n", failures ? "FAILED" : "ALL CHECKS PASSED", failures);
  return failures != 0;
}
