// Inside a small problem's launch: rung 17's kernel (its whole-tile path, copied here with
// clock stamps; the rung itself carries none) run as the bench runs it, L2 flushed first. Each
// block's thread 0 stamps the SM clock at the end of each phase and the global timer at entry
// and exit; the program prints, per shape, the medians over blocks and runs of
//   start     the block's entry, after the first block's (ns, global timer)
//   issue     address setup and the first k-tiles' copies issued        (cycles from entry)
//   land      the first k-tile in shared memory
//   loop      the last k-tile's products done
//   cluster   partial tile stored and the cluster's first barrier passed
//   sum       this block's share summed over the ranks and stored to C
//   exit      the cluster's last barrier passed
// and, beside it, the same kernel pushing each partial tile to the ranks that sum it (push):
// stores to their shared memory, one barrier, a sum from the block's own shared memory.
// and the span from the first entry to the last exit beside the events' time.
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ikernels \
//        experiments/rung19/timeline.cu -o timeline && ./timeline [runs]
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "hopper/hopper.cuh"

namespace {

namespace hopper = sgemm::hopper;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

constexpr int kPhases = 9;  // entry time, 6 clock stamps, exit time, SM id

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ void copy4(float* dst, const float* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(hopper::smem_addr(dst)),
               "l"(__cvta_generic_to_global(src))
               : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// Rung 17's kernel for whole tiles (M, N multiples of the tile, K of ranks * BK), stamped.
template <int BM, int BN, int BK, int TM, int TN, int STAGES, bool kPush>
__global__ void stamped(int M, int N, int K, int kSlice, const float* A, const float* B, float* C,
                        unsigned long long* stamps) {
  constexpr int kThreads = (BM / TM) * (BN / TN), kStrideA = BM + 4;
  constexpr int kStageFloats = BK * kStrideA + BK * BN;
  constexpr int kRowsA = kThreads / BK, kRowsB = kThreads / BN;
  const unsigned long long t_entry = global_ns();
  const long long c0 = clock64();
  long long c[6];
  extern __shared__ float4 shared[];
  float* ring = reinterpret_cast<float*>(shared);
  // kPush: the partial tiles go straight to the rank that sums each share, into its own
  // region after the ring: (ranks, share) float4s, share = ceil(BM * BN / 4 / ranks).
  float4* incoming = reinterpret_cast<float4*>(ring + STAGES * kStageFloats);
  if (kPush) asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
  auto As = [&](int s) { return ring + s * kStageFloats; };
  auto Bs = [&](int s) { return ring + s * kStageFloats + BK * kStrideA; };
  const int ranks = static_cast<int>(cooperative_groups::this_cluster().num_blocks());
  const int rank = hopper::cluster_rank();
  const int blockCol = static_cast<int>(blockIdx.x) / ranks * BN;
  const int blockRow = static_cast<int>(blockIdx.y) * BM;
  const int kBegin = rank * kSlice, kTiles = kSlice / BK;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int kA = warp % (BK / 8) * 8 + lane % 8, rowA = warp / (BK / 8) * 4 + lane / 8;
  const int colB = tid % BN, kB = tid / BN;
  const float* srcA = A + static_cast<long long>(blockRow + rowA) * K + kBegin + kA;
  const float* srcB = B + static_cast<long long>(kBegin + kB) * N + blockCol + colB;
  auto load_tile = [&](int t, int s) {
    const float* a = srcA + t * BK;
    const float* b = srcB + static_cast<long long>(t * BK) * N;
    float* as = As(s) + kA * kStrideA + rowA;
    float* bs = Bs(s) + kB * BN + colB;
#pragma unroll
    for (int i = 0; i < BM / kRowsA; ++i) copy4(as + i * kRowsA, a + K * (i * kRowsA));
#pragma unroll
    for (int i = 0; i < BK / kRowsB; ++i) copy4(bs + i * kRowsB * BN, b + N * (i * kRowsB));
  };
  constexpr int kWarpsAlongN = BN / TN / 8;
  const int threadCol = warp % kWarpsAlongN * 8 + lane % 8;
  const int threadRow = warp / kWarpsAlongN * 4 + lane / 8;
  float acc[TM * TN] = {};
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < kTiles) load_tile(s, s);
    commit();
  }
  c[0] = clock64();
  for (int t = 0; t < kTiles; ++t) {
    wait_copies<STAGES - 2>();
    __syncthreads();
    if (t == 0) c[1] = clock64();
    if (t + STAGES - 1 < kTiles) load_tile(t + STAGES - 1, (t + STAGES - 1) % STAGES);
    commit();
    const float* as = As(t % STAGES);
    const float* bs = Bs(t % STAGES);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float m[TM], n[TN];
#pragma unroll
      for (int i = 0; i < TM; i += 4)
        *reinterpret_cast<float4*>(&m[i]) =
            *reinterpret_cast<const float4*>(&as[k * kStrideA + threadRow * TM + i]);
#pragma unroll
      for (int j = 0; j < TN; j += 4)
        *reinterpret_cast<float4*>(&n[j]) =
            *reinterpret_cast<const float4*>(&bs[k * BN + threadCol * TN + j]);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i * TN + j] += m[i] * n[j];
    }
  }
  wait_copies<0>();
  __syncthreads();
  c[2] = clock64();
  constexpr int kChunks = BM * BN / 4;
  if (kPush) {
    const int share = (kChunks + ranks - 1) / ranks;
    asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");  // every block has started
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const int q = ((threadRow * TM + i) * BN + threadCol * TN + j) / 4;
        const int owner = q / share;
        const unsigned to =
            hopper::map_rank(hopper::smem_addr(&incoming[rank * share + q - owner * share]), owner);
        asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(to),
                     "f"(acc[i * TN + j]), "f"(acc[i * TN + j + 1]), "f"(acc[i * TN + j + 2]),
                     "f"(acc[i * TN + j + 3])
                     : "memory");
      }
    hopper::cluster_sync_shared();
    c[3] = clock64();
    const int first = rank * share, last = min(kChunks, first + share);
    for (int q = first + tid; q < last; q += kThreads) {
      float4 sum = incoming[q - first];
      for (int s = 1; s < ranks; ++s) {
        const float4 part = incoming[s * share + q - first];
        sum.x += part.x, sum.y += part.y, sum.z += part.z, sum.w += part.w;
      }
      const int row = blockRow + q * 4 / BN, col = blockCol + q * 4 % BN;
      *reinterpret_cast<float4*>(C + static_cast<long long>(row) * N + col) = sum;
    }
    c[4] = clock64();
    c[5] = c[4];
  } else {
    float* P = ring;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; j += 4)
        *reinterpret_cast<float4*>(&P[(threadRow * TM + i) * BN + threadCol * TN + j]) =
            make_float4(acc[i * TN + j], acc[i * TN + j + 1], acc[i * TN + j + 2],
                        acc[i * TN + j + 3]);
    hopper::cluster_sync_shared();
    c[3] = clock64();
    const int first = rank * kChunks / ranks, last = (rank + 1) * kChunks / ranks;
    for (int q = first + tid; q < last; q += kThreads) {
      float4 sum = hopper::load_dsmem(hopper::map_rank(hopper::smem_addr(&P[4 * q]), 0));
      for (int s = 1; s < ranks; ++s) {
        const float4 part = hopper::load_dsmem(hopper::map_rank(hopper::smem_addr(&P[4 * q]), s));
        sum.x += part.x, sum.y += part.y, sum.z += part.z, sum.w += part.w;
      }
      const int row = blockRow + q * 4 / BN, col = blockCol + q * 4 % BN;
      *reinterpret_cast<float4*>(C + static_cast<long long>(row) * N + col) = sum;
    }
    c[4] = clock64();
    hopper::cluster_sync_relaxed();
    c[5] = clock64();
  }
  if (tid == 0) {
    const int block = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned long long* out = stamps + static_cast<long long>(block) * kPhases;
    out[0] = t_entry;
    for (int i = 0; i < 6; ++i) out[1 + i] = static_cast<unsigned long long>(c[i] - c0);
    out[7] = global_ns();
    unsigned sm;
    asm("mov.u32 %0, %smid;" : "=r"(sm));
    out[8] = sm;
  }
}

template <int BM, int BN, int BK, int TM, int TN, int STAGES, bool kPush>
void run_shape(int n, int ranks, int runs, float* A, float* B, float* C, void* scratch,
               size_t scratch_bytes, cudaStream_t stream) {
  constexpr auto kernel = stamped<BM, BN, BK, TM, TN, STAGES, kPush>;
  constexpr int kThreads = (BM / TM) * (BN / TN);
  const int ring = 4 * STAGES * (BK * (BM + 4) + BK * BN), partial = 4 * BM * BN;
  const int smem = kPush ? ring + partial + 16 * 16 : std::max(ring, partial);
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "smem");
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1), "16");
  const int blocks = n / BN * ranks * (n / BM);
  unsigned long long* stamps;
  check(cudaMalloc(&stamps, sizeof(unsigned long long) * kPhases * blocks), "stamps");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(n / BN * ranks, n / BM);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  cudaLaunchAttribute cluster = {};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = ranks;
  cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  std::vector<std::vector<double>> phase(kPhases);
  std::vector<double> span, events, sms;
  std::vector<unsigned long long> host(static_cast<size_t>(kPhases) * blocks);
  for (int r = 0; r < runs + 3; ++r) {
    check(cudaMemsetAsync(scratch, 0, scratch_bytes, stream), "flush");
    check(cudaEventRecord(start, stream), "record");
    check(cudaLaunchKernelEx(&config, kernel, n, n, n, n / ranks, (const float*)A, (const float*)B,
                             C, stamps),
          "launch");
    check(cudaEventRecord(stop, stream), "record");
    check(cudaEventSynchronize(stop), "sync");
    if (r < 3) continue;
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    events.push_back(1e3 * ms);
    check(cudaMemcpy(host.data(), stamps, host.size() * 8, cudaMemcpyDeviceToHost), "copy");
    unsigned long long first = ~0ull, last = 0;
    std::vector<unsigned long long> sm_seen;
    for (int b = 0; b < blocks; ++b) {
      first = std::min(first, host[b * kPhases]);
      last = std::max(last, host[b * kPhases + 7]);
      sm_seen.push_back(host[b * kPhases + 8]);
    }
    std::sort(sm_seen.begin(), sm_seen.end());
    sms.push_back(std::unique(sm_seen.begin(), sm_seen.end()) - sm_seen.begin());
    span.push_back(1e-3 * (last - first));
    for (int b = 0; b < blocks; ++b) {
      phase[0].push_back(static_cast<double>(host[b * kPhases] - first));
      for (int i = 1; i < 7; ++i) phase[i].push_back(static_cast<double>(host[b * kPhases + i]));
      phase[7].push_back(static_cast<double>(host[b * kPhases + 7] - host[b * kPhases]));
    }
  }
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  auto pct = [](std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(q * (v.size() - 1))];
  };
  std::printf(
      "%d^3, tile %dx%dx%d, %d ranks, %s, %d blocks on %.0f SMs: events %.2f us, first entry "
      "to last exit %.2f us\n",
      n, BM, BN, BK, ranks, kPush ? "push" : "pull", blocks, median(sms), median(events),
      median(span));
  std::printf("  start (ns after the first block): median %.0f, 90%% %.0f, max %.0f\n",
              median(phase[0]), pct(phase[0], 0.9), pct(phase[0], 1.0));
  const char* names[] = {"issue", "land", "loop", "cluster", "sum", "exit"};
  std::printf("  cycles from entry (median / 90%%):");
  for (int i = 0; i < 6; ++i)
    std::printf(" %s %.0f/%.0f", names[i], median(phase[1 + i]), pct(phase[1 + i], 0.9));
  std::printf("\n  block resident (ns, entry to exit): median %.0f, 90%% %.0f\n", median(phase[7]),
              pct(phase[7], 0.9));
  std::vector<unsigned> c_bits(static_cast<size_t>(n) * n);
  check(cudaMemcpy(c_bits.data(), C, c_bits.size() * 4, cudaMemcpyDeviceToHost), "copy C");
  unsigned long long hash = 1469598103934665603ull;  // FNV-1a over C's bits: push == pull
  for (unsigned b : c_bits) hash = (hash ^ b) * 1099511628211ull;
  std::printf("  C's bits hash to %016llx\n", hash);
  check(cudaFree(stamps), "free");
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 50;
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  int l2 = 0;
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), "L2 size");
  void* scratch;
  const size_t scratch_bytes = 2 * static_cast<size_t>(l2);
  check(cudaMalloc(&scratch, scratch_bytes), "scratch");
  const size_t most = 512 * 512;
  float *A, *B, *C;
  for (float** p : {&A, &B, &C}) check(cudaMalloc(p, most * 4), "alloc");
  std::vector<float> host(most);
  for (size_t i = 0; i < most; ++i)
    host[i] = static_cast<float>((i * 2654435761u) % 2001) / 1000 - 1;
  check(cudaMemcpy(A, host.data(), most * 4, cudaMemcpyHostToDevice), "copy");
  check(cudaMemcpy(B, host.data(), most * 4, cudaMemcpyHostToDevice), "copy");
  // As rung 17 picks them: 128^3 and 256^3 the 32 x 64 tile on 8 ranks; 512^3 the deep
  // 64 x 64 x 32 tile on 2. Then the neighbours.
  run_shape<32, 64, 16, 4, 4, 3, false>(128, 8, runs, A, B, C, scratch, scratch_bytes, stream);
  run_shape<32, 64, 16, 4, 4, 3, true>(128, 8, runs, A, B, C, scratch, scratch_bytes, stream);
  run_shape<32, 64, 16, 4, 4, 3, false>(128, 4, runs, A, B, C, scratch, scratch_bytes, stream);
  run_shape<32, 64, 16, 4, 4, 3, true>(128, 4, runs, A, B, C, scratch, scratch_bytes, stream);
  run_shape<32, 64, 16, 4, 4, 3, false>(256, 8, runs, A, B, C, scratch, scratch_bytes, stream);
  run_shape<32, 64, 16, 4, 4, 3, true>(256, 8, runs, A, B, C, scratch, scratch_bytes, stream);
  run_shape<32, 64, 16, 4, 4, 3, false>(256, 4, runs, A, B, C, scratch, scratch_bytes, stream);
  run_shape<32, 64, 16, 4, 4, 3, true>(256, 4, runs, A, B, C, scratch, scratch_bytes, stream);
  run_shape<64, 64, 32, 8, 4, 3, false>(512, 2, runs, A, B, C, scratch, scratch_bytes, stream);
  run_shape<64, 64, 32, 8, 4, 3, true>(512, 2, runs, A, B, C, scratch, scratch_bytes, stream);
  return 0;
}
