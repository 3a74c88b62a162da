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
// k), starting from zero (scale-d = 0), and the chunk is then added to a second set of FP32
// accumulators on the CUDA cores (FADD, round to nearest): 0.6-0.9x SGEMM's error. The second
// set doubles the registers, so a consumer owns 64 x 128 (64 + 64 per thread), not 64 x 256;
// the two consumers' chunks are staggered by half a chunk, so that one warpgroup's drain and
// adds overlap the other's wgmmas. Edges: TMA fills boxes past M, N or K with zeros; the
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

#include "hopper.cuh"  // mbarriers, TMA copies, setmaxnreg, wgmma (docs/10 explains each)
#include "runtime.h"   // tensor maps, the shared-memory opt-in, the Hopper check, the workspace
#include "sgemm.h"     // Gemm: the problem, as every rung's launcher takes it

namespace sgemm::wgmma_3xtf32 {

using namespace hopper;

// ---- The pre-pass: split into TF32 hi and lo parts, and pack K-major.

// x rounded to TF32 (10 explicit mantissa bits), to nearest with ties away from zero: the
// low 13 bits of the result are zero, so wgmma reads it exactly.
__device__ __forceinline__ float tf32_rna(float x) {
  unsigned bits;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(bits) : "f"(x));
  return __uint_as_float(bits);
}

// x with its low 13 bits cut off: TF32 rounded toward zero.
__device__ __forceinline__ float tf32_cut(float x) {
  return __uint_as_float(__float_as_uint(x) & 0xffffe000u);
}

// From here up, rounding to the nearest TF32 overflows to Inf (the largest TF32 is
// 0x7f7fe000; halfway from it to 2^128 is 0x7f7ff000).
constexpr float kTf32RoundsToInf = 0x1.ffep127f;

// Below this magnitude the lo part of a split falls under 2^-126, where TF32 keeps steps of
// 2^-136 only (its subnormals): x = hi + lo no longer holds to 2^-22 of x. As FP32 bits.
constexpr unsigned kSmallestExactSplit = 0x06800000u;  // 2^-114
constexpr unsigned kInfinity = 0x7f800000u;

// True for an input the tensor cores cannot be trusted with: Inf, NaN, or a nonzero value
// below 2^-114. Its row of A or column of B takes the guard path. On the bits of |x|, so that
// zero (0 - 1 wraps around) is not tiny.
__device__ __forceinline__ bool needs_guard(float x) {
  const unsigned magnitude = __float_as_uint(x) & 0x7fffffffu;
  return magnitude - 1u < kSmallestExactSplit - 1u || magnitude >= kInfinity;
}

// x = hi + lo + (a remainder below 2^-22 |x|): hi = tf32(x), and x - hi is exact in FP32. Where
// rounding would overflow, hi is cut instead (x - hi stays exact). An infinite or NaN x keeps
// lo = 0, so that hi carries it alone (inf - inf would make a NaN); the products of such an
// hi with the other operand's parts are what the guard path in the epilogue answers.
__device__ __forceinline__ void split(float x, float* hi, float* lo) {
  const float h = fabsf(x) >= kTf32RoundsToInf ? tf32_cut(x) : tf32_rna(x);  // NaN: rounded
  *hi = h;
  *lo = isfinite(h) ? tf32_rna(x - h) : 0.f;
}

// The guard path: C's element (row, col) summed again in plain FP32 on the CUDA cores. The
// epilogue calls it for the rows and columns the pre-pass flagged, and where the tensor cores'
// sum is not finite (it passed FLT_MAX). An Inf or NaN input's products with the other
// operand's hi and lo parts (Inf * 0 where a lo part is 0, Inf - Inf where hi and lo differ in
// sign) make NaN where IEEE arithmetic, and cuBLAS SGEMM, may give +-Inf; here Inf, NaN and
// Inf * 0 follow IEEE as cuBLAS's FFMAs do, and inputs below 2^-114 keep all their bits.
__device__ float fp32_dot(const float* A, int lda, const float* B, int ldb, int K, int row,
                          int col) {
  float sum = 0.f;
#pragma unroll 1  // rarely run: one short loop per element of the epilogue, not an unrolled one
  for (int k = 0; k < K; ++k)
    sum = fmaf(A[static_cast<long long>(row) * lda + k], B[static_cast<long long>(k) * ldb + col],
               sum);
  return sum;
}

// A (rows x cols, leading dimension ld, any alignment) -> hi, lo (leading dimension ldp), same
// orientation: K stays contiguous; guard[r] = 1 where row r holds an input needs_guard names
// (guard is zeroed before; every writer writes the same 1, once a thread per row). Each thread
// splits 4 elements 256 apart (4 loads in flight); a warp reads and writes 128 contiguous bytes.
constexpr int kSplitThreads = 256;
constexpr int kSplitPerThread = 4;
__global__ void __launch_bounds__(kSplitThreads)
    sgemm_wgmma_3xtf32_split_rows(int rows, int cols, const float* X, long long ld, float* hi,
                                  float* lo, long long ldp, int* guard) {
  for (int r = blockIdx.y; r < rows; r += gridDim.y) {
    const float* x = X + r * ld;
    bool flagged = false;
    for (int c0 = blockIdx.x * kSplitThreads * kSplitPerThread + threadIdx.x; c0 < cols;
         c0 += gridDim.x * kSplitThreads * kSplitPerThread) {
      float v[kSplitPerThread];
#pragma unroll
      for (int i = 0; i < kSplitPerThread; ++i) {
        const int c = c0 + i * kSplitThreads;
        v[i] = c < cols ? x[c] : 0.f;
      }
#pragma unroll
      for (int i = 0; i < kSplitPerThread; ++i) {
        const int c = c0 + i * kSplitThreads;
        if (c >= cols) continue;
        split(v[i], &hi[r * ldp + c], &lo[r * ldp + c]);
        flagged |= needs_guard(v[i]);
      }
    }
    if (flagged) guard[r] = 1;
  }
}

// B (rows = K x cols = N, leading dimension ld) -> hi, lo transposed (N x K, leading dimension
// ldp), through a 32 x 32 tile in shared memory (33 columns: the transposed reads hit 32
// banks), so that both the reads along n and the writes along k are coalesced; guard[n] = 1
// where column n of B holds an input needs_guard names.
constexpr int kTransposeTile = 32;
constexpr int kTransposeRows = 8;  // blockDim.y: each thread moves 4 elements
__global__ void __launch_bounds__(kTransposeTile* kTransposeRows)
    sgemm_wgmma_3xtf32_split_transpose(int rows, int cols, const float* X, long long ld, float* hi,
                                       float* lo, long long ldp, int* guard) {
  __shared__ float tile[kTransposeTile][kTransposeTile + 1];  // tile[k][n]
  const int c0 = blockIdx.x * kTransposeTile;
  unsigned flagged = 0;  // bit j: column c0 + threadIdx.y + j * kTransposeRows
  for (int r0 = blockIdx.y * kTransposeTile; r0 < rows; r0 += gridDim.y * kTransposeTile) {
#pragma unroll
    for (int i = threadIdx.y; i < kTransposeTile; i += kTransposeRows) {
      const int r = r0 + i, c = c0 + threadIdx.x;
      tile[i][threadIdx.x] = r < rows && c < cols ? X[r * ld + c] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int i = threadIdx.y; i < kTransposeTile; i += kTransposeRows) {
      const int n = c0 + i, k = r0 + threadIdx.x;  // element (n, k) of the transpose
      if (n >= cols || k >= rows) continue;
      const float x = tile[threadIdx.x][i];
      split(x, &hi[n * ldp + k], &lo[n * ldp + k]);
      flagged |= static_cast<unsigned>(needs_guard(x)) << (i / kTransposeRows);
    }
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < kTransposeTile / kTransposeRows; ++j)
    if (flagged >> j & 1) guard[c0 + threadIdx.y + j * kTransposeRows] = 1;
}

// ---- The main kernel.

// Tests compile this file with SGEMM_PLANT_NO_SMALL_PRODUCTS (tests/planted_kernels.cu) to
// prove that the FP32 checks fail a 3xTF32 kernel that computes at TF32 accuracy.
#ifdef SGEMM_PLANT_NO_SMALL_PRODUCTS
[[maybe_unused]] constexpr bool kSmallProducts = false;  // (unused where sm_90a is compiled out)
#else
[[maybe_unused]] constexpr bool kSmallProducts = true;
#endif

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
  // One block per SM, 12 warps: 168 registers a thread at launch (the register file is split
  // among 4 schedulers, 3 warps each); the producer drops to 24 and the consumers rise to 240.
  static constexpr int kLaunchRegs = 16384 / (32 * ((kThreads / 32 + 3) / 4)) / 8 * 8;
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs =
      std::min(256, kLaunchRegs + 128 * (kLaunchRegs - kProducerRegs) / (128 * kConsumers) / 8 * 8);
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

  const int tilesM = (M + BM - 1) / BM, tilesN = (N + BN - 1) / BN;
  const int perGroup = groupRows * tilesN;
  const int first = static_cast<int>(blockIdx.x) / perGroup * groupRows;  // group's first row
  const int rowsHere = min(tilesM - first, groupRows);
  const int inGroup = static_cast<int>(blockIdx.x) % perGroup;
  const int blockRow = (first + inGroup % rowsHere) * BM;
  const int blockCol = inGroup / rowsHere * BN;
  const int kTiles = (K + BK - 1) / BK;

  if (threadIdx.x == 0) {
    prefetch_tensormap(&tmAhi);
    prefetch_tensormap(&tmAlo);
    prefetch_tensormap(&tmBhi);
    prefetch_tensormap(&tmBlo);
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], T::kConsumerWarps);
    }
    fence_barrier_init();
  }
  __syncthreads();  // the block's one barrier: the mbarriers exist before anyone uses them

  if (threadIdx.x >= 128 * T::kConsumers) {
    // The producer warpgroup: fill n of a buffer (phase n % 2) waits for the consumers to
    // release fill n - 1, the completion of empty[buf] with parity phase ^ 1 (a fresh
    // mbarrier counts as having completed the phase before phase 0). Boxes past M, N or K
    // arrive as zeros and count toward the bytes all the same.
    release_registers<T::kProducerRegs>();
    if (threadIdx.x == 128 * T::kConsumers)
      for (int kt = 0, buf = 0, phase = 0; kt < kTiles; ++kt) {
        mbar_wait(&empty[buf], phase ^ 1);
        uint8_t* stage = ring + buf * T::kStageBytes;
        mbar_arrive_expect_tx(&full[buf], T::kStageBytes);
        tma_load_2d(stage, &tmAhi, kt * BK, blockRow, &full[buf]);
        tma_load_2d(stage + T::kBoxBytesA, &tmAlo, kt * BK, blockRow, &full[buf]);
        tma_load_2d(stage + 2 * T::kBoxBytesA, &tmBhi, kt * BK, blockCol, &full[buf]);
        tma_load_2d(stage + 2 * T::kBoxBytesA + T::kBoxBytesB, &tmBlo, kt * BK, blockCol,
                    &full[buf]);
        if (++buf == STAGES) buf = 0, phase ^= 1;
      }
    return;
  }
  claim_registers<T::kConsumerRegs>();

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

  int buf = 0, phase = 0;  // the ring's next buffer and the parity of its fill
  int pending = -1;        // a buffer read by the last group issued, not yet released
  // Waits for buffer `buf` and issues its wgmmas into acc as one group: per k8 step the small
  // products first. accumulate = 0: the first wgmma overwrites acc (a chunk's first stage).
  auto issue_stage = [&](int accumulate) {
    mbar_wait(&full[buf], phase);  // this buffer's four boxes have landed
    const uint8_t* stage = ring + buf * T::kStageBytes;
    const uint8_t* a = stage + wg * T::WGM * T::kSpan;  // this warpgroup's rows of A_hi
    const uint64_t aHi = make_descriptor<T::kSpan>(a);
    const uint64_t aLo = make_descriptor<T::kSpan>(a + T::kBoxBytesA);
    const uint64_t bHi = make_descriptor<T::kSpan>(stage + 2 * T::kBoxBytesA);
    const uint64_t bLo = make_descriptor<T::kSpan>(stage + 2 * T::kBoxBytesA + T::kBoxBytesB);
    fence_accumulators(acc);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 8; ++kk) {
      const uint64_t step = kk * 32 >> 4;  // k = 8kk: 32 bytes into each row, in 16-byte units
      if constexpr (kSmallProducts) {
        WgmmaTf32<BN>::mma(acc, aLo + step, bHi + step, kk == 0 ? accumulate : 1);
        WgmmaTf32<BN>::mma(acc, aHi + step, bLo + step, 1);
      }
      WgmmaTf32<BN>::mma(acc, aHi + step, bHi + step, kSmallProducts || kk > 0 ? 1 : accumulate);
    }
    wgmma_commit();
    fence_accumulators(acc);
  };
  // The group before the one just issued has completed: its buffer is read, release it. The
  // group just issued keeps the tensor cores busy meanwhile.
  auto release_previous = [&] {
    wgmma_wait<1>();
    if (pending >= 0 && lane == 0) mbar_arrive(&empty[pending]);
    pending = buf;
    if (++buf == STAGES) buf = 0, phase ^= 1;
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
      wgmma_wait<0>();
      if (lane == 0) {
        if (pending >= 0) mbar_arrive(&empty[pending]);
        mbar_arrive(&empty[buf]);
      }
      pending = -1;
      if (++buf == STAGES) buf = 0, phase ^= 1;
      promote();
      untilPromote = PROMOTE;
      accumulate = 0;
    } else {
      release_previous();
    }
  }
  wgmma_wait<0>();
  fence_accumulators(acc);
  if (accumulate) promote();  // the last, partial chunk

  // Epilogue, straight from the fragments: each thread holds pairs of adjacent columns. The
  // guard path redoes what the tensor cores cannot answer (see fp32_dot).
  const int warp = threadIdx.x / 32 % 4;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = blockRow + wg * T::WGM + warp * 16 + i * 8 + lane / 4;
    if (row >= M) continue;
    const bool guardRow = rowGuard[row - blockRow];
    float* c = C + static_cast<long long>(row) * ldc;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int col = blockCol + j * 8 + 2 * (lane % 4);
      float r[2] = {sum[4 * j + 2 * i], sum[4 * j + 2 * i + 1]};
#pragma unroll
      for (int h = 0; h < 2; ++h)
        if (col + h < N && (guardRow || colGuard[col - blockCol + h] || !isfinite(r[h])))
          r[h] = fp32_dot(A, lda, B, ldb, K, row, col + h);
      const float v0 = alpha * r[0], v1 = alpha * r[1];
      if (pairedC && col + 1 < N) {  // one 64-bit store (and load, when beta != 0)
        float2 out = make_float2(v0, v1);
        if (beta != 0.f) {  // BLAS semantics: with beta == 0, C is not read (it may hold NaN)
          const float2 old = *reinterpret_cast<const float2*>(c + col);
          out.x += beta * old.x, out.y += beta * old.y;
        }
        *reinterpret_cast<float2*>(c + col) = out;
      } else {
        if (col < N) c[col] = beta == 0.f ? v0 : v0 + beta * c[col];
        if (col + 1 < N) c[col + 1] = beta == 0.f ? v1 : v1 + beta * c[col + 1];
      }
    }
  }
#endif  // sm_90a
}

// ---- The launcher.

inline bool aligned8(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 8 == 0; }

// The workspace: the split operands A_hi, A_lo (M x Kp) and Bt_hi, Bt_lo (N x Kp), K
// contiguous, rows Kp floats apart (K rounded up to 4: 16-byte aligned rows for TMA; the
// padding is never read, the tensor maps end at K), then the guard flags, M for the rows of A
// and N for the columns of B.
struct Split {
  float *Ahi, *Alo, *Bhi, *Blo;
  int* guard;
  int Kp;
};
inline int padded_depth(int K) { return (K + 3) / 4 * 4; }
inline size_t split_floats(int M, int N, int K) {  // a flag takes a float's 4 bytes
  return (static_cast<size_t>(M) + N) * (2 * static_cast<size_t>(padded_depth(K)) + 1);
}
inline Split split_layout(float* W, int M, int N, int K) {
  const int Kp = padded_depth(K);
  const size_t a = static_cast<size_t>(M) * Kp, b = static_cast<size_t>(N) * Kp;
  return {W, W + a, W + 2 * a, W + 2 * a + b, reinterpret_cast<int*>(W + 2 * a + 2 * b), Kp};
}

// The pre-pass: the flags zeroed; A -> A_hi, A_lo; B -> Bt_hi, Bt_lo; the flags set.
inline cudaError_t split_operands(int M, int N, int K, const float* A, int lda, const float* B,
                                  int ldb, const Split& s, cudaStream_t stream) {
  cudaError_t err = cudaMemsetAsync(s.guard, 0, (static_cast<size_t>(M) + N) * sizeof(int), stream);
  if (err != cudaSuccess) return err;
  const dim3 gridA((K + kSplitThreads * kSplitPerThread - 1) / (kSplitThreads * kSplitPerThread),
                   std::min(M, 65535));
  sgemm_wgmma_3xtf32_split_rows<<<gridA, kSplitThreads, 0, stream>>>(M, K, A, lda, s.Ahi, s.Alo,
                                                                     s.Kp, s.guard);
  err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  const dim3 gridB((N + kTransposeTile - 1) / kTransposeTile,
                   std::min((K + kTransposeTile - 1) / kTransposeTile, 65535));
  sgemm_wgmma_3xtf32_split_transpose<<<gridB, dim3(kTransposeTile, kTransposeRows), 0, stream>>>(
      K, N, B, ldb, s.Bhi, s.Blo, s.Kp, s.guard + M);
  return cudaGetLastError();
}

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
// (kWorkspaceShort) and rung 13 runs instead (kernels/fallbacks.inc): the same arithmetic on
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

cudaError_t launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  if (K >= 1 && K < kMinK) return runtime::kShapeUnsuitable;
  //                 BN  BK STAGES PROMOTE
  return launch_tile<128, 32, 3, 4>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace sgemm::wgmma_3xtf32
