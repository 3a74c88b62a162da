// Build and run: experiments/batched/floors.sh (one GPU call), or by hand
//   nvcc -O3 -std=c++17 -arch=sm_90a -Iinclude -Ikernels experiments/batched/floors.cu \
//     -o floors -lcublas
//   ./floors 1024
//
// Where does 1024 x 64^3 lose its time? The FFMA tiles (library/ffma_batched.cu, 64 tile) took
// 21.3 us on an H200 against 8.6 us of FFMA issue and about 8 us of DRAM reads: neither pipe
// near busy. This program times, in one process against cublasSgemmStridedBatched, variants of
// the tile kernel specialized for full 64 x 64 x 64 problems (lda = ldb = ldc = 64, alpha 1,
// beta 0), so that the floors and each candidate change are measured apart:
//   floors          every problem reading the same A and B (strides 0: the data in L2, the
//                   compute floor); the copies and stores without products (the memory floor);
//                   an empty kernel of as many blocks (the launch floor)
//   the pipeline    steps of 8, 16 or 32 k, 2 to 6 of them in shared memory; an L2 prefetch of
//                   a block's whole A and B as it starts
//   the warps       two or four problems a block; 4 x 8 or 4 x 4 elements a thread
// Every variant that multiplies is checked against cuBLAS (largest |difference| / max |c|).
// Then timelines of a few (one launch each, %globaltimer stamps of each problem's first thread):
// when a problem starts, when its first step has landed, when its products are done, when its
// stores are issued; how many problems an SM holds and how many warps each scheduler.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

// The library's kernel itself (built here with -I include -I kernels), to time it in this
// harness beside the specialized variants.
#include "../../library/ffma_batched.cu"

#define CHECK(x)                                                                     \
  do {                                                                               \
    cudaError_t e = (x);                                                             \
    if (e != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)
#define CHECK_BLAS(x)                                                    \
  do {                                                                   \
    if ((x) != CUBLAS_STATUS_SUCCESS) {                                  \
      std::fprintf(stderr, "%s:%d cuBLAS failed\n", __FILE__, __LINE__); \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

constexpr int kN = 64;  // M = N = K = lda = ldb = ldc

__device__ __forceinline__ void copy4(float* dst, const float* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(src)
               : "memory");
}
__device__ __forceinline__ void copy16(float* dst, const float* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(src)
               : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wait_pending() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}
__device__ __forceinline__ void prefetch_l2(const float* p, unsigned bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(p), "r"(bytes) : "memory");
}

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}
// The timeline of a launch: where kStamps is set, thread 0 of each block writes when it starts,
// when its first step has landed, when its products are done and when its stores are issued.
__device__ unsigned long long stamps[4096][4];
__device__ bool kStamps = false;

__device__ unsigned where[4096][3];  // the SM, and the warp slots of a problem's first two warps

__device__ __forceinline__ unsigned sm_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %smid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned warp_slot() {
  unsigned r;
  asm volatile("mov.u32 %0, %warpid;" : "=r"(r));
  return r;
}

// TM x TN elements a thread, in groups of 4 rows (columns) spaced 256 / TM (256 / TN) apart, as
// the library's kernel; kStep k a step, kStages steps in shared memory.
// kP problems a block, each on its own threads and planes.
// kGeneral adds the library kernel's generality, a bit each, with the shape, alpha and beta read
// at run time (rt* below) so that nothing folds: kEpilogue C = alpha AB + beta C with bounds and
// alignment tests; kRuntimeK the loop's length from K; kArrays the problem's pointers through
// a test for pointer arrays; kZfill copies that may zero-fill, on the library's two paths.
enum : int { kEpilogue = 1, kRuntimeK = 2, kArrays = 4, kZfill = 8 };
__device__ int rtM = kN, rtN = kN, rtK = kN;
__device__ float rtAlpha = 1.f, rtBeta = 0.f;
__device__ const float* const* rtArrays = nullptr;

__device__ __forceinline__ void copy4z(float* dst, const float* src, bool inside) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(__cvta_generic_to_global(src)), "r"(inside ? 4 : 0)
               : "memory");
}
__device__ __forceinline__ void copy16z(float* dst, const float* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(__cvta_generic_to_global(src)), "r"(bytes)
               : "memory");
}

template <int TM, int TN, int kStep, int kStages, bool kPrefetch, bool kCompute, int kMinBlocks,
          int kP = 1, int kGeneral = 0>
__global__ void __launch_bounds__(kP*(kN / TM) * (kN / TN), kMinBlocks)
    tiles(const float* A, const float* B, float* C, long long sa, long long sb) {
  constexpr int kGridM = kN / TM, kGridN = kN / TN, kThreads = kGridM * kGridN;
  const int p = threadIdx.x / kThreads, z = blockIdx.z * kP + p;
  const int t = threadIdx.x % kThreads, tx = t % kGridN, ty = t / kGridN;
  const bool stamp = kStamps && t == 0;
  if (stamp) stamps[z][0] = now_ns();
  if (kStamps && t % 32 == 0 && t < 64) {
    if (t == 0) where[z][0] = sm_id();
    where[z][1 + t / 32] = warp_slot();
  }
  constexpr int kPadA = kN + 4, kPlaneA = kStep * kPadA, kPlaneB = kStep * kN;
  constexpr int kCopiesA = kN * kStep / kThreads, kRowsApartA = kThreads / kStep;
  constexpr int kCopiesB4 = kStep * kN / 4 / kThreads, kRowsApartB = kThreads / (kN / 4);
  static_assert(kCopiesA * kThreads == kN * kStep && kCopiesB4 * kThreads * 4 == kStep * kN, "");
  extern __shared__ __align__(16) float smem[];  // kP * kStages * (kPlaneA + kPlaneB)
  float* const As = smem + p * kStages * kPlaneA;
  float* const Bs = smem + kP * kStages * kPlaneA + p * kStages * kPlaneB;
  if (kGeneral & kArrays) {
    A = rtArrays ? rtArrays[z] : A + z * sa;
    B = rtArrays ? rtArrays[z] : B + z * sb;
    C = rtArrays ? const_cast<float*>(rtArrays[z]) : C + z * static_cast<long long>(kN * kN);
  } else {
    A += z * sa;
    B += z * sb;
    C += z * static_cast<long long>(kN * kN);
  }
  const int M = kGeneral & kEpilogue ? rtM : kN, N = kGeneral & kEpilogue ? rtN : kN;
  const int K = kGeneral & (kRuntimeK | kZfill) ? rtK : kN;
  if (kPrefetch) {  // one row of A or of B a thread, 256 bytes each
    for (int r = t; r < 2 * kN; r += kThreads)
      prefetch_l2(r < kN ? A + r * kN : B + (r - kN) * kN, kN * 4);
  }
  const int kA = t % kStep, rA = t / kStep, kB = t / (kN / 4), c4 = t % (kN / 4) * 4;
  auto copy_plain = [&](int stage, int k0) {
#pragma unroll
    for (int i = 0; i < kCopiesA; ++i)
      copy4(As + stage * kPlaneA + kA * kPadA + rA + kRowsApartA * i,
            A + (rA + kRowsApartA * i) * kN + k0 + kA);
#pragma unroll
    for (int i = 0; i < kCopiesB4; ++i)
      copy16(Bs + stage * kPlaneB + (kB + kRowsApartB * i) * kN + c4,
             B + (k0 + kB + kRowsApartB * i) * kN + c4);
  };
  const auto copy_zfill = [&](int stage, int k0, bool all) {
#pragma unroll
    for (int i = 0; i < kCopiesA; ++i)
      copy4z(As + stage * kPlaneA + kA * kPadA + rA + kRowsApartA * i,
             A + (rA + kRowsApartA * i) * kN + k0 + kA,
             all || (k0 + kA < K && rA + kRowsApartA * i < M));
#pragma unroll
    for (int i = 0; i < kCopiesB4; ++i)
      copy16z(Bs + stage * kPlaneB + (kB + kRowsApartB * i) * kN + c4,
              B + (k0 + kB + kRowsApartB * i) * kN + c4,
              all || k0 + kB + kRowsApartB * i < K ? (all ? 16 : 4 * min(max(N - c4, 0), 4)) : 0);
  };
  const bool tileInside = kN <= M && kN <= N;
  auto copy_step = [&](int stage, int k0) {
    if (!(kGeneral & kZfill))
      copy_plain(stage, k0);
    else if (tileInside && k0 + kStep <= K)
      copy_zfill(stage, k0, true);
    else
      copy_zfill(stage, k0, false);
  };
  const int kSteps = kGeneral & kRuntimeK ? (K + kStep - 1) / kStep : kN / kStep;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < kSteps) copy_step(s, s * kStep);
    commit();
  }
  constexpr int kGroupsM = TM / 4, kGroupsN = TN / 4;
  constexpr int kApartM = kN / kGroupsM, kApartN = kN / kGroupsN;
  float acc[TM][TN] = {};
  for (int s = 0; s < kSteps; ++s) {
    wait_pending<kStages - 2>();
    __syncthreads();
    if (stamp && s == 0) stamps[z][1] = now_ns();
    if (s + kStages - 1 < kSteps) copy_step((s + kStages - 1) % kStages, (s + kStages - 1) * kStep);
    commit();
    const float* as = As + (s % kStages) * kPlaneA;
    const float* bs = Bs + (s % kStages) * kPlaneB;
    if (kCompute) {
#pragma unroll
      for (int k = 0; k < kStep; ++k) {
        float x[TM], y[TN];
#pragma unroll
        for (int g = 0; g < kGroupsM; ++g) {
          const float4 v = *reinterpret_cast<const float4*>(as + k * kPadA + g * kApartM + ty * 4);
          x[4 * g] = v.x, x[4 * g + 1] = v.y, x[4 * g + 2] = v.z, x[4 * g + 3] = v.w;
        }
#pragma unroll
        for (int g = 0; g < kGroupsN; ++g) {
          const float4 v = *reinterpret_cast<const float4*>(bs + k * kN + g * kApartN + tx * 4);
          y[4 * g] = v.x, y[4 * g + 1] = v.y, y[4 * g + 2] = v.z, y[4 * g + 3] = v.w;
        }
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(x[i], y[j], acc[i][j]);
      }
    } else {
      acc[0][0] += as[ty * 4] + bs[tx * 4];  // the copies landed and are read
    }
  }
  if (stamp) stamps[z][2] = now_ns();
  if (kGeneral & kEpilogue) {  // the library's
    const float alpha = rtAlpha, beta = rtBeta;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int row = ty * 4 + i % 4 + kApartM * (i / 4);
      if (row >= M) continue;
#pragma unroll
      for (int h = 0; h < kGroupsN; ++h) {
        const int col = tx * 4 + kApartN * h;
        float* c = C + static_cast<long long>(row) * kN + col;
        const float* v = &acc[i][4 * h];
        if (col + 3 < N && reinterpret_cast<std::uintptr_t>(c) % 16 == 0) {
          float4 out = make_float4(alpha * v[0], alpha * v[1], alpha * v[2], alpha * v[3]);
          if (beta != 0.f) {
            const float4 old = *reinterpret_cast<const float4*>(c);
            out = make_float4(out.x + beta * old.x, out.y + beta * old.y, out.z + beta * old.z,
                              out.w + beta * old.w);
          }
          *reinterpret_cast<float4*>(c) = out;
        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j)
            if (col + j < N) c[j] = beta == 0.f ? alpha * v[j] : alpha * v[j] + beta * c[j];
        }
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int row = ty * 4 + i % 4 + kApartM * (i / 4);
#pragma unroll
      for (int h = 0; h < kGroupsN; ++h)
        *reinterpret_cast<float4*>(C + row * kN + tx * 4 + kApartN * h) =
            make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
    }
  }
  if (stamp) stamps[z][3] = now_ns();
}

// The launch floor: as many blocks, threads and shared memory, and nothing done.
__global__ void __launch_bounds__(64, 8)
    empty(const float*, const float*, float* C, long long, long long) {
  extern __shared__ float s[];
  if (threadIdx.x == 1000) C[0] = s[threadIdx.x];
}

// The library's launcher for full 64^3 problems, strided, as a variant launches.
void library_tiles(const float* A, const float* B, float* C, long long sa, long long sb,
                   int batch) {
  const sgemm::Gemm g{kN, kN, kN, 1.f, A, kN, B, kN, 0.f, C, kN};
  sgemm::runtime::Batch b;
  b.strideA = sa, b.strideB = sb, b.strideC = kN * kN;
  CHECK(sgemm::launch_ffma_batched(g, b, batch, 0));
}

struct Variant {
  const char* name;
  void (*kernel)(const float*, const float*, float*, long long, long long);
  int threads;
  int problems;     // a block's
  bool sameInputs;  // strides 0
  bool compute;
  int smem;  // bytes a block
  void (*host)(const float*, const float*, float*, long long, long long, int) = nullptr;
};

int main(int argc, char** argv) {
  const int batch = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int rounds = 7, launches = 200;
  const size_t elems = static_cast<size_t>(batch) * kN * kN;
  std::vector<float> hA(elems), hB(elems);
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (auto& v : hA) v = dist(gen);
  for (auto& v : hB) v = dist(gen);
  float *A, *B, *C, *R;
  CHECK(cudaMalloc(&A, elems * 4));
  CHECK(cudaMalloc(&B, elems * 4));
  CHECK(cudaMalloc(&C, elems * 4));
  CHECK(cudaMalloc(&R, elems * 4));
  CHECK(cudaMemcpy(A, hA.data(), elems * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(B, hB.data(), elems * 4, cudaMemcpyHostToDevice));
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  const float one = 1.f, zero = 0.f;
  const long long st = kN * kN;
  // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets B first.
  auto cublas = [&](const float* a, const float* b, long long s) {
    CHECK_BLAS(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, kN, kN, kN, &one, b, kN, s, a,
                                         kN, s, &zero, R, kN, st, batch));
  };
  constexpr int kSmem = 3 * (16 * 68 + 16 * 64) * 4;  // a problem's, steps of 16, 3 deep
  const Variant variants[] = {
      // the first: the library's structure before it went 2 deep
      {"library's tiles (8x8, steps of 16, 3 deep)", tiles<8, 8, 16, 3, false, true, 8>, 64, 1,
       false, true, kSmem},
      {"  same, strides 0 (compute floor)", tiles<8, 8, 16, 3, false, true, 8>, 64, 1, true, true,
       kSmem},
      {"  copies and stores only (memory floor)", tiles<8, 8, 16, 3, false, false, 8>, 64, 1, false,
       false, kSmem},
      {"  an empty kernel of as many blocks (launch floor)", empty, 64, 1, false, false, 0},
      {"  L2 prefetch of the whole problem", tiles<8, 8, 16, 3, true, true, 8>, 64, 1, false, true,
       kSmem},
      {"  whole K in shared memory (4 deep, 6 blocks)", tiles<8, 8, 16, 4, false, true, 6>, 64, 1,
       false, true, kSmem * 4 / 3},
      {"steps of 16, 2 deep", tiles<8, 8, 16, 2, false, true, 8>, 64, 1, false, true,
       kSmem * 2 / 3},
      {"  same, strides 0 (compute floor)", tiles<8, 8, 16, 2, false, true, 8>, 64, 1, true, true,
       kSmem * 2 / 3},
      {"  copies and stores only (memory floor)", tiles<8, 8, 16, 2, false, false, 8>, 64, 1, false,
       false, kSmem * 2 / 3},
      {"steps of 8, 2 deep", tiles<8, 8, 8, 2, false, true, 8>, 64, 1, false, true, kSmem / 3},
      {"steps of 8, 3 deep", tiles<8, 8, 8, 3, false, true, 8>, 64, 1, false, true, kSmem / 2},
      {"steps of 8, 4 deep", tiles<8, 8, 8, 4, false, true, 8>, 64, 1, false, true, kSmem * 2 / 3},
      {"steps of 8, 6 deep", tiles<8, 8, 8, 6, false, true, 8>, 64, 1, false, true, kSmem},
      {"  same, L2 prefetch", tiles<8, 8, 8, 6, true, true, 8>, 64, 1, false, true, kSmem},
      {"steps of 32, 2 deep (6 blocks an SM)", tiles<8, 8, 32, 2, false, true, 6>, 64, 1, false,
       true, kSmem * 4 / 3},
      {"two problems a block (4 warps, 4 blocks an SM)", tiles<8, 8, 16, 3, false, true, 4, 2>, 128,
       2, false, true, 2 * kSmem},
      {"four problems a block (8 warps, 2 blocks an SM)", tiles<8, 8, 16, 3, false, true, 2, 4>,
       256, 4, false, true, 4 * kSmem},
      {"  same, strides 0 (compute floor)", tiles<8, 8, 16, 3, false, true, 2, 4>, 256, 4, true,
       true, 4 * kSmem},
      {"4x8 a thread (128 threads, 8 blocks)", tiles<4, 8, 16, 3, false, true, 8>, 128, 1, false,
       true, kSmem},
      {"  same, strides 0 (compute floor)", tiles<4, 8, 16, 3, false, true, 8>, 128, 1, true, true,
       kSmem},
      {"  same, 2 deep", tiles<4, 8, 16, 2, false, true, 8>, 128, 1, false, true, kSmem * 2 / 3},
      {"4x4 a thread (256 threads, 4 blocks)", tiles<4, 4, 16, 3, false, true, 4>, 256, 1, false,
       true, kSmem},
      {"steps of 16, 2 deep, + the library's epilogue", tiles<8, 8, 16, 2, false, true, 8, 1, 1>,
       64, 1, false, true, kSmem * 2 / 3},
      {"  + K at run time", tiles<8, 8, 16, 2, false, true, 8, 1, 2>, 64, 1, false, true,
       kSmem * 2 / 3},
      {"  + pointer arrays tested", tiles<8, 8, 16, 2, false, true, 8, 1, 4>, 64, 1, false, true,
       kSmem * 2 / 3},
      {"  + zero-filling copies", tiles<8, 8, 16, 2, false, true, 8, 1, 8>, 64, 1, false, true,
       kSmem * 2 / 3},
      {"  all four", tiles<8, 8, 16, 2, false, true, 8, 1, 15>, 64, 1, false, true, kSmem * 2 / 3},
      {"the library's kernel now (launch_ffma_batched)", empty, 64, 1, false, true, 0,
       library_tiles},
  };

  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("GPU: %s (%d SMs), %d x 64^3, uniform [-1, 1), %d rounds of %d launches each\n",
              prop.name, prop.multiProcessorCount, batch, rounds, launches);
  // Correctness first: every variant that multiplies against cuBLAS.
  std::vector<float> hC(elems), hR(elems);
  cublas(A, B, st);
  CHECK(cudaMemcpy(hR.data(), R, elems * 4, cudaMemcpyDeviceToHost));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  auto time_ms = [&](auto&& launch) {
    for (int i = 0; i < 20; ++i) launch();
    CHECK(cudaEventRecord(e0));
    for (int i = 0; i < launches; ++i) launch();
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    return ms / launches;
  };
  std::printf("%-46s %9s %9s %8s  %s\n", "variant", "ours us", "cuBLAS us", "ratio", "check");
  for (const Variant& v : variants)
    CHECK(cudaFuncSetAttribute(v.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, v.smem));
  for (const Variant& v : variants) {
    const long long s = v.sameInputs ? 0 : st;
    auto ours = [&] {
      if (v.host) return v.host(A, B, C, s, s, batch);
      v.kernel<<<dim3(1, 1, batch / v.problems), v.threads, v.smem>>>(A, B, C, s, s);
      CHECK(cudaGetLastError());
    };
    auto theirs = [&] { cublas(A, B, s); };
    ours();
    CHECK(cudaDeviceSynchronize());
    char check[64] = "-";
    if (v.compute) {
      cublas(A, B, s);
      CHECK(cudaMemcpy(hR.data(), R, elems * 4, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(hC.data(), C, elems * 4, cudaMemcpyDeviceToHost));
      double worst = 0, big = 0;
      for (size_t i = 0; i < elems; ++i) {
        worst = std::max(worst, std::fabs(static_cast<double>(hC[i]) - hR[i]));
        big = std::max(big, std::fabs(static_cast<double>(hR[i])));
      }
      std::snprintf(check, sizeof check, "%s (%.2g)", worst <= 1e-5 * big ? "PASS" : "FAIL",
                    worst / big);
    }
    std::vector<double> ratios, us, ref;
    for (int r = 0; r < rounds; ++r) {
      const double a = time_ms(ours), b = time_ms(theirs);
      us.push_back(1e3 * a), ref.push_back(1e3 * b), ratios.push_back(b / a);
    }
    std::sort(ratios.begin(), ratios.end());
    std::sort(us.begin(), us.end());
    std::sort(ref.begin(), ref.end());
    std::printf("%-46s %9.2f %9.2f %8.3f  %s\n", v.name, us[rounds / 2], ref[rounds / 2],
                ratios[rounds / 2], check);
  }
  // Timelines of three variants, one launch each after warm-up (blocks' stamps in us from the
  // first block's start; percentiles over blocks).
  const int timeline[] = {0, 1, 2, 6, 7, 9};
  for (int vi : timeline) {
    const Variant& v = variants[vi];
    const long long s = v.sameInputs ? 0 : st;
    for (int i = 0; i < 20; ++i)
      v.kernel<<<dim3(1, 1, batch / v.problems), v.threads, v.smem>>>(A, B, C, s, s);
    const bool on = true;
    CHECK(cudaMemcpyToSymbol(kStamps, &on, sizeof on));
    CHECK(cudaEventRecord(e0));
    v.kernel<<<dim3(1, 1, batch / v.problems), v.threads, v.smem>>>(A, B, C, s, s);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    const bool off = false;
    CHECK(cudaMemcpyToSymbol(kStamps, &off, sizeof off));
    std::vector<unsigned long long> hs(static_cast<size_t>(batch) * 4);
    CHECK(cudaMemcpyFromSymbol(hs.data(), stamps, hs.size() * 8));
    unsigned long long first = ~0ull;
    for (int b = 0; b < batch; ++b) first = std::min(first, hs[4 * b]);
    std::printf(
        "\ntimeline of \"%s\" (one launch, %.2f us by events), us after the first "
        "block starts:\n%-22s %7s %7s %7s %7s %7s\n",
        v.name, 1e3 * ms, "percentile over blocks", "0", "10", "50", "90", "100");
    const char* what[] = {"block starts", "first step landed", "products done", "stores issued"};
    for (int c = 0; c < 4; ++c) {
      std::vector<double> t;
      for (int b = 0; b < batch; ++b) t.push_back(1e-3 * (hs[4 * b + c] - first));
      std::sort(t.begin(), t.end());
      std::printf("%-22s", what[c]);
      for (double q : {0.0, 0.1, 0.5, 0.9, 1.0})
        std::printf(" %7.2f", t[std::min<size_t>(t.size() - 1, q * t.size())]);
      std::printf("\n");
    }
    // Warps a scheduler (SM sub-partition = warp slot % 4) and problems an SM; each problem's
    // products-done time against the busier of its two warps' schedulers.
    std::vector<unsigned> hw(static_cast<size_t>(batch) * 3);
    CHECK(cudaMemcpyFromSymbol(hw.data(), where, hw.size() * 4));
    std::vector<int> onSm(1024, 0), onSmsp(4096, 0);
    for (int b = 0; b < batch; ++b) {
      ++onSm[hw[3 * b]];
      for (int w = 1; w <= 2; ++w) ++onSmsp[4 * hw[3 * b] + hw[3 * b + w] % 4];
    }
    int smHist[33] = {}, smspHist[33] = {};
    for (int i = 0; i < prop.multiProcessorCount; ++i) {
      ++smHist[std::min(onSm[i], 32)];
      for (int k = 0; k < 4; ++k) ++smspHist[std::min(onSmsp[4 * i + k], 32)];
    }
    std::printf("problems an SM:");
    for (int n = 0; n <= 32; ++n)
      if (smHist[n]) std::printf(" %d on %d SMs,", n, smHist[n]);
    std::printf("\nwarps a scheduler:");
    for (int n = 0; n <= 32; ++n)
      if (smspHist[n]) std::printf(" %d on %d,", n, smspHist[n]);
    std::printf("\nproducts done (median us) by the busier scheduler of a problem's warps:");
    for (int n = 0; n <= 32; ++n) {
      std::vector<double> t;
      for (int b = 0; b < batch; ++b) {
        const unsigned sm = hw[3 * b];
        const int load =
            std::max(onSmsp[4 * sm + hw[3 * b + 1] % 4], onSmsp[4 * sm + hw[3 * b + 2] % 4]);
        if (load == n) t.push_back(1e-3 * (hs[4 * b + 2] - first));
      }
      if (t.empty()) continue;
      std::sort(t.begin(), t.end());
      std::printf(" %d warps: %zu problems, %.2f;", n, t.size(), t[t.size() / 2]);
    }
    std::printf("\n");
  }
  CHECK_BLAS(cublasDestroy(h));
  return 0;
}
