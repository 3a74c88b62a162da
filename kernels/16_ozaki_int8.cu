// Rung 16: FP32 accuracy from INT8 tensor cores (the Ozaki scheme II). Rungs 13 to 15 spend
// three TF32 products per FP32 product, so their ceiling is a third of TF32's. Hopper's INT8
// tensor cores do four times TF32's operations per clock, and integer products are exact. So:
//
//  1. Scale each row i of A by 2^s_i and each column j of B by 2^t_j and round to integers
//     A' and B'. The scales come from the rows' and columns' 2-norms (Cauchy-Schwarz), so that
//     every |(A'B')_ij| <= ||a'_i|| ||b'_j|| < P/2, P the product of the moduli below.
//  2. For each modulus p_l (256, 255, 253, 251, 247, 241, 239, 233: pairwise coprime, the
//     largest that keep a residue in a byte) take the residues A'_l = A' mod p_l and B'_l, as
//     signed bytes, and multiply them on the tensor cores: INT8 wgmma, exact INT32 sums. The
//     product mod p_l is all the next step needs of it: one byte per element of C.
//  3. The Chinese remainder theorem: the one integer X in (-P/2, P/2] with X = (A'B')_ij mod
//     every p_l is (A'B')_ij itself, exactly. Rebuilt in FP64, scaled back by 2^-(s_i + t_j),
//     then alpha and beta, rounded once to FP32.
//
// The only error is the rounding of A and B to integers in step 1: each row keeps about
// (log2 P - log2 K) / 2 bits below its norm, so the more moduli, the more bits (4 per
// modulus) and the more INT8 products. The launcher takes the number of moduli (4 to 8); the
// ladder's rung uses the fewest that meet FP32 accuracy (docs/16_ozaki_int8.md derives the
// error and measures it).
//
// Kernels, in order: the rows of A (norms, scales, residues: one block a row), the columns of
// B (norms in slices of K, then scales, residues and the transpose that wgmma needs: 8-bit
// wgmma reads both operands K-major), the INT8 GEMM (rung 14's producer and consumers, over
// one tile and one modulus per block, its epilogue storing the residues mod p_l), and the
// reconstruction (CRT, scale back, alpha, beta, guard path). Every sum is in a fixed order:
// the result is bitwise the same on every run.
//
// FP32's semantics. The integers cannot hold Inf or NaN, nor a row whose magnitudes span more
// than 2^kMaxSpan (its small elements would round to nothing, see kMaxSpan). The pre-pass flags
// such rows of A and columns of B, and the reconstruction sums their elements again in plain FP32
// (the guard path), as it does any result that overflows. K beyond INT32's exact range (K 2^14 <
// 2^31) is cut into chunks, each reduced mod p_l before the next is added. Where the
// workspace cannot hold the residues, rung 15 runs instead. sm_90a code: on a GPU that is
// not compute capability 9.0 the launcher returns cudaErrorNoKernelImageForDevice.
// Needs: sm_90a   (cmake/ladder.cmake finds this line: CMakeLists.txt builds the file for it)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "hopper.cuh"  // mbarriers, TMA copies, setmaxnreg, wgmma (docs/10 explains each)
#include "runtime.h"   // tensor maps, the shared-memory opt-in, the Hopper check, the workspace
#include "sgemm.h"     // Gemm: the problem, as every rung's launcher takes it

namespace sgemm::ozaki_int8 {

using namespace hopper;

// ---- The moduli.

constexpr int kMaxModuli = 8;  // the scaled integers then stay below 2^32 (sqrt(P / 2) < 2^32)
constexpr int kMinModuli = 4;
constexpr int kModuli[kMaxModuli] = {256, 255, 253, 251, 247, 241, 239, 233};
constexpr int kLadderModuli = 7;  // the fewest that meet FP32 accuracy (docs/16)

// Calls f(std::integral_constant<int, p_l>{}): the modulus as a compile-time constant, so that
// x % p compiles to a multiply-high and a multiply-subtract.
template <class F>
__device__ __forceinline__ void with_modulus(int l, F&& f) {
  switch (l) {
    case 0:
      f(std::integral_constant<int, kModuli[0]>{});
      break;
    case 1:
      f(std::integral_constant<int, kModuli[1]>{});
      break;
    case 2:
      f(std::integral_constant<int, kModuli[2]>{});
      break;
    case 3:
      f(std::integral_constant<int, kModuli[3]>{});
      break;
    case 4:
      f(std::integral_constant<int, kModuli[4]>{});
      break;
    case 5:
      f(std::integral_constant<int, kModuli[5]>{});
      break;
    case 6:
      f(std::integral_constant<int, kModuli[6]>{});
      break;
    default:
      f(std::integral_constant<int, kModuli[7]>{});
      break;
  }
}

// What the kernels need of the moduli in use (computed on the host, exactly, in crt_of): the
// CRT weights w_l = (P/p_l) ((P/p_l)^-1 mod p_l) < P < 2^64 and P itself, each cut into a
// high part, its low kSplitBits bits cleared, and the low part: two doubles that hold it
// exactly, and products and sums of them with residues (< 2^8) and quotients (< 2^11) that
// FP64 also holds exactly (see sgemm_ozaki_int8_reconstruct).
constexpr int kSplitBits = 22;
struct Crt {
  int count;
  double weightHi[kMaxModuli], weightLo[kMaxModuli];
  double P_hi, P_lo, inverseP;
  double T;  // the scale's target: every row gets ||2^s a|| <= 2^T (see Stats::scale)
};

// ---- The pre-pass: norms, scales, residues.

// Rows (of A) or columns (of B) whose nonzero magnitudes span more than 2^kMaxSpan (an FP32
// significand's worth) take the guard path. The integers keep about 20 to 25 bits below a
// row's norm, and the error that leaves is relative to the row's norm, not to each product:
// where a row's tiny elements meet a column's huge ones (tests/gpu_semantics_test.cpp,
// tiny_times_huge), their products can outweigh the rest, and SGEMM keeps them to 2^-24.
// Uniform data spans 2^23 at most; docs/16 says what the bound does and does not promise.
constexpr int kMaxSpan = 24;

// The exponent of |x| (floor(log2 |x|)) for a finite nonzero x, subnormals included.
__device__ __forceinline__ int exponent_of(uint32_t bits) {
  const int biased = bits >> 23 & 0xff;
  return biased ? biased - 127 : -118 - __clz(bits & 0x7fffff);
}

// A row's (or column's) statistics, merged in a fixed order: the sum of squares in FP64 (no
// overflow near FLT_MAX, no underflow of subnormals' squares), the largest and smallest
// exponents of its nonzero elements, and whether it holds an Inf or NaN.
// (Plain data, no constructor: it also lives in __shared__ arrays. Start from Stats::none().)
struct Stats {
  double squares;
  int maxExp, minExp;
  int nonFinite;
  static __device__ Stats none() { return {0.0, -1000, 1000, 0}; }
  __device__ void add(float x) {
    const uint32_t bits = __float_as_uint(x);
    if ((bits & 0x7f800000u) == 0x7f800000u) {
      nonFinite = 1;
    } else if (bits & 0x7fffffffu) {
      squares = fma(double(x), double(x), squares);
      const int e = exponent_of(bits);
      maxExp = max(maxExp, e), minExp = min(minExp, e);
    }
  }
  __device__ void merge(const Stats& o) {
    squares += o.squares;
    maxExp = max(maxExp, o.maxExp), minExp = min(minExp, o.minExp);
    nonFinite |= o.nonFinite;
  }
  // The scale exponent: the largest s with 2^s ||x|| <= 2^T (0 for a zero row).
  __device__ int scale(double T) const {
    return squares > 0 ? static_cast<int>(floor(T - 0.5 * log2(squares))) : 0;
  }
  __device__ int guard() const { return nonFinite || maxExp - minExp > kMaxSpan; }
};

// x 2^s rounded to the nearest integer (ties away from zero), as a magnitude and a sign, from
// the bits: no float multiply, which would overflow, underflow or flush. The scale keeps the
// magnitude below 2^32. Inf and NaN give 0 (their rows take the guard path).
struct Scaled {
  uint32_t magnitude;
  bool negative;
};
__device__ __forceinline__ Scaled scale_to_integer(float x, int s) {
  const uint32_t bits = __float_as_uint(x);
  const int biased = bits >> 23 & 0xff;
  if (biased == 0xff) return {0, false};
  const uint32_t m = biased ? (bits & 0x7fffff) | 0x800000 : bits & 0x7fffff;  // x = m 2^(e-23)
  const int shift = (biased ? biased - 150 : -149) + s;
  uint32_t u;
  if (shift >= 0)
    u = static_cast<uint32_t>(static_cast<uint64_t>(m) << min(shift, 63));
  else if (shift < -24)
    u = 0;  // m 2^shift < 1/2
  else
    u = (m + (1u << (-shift - 1))) >> -shift;
  return {u, (bits >> 31) != 0};
}

// The residue of the scaled integer mod P, as the byte of a signed residue in [-128, 127]:
// what the INT8 wgmma reads. P = 256: the low byte of the two's complement.
template <int P>
__device__ __forceinline__ uint32_t residue_byte(Scaled v) {
  if constexpr (P == 256) {
    return (v.negative ? 0u - v.magnitude : v.magnitude) & 0xff;
  } else {
    int r = static_cast<int>(v.magnitude % P);
    if (v.negative && r) r = P - r;
    if (r > P / 2) r -= P;
    return static_cast<uint32_t>(r) & 0xff;
  }
}

// Four consecutive elements' residues, packed as 4 bytes, into each plane: plane l at
// planes + l * planeBytes.
__device__ __forceinline__ void store_residues(const float (&x)[4], int s, int count,
                                               uint8_t* planes, size_t planeBytes) {
  Scaled v[4];
#pragma unroll
  for (int c = 0; c < 4; ++c) v[c] = scale_to_integer(x[c], s);
#pragma unroll
  for (int l = 0; l < kMaxModuli; ++l) {
    if (l >= count) break;
    uint32_t word = 0;
    with_modulus(l, [&](auto p) {
#pragma unroll
      for (int c = 0; c < 4; ++c) word |= residue_byte<decltype(p)::value>(v[c]) << (8 * c);
    });
    *reinterpret_cast<uint32_t*>(planes + l * planeBytes) = word;
  }
}

// Sums a Stats over the block in a fixed order: lanes by a butterfly, then warps in turn.
template <int kThreads>
__device__ Stats block_stats(Stats s, Stats* shared) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) {
    Stats other = Stats::none();
    other.squares = __shfl_xor_sync(0xffffffffu, s.squares, o);
    other.maxExp = __shfl_xor_sync(0xffffffffu, s.maxExp, o);
    other.minExp = __shfl_xor_sync(0xffffffffu, s.minExp, o);
    other.nonFinite = __shfl_xor_sync(0xffffffffu, s.nonFinite, o);
    s.merge(other);
  }
  if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = s;
  __syncthreads();
  Stats all = shared[0];
  for (int w = 1; w < kThreads / 32; ++w) all.merge(shared[w]);
  __syncthreads();  // shared is free for the next row
  return all;
}

// The rows of A (M x K, leading dimension lda, any alignment): one block a row reads it twice
// (the second time from cache): its statistics, then its residues, 4 elements a thread,
// into planes [count][M][Kp] (K contiguous, Kp a multiple of 16). scale[i] = s_i, guard[i].
constexpr int kRowThreads = 256;
__global__ void __launch_bounds__(kRowThreads)
    sgemm_ozaki_int8_rows(int M, int K, const float* A, long long lda, Crt crt, uint8_t* planes,
                          int Kp, int* scale, int* guard) {
  __shared__ Stats partial[kRowThreads / 32];
  const size_t planeBytes = static_cast<size_t>(M) * Kp;
  for (int i = blockIdx.x; i < M; i += gridDim.x) {
    const float* a = A + i * lda;
    Stats mine = Stats::none();
    for (int k = 4 * threadIdx.x; k < K; k += 4 * kRowThreads)
#pragma unroll
      for (int c = 0; c < 4; ++c)
        if (k + c < K) mine.add(a[k + c]);
    const Stats row = block_stats<kRowThreads>(mine, partial);
    const int s = row.scale(crt.T);
    if (threadIdx.x == 0) scale[i] = s, guard[i] = row.guard();
    for (int k = 4 * threadIdx.x; k < K; k += 4 * kRowThreads) {
      float x[4];
#pragma unroll
      for (int c = 0; c < 4; ++c) x[c] = k + c < K ? a[k + c] : 0.f;
      store_residues(x, s, crt.count, planes + static_cast<size_t>(i) * Kp + k, planeBytes);
    }
  }
}

// The columns of B (K x N, leading dimension ldb), first pass: block (x, y) sums the
// statistics of 32 columns over slice y of K (kSliceRows rows), 8 rows at a time, into
// partial[y * N + column].
constexpr int kColumnTile = 32;
constexpr int kSliceRows = 512;
__global__ void __launch_bounds__(kColumnTile * 8)
    sgemm_ozaki_int8_column_stats(int K, int N, const float* B, long long ldb, Stats* partial) {
  __shared__ Stats rows[8][kColumnTile];
  const int j = blockIdx.x * kColumnTile + threadIdx.x;
  const int end = min(K, (blockIdx.y + 1) * kSliceRows);
  Stats mine = Stats::none();
  if (j < N)
    for (int k = blockIdx.y * kSliceRows + threadIdx.y; k < end; k += 8) mine.add(B[k * ldb + j]);
  rows[threadIdx.y][threadIdx.x] = mine;
  __syncthreads();
  if (threadIdx.y == 0 && j < N) {
    for (int y = 1; y < 8; ++y) mine.merge(rows[y][threadIdx.x]);
    partial[blockIdx.y * static_cast<long long>(N) + j] = mine;
  }
}

// Second pass: block (x, y) merges the slices' statistics of its 32 columns in order (their
// scales; block y = 0 stores them, scale[j] = t_j, guard[j]), then transposes a 128 x 32 tile
// of B through shared memory and stores its residues K-major: planes [count][N][Kp].
constexpr int kTransposeDepth = 128;
__global__ void __launch_bounds__(kColumnTile * 8)
    sgemm_ozaki_int8_columns(int K, int N, const float* B, long long ldb, const Stats* partial,
                             Crt crt, uint8_t* planes, int Kp, int* scale, int* guard) {
  __shared__ float4 tile[kColumnTile][kTransposeDepth / 4 + 1];  // [n][k]: 16-byte rows of k
  __shared__ int columnScale[kColumnTile];
  const int n0 = blockIdx.x * kColumnTile, k0 = blockIdx.y * kTransposeDepth;
  const int x = threadIdx.x, y = threadIdx.y;
  if (y == 0 && n0 + x < N) {
    Stats column = Stats::none();
    const int slices = (K + kSliceRows - 1) / kSliceRows;
    for (int z = 0; z < slices; ++z) column.merge(partial[z * static_cast<long long>(N) + n0 + x]);
    columnScale[x] = column.scale(crt.T);
    if (blockIdx.y == 0) scale[n0 + x] = columnScale[x], guard[n0 + x] = column.guard();
  }
  float* t = reinterpret_cast<float*>(tile);
  constexpr int kRow = kTransposeDepth + 4;  // floats from one n to the next
  for (int k = y; k < kTransposeDepth; k += 8)
    t[x * kRow + k] = k0 + k < K && n0 + x < N ? B[(k0 + k) * ldb + n0 + x] : 0.f;
  __syncthreads();
  const size_t planeBytes = static_cast<size_t>(N) * Kp;
  for (int item = y * kColumnTile + x; item < kColumnTile * kTransposeDepth / 4;
       item += kColumnTile * 8) {
    const int n = item / (kTransposeDepth / 4), quad = item % (kTransposeDepth / 4);
    const int k = k0 + 4 * quad;
    if (n0 + n >= N || k >= K) continue;
    const float4 v = tile[n][quad];
    const float four[4] = {v.x, v.y, v.z, v.w};
    store_residues(four, columnScale[n], crt.count, planes + static_cast<size_t>(n0 + n) * Kp + k,
                   planeBytes);
  }
}

// ---- The INT8 GEMM, one modulus per block.

// acc mod P, in [0, P), in place. |acc| < 2^31 - 2^14 (K 2^14 at most, K <= kChunkDepth or
// a residue plus a chunk); adding a multiple of P near 2^31 makes it an unsigned in (0, 2^32).
template <int P, int kCount>
__device__ __forceinline__ void reduce_mod(int (&acc)[kCount]) {
  constexpr uint32_t kOffset = P * ((0x80000000u + P - 1) / P);
#pragma unroll
  for (int e = 0; e < kCount; ++e)
    acc[e] = static_cast<int>((static_cast<uint32_t>(acc[e]) + kOffset) % P);
}

// The tensor cores sum at most this much of K before the sums are reduced mod p_l: 2^16
// products of two residues (|r| <= 128: 2^14 each) stay below 2^30.
constexpr int kChunkDepth = 1 << 16;

// BN: columns of C per block (one m64nBNk32 wgmma); BK = 128 bytes of K a stage (one 128-byte
// swizzle span per row); STAGES: buffers of the ring.
template <int BN, int STAGES>
struct Tile {
  static constexpr int BK = 128;                               // int8 elements of K per stage
  static constexpr int kConsumers = 2;                         // consumer warpgroups
  static constexpr int WGM = 64;                               // rows of C per consumer warpgroup
  static constexpr int BM = kConsumers * WGM;                  // rows of C per block
  static constexpr int kThreads = 128 * (kConsumers + 1);      // + the producer warpgroup
  static constexpr int kConsumerWarps = kConsumers * 4;        // each arrives on `empty`
  static constexpr int kBoxBytesA = BM * BK;                   // a stage's box of A_l
  static constexpr int kBoxBytesB = BN * BK;                   // and of Bt_l
  static constexpr int kStageBytes = kBoxBytesA + kBoxBytesB;  // what `full` waits for
  static constexpr int kSharedBytes = STAGES * kStageBytes + 1024;  // + room to align to 1024
  static constexpr int kAccumulators = BN / 2;                      // per thread
  static constexpr int kChunkStages = kChunkDepth / BK;
  static_assert(BN == 256, "the wgmma shape hopper.cuh wraps: m64n256k32");
  static_assert(STAGES >= 2, "a ring of at least two buffers");
  static_assert(kSharedBytes + 2 * STAGES * 8 <= 227 * 1024,
                "the ring and its mbarriers fit in the 227 KiB of shared memory a block may have");
  // One block per SM, 12 warps: 168 registers a thread at launch; the producer drops to 24
  // and the consumers rise to 240.
  static constexpr int kLaunchRegs = 16384 / (32 * ((kThreads / 32 + 3) / 4)) / 8 * 8;
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs =
      std::min(256, kLaunchRegs + 128 * (kLaunchRegs - kProducerRegs) / (128 * kConsumers) / 8 * 8);
};

// Block b multiplies modulus l = b / tiles over tile b % tiles (tiles walked in groups of
// `groupRows` tile rows, as in rung 14) and stores the product mod p_l, one byte an element,
// into residues [count][M][ldr]. The tensor maps hold all planes, stacked: A_l's rows start at
// row l M. Boxes that pass row M read the next plane's first rows, whose products land in
// rows of C that are never stored; past the last plane and past K they arrive as zeros.
template <int BN, int STAGES>
__global__ void __launch_bounds__(Tile<BN, STAGES>::kThreads, 1)
    sgemm_ozaki_int8(int M, int N, int K, int count, const __grid_constant__ CUtensorMap tmA,
                     const __grid_constant__ CUtensorMap tmB, uint8_t* residues, int ldr,
                     int groupRows) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // compiled out (SGEMM_NO_SM90A): the launcher never starts this kernel
#else
  using T = Tile<BN, STAGES>;
  constexpr int BM = T::BM, BK = T::BK;
  // The ring, aligned to 1024 bytes: stage s holds [A_l | Bt_l], each box [rows][128 bytes of
  // K] as TMA writes it (rows 128 bytes apart, 16-byte chunks swizzled).
  extern __shared__ uint8_t raw[];
  uint8_t* ring = raw + (1024 - smem_addr(raw) % 1024) % 1024;
  __shared__ uint64_t full[STAGES];   // buffer s holds its boxes: 1 arrival and their bytes
  __shared__ uint64_t empty[STAGES];  // buffer s is read: one arrival per consumer warp

  const int tilesM = (M + BM - 1) / BM, tilesN = (N + BN - 1) / BN;
  const int tiles = tilesM * tilesN;
  const int modulus = static_cast<int>(blockIdx.x) / tiles;
  const int tile = static_cast<int>(blockIdx.x) % tiles;
  const int perGroup = groupRows * tilesN;
  const int first = tile / perGroup * groupRows;  // the group's first tile row
  const int rowsHere = min(tilesM - first, groupRows);
  const int inGroup = tile % perGroup;
  const int blockRow = (first + inGroup % rowsHere) * BM;
  const int blockCol = inGroup / rowsHere * BN;
  const int kTiles = (K + BK - 1) / BK;

  if (threadIdx.x == 0) {
    prefetch_tensormap(&tmA);
    prefetch_tensormap(&tmB);
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], T::kConsumerWarps);
    }
    fence_barrier_init();
  }
  __syncthreads();  // the block's one barrier: the mbarriers exist before anyone uses them

  if (threadIdx.x >= 128 * T::kConsumers) {  // the producer warpgroup, as in rung 14
    release_registers<T::kProducerRegs>();
    if (threadIdx.x == 128 * T::kConsumers)
      for (int kt = 0, buf = 0, phase = 0; kt < kTiles; ++kt) {
        mbar_wait(&empty[buf], phase ^ 1);
        uint8_t* stage = ring + buf * T::kStageBytes;
        mbar_arrive_expect_tx(&full[buf], T::kStageBytes);
        tma_load_2d(stage, &tmA, kt * BK, modulus * M + blockRow, &full[buf]);
        tma_load_2d(stage + T::kBoxBytesA, &tmB, kt * BK, modulus * N + blockCol, &full[buf]);
        if (++buf == STAGES) buf = 0, phase ^= 1;
      }
    return;
  }
  claim_registers<T::kConsumerRegs>();

  const int wg = threadIdx.x / 128;  // consumer warpgroup: rows wg*WGM .. of the block tile
  const int lane = threadIdx.x % 32;
  // acc[4j + 2i + c] = (A'_l B'_l)[blockRow + wg*WGM + 16warp + lane/4 + 8i]
  //                              [blockCol + 8j + 2(lane%4) + c]   (the wgmma fragment)
  int acc[T::kAccumulators];
#pragma unroll
  for (int e = 0; e < T::kAccumulators; ++e) acc[e] = 0;

  int buf = 0, phase = 0;  // the ring's next buffer and the parity of its fill
  int pending = -1;        // a buffer read by the last group issued, not yet released
  auto issue_stage = [&](int accumulate) {
    mbar_wait(&full[buf], phase);  // this buffer's two boxes have landed
    const uint8_t* stage = ring + buf * T::kStageBytes;
    const uint64_t a = make_descriptor<BK>(stage + wg * T::WGM * BK);
    const uint64_t b = make_descriptor<BK>(stage + T::kBoxBytesA);
    fence_accumulators(acc);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 32; ++kk) {
      const uint64_t step = kk * 32 >> 4;  // k = 32kk: 32 bytes into each row, in 16-byte units
      WgmmaS8N256::mma(acc, a + step, b + step, kk == 0 ? accumulate : 1);
    }
    wgmma_commit();
    fence_accumulators(acc);
  };
  auto release_previous = [&] {
    wgmma_wait<1>();
    if (pending >= 0 && lane == 0) mbar_arrive(&empty[pending]);
    pending = buf;
    if (++buf == STAGES) buf = 0, phase ^= 1;
  };

  for (int kt = 0; kt < kTiles; ++kt) {
    issue_stage(kt > 0);
    if ((kt + 1) % T::kChunkStages == 0 && kt + 1 < kTiles) {
      // A chunk of K ends and more follows: drain, release both buffers, reduce mod p_l.
      wgmma_wait<0>();
      if (lane == 0) {
        if (pending >= 0) mbar_arrive(&empty[pending]);
        mbar_arrive(&empty[buf]);
      }
      pending = -1;
      if (++buf == STAGES) buf = 0, phase ^= 1;
      fence_accumulators(acc);
      with_modulus(modulus, [&](auto p) { reduce_mod<decltype(p)::value>(acc); });
    } else {
      release_previous();
    }
  }
  wgmma_wait<0>();
  fence_accumulators(acc);
  with_modulus(modulus, [&](auto p) { reduce_mod<decltype(p)::value>(acc); });

  // Epilogue: each thread holds pairs of adjacent columns: two bytes a store.
  uint8_t* plane = residues + static_cast<size_t>(modulus) * M * ldr;
  const int warp = threadIdx.x / 32 % 4;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = blockRow + wg * T::WGM + warp * 16 + i * 8 + lane / 4;
    if (row >= M) continue;
    uint8_t* r = plane + static_cast<size_t>(row) * ldr;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int col = blockCol + j * 8 + 2 * (lane % 4);
      const uint32_t lo = acc[4 * j + 2 * i], hi = acc[4 * j + 2 * i + 1];
      if (col < ldr)  // up to the padding (ldr is even): the reconstruction reads it whole
        *reinterpret_cast<uint16_t*>(r + col) = static_cast<uint16_t>(lo | hi << 8);
    }
  }
#endif  // sm_90a
}

// ---- The reconstruction.

// The guard path, as in rung 14: C's element (row, col) summed again in plain FP32.
__device__ float fp32_dot(const float* A, int lda, const float* B, int ldb, int K, int row,
                          int col) {
  float sum = 0.f;
#pragma unroll 1  // rarely run: one short loop per element, not an unrolled one
  for (int k = 0; k < K; ++k)
    sum = fmaf(A[static_cast<long long>(row) * lda + k], B[static_cast<long long>(k) * ldb + col],
               sum);
  return sum;
}

// Element (i, j) from its residues r_l in [0, p_l): X = sum r_l w_l - n P = (A'B')_ij, n =
// rint(sum r_l w_l / P), exactly. With w_l and P in high parts (multiples of 2^22 below 2^64)
// and low parts (below 2^22), each partial sum is exact in FP64: the high sums are multiples
// of 2^22 below 2^75, the low ones integers below 2^33; X is their difference, rounded once
// (exact when it has at most 53 bits, as every exact-mode sum has). Then X is scaled back by
// 2^-(s_i + t_j), and alpha and beta applied: one rounding to FP32. Four columns a thread.
constexpr int kQuads = 64;  // blockDim.x: 256 columns a block; blockDim.y rows
__global__ void __launch_bounds__(kQuads * 4)
    sgemm_ozaki_int8_reconstruct(int M, int N, int K, float alpha, const float* A, int lda,
                                 const float* B, int ldb, float beta, float* C, int ldc,
                                 const uint8_t* residues, int ldr, Crt crt, const int* scale,
                                 const int* guard) {
  const int j0 = (blockIdx.x * kQuads + threadIdx.x) * 4;
  if (j0 >= N) return;
  const size_t planeBytes = static_cast<size_t>(M) * ldr;
  for (int i = blockIdx.y * blockDim.y + threadIdx.y; i < M; i += gridDim.y * blockDim.y) {
    uint32_t word[kMaxModuli];
#pragma unroll
    for (int l = 0; l < kMaxModuli; ++l)
      if (l < crt.count)
        word[l] = *reinterpret_cast<const uint32_t*>(residues + l * planeBytes +
                                                     static_cast<size_t>(i) * ldr + j0);
    const int s = scale[i], guardRow = guard[i];
    float* c = C + static_cast<long long>(i) * ldc;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int j = j0 + q;
      if (j >= N) break;
      double high = 0, low = 0;
#pragma unroll
      for (int l = 0; l < kMaxModuli; ++l)
        if (l < crt.count) {
          const double r = word[l] >> (8 * q) & 0xff;
          high = fma(r, crt.weightHi[l], high);
          low = fma(r, crt.weightLo[l], low);
        }
      const double n = rint((high + low) * crt.inverseP);
      const double X = fma(-n, crt.P_hi, high) + fma(-n, crt.P_lo, low);
      const double product = double(alpha) * ldexp(X, -(s + scale[M + j]));
      float out;
      if (!guardRow && !guard[M + j] && isfinite(static_cast<float>(product))) {
        out = static_cast<float>(beta == 0.f ? product : product + double(beta) * c[j]);
      } else {
        out = alpha * fp32_dot(A, lda, B, ldb, K, i, j);
        if (beta != 0.f) out += beta * c[j];  // BLAS: with beta == 0, C is not read
      }
      c[j] = out;
    }
  }
}

// ---- The launcher.

// P, the CRT weights and the scale target for `count` moduli, exactly in 128-bit integers.
inline Crt crt_of(int count, int K) {
  using u128 = unsigned __int128;
  u128 P = 1;
  for (int l = 0; l < count; ++l) P *= kModuli[l];
  Crt crt{};
  crt.count = count;
  for (int l = 0; l < count; ++l) {
    const int p = kModuli[l];
    const u128 others = P / p;
    const int rest = static_cast<int>(others % p);
    int inverse = 1;
    while (rest * inverse % p != 1) ++inverse;  // p <= 256: a short search
    const u128 weight = others * inverse % P;
    crt.weightHi[l] = static_cast<double>(weight >> kSplitBits << kSplitBits);
    crt.weightLo[l] = static_cast<double>(weight & ((u128{1} << kSplitBits) - 1));
  }
  crt.P_hi = static_cast<double>(P >> kSplitBits << kSplitBits);
  crt.P_lo = static_cast<double>(P & ((u128{1} << kSplitBits) - 1));
  crt.inverseP = 1.0 / static_cast<double>(P);
  // Rounding to nearest adds up to 1/2 an element: ||a'|| <= 2^T + sqrt(K)/2. T keeps
  // (2^T + sqrt(K)/2)^2 below P/2, with a margin for the FP64 logarithms.
  crt.T = std::log2(std::sqrt(crt.P_hi / 2) - 0.5 * std::sqrt(static_cast<double>(K))) - 1e-3;
#ifdef SGEMM_PLANT_COARSE_SCALE
  crt.T -= 11;  // tests/planted_kernels.cu: 11 bits fewer a row, 2^11 times the error
#endif
  return crt;
}

inline size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

// The workspace: residues of A [count][M][Kp] and of B transposed [count][N][Kp] (Kp = K
// rounded up to 16: TMA's row pitch), the products' residues [count][M][ldr] (ldr = N rounded
// up to 16), the scales and guard flags (M rows, then N columns), the columns' partial
// statistics [slices of K][N]; each part 256-byte aligned.
struct Layout {
  int Kp, ldr;
  size_t a, b, r, scale, guard, stats, bytes;
  Layout(int M, int N, int K, int count) {
    Kp = static_cast<int>(round_up(K, 16));
    ldr = static_cast<int>(round_up(N, 16));
    const size_t mn = static_cast<size_t>(M) + N;
    const size_t slices = (K + kSliceRows - 1) / kSliceRows;
    a = 0;
    b = a + round_up(static_cast<size_t>(count) * M * Kp, 256);
    r = b + round_up(static_cast<size_t>(count) * N * Kp, 256);
    scale = r + round_up(static_cast<size_t>(count) * M * ldr, 256);
    guard = scale + round_up(mn * sizeof(int), 256);
    stats = guard + round_up(mn * sizeof(int), 256);
    bytes = stats + slices * N * sizeof(Stats);
  }
};

template <int BN, int STAGES>
cudaError_t multiply(int M, int N, int K, int count, const uint8_t* W, const Layout& L,
                     uint8_t* residues, cudaStream_t stream, int groupRows) {
  using T = Tile<BN, STAGES>;
  constexpr auto kernel = sgemm_ozaki_int8<BN, STAGES>;
  CUtensorMap tmA, tmB;  // built per call (pointers and sizes change)
  cudaError_t err = runtime::allow_shared_bytes<kernel>(T::kSharedBytes);
  if (err == cudaSuccess)
    err = runtime::make_tensor_map(&tmA, W + L.a, CU_TENSOR_MAP_DATA_TYPE_UINT8,
                                   static_cast<long long>(count) * M, K, L.Kp, T::BM, T::BK,
                                   CU_TENSOR_MAP_SWIZZLE_128B);
  if (err == cudaSuccess)
    err = runtime::make_tensor_map(&tmB, W + L.b, CU_TENSOR_MAP_DATA_TYPE_UINT8,
                                   static_cast<long long>(count) * N, K, L.Kp, BN, T::BK,
                                   CU_TENSOR_MAP_SWIZZLE_128B);
  if (err != cudaSuccess) return err;
  const long long blocks =
      static_cast<long long>((M + T::BM - 1) / T::BM) * ((N + BN - 1) / BN) * count;
  if (blocks > 0x7fffffff) return cudaErrorInvalidValue;
  kernel<<<static_cast<unsigned>(blocks), T::kThreads, T::kSharedBytes, stream>>>(
      M, N, K, count, tmA, tmB, residues, L.ldr, std::max(1, groupRows));
  return cudaGetLastError();
}

// C = alpha A B + beta C with `count` moduli (kMinModuli to kMaxModuli).
cudaError_t launch_moduli(int count, const Gemm& g, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = g;
  if (M < 1 || N < 1 || K < 1 || lda < K || ldb < N || ldc < N || count < kMinModuli ||
      count > kMaxModuli)
    return cudaErrorInvalidValue;
  cudaError_t err = runtime::require_sm90();
  if (err != cudaSuccess) return err;
  const Layout L(M, N, K, count);
  runtime::Workspace<uint8_t> W(L.bytes, stream);
  if (W.error() != cudaSuccess) return W.error();  // kWorkspaceShort: kernels/fallbacks.inc
  uint8_t* w = W.get();
  int* scale = reinterpret_cast<int*>(w + L.scale);
  int* guard = reinterpret_cast<int*>(w + L.guard);
  Stats* stats = reinterpret_cast<Stats*>(w + L.stats);
  const Crt crt = crt_of(count, K);

  sgemm_ozaki_int8_rows<<<std::min(M, 65535 * 8), kRowThreads, 0, stream>>>(
      M, K, A, lda, crt, w + L.a, L.Kp, scale, guard);
  const int slices = (K + kSliceRows - 1) / kSliceRows;
  const dim3 columnBlock(kColumnTile, 8);
  const unsigned columnTiles = (N + kColumnTile - 1) / kColumnTile;
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  sgemm_ozaki_int8_column_stats<<<dim3(columnTiles, slices), columnBlock, 0, stream>>>(K, N, B, ldb,
                                                                                       stats);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  sgemm_ozaki_int8_columns<<<dim3(columnTiles, (K + kTransposeDepth - 1) / kTransposeDepth),
                             columnBlock, 0, stream>>>(K, N, B, ldb, stats, crt, w + L.b, L.Kp,
                                                       scale + M, guard + M);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  uint8_t* residues = w + L.r;
  err = multiply<256, 4>(M, N, K, count, w, L, residues, stream, 8);
  if (err != cudaSuccess) return err;
  const dim3 block(kQuads, 4);
  const dim3 grid((N + 4 * kQuads - 1) / (4 * kQuads), std::min((M + 3) / 4, 65535));
  sgemm_ozaki_int8_reconstruct<<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C,
                                                           ldc, residues, L.ldr, crt, scale, guard);
  return cudaGetLastError();
}

cudaError_t launch(const Gemm& gemm, cudaStream_t stream) {
  return launch_moduli(kLadderModuli, gemm, stream);
}

}  // namespace sgemm::ozaki_int8
