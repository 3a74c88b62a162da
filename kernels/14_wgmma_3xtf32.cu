// Rung 14: Hopper's tensor cores at FP32 accuracy. Rung 13's three TF32 products per step
// (small products first) run on wgmma, Hopper's warpgroup MMA: four warps issue one
// instruction that reads both operands straight from shared memory (through matrix
// descriptors) and accumulates a 64 x 128 tile of C in registers, asynchronously. The
// consumers load no fragments: per stage they wait on an mbarrier, issue the wgmmas, commit,
// wait for the previous stage's group and release its buffer.
//
// TF32 wgmma reads both operands K-major, and B is row-major K x N. So a pre-pass splits the
// operands into a workspace: A_hi, A_lo (M x Kp) and B transposed, Bt_hi, Bt_lo (N x Kp), rows
// 16-byte aligned: TMA reads only the workspace, whatever the callers' alignment.
//
// The main kernel is rung 10's design on tensor cores: TMA fills a ring of STAGES buffers, in
// the swizzle wgmma's descriptors name, `full` and `empty` mbarriers, one producer warpgroup
// that gives its registers (setmaxnreg) to two consumer warpgroups. The tensor cores truncate
// their sums, so they sum only a chunk of K (PROMOTE stages) from zero, which FADD then adds
// to FP32 sums in registers (docs/14_wgmma_3xtf32.md measures why). sm_90a code: on another
// GPU the launcher returns cudaErrorNoKernelImageForDevice.
//
// FP32's semantics. Near FLT_MAX hi is cut, not rounded to Inf. Inf, NaN and values below
// 2^-114: the pre-pass flags their rows of A and columns of B, and the epilogue sums those
// again in plain FP32 (the guard path), as any sum that came out Inf or NaN. Where the
// workspace cannot hold the split operands, rung 13 runs instead.
// Needs: sm_90a   (cmake/ladder.cmake finds this line: CMakeLists.txt builds the file for it)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "hopper/hopper.cuh"    // mbarriers, TMA copies, setmaxnreg, wgmma (docs/10 explains each)
#include "hopper/pipeline.cuh"  // the ring, producer loop, register split, tile order (rungs 10, 14)
#include "launchers.h"          // Gemm, and the one launcher signature every rung shares
#include "runtime/device.h"     // the shared-memory opt-in, the Hopper check
#include "runtime/tensor_map.h"           // tensor maps
#include "runtime/workspace.h"            // the workspace
#include "split_3xtf32/split_3xtf32.cuh"  // rung 14's split, guard path, pre-pass, wgmma stage, epilogue

namespace sgemm::wgmma_3xtf32 {

using namespace hopper;
using namespace pipeline;

using namespace split_3xtf32;

// ---- The main kernel.

// BN: columns of C per block (one m64nBNk8 wgmma); BK: depth of one stage (16 or 32 floats:
// one 64- or 128-byte swizzle span per row); STAGES: buffers of the ring; PROMOTE: stages per
// chunk of K that the tensor cores sum before the chunk is added to FP32 accumulators in
// registers.
template <int BN, int BK, int STAGES, int PROMOTE>
struct Tile {
  static constexpr int kConsumers = 2;                     // consumer warpgroups
  static constexpr int WGM = 64;                           // rows of C per consumer warpgroup
  static constexpr int BM = kConsumers * WGM;              // rows of C per block
  static constexpr int kThreads = 128 * (kConsumers + 1);  // + the producer warpgroup
  static constexpr int kConsumerWarps = kConsumers * 4;    // each arrives on `empty`
  static constexpr int kSpan = BK * 4;                     // bytes of a box's row: the swizzle span
  static constexpr int kBoxBytesA = BM * BK * 4;           // A_hi's box (A_lo's the same)
  static constexpr int kBoxBytesB = BN * BK * 4;           // Bt_hi's box (Bt_lo's the same)
  static constexpr int kStageBytes = 2 * (kBoxBytesA + kBoxBytesB);  // what `full` waits for
  static constexpr int kSharedBytes = STAGES * kStageBytes + 1024;   // + room to align to 1024
  static constexpr int kAccumulators = BN / 2;  // per thread (m64 x BN over 128 threads)
  static_assert(BK == 16 || BK == 32, "a box row is one 64- or 128-byte swizzle span");
  static_assert(BN == 128, "the wgmma shape hopper.cuh wraps: m64n128k8");
  static_assert(kBoxBytesA % 1024 == 0 && kBoxBytesB % 1024 == 0 && (WGM * BK * 4) % 1024 == 0,
                "every box and each warpgroup's rows of A start on a 1024-byte boundary, so "
                "the descriptors' base offset is 0");
  static_assert(STAGES >= 2, "a ring of at least two buffers");
  static_assert(kSharedBytes + 2 * STAGES * 8 <= 227 * 1024,
                "the ring and its mbarriers fit in the 227 KiB of shared memory a block may have");
  static_assert(2 * kAccumulators <= 192,
                "the tensor cores' and the FP32 sums fit in a consumer's registers");
  static_assert(PROMOTE > 0 && PROMOTE % 2 == 0,
                "chunks of whole stages; the second warpgroup promotes half a chunk after the "
                "first");
  // One block per SM, 12 warps: 168 registers a thread at launch; the producer drops to 24
  // and the consumers rise to 240 (pipeline.cuh).
  using Registers = RegisterSplit<kThreads, 128, 24>;
};

// Tiles are walked in groups of `groupRows` tile rows, down the columns of each group, so that
// the blocks running at once share rows of A and columns of B in L2. guard: the pre-pass's
// flags, rows of A then columns of B (M + N); A and B: the caller's operands, which the guard
// path reads.
template <int BN, int BK, int STAGES, int PROMOTE>
__global__ void __launch_bounds__(Tile<BN, BK, STAGES, PROMOTE>::kThreads, 1)
    sgemm_wgmma_3xtf32(int M, int N, int K, float alpha, const __grid_constant__ CUtensorMap tmAhi,
                       const __grid_constant__ CUtensorMap tmAlo,
                       const __grid_constant__ CUtensorMap tmBhi,
                       const __grid_constant__ CUtensorMap tmBlo, const int* guard, const float* A,
                       int lda, const float* B, int ldb, float beta, float* C, int ldc,
                       bool pairedC, int groupRows) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // compiled out (SGEMM_NO_SM90A): the launcher never starts this kernel
#else
  using T = Tile<BN, BK, STAGES, PROMOTE>;
  constexpr int BM = T::BM;
  // The ring, aligned to 1024 bytes: stage s holds [A_hi | A_lo | Bt_hi | Bt_lo], each box
  // [rows][BK] as TMA writes it (rows kSpan bytes apart, 16-byte chunks swizzled).
  extern __shared__ uint8_t raw[];
  uint8_t* ring = raw + (1024 - smem_addr(raw) % 1024) % 1024;
  __shared__ uint64_t full[STAGES];   // buffer s holds its boxes: 1 arrival and their bytes
  __shared__ uint64_t empty[STAGES];  // buffer s is read: one arrival per consumer warp

  const int2 origin = tile_origin(static_cast<int>(blockIdx.x), M, N, BM, BN, groupRows);
  const int blockRow = origin.x, blockCol = origin.y;  // (lambdas below capture them)
  const int kTiles = (K + BK - 1) / BK;

  if (threadIdx.x == 0) {
    prefetch_tensormap(&tmAhi);
    prefetch_tensormap(&tmAlo);
    prefetch_tensormap(&tmBhi);
    prefetch_tensormap(&tmBlo);
    ring_init<STAGES>(full, empty, 1, T::kConsumerWarps);
  }
  __syncthreads();  // the block's one barrier: the mbarriers exist before anyone uses them

  if (threadIdx.x >= 128 * T::kConsumers) {
    // The producer warpgroup: one thread issues the four boxes of each stage. Boxes past M, N
    // or K arrive as zeros and count toward the bytes all the same.
    release_registers<T::Registers::kProducerRegs>();
    if (threadIdx.x == 128 * T::kConsumers)
      produce<STAGES>(empty, 0, kTiles, 1, [&](int kt, int buf) {
        const int k0 = kt * BK;
        uint8_t* stage = ring + buf * T::kStageBytes;
        mbar_arrive_expect_tx(&full[buf], T::kStageBytes);
        tma_load_2d(stage, &tmAhi, k0, blockRow, &full[buf]);
        tma_load_2d(stage + T::kBoxBytesA, &tmAlo, k0, blockRow, &full[buf]);
        tma_load_2d(stage + 2 * T::kBoxBytesA, &tmBhi, k0, blockCol, &full[buf]);
        tma_load_2d(stage + 2 * T::kBoxBytesA + T::kBoxBytesB, &tmBlo, k0, blockCol, &full[buf]);
      });
    return;
  }
  claim_registers<T::Registers::kConsumerRegs>();

  // The tile's guard flags, read now, while the ring fills, rather than one global load per
  // element in the epilogue: rows of A, then columns of B (the consumers are BM + BN threads).
  static_assert(128 * T::kConsumers == BM + BN, "one consumer thread per flag");
  __shared__ int rowGuard[BM], colGuard[BN];
  if (threadIdx.x < BM)
    rowGuard[threadIdx.x] = blockRow + threadIdx.x < M ? guard[blockRow + threadIdx.x] : 0;
  else
    colGuard[threadIdx.x - BM] =
        blockCol + threadIdx.x - BM < N ? guard[M + blockCol + threadIdx.x - BM] : 0;
  sync_role(1, 128 * T::kConsumers);

  const int wg = threadIdx.x / 128;  // consumer warpgroup: rows wg*WGM .. of the block tile
  const int lane = threadIdx.x % 32;
  // acc[4j + 2i + c] = C[blockRow + wg*WGM + 16warp + lane/4 + 8i][blockCol + 8j + 2(lane%4) + c]
  // (the wgmma fragment): the tensor cores' sum over the current chunk of K. sum[]: the FP32
  // sum of the chunks before it, in the same layout.
  float acc[T::kAccumulators];
  float sum[T::kAccumulators];
#pragma unroll
  for (int e = 0; e < T::kAccumulators; ++e) acc[e] = sum[e] = 0.f;
  // sum += acc, in FP32 on the CUDA cores (round to nearest), once acc's wgmmas have completed.
  auto promote = [&] {
    fence_accumulators(acc);
#pragma unroll
    for (int e = 0; e < T::kAccumulators; ++e) sum[e] += acc[e];
  };

  WgmmaRing<STAGES> at{full, empty};  // the next buffer to read, and the one to release
  // Waits for the next buffer and issues its wgmmas into acc as one group: per k8 step the
  // small products first. accumulate = 0: the first wgmma overwrites acc (a chunk's first stage).
  auto issue_stage = [&](int accumulate) {
    at.wait();  // this buffer's four boxes have landed
    const uint8_t* stage = ring + at.buf * T::kStageBytes;
    const uint8_t* a = stage + wg * T::WGM * T::kSpan;  // this warpgroup's rows of A_hi
    mma_stage<BN, BK, T::kSpan>(acc, a, a + T::kBoxBytesA, stage + 2 * T::kBoxBytesA,
                                stage + 2 * T::kBoxBytesA + T::kBoxBytesB, accumulate);
    fence_accumulators(acc);
  };
  // A chunk's end drains the warpgroup's wgmmas (wait_group 0) before the add. The second
  // warpgroup's chunks start half a chunk later, so that while one warpgroup drains and adds,
  // the other keeps the tensor cores busy.
  int untilPromote = PROMOTE - wg * (PROMOTE / 2);
  int accumulate = 0;
  for (int kt = 0; kt < kTiles; ++kt) {
    issue_stage(accumulate);
    accumulate = 1;
    if (--untilPromote == 0) {  // the chunk's end: release both its buffers
      at.release_all(lane);
      promote();
      untilPromote = PROMOTE;
      accumulate = 0;
    } else {
      at.release_previous(lane);
    }
  }
  wgmma_wait<0>();
  fence_accumulators(acc);
  if (accumulate) promote();  // the last, partial chunk

  store_fragment<BN>(sum, blockRow + wg * T::WGM, blockRow, blockCol, rowGuard, colGuard, M, N, K,
                     alpha, A, lda, B, ldb, beta, C, ldc, pairedC, nullptr);
#endif  // sm_90a
}

// ---- The launcher.

inline bool aligned8(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 8 == 0; }

// The main kernel on split operands.
template <int BN, int BK, int STAGES, int PROMOTE>
cudaError_t multiply(int M, int N, int K, float alpha, const Split& s, const float* A, int lda,
                     const float* B, int ldb, float beta, float* C, int ldc, cudaStream_t stream,
                     int groupRows) {
  using T = Tile<BN, BK, STAGES, PROMOTE>;
  constexpr auto kernel = sgemm_wgmma_3xtf32<BN, BK, STAGES, PROMOTE>;
  SplitMaps maps;
  cudaError_t err = runtime::allow_shared_bytes<kernel>(T::kSharedBytes);
  if (err == cudaSuccess) err = split_maps<T::BM, BN, BK>(&maps, s, M, N, K);
  if (err != cudaSuccess) return err;
  const long long tiles = static_cast<long long>((M + T::BM - 1) / T::BM) * ((N + BN - 1) / BN);
  if (tiles > 0x7fffffff) return cudaErrorInvalidValue;
  kernel<<<static_cast<unsigned>(tiles), T::kThreads, T::kSharedBytes, stream>>>(
      M, N, K, alpha, maps.Ahi, maps.Alo, maps.Bhi, maps.Blo, s.guard, A, lda, B, ldb, beta, C, ldc,
      aligned8(C) && ldc % 2 == 0, std::max(1, groupRows));
  return cudaGetLastError();
}

// Split into the workspace, multiply, give the workspace back (stream-ordered). Without room for
// the split operands: workspace_short, and rung 13 runs instead (kernels/fallbacks.inc).
template <int BN, int BK, int STAGES, int PROMOTE>
cudaError_t launch_tile(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                        int ldb, float beta, float* C, int ldc, cudaStream_t stream,
                        int groupRows = 8) {
  if (M < 1 || N < 1 || K < 1 || lda < K || ldb < N || ldc < N) return cudaErrorInvalidValue;
  cudaError_t err = runtime::require_sm90();
  if (err != cudaSuccess) return err;
  runtime::Workspace<float> W(split_floats(M, N, K), stream);
  if (W.error() != cudaSuccess) return W.error();
  const Split s = split_layout(W.get(), M, N, K);
  err = split_operands(M, N, K, A, lda, B, ldb, s, stream);
  if (err != cudaSuccess) return err;
  return multiply<BN, BK, STAGES, PROMOTE>(M, N, K, alpha, s, A, lda, B, ldb, beta, C, ldc, stream,
                                           groupRows);
}

// Below this K three TF32 products miss FP32's componentwise bound (rung 13's kMinK).
constexpr int kMinK = 16;
constexpr int kShortK = 2048;  // below it, chunks of 64 k (below)

runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  // A GPU without sm_90a says so before any shape does: the reason of every problem it gets.
  if (const cudaError_t err = runtime::require_sm90(); err != cudaSuccess) return err;
  if (K >= 1 && K < kMinK) return runtime::LaunchAnswer::hand_on(FallbackReason::shape_unsuitable);
  //                 BN  BK STAGES PROMOTE
  // Short K: chunks of 64 k, as the checks' componentwise tolerance is tight there (docs/14).
  if (K < kShortK)
    return launch_tile<128, 32, 3, 2>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  return launch_tile<128, 32, 3, 4>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace sgemm::wgmma_3xtf32
