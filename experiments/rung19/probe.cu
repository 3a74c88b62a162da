// Rung 19's question, before it is a rung: can 3xTF32 on mma.sync (rung 13's arithmetic) with K
// split across the blocks of a cluster and summed in rank order through distributed shared
// memory (rung 17's idea) run small problems at twice cuBLAS SGEMM's speed on a Hopper?
//
// A probe, not the rung: row-major N, N; M and N multiples of 64, K a multiple of 32 (no tails),
// 16-byte aligned; no guard path (uniform inputs in [-1, 1) need none). It times the kernel
// against cublasSgemm in turn (CUDA events, blocks of back-to-back calls, the median) for each
// cluster size, and checks every element against an FP64 sum on the host, in units of
// u * sum_k |a||b| (u = 2^-24).
//
//   nvcc -O3 -std=c++17 --generate-code=arch=compute_90a,code=[sm_90a] -I kernels \
//     experiments/rung19/probe.cu -lcublas -o probe
//   ./probe [sizes...]            # default 128 256 512 1024
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "hopper/hopper.cuh"  // smem_addr, the cluster's barriers, DSMEM loads

#define CHECK(x)                                                                   \
  do {                                                                             \
    cudaError_t e = (x);                                                           \
    if (e != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(2);                                                                \
    }                                                                              \
  } while (0)

namespace {

using namespace sgemm::hopper;

// 64 x 64 of C a block, warps of WM x WN (a template parameter), stages of 32 k in a ring of 3
// (cp.async).
constexpr int BM = 64, BN = 64, BK = 32, kStages = 3;
constexpr int kStrideA = BK + 4;  // floats per row of As: (BM, BK)
constexpr int kStrideB = BN + 8;  // floats per row of Bs: (BK, BN)
constexpr int kFloatsA = BM * kStrideA, kFloatsB = BK * kStrideB;
constexpr int kSharedBytes = kStages * (kFloatsA + kFloatsB) * 4;
constexpr int kPitch = BN + 4;  // the partial tile in shared memory, (BM, kPitch)
static_assert(BM * kPitch <= kStages * (kFloatsA + kFloatsB), "the partial tile fits the ring");

__device__ __forceinline__ void copy16(float* dst, const float* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(dst)), "l"(src)
               : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wait_pending() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

__device__ __forceinline__ uint32_t to_tf32(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}
// x = hi + lo (+ under 2^-22 |x|): rung 13's split.
__device__ __forceinline__ void split(float x, uint32_t& hi, uint32_t& lo) {
  hi = to_tf32(x);
  lo = to_tf32(x - __uint_as_float(hi & 0xffffe000u));
}

// d += p q: p (16 x 8, row, k), q (8 x 8, k, col), d (16 x 8). Lane (g = l/4, t = l%4):
// p = P(g,t), P(g+8,t), P(g,t+4), P(g+8,t+4); q = Q(t,g), Q(t+4,g);
// d = D(g,2t), D(g,2t+1), D(g+8,2t), D(g+8,2t+1).
__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&p)[4], const uint32_t (&q)[2]) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]), "r"(q[0]), "r"(q[1]));
}

// Block (x, y) of a cluster of gridDim.y blocks along y: tile x of C over K slice y.
template <int WM, int WN>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32)
    probe_kernel(int M, int N, int K, int kSlice, const float* A, const float* B, float* C) {
  constexpr int kThreads = (BM / WM) * (BN / WN) * 32, MI = WM / 16, NI = WN / 8;
  extern __shared__ float4 ring4[];
  float* ring = reinterpret_cast<float*>(ring4);
  float* As = ring;                      // [kStages][BM][kStrideA]
  float* Bs = ring + kStages * kFloatsA;  // [kStages][BK][kStrideB]
  const int tilesN = N / BN;
  const int blockRow = blockIdx.x / tilesN * BM, blockCol = blockIdx.x % tilesN * BN;
  const int ranks = gridDim.y, rank = blockIdx.y;
  const int kBegin = rank * kSlice, kEnd = min(K, kBegin + kSlice);
  const int steps = max(0, (kEnd - kBegin) / BK);

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN;  // the warp's WM x WN

  auto fetch = [&](int s, int buf) {
    const int k0 = kBegin + s * BK;
#pragma unroll
    for (int l = 0; l < BM * BK / 4 / kThreads; ++l) {  // A: (BM, BK/4) chunks
      const int i = threadIdx.x + l * kThreads, r = i / (BK / 4), k = i % (BK / 4) * 4;
      copy16(&As[buf * kFloatsA + r * kStrideA + k],
             A + static_cast<long long>(blockRow + r) * K + k0 + k);
    }
#pragma unroll
    for (int l = 0; l < BK * BN / 4 / kThreads; ++l) {  // B: (BK, BN/4) chunks
      const int i = threadIdx.x + l * kThreads, k = i / (BN / 4), c = i % (BN / 4) * 4;
      copy16(&Bs[buf * kFloatsB + k * kStrideB + c],
             B + static_cast<long long>(k0 + k) * N + blockCol + c);
    }
  };

  float acc[MI][NI][4] = {};  // (m16 tiles, n8 tiles, d fragment)
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < steps) fetch(s, s);
    commit();
  }
  for (int s = 0; s < steps; ++s) {
    wait_pending<kStages - 2>();
    __syncthreads();  // stage s landed for every thread; stage s-1's buffer is free
    if (s + kStages - 1 < steps) fetch(s + kStages - 1, (s + kStages - 1) % kStages);
    commit();
    const float* as = As + (s % kStages) * kFloatsA;
    const float* bs = Bs + (s % kStages) * kFloatsB;
#pragma unroll
    for (int k8 = 0; k8 < BK; k8 += 8) {
      uint32_t ahi[MI][4], alo[MI][4], bhi[NI][2], blo[NI][2];
#pragma unroll
      for (int mi = 0; mi < MI; ++mi) {
        const float* a = as + (wr + mi * 16 + g) * kStrideA + k8 + t;
        split(a[0], ahi[mi][0], alo[mi][0]);
        split(a[8 * kStrideA], ahi[mi][1], alo[mi][1]);
        split(a[4], ahi[mi][2], alo[mi][2]);
        split(a[8 * kStrideA + 4], ahi[mi][3], alo[mi][3]);
      }
#pragma unroll
      for (int ni = 0; ni < NI; ++ni) {
        const float* b = bs + (k8 + t) * kStrideB + wc + ni * 8 + g;
        split(b[0], bhi[ni][0], blo[ni][0]);
        split(b[4 * kStrideB], bhi[ni][1], blo[ni][1]);
      }
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
          float p[4] = {0.f, 0.f, 0.f, 0.f};  // small products first, then hi x hi
          mma(p, alo[mi], bhi[ni]);
          mma(p, ahi[mi], blo[ni]);
          mma(p, ahi[mi], bhi[ni]);
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[mi][ni][e] += p[e];
        }
    }
  }
  wait_pending<0>();
  __syncthreads();  // every warp is done with the ring: it holds the partial tile now

  // The partial tile P (BM, kPitch) in this block's shared memory.
  float* P = ring;
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) {
      const int r = wr + mi * 16 + g, c = wc + ni * 8 + 2 * t;
      *reinterpret_cast<float2*>(&P[r * kPitch + c]) = make_float2(acc[mi][ni][0], acc[mi][ni][1]);
      *reinterpret_cast<float2*>(&P[(r + 8) * kPitch + c]) =
          make_float2(acc[mi][ni][2], acc[mi][ni][3]);
    }
  if (ranks == 1) {
    __syncthreads();
    for (int q = threadIdx.x; q < BM * BN / 4; q += kThreads) {
      const int r = q / (BN / 4), c = q % (BN / 4) * 4;
      *reinterpret_cast<float4*>(C + static_cast<long long>(blockRow + r) * N + blockCol + c) =
          *reinterpret_cast<const float4*>(&P[r * kPitch + c]);
    }
    return;
  }
  cluster_sync_shared();  // every rank's partial tile is written and visible to the cluster
  // Rank r finishes rows [r, r + 1) * BM / ranks: the ranks' sums in rank order.
  const int first = rank * BM / ranks, rows = (rank + 1) * BM / ranks - first;
  for (int q = threadIdx.x; q < rows * (BN / 4); q += kThreads) {
    const int r = first + q / (BN / 4), c = q % (BN / 4) * 4;
    const unsigned address = smem_addr(&P[r * kPitch + c]);
    float4 s = load_dsmem(map_rank(address, 0));
    for (int z = 1; z < ranks; ++z) {
      const float4 p = load_dsmem(map_rank(address, z));
      s.x += p.x, s.y += p.y, s.z += p.z, s.w += p.w;
    }
    *reinterpret_cast<float4*>(C + static_cast<long long>(blockRow + r) * N + blockCol + c) = s;
  }
  cluster_sync_relaxed();  // no block exits while another may still read its shared memory
}

template <int WM, int WN>
cudaError_t launch(int M, int N, int K, int ranks, const float* A, const float* B, float* C,
                   cudaStream_t stream) {
  const int steps = K / BK, perRank = (steps + ranks - 1) / ranks;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3((M / BM) * (N / BN), ranks);
  config.blockDim = dim3((BM / WM) * (BN / WN) * 32);
  config.dynamicSmemBytes = kSharedBytes;
  config.stream = stream;
  cudaLaunchAttribute cluster = {};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 1;
  cluster.val.clusterDim.y = static_cast<unsigned>(ranks);
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, probe_kernel<WM, WN>, M, N, K, perRank * BK, A, B, C);
}

// Median milliseconds per call of `run`, timed in turn with `other`: blocks of `calls` calls.
template <typename F, typename G>
void time_in_turn(F run, G other, double* ms, double* otherMs) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 20; ++i) run(), other();
  CHECK(cudaDeviceSynchronize());
  std::vector<double> t1, t2;
  const int calls = 200;
  for (int round = 0; round < 7; ++round)
    for (int which = 0; which < 2; ++which) {
      CHECK(cudaEventRecord(a));
      for (int i = 0; i < calls; ++i) which == 0 ? run() : other();
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      float elapsed = 0;
      CHECK(cudaEventElapsedTime(&elapsed, a, b));
      (which == 0 ? t1 : t2).push_back(elapsed / calls);
    }
  std::sort(t1.begin(), t1.end());
  std::sort(t2.begin(), t2.end());
  *ms = t1[t1.size() / 2], *otherMs = t2[t2.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {128, 256, 512, 1024};
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("GPU: %s (%d SMs)\n", prop.name, prop.multiProcessorCount);
  auto allow = [](auto kernel) {
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  };
  allow(probe_kernel<32, 32>), allow(probe_kernel<32, 16>), allow(probe_kernel<16, 32>);
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 2;
  std::printf("%6s %6s %5s %10s %10s %9s %12s\n", "size", "warp", "ranks", "ours us",
              "cuBLAS us", "% cuBLAS", "error (u)");
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  for (int n : sizes) {
    const int M = n, N = n, K = n;
    std::vector<float> a(static_cast<size_t>(M) * K), b(static_cast<size_t>(K) * N);
    for (float& x : a) x = uniform(rng);
    for (float& x : b) x = uniform(rng);
    float *dA, *dB, *dC, *dR;
    CHECK(cudaMalloc(&dA, a.size() * 4));
    CHECK(cudaMalloc(&dB, b.size() * 4));
    CHECK(cudaMalloc(&dC, static_cast<size_t>(M) * N * 4));
    CHECK(cudaMalloc(&dR, static_cast<size_t>(M) * N * 4));
    CHECK(cudaMemcpy(dA, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
    // FP64 reference and sum |a||b| on the host (sizes up to 1024: a second or two).
    std::vector<double> ref(static_cast<size_t>(M) * N, 0.0), mag(ref.size(), 0.0);
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < K; ++k) {
        const double x = a[static_cast<size_t>(i) * K + k];
        for (int j = 0; j < N; ++j) {
          const double y = b[static_cast<size_t>(k) * N + j];
          ref[static_cast<size_t>(i) * N + j] += x * y;
          mag[static_cast<size_t>(i) * N + j] += std::fabs(x * y);
        }
      }
    const float one = 1.f, zero = 0.f;
    auto cublas = [&] {  // row-major C = A B as column-major C^T = B^T A^T
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, dB, N, dA, K, &zero, dR, N);
    };
    // Each warp tile: 32 x 32 (4 warps), 32 x 16 and 16 x 32 (8 warps).
    using Launch = cudaError_t (*)(int, int, int, int, const float*, const float*, float*,
                                   cudaStream_t);
    const struct {
      const char* name;
      Launch run;
    } variants[] = {{"32x32", launch<32, 32>}, {"32x16", launch<32, 16>}, {"16x32", launch<16, 32>}};
    for (const auto& v : variants)
      for (int ranks : {1, 2, 4, 8, 16}) {
        if (K / BK < ranks) continue;
        CHECK(cudaMemset(dC, 0xff, static_cast<size_t>(M) * N * 4));  // NaN: unwritten shows
        CHECK(v.run(M, N, K, ranks, dA, dB, dC, 0));
        CHECK(cudaDeviceSynchronize());
        std::vector<float> c(static_cast<size_t>(M) * N);
        CHECK(cudaMemcpy(c.data(), dC, c.size() * 4, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (size_t e = 0; e < c.size(); ++e) {
          const double err = std::fabs(c[e] - ref[e]) / (0x1p-24 * mag[e]);
          worst = std::isnan(err) ? INFINITY : std::max(worst, err);
        }
        double ours = 0, theirs = 0;
        time_in_turn([&] { v.run(M, N, K, ranks, dA, dB, dC, 0); }, cublas, &ours, &theirs);
        CHECK(cudaGetLastError());
        std::printf("%6d %6s %5d %10.2f %10.2f %9.1f %12.3g\n", n, v.name, ranks, ours * 1e3,
                    theirs * 1e3, 100.0 * theirs / ours, worst);
      }
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    CHECK(cudaFree(dR));
  }
  cublasDestroy(handle);
  return 0;
}
