// Rung 14 prototype: checks and times kernels/14_wgmma_3xtf32.cu (3xTF32 on wgmma + TMA) in
// several tile variants against cuBLAS SGEMM (true FP32) and cuBLAS TF32, in the same process.
//
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v \
//        -o proto14 experiments/rung14/proto.cu -lcublas
//   ./proto14            # checks (odd shapes, lds, offsets, beta, NaN C, exact, random),
//                        # FP64 errors at 4096 and 8192, timing at 4096^3 and 8192^3
//   ./proto14 quick      # checks only
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

// The rung's file as it was when these runs were made (commit 06a6daa; see README.md): it has
// since dropped the tile variants (MI, BN = 192 and 256) this prototype compares.
#include "14_wgmma_3xtf32.cu"

#define CHECK_CUDA(x)                                                                          \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)
#define CHECK_CUBLAS(x)                                                                       \
  do {                                                                                        \
    cublasStatus_t s_ = (x);                                                                  \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                        \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, (int)s_); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

namespace w = sgemm::wgmma_3xtf32;

using Launch = cudaError_t (*)(int, int, int, float, const float*, int, const float*, int, float,
                               float*, int, cudaStream_t, int);
using Multiply = cudaError_t (*)(int, int, int, float, const w::Split&, float, float*, int,
                                 cudaStream_t, int);
struct Variant {
  const char* name;
  Launch launch;
  Multiply multiply;
  int groupRows;
};
#define VARIANT(name, BN, BK, S, MI, P, G) \
  { name, w::launch_tile<BN, BK, S, MI, P>, w::multiply<BN, BK, S, MI, P>, G }
const Variant kVariants[] = {
    VARIANT("128x128 BK32 S3 P4 (default)", 128, 32, 3, 1, 4, 8),
    VARIANT("128x128 BK32 S3 P4 g16", 128, 32, 3, 1, 4, 16),
    VARIANT("128x128 BK32 S3 P2", 128, 32, 3, 1, 2, 8),
    VARIANT("128x128 BK16 S6 P4 (run 2)", 128, 16, 6, 1, 4, 8),
    VARIANT("128x128 BK32 S3 P0", 128, 32, 3, 1, 0, 8),
    VARIANT("128x256 BK16 S4 P0 (run 1)", 256, 16, 4, 1, 0, 8),
};
constexpr int kVariantCount = sizeof kVariants / sizeof kVariants[0];

// A deterministic hash-based generator, on the GPU (8192^2 inputs in milliseconds).
__device__ __forceinline__ double uniform01(unsigned long long i, unsigned seed) {
  unsigned long long x = i * 0x9E3779B97F4A7C15ull + seed * 0xD1B54A32D192ED03ull + 1;
  x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 27, x *= 0x94D049BB133111EBull, x ^= x >> 33;
  return (x >> 11) * (1.0 / 9007199254740992.0);
}
// kind 0: uniform [-1, 1); 1: +-2^e, e uniform real in [-10, 10); 2: integers in [-2, 2]
__global__ void fill(float* X, long long n, int kind, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const double u = uniform01(i, seed), v = uniform01(i, seed ^ 0x5bd1e995u);
    float x;
    if (kind == 0)
      x = float(2 * u - 1);
    else if (kind == 1)
      x = float((v < 0.5 ? -1 : 1) * exp2(20 * u - 10));
    else
      x = float(min(4, int(u * 5)) - 2);
    X[i] = x;
  }
}
__global__ void to_double(const float* X, double* D, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    D[i] = X[i];
}
// sums[0] += (c - d)^2, sums[1] += d^2 over an M x N matrix (C leading dimension ldc)
__global__ void frobenius(int M, int N, const float* C, int ldc, const double* D, double* sums) {
  double e = 0, r = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (long long)M * N;
       i += (long long)gridDim.x * blockDim.x) {
    const double d = D[i], c = C[i / N * ldc + i % N];
    e += (c - d) * (c - d), r += d * d;
  }
  for (int o = 16; o; o >>= 1) e += __shfl_down_sync(~0u, e, o), r += __shfl_down_sync(~0u, r, o);
  if (threadIdx.x % 32 == 0) atomicAdd(&sums[0], e), atomicAdd(&sums[1], r);
}
// ref = sum_k a b in double, bound = sum_k |a b|
__global__ void reference(int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                          double* ref, double* bound) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (col >= N || row >= M) return;
  double s = 0, b = 0;
  for (int k = 0; k < K; ++k) {
    const double p = double(A[(size_t)row * lda + k]) * double(B[(size_t)k * ldb + col]);
    s += p, b += fabs(p);
  }
  ref[(size_t)row * N + col] = s, bound[(size_t)row * N + col] = b;
}

cublasHandle_t handle;
// Row-major C = alpha A B + beta C through cuBLAS's column-major view: C^T = B^T A^T.
void cublas_sgemm(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                  int ldb, float beta, float* C, int ldc, bool tf32 = false) {
  if (!tf32) {
    CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, ldb, A, lda,
                             &beta, C, ldc));
  } else {
    CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, CUDA_R_32F, ldb,
                              A, CUDA_R_32F, lda, &beta, C, CUDA_R_32F, ldc,
                              CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
  }
}

struct Problem {
  int M, N, K, lda, ldb, ldc, offA, offB, offC;  // off*: floats past a 256-byte boundary
};
int failures = 0;

// One check: fill, run, compare. exact: integers in [-2, 2], result must equal
// alpha*sum + beta*C0 exactly. Otherwise uniform [-1, 1) compared with cuBLAS SGEMM within
// (2 sqrt(K) + 4) 2^-24 |alpha| sum|a||b| (+ |beta C0| 2^-23). beta == 0: C starts as NaN.
// Columns N..ldc-1 of C must keep their start value.
void check(const Variant& v, Problem p, bool exact, float alpha, float beta) {
  const size_t nA = (size_t)p.M * p.lda + p.offA, nB = (size_t)p.K * p.ldb + p.offB,
               nC = (size_t)p.M * p.ldc + p.offC;
  float *A0, *B0, *C0, *R0;
  double *ref, *bound;
  CHECK_CUDA(cudaMalloc(&A0, nA * 4));
  CHECK_CUDA(cudaMalloc(&B0, nB * 4));
  CHECK_CUDA(cudaMalloc(&C0, nC * 4));
  CHECK_CUDA(cudaMalloc(&R0, nC * 4));
  CHECK_CUDA(cudaMalloc(&ref, (size_t)p.M * p.N * 8));
  CHECK_CUDA(cudaMalloc(&bound, (size_t)p.M * p.N * 8));
  float *A = A0 + p.offA, *B = B0 + p.offB, *C = C0 + p.offC, *R = R0 + p.offC;
  const int kind = exact ? 2 : 0;
  fill<<<256, 256>>>(A0, nA, kind, 1 + p.M);
  fill<<<256, 256>>>(B0, nB, kind, 2 + p.N);
  std::vector<float> hC0(nC);
  {
    std::mt19937 rng(p.M * 31 + p.N);
    std::uniform_int_distribution<int> small(-3, 3);
    for (auto& x : hC0) x = beta == 0.f ? NAN : float(small(rng));
  }
  CHECK_CUDA(cudaMemcpy(C0, hC0.data(), nC * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(R0, hC0.data(), nC * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(
      v.launch(p.M, p.N, p.K, alpha, A, p.lda, B, p.ldb, beta, C, p.ldc, nullptr, v.groupRows));
  CHECK_CUDA(cudaGetLastError());
  cublas_sgemm(p.M, p.N, p.K, alpha, A, p.lda, B, p.ldb, beta, R, p.ldc);
  reference<<<dim3((p.N + 127) / 128, p.M), 128>>>(p.M, p.N, p.K, A, p.lda, B, p.ldb, ref, bound);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> hC(nC), hR(nC);
  std::vector<double> hRef((size_t)p.M * p.N), hBound((size_t)p.M * p.N);
  CHECK_CUDA(cudaMemcpy(hC.data(), C0, nC * 4, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(hR.data(), R0, nC * 4, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(hRef.data(), ref, hRef.size() * 8, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(hBound.data(), bound, hBound.size() * 8, cudaMemcpyDeviceToHost));
  // Run again: the result must repeat bit for bit.
  float* C2;
  CHECK_CUDA(cudaMalloc(&C2, nC * 4));
  CHECK_CUDA(cudaMemcpy(C2, hC0.data(), nC * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(v.launch(p.M, p.N, p.K, alpha, A, p.lda, B, p.ldb, beta, C2 + p.offC, p.ldc, nullptr,
                      v.groupRows));
  std::vector<float> hC2(nC);
  CHECK_CUDA(cudaMemcpy(hC2.data(), C2, nC * 4, cudaMemcpyDeviceToHost));
  const bool repeat = std::memcmp(hC.data(), hC2.data(), nC * 4) == 0;
  long bad = 0;
  double worst = 0;  // max |err| / tolerance (random) or max |err| (exact)
  const double u = std::ldexp(1.0, -24);
  for (int i = 0; i < p.M; ++i)
    for (int j = 0; j < p.N; ++j) {
      const size_t e = (size_t)p.offC + (size_t)i * p.ldc + j, r = (size_t)i * p.N + j;
      const double c0 = beta == 0.f ? 0.0 : hC0[e];
      const double got = hC[e];
      double want, tol;
      if (exact) {
        want = (double)alpha * hRef[r] + (double)beta * c0, tol = 0;
      } else {
        want = hR[e];
        tol = (2 * std::sqrt((double)p.K) + 4) * u * std::fabs(alpha) * hBound[r] +
              2 * u * std::fabs(beta * c0) + 1e-38;
      }
      const double err = std::fabs(got - want);
      if (!(err <= tol)) {
        if (bad < 3)
          std::printf("    C[%d][%d] = %.9g, want %.9g (tolerance %.3g)\n", i, j, got, want, tol);
        ++bad;
      }
      if (std::isfinite(err)) worst = std::max(worst, exact ? err : err / tol);
    }
  long padding = 0;  // columns N..ldc-1 of every row, and the floats before C
  for (size_t e = 0; e < nC; ++e) {
    const size_t row = e < (size_t)p.offC ? 0 : (e - p.offC) / p.ldc;
    const size_t col = e < (size_t)p.offC ? 0 : (e - p.offC) % p.ldc;
    const bool outside = e < (size_t)p.offC || col >= (size_t)p.N || row >= (size_t)p.M;
    if (outside && std::memcmp(&hC[e], &hC0[e], 4) != 0) ++padding;
  }
  const bool ok = bad == 0 && padding == 0 && repeat;
  if (!ok) ++failures;
  std::printf("  %-30s %5dx%5dx%5d ld %d/%d/%d off %d/%d/%d %-6s a=%g b=%g  %s  (%s %.3g%s%s)\n",
              v.name, p.M, p.N, p.K, p.lda, p.ldb, p.ldc, p.offA, p.offB, p.offC,
              exact ? "exact" : "random", alpha, beta, ok ? "pass" : "FAIL",
              exact ? "max err" : "max err/tol", worst, padding ? ", PADDING WRITTEN" : "",
              repeat ? "" : ", NOT REPEATABLE");
  cudaFree(A0), cudaFree(B0), cudaFree(C0), cudaFree(R0), cudaFree(C2), cudaFree(ref),
      cudaFree(bound);
}

template <class F>
float median_ms(F f, int reps) {
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < 2; ++i) f();  // warm-up
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CHECK_CUDA(cudaEventRecord(a));
    f();
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float ms;
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(a), cudaEventDestroy(b);
  return t[t.size() / 2];
}

// Relative Frobenius errors vs a DGEMM on the same inputs, for rung 14, cuBLAS SGEMM and
// cuBLAS TF32, on uniform and wide-range inputs; every variant is also compared bit for bit
// with the default one.
void accuracy(int n) {
  const long long nn = (long long)n * n;
  float *A, *B, *C, *D0;
  double *dA, *dB, *dC, *sums;
  CHECK_CUDA(cudaMalloc(&A, nn * 4));
  CHECK_CUDA(cudaMalloc(&B, nn * 4));
  CHECK_CUDA(cudaMalloc(&C, nn * 4));
  CHECK_CUDA(cudaMalloc(&D0, nn * 4));
  CHECK_CUDA(cudaMalloc(&dA, nn * 8));
  CHECK_CUDA(cudaMalloc(&dB, nn * 8));
  CHECK_CUDA(cudaMalloc(&dC, nn * 8));
  CHECK_CUDA(cudaMalloc(&sums, 16));
  for (int kind = 0; kind < 2; ++kind) {
    fill<<<1024, 256>>>(A, nn, kind, 11 + n);
    fill<<<1024, 256>>>(B, nn, kind, 12 + n);
    to_double<<<1024, 256>>>(A, dA, nn);
    to_double<<<1024, 256>>>(B, dB, nn);
    const double one = 1, zero = 0;
    CHECK_CUBLAS(
        cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dB, n, dA, n, &zero, dC, n));
    auto err = [&] {
      CHECK_CUDA(cudaMemset(sums, 0, 16));
      frobenius<<<1024, 256>>>(n, n, C, n, dC, sums);
      double h[2];
      CHECK_CUDA(cudaMemcpy(h, sums, 16, cudaMemcpyDeviceToHost));
      return std::sqrt(h[0] / h[1]);
    };
    cublas_sgemm(n, n, n, 1.f, A, n, B, n, 0.f, C, n);
    const double eS = err();
    cublas_sgemm(n, n, n, 1.f, A, n, B, n, 0.f, C, n, true);
    const double eT = err();
    CHECK_CUDA(w::launch(n, n, n, 1.f, A, n, B, n, 0.f, C, n, nullptr));
    const double e14 = err();
    const bool pass = e14 <= 1.5 * eS;
    if (!pass) ++failures;
    std::printf(
        "  %5d^3 %-10s rel. Frobenius error vs FP64: rung14 %.3e  cuBLAS SGEMM %.3e  cuBLAS TF32 "
        "%.3e  rung14/SGEMM %.2f %s\n",
        n, kind == 0 ? "uniform" : "wide-range", e14, eS, eT, e14 / eS,
        pass ? "ok (<= 1.5)" : "FAIL (> 1.5)");
    CHECK_CUDA(cudaMemcpy(D0, C, nn * 4, cudaMemcpyDeviceToDevice));
    std::vector<float> h0(nn), h1(nn);
    CHECK_CUDA(cudaMemcpy(h0.data(), D0, nn * 4, cudaMemcpyDeviceToHost));
    for (int v = 0; v < kVariantCount; ++v) {
      CHECK_CUDA(kVariants[v].launch(n, n, n, 1.f, A, n, B, n, 0.f, C, n, nullptr,
                                     kVariants[v].groupRows));
      const double ev = err();
      CHECK_CUDA(cudaMemcpy(h1.data(), C, nn * 4, cudaMemcpyDeviceToHost));
      const bool same = std::memcmp(h0.data(), h1.data(), nn * 4) == 0;
      std::printf("  %5d^3 %-10s   variant %-30s error %.3e = %.2fx SGEMM%s\n", n,
                  kind == 0 ? "uniform" : "wide-range", kVariants[v].name, ev, ev / eS,
                  same ? " (bitwise equal to rung 14's launch)" : "");
    }
  }
  cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(D0), cudaFree(dA), cudaFree(dB), cudaFree(dC),
      cudaFree(sums);
}

void timing(int n, int reps) {
  const long long nn = (long long)n * n;
  float *A, *B, *C, *W;
  CHECK_CUDA(cudaMalloc(&A, nn * 4));
  CHECK_CUDA(cudaMalloc(&B, nn * 4));
  CHECK_CUDA(cudaMalloc(&C, nn * 4));
  CHECK_CUDA(cudaMalloc(&W, w::split_bytes(n, n, n)));
  fill<<<1024, 256>>>(A, nn, 0, 5);
  fill<<<1024, 256>>>(B, nn, 0, 6);
  const double flops = 2.0 * n * n * n;
  auto tf = [&](float ms) { return flops / (ms * 1e-3) / 1e12; };
  const float msS = median_ms([&] { cublas_sgemm(n, n, n, 1.f, A, n, B, n, 0.f, C, n); }, reps);
  const float msT =
      median_ms([&] { cublas_sgemm(n, n, n, 1.f, A, n, B, n, 0.f, C, n, true); }, reps);
  std::printf("  %5d^3 cuBLAS SGEMM %8.3f ms %7.1f TFLOP/s | cuBLAS TF32 %8.3f ms %7.1f TFLOP/s\n",
              n, msS, tf(msS), msT, tf(msT));
  const w::Split s = w::split_layout(W, n, n, n);
  const float msSplit =
      median_ms([&] { CHECK_CUDA(w::split_operands(n, n, n, A, n, B, n, s, nullptr)); }, reps);
  const double bytes = 6.0 * nn * 4;  // reads A, B; writes four planes
  std::printf("  %5d^3 split pre-pass %8.3f ms (%.0f GB/s)\n", n, msSplit,
              bytes / (msSplit * 1e-3) / 1e9);
  for (int v = 0; v < kVariantCount; ++v) {
    const Variant& x = kVariants[v];
    const float msAll = median_ms(
        [&] { CHECK_CUDA(x.launch(n, n, n, 1.f, A, n, B, n, 0.f, C, n, nullptr, x.groupRows)); },
        reps);
    const float msMul = median_ms(
        [&] { CHECK_CUDA(x.multiply(n, n, n, 1.f, s, 0.f, C, n, nullptr, x.groupRows)); }, reps);
    std::printf(
        "  %5d^3 %-30s total %8.3f ms %7.1f TFLOP/s = %.2fx SGEMM | main kernel %8.3f ms %7.1f "
        "TFLOP/s | split share %.1f%%\n",
        n, x.name, msAll, tf(msAll), msS / msAll, msMul, tf(msMul),
        100.0 * (msAll - msMul) / msAll);
  }
  const float msS2 = median_ms([&] { cublas_sgemm(n, n, n, 1.f, A, n, B, n, 0.f, C, n); }, reps);
  std::printf("  %5d^3 cuBLAS SGEMM again %8.3f ms %7.1f TFLOP/s\n", n, msS2, tf(msS2));
  cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(W);
}

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "quick") == 0;
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0, clock = 0;
  cudaDriverGetVersion(&driver), cudaRuntimeGetVersion(&runtime);
  cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, 0);
  std::printf("%s, %d SMs, max SM clock %d MHz, driver %d, runtime %d\n", prop.name,
              prop.multiProcessorCount, clock / 1000, driver, runtime);
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));  // SGEMM: true FP32

  std::printf("checks\n");
  const Problem shapes[] = {
      {1, 1, 1, 1, 1, 1, 0, 0, 0},
      {17, 33, 9, 9, 33, 33, 0, 0, 0},
      {127, 129, 131, 131, 129, 129, 0, 0, 0},
      {300, 257, 1000, 1000, 257, 257, 0, 0, 0},
      {300, 257, 1000, 1003, 261, 263, 1, 1, 1},  // padded lds, odd, pointers 4 bytes past 16
      {256, 512, 256, 256, 512, 512, 0, 0, 0},
      {520, 700, 333, 333, 701, 700, 1, 0, 1},
      {1024, 1024, 1024, 1024, 1024, 1024, 0, 0, 0},
  };
  for (int v = 0; v < kVariantCount; ++v) {
    const bool all = v == 0;  // the default variant gets every check; others a subset
    for (const Problem& p : shapes) {
      if (!all && p.M != 300 && p.M != 17) continue;
      check(kVariants[v], p, true, 1.f, 0.f);
      check(kVariants[v], p, false, 1.f, 0.f);
      if (all) {
        check(kVariants[v], p, true, 0.5f, 2.f);
        check(kVariants[v], p, false, -1.5f, 0.75f);
      }
    }
  }
  std::printf("checks: %d failures\n", failures);
  if (quick) return failures != 0;
  std::printf("accuracy\n");
  accuracy(4096);
  accuracy(8192);
  std::printf("timing (median of reps, 2 warm-ups)\n");
  timing(4096, 20);
  timing(8192, 10);
  std::printf("done: %d failures\n", failures);
  CHECK_CUBLAS(cublasDestroy(handle));
  return failures != 0;
}
