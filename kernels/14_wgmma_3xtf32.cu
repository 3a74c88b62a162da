// Rung 14: Hopper's tensor cores at FP32 accuracy. Rung 13 split each operand into a TF32 "hi"
// part and a TF32 "lo" remainder and summed three mma.sync products per step (lo*hi, hi*lo,
// hi*hi); every warp loaded its own fragments from shared memory with ldmatrix/LDS. Here the
// same three products run on wgmma, Hopper's warpgroup MMA: four warps issue one instruction
// that reads both operands straight from shared memory (through 64-bit matrix descriptors) and
// accumulates a 64 x 128 tile of C in registers, asynchronously. No fragment loads remain in
// the consumers' instruction stream: per stage they wait on an mbarrier, issue the wgmmas,
// commit, wait for the previous stage's group and release its buffer.
//
// TF32 wgmma reads both operands K-major (only 16-bit types may be transposed), and our B is
// row-major K x N. So a pre-pass splits and packs the operands into a workspace: A_hi, A_lo
// (M x Kp, K contiguous) and B transposed, Bt_hi, Bt_lo (N x Kp), with hi = tf32_rna(x) and
// lo = tf32_rna(x - hi), rows 16-byte aligned (Kp = K rounded up to 4). One pass over A and B
// (H100: 0.15 ms at 4096^3, 0.59 ms at 8192^3, 13% and 6% of the launch), and it makes every
// pointer alignment and leading dimension the same case: TMA reads only the workspace.
//
// The main kernel is rung 10's design on tensor cores: TMA copies four boxes per stage (A_hi,
// A_lo: BM x BK; Bt_hi, Bt_lo: BN x BK) into a ring of STAGES buffers with the 128-byte (BK =
// 32) or 64-byte (BK = 16) swizzle, which is the layout wgmma's descriptors name; `full` and
// `empty` mbarriers per buffer; a producer warpgroup that gives its registers away
// (setmaxnreg) and two consumer warpgroups that take them, each owning 64 x BN of C. Per k8
// step each consumer issues lo*hi, hi*lo, then hi*hi: the small products first, into the same
// accumulators. A buffer is released only after wgmma.wait_group says the wgmmas that read it
// have completed.
//
// The tensor cores add each wgmma's products into their FP32 accumulators with truncation, not
// round to nearest: summing all of K there gave 25x (4096) and 35x (8192) cuBLAS SGEMM's error
// against FP64, growing with K. So the tensor cores sum only a chunk of K (PROMOTE stages: 128
// k; 64 k where K is short), starting from zero (scale-d = 0), and the chunk is then added to a
// second set of FP32 accumulators on the CUDA cores (FADD, round to nearest): 0.6-0.9x SGEMM's
// error. The second set doubles the registers, so a consumer owns 64 x 128 (64 + 64 per thread),
// not 64 x 256; the two consumers' chunks are staggered by half a chunk, so that one warpgroup's
// drain and adds overlap the other's wgmmas. Edges: TMA fills boxes past M, N or K with zeros; the
// epilogue checks rows and columns. The kernel is sm_90a code: on a GPU that is not compute
// capability 9.0 the launcher returns cudaErrorNoKernelImageForDevice.
//
// FP32's semantics. Rounding x near FLT_MAX to the nearest TF32 overflows to Inf, so there hi
// is cut instead. Two classes of input the tensor cores cannot answer as FP32 does: Inf and
// NaN (their products with the other operand's hi and lo parts give NaN where IEEE gives
// +-Inf), and values below 2^-114, whose lo part falls under 2^-126 where TF32 keeps only
// steps of 2^-136. The pre-pass flags every row of A and column of B that holds one, and the
// epilogue sums those rows and columns again in plain FP32 (the guard path), as it does any
// sum that came out Inf or NaN. On other inputs the guard costs a flag test per element of C.
// The workspace (runtime.h) holds the split operands and the flags; where it cannot, rung 13
// runs instead (it needs M + N flags only).
// Needs: sm_90a   (cmake/ladder.cmake finds this line: CMakeLists.txt builds the file for it)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <tuple>

#include "hopper.cuh"    // mbarriers, TMA copies, setmaxnreg, wgmma (docs/10 explains each)
#include "pipeline.cuh"  // the ring, producer loop, register split, tile order (rungs 10, 14)
#include "runtime.h"     // tensor maps, the shared-memory opt-in, the Hopper check, the workspace
#include "sgemm.h"       // Gemm: the problem, as every rung's launcher takes it

namespace sgemm::wgmma_3xtf32 {

using namespace hopper;
using namespace pipeline;

#include "split_3xtf32.cuh"  // rung 14's split, guard path, pre-pass, wgmma stage, epilogue

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
  constexpr CUtensorMapSwizzle kSwizzle =
      BK == 32 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;
  constexpr CUtensorMapDataType kFloat = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  CUtensorMap tmAhi, tmAlo, tmBhi, tmBlo;  // built per call (pointers and sizes change)
  cudaError_t err = runtime::allow_shared_bytes<kernel>(T::kSharedBytes);
  for (auto [map, plane, rows, box] : {std::tuple{&tmAhi, s.Ahi, M, T::BM},
                                       {&tmAlo, s.Alo, M, T::BM},
                                       {&tmBhi, s.Bhi, N, BN},
                                       {&tmBlo, s.Blo, N, BN}})
    if (err == cudaSuccess)
      err = runtime::make_tensor_map(map, plane, kFloat, rows, K, s.Kp, box, BK, kSwizzle);
  if (err != cudaSuccess) return err;
  const long long tiles = static_cast<long long>((M + T::BM - 1) / T::BM) * ((N + BN - 1) / BN);
  if (tiles > 0x7fffffff) return cudaErrorInvalidValue;
  kernel<<<static_cast<unsigned>(tiles), T::kThreads, T::kSharedBytes, stream>>>(
      M, N, K, alpha, tmAhi, tmAlo, tmBhi, tmBlo, s.guard, A, lda, B, ldb, beta, C, ldc,
      aligned8(C) && ldc % 2 == 0, std::max(1, groupRows));
  return cudaGetLastError();
}

// Split into the workspace, multiply; the workspace goes back to the pool after the kernels
// (stream-ordered). Where the workspace cannot hold the split operands, it says so
// (workspace_short) and rung 13 runs instead (kernels/fallbacks.inc): the same arithmetic on
// mma.sync, which needs only the flags.
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
  // Short K: chunks of 64 k. A chunk's truncation error is relative to its own sum, and the
  // checks' componentwise tolerance, (2 sqrt(K) + 4) u, is tight there: on wide-range inputs
  // at K = 129, chunks of 128 k erred by up to ~40 u where 26.7 u are allowed (docs/14).
  if (K < kShortK)
    return launch_tile<128, 32, 3, 2>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  return launch_tile<128, 32, 3, 4>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace sgemm::wgmma_3xtf32
