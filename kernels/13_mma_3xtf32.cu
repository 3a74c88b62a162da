// Rung 13: 3xTF32, FP32 accuracy from TF32 tensor cores. Each operand x is split into two
// TF32 numbers, big = tf32(x) and small = tf32(x - big), so x = big + small to about 2^-22
// relative. Of x*y's four products the three largest run as three mma.sync per step, small
// products first, into a fresh partial sum per step that FADD adds to the accumulator: the
// tensor core rounds its own additions toward zero (docs/13_mma_3xtf32.md). This rung is
// precision class `fp32`: it passes the FP32 checks and is compared with cuBLAS SGEMM.
//
// FP32's semantics. Inf, NaN, values within 2^-12 of FLT_MAX and values below 2^-114 the
// tensor cores cannot answer as FP32 does. A flag pass marks every row of A and column of B
// that holds one; the epilogue leaves their elements of C unwritten and sums them again in
// plain FP32 (the guard path). Everything else is rung 12's.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "entries.h"            // launch_config, tile_config_for: the tile forced
#include "launchers.h"          // Gemm, and the one launcher signature every rung shares
#include "runtime/device.h"     // the shared-memory opt-in, the multiprocessors
#include "runtime/workspace.h"  // the workspace (the guard flags, the slices of K)

namespace sgemm::mma_3xtf32 {

// 16 bytes, global to shared: the first `valid` floats are read, the rest zero. L2 only (.cg).
__device__ __forceinline__ void copy16(float* dst, const float* src, int valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(__cvta_generic_to_global(src)), "r"(valid * 4)
               : "memory");
}

// 4 bytes: *src if `valid`, else zero. .ca: L1 too, for the warp's next copies of a sector.
__device__ __forceinline__ void copy4(float* dst, const float* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(__cvta_generic_to_global(src)), "r"(valid ? 4 : 0)
               : "memory");
}

// Closes this thread's group of copies issued since the last commit.
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void wait_pending() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// x, hidden from the compiler's optimizer: what is computed from it is recomputed where it is
// used instead of being hoisted out of the k loop and kept in registers.
__device__ __forceinline__ int opaque(int x) {
  asm volatile("mov.b32 %0, %0;\n" : "+r"(x));
  return x;
}

// x rounded to the nearest TF32 (ties away from zero), in the register format mma.sync reads
// a TF32 operand in: an FP32's bits, of which the mma ignores the low 13. They are not zero:
// ptxas implements the cvt as an integer add of 0x1000 (half a TF32 unit) for finite x.
// As in cuBLAS TF32, x within 2^-12 of FLT_MAX rounds to Inf; a NaN whose payload lies in the
// 13 cut bits alone becomes Inf, where cuBLAS TF32 keeps it NaN (docs/00_method.md).
__device__ __forceinline__ uint32_t to_tf32(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

// x = big + small: big = tf32(x), small = tf32(x - big). The subtraction needs big as the
// tensor core sees it, its low 13 bits cleared (to_tf32 may leave them set). For an infinite
// x small is Inf - Inf = NaN: the guard path answers it, as it does big rounding to Inf.
__device__ __forceinline__ void split_tf32(float x, uint32_t& big, uint32_t& small) {
  big = to_tf32(x);
  small = to_tf32(x - __uint_as_float(big & 0xffffe000u));
}

// Below this magnitude the small part of a split falls under 2^-126, where TF32 keeps steps of
// 2^-136 only (its subnormals): x = big + small no longer holds to 2^-22 of x. From the other
// bound up, big rounds to Inf (the largest TF32 is 0x7f7fe000; halfway to 2^128 is 0x7f7ff000).
constexpr float kSmallestExactSplit = 0x1p-114f;
constexpr float kTf32RoundsToInf = 0x1.ffep127f;

// True for an input the tensor cores cannot be trusted with (Inf, NaN, big rounding to Inf, or
// nonzero below kSmallestExactSplit): its row of A or column of B takes the guard path.
__device__ __forceinline__ bool needs_guard(float x) {
  const float magnitude = fabsf(x);
  return !(magnitude < kTf32RoundsToInf) || (magnitude != 0.f && magnitude < kSmallestExactSplit);
}

// The flag pass: guard[r] = 1 where row r of A, guard[M + n] = 1 where column n of B, holds
// an input needs_guard names. Where packedA (packedB) is not null it also copies A (B) there,
// rows packed_ld(K) (packed_ld(N)) floats apart, so that the product reads it in 16-byte copies.
// Blocks of z = 0 read A, of z = 1 B, each matrix in chunks of kFlagChunk floats: `width` (a
// power of two, 4 to kFlagChunk) columns of kFlagChunk / width rows, so that narrow matrices
// fill a chunk too; the blocks stride over the chunks, as many busy for a long K as for a long M.
// A thread takes kFlagRuns runs of 4 columns and loads all of them before it tests any, each run
// in one 16-byte load where its matrix's rows allow it (wideA, wideB): the pass runs after the
// operands left L2, so it waits on DRAM, and the bytes it has in flight set its pace.
__host__ __device__ constexpr int packed_ld(int cols) { return (cols + 3) / 4 * 4; }

constexpr int kFlagThreads = 256, kFlagRuns = 4, kFlagShift = 12;
constexpr int kFlagChunk = 1 << kFlagShift;  // floats: kFlagThreads * kFlagRuns runs of 4
static_assert(kFlagChunk == kFlagThreads * kFlagRuns * 4, "a chunk is every thread's runs");

__global__ void __launch_bounds__(kFlagThreads)
    sgemm_mma_3xtf32_flag(int M, int N, int K, const float* A, int lda, bool wideA, const float* B,
                          int ldb, bool wideB, int* guard, float* packedA, float* packedB) {
  const bool inA = blockIdx.z == 0;
  const int rows = inA ? M : K, cols = inA ? K : N, ld = inA ? lda : ldb;
  const float* X = inA ? A : B;
  const bool wide = inA ? wideA : wideB;
  float* packed = inA ? packedA : packedB;
  const int shift = max(min(32 - __clz(cols - 1), kFlagShift), 2);  // width = 2^shift >= cols
  const int width = 1 << shift, rowsPerChunk = kFlagChunk >> shift;
  const long long chunksPerRow = (cols + width - 1) >> shift;
  const long long count = (rows + rowsPerChunk - 1) / rowsPerChunk * chunksPerRow;
  for (long long i = blockIdx.x; i < count; i += gridDim.x) {
    const long long firstRow = i / chunksPerRow * rowsPerChunk;
    const int firstCol = static_cast<int>(i % chunksPerRow) << shift;
    float x[kFlagRuns][4];
    long long row[kFlagRuns];
    int col[kFlagRuns];
#pragma unroll
    for (int j = 0; j < kFlagRuns; ++j) {
      const int l = 4 * (threadIdx.x + kFlagThreads * j);  // l over (rowsPerChunk, width)
      row[j] = firstRow + (l >> shift), col[j] = firstCol + (l & (width - 1));
      if (row[j] >= rows) row[j] = -1;  // the chunk's last rows past the matrix
      const float* run = X + (row[j] < 0 ? 0 : row[j] * ld + col[j]);
      if (wide && row[j] >= 0 && col[j] + 3 < cols) {
        const float4 v = *reinterpret_cast<const float4*>(run);
        x[j][0] = v.x, x[j][1] = v.y, x[j][2] = v.z, x[j][3] = v.w;
      } else {
#pragma unroll
        for (int v = 0; v < 4; ++v) x[j][v] = row[j] >= 0 && col[j] + v < cols ? run[v] : 0.f;
      }
    }
#pragma unroll
    for (int j = 0; j < kFlagRuns; ++j) {
      if (row[j] < 0 || col[j] >= cols) continue;
      if (packed)  // the run, zeros past the row's end, in one 16-byte store: rows start on 16
        *reinterpret_cast<float4*>(packed + row[j] * packed_ld(cols) + col[j]) =
            make_float4(x[j][0], x[j][1], x[j][2], x[j][3]);
#pragma unroll
      for (int v = 0; v < 4; ++v)
        if (col[j] + v < cols && needs_guard(x[j][v])) guard[inA ? row[j] : M + col[j] + v] = 1;
    }
  }
}

// The guard path: C's element (row, col) summed again in plain FP32 on the CUDA cores, where
// Inf, NaN and Inf * 0 follow IEEE as cuBLAS's FFMAs do and every input keeps all its bits.
__device__ float fp32_dot(const float* A, int lda, const float* B, int ldb, int K, int row,
                          int col) {
  float sum = 0.f;
#pragma unroll 1  // rarely run: one short loop per element of the epilogue, not an unrolled one
  for (int k = 0; k < K; ++k)
    sum = fmaf(A[static_cast<std::size_t>(row) * lda + k],
               B[static_cast<std::size_t>(k) * ldb + col], sum);
  return sum;
}

// The m16n8k8 TF32 fragments of d += p * q, d (16 x 8) and q (8 x 8) FP32, p (16 x 8) TF32.
// Lane l of the warp is in group g = l / 4, thread t = l % 4 of its group; it holds
//   p[0..3] = P(g, t), P(g+8, t), P(g, t+4), P(g+8, t+4)     (row, k) of the 16 x 8 tile of P
//   q[0..1] = Q(t, g), Q(t+4, g)                              (k, col) of the 8 x 8 tile of Q
//   d[0..3] = D(g, 2t), D(g, 2t+1), D(g+8, 2t), D(g+8, 2t+1) (row, col) of the 16 x 8 tile of D
__device__ __forceinline__ void mma_m16n8k8(float (&d)[4], const uint32_t (&p)[4],
                                            const uint32_t (&q)[2]) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]), "r"(q[0]), "r"(q[1]));
}

// Tile rows of C per band of the block order: the blocks of one band walk it column by column.
constexpr int kGroupRows = 8;

// BM x BN: C per block; BK: depth staged per step; WM x WN: C per warp, walked as
// MITER x NITER mma tiles of 8 rows x 16 columns, KITER mma steps of 8 k per BK.
// STAGES: buffers of the ring.
template <int BM, int BN, int BK, int WM, int WN, int STAGES>
struct Tile {
  static constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  static constexpr int MITER = WM / 8;          // mma tiles down a warp tile (8 rows of C each)
  static constexpr int NITER = WN / 16;         // mma tiles across (16 columns of C each)
  static constexpr int KITER = BK / 8;          // mma steps per tile of k
  static constexpr int kPartTiles = MITER / 4;  // mma tiles per batch of partial sums
  // Floats per row of As and of Bs. All fragment reads are 64-bit, served a half-warp (16
  // lanes, g = 0..3 or 4..7) at a time. As: lane (g, t) reads row g at k 2t, banks
  // (8g + 2t, +1) mod 32 with rows BK + 8 floats apart (BK % 32 == 0). Bs: lane (g, t) reads
  // row 2t at column 2g, banks (8t + 2g, +1) mod 32 with rows BN + 4 floats apart
  // (BN % 32 == 0). Each half-warp covers 32 banks once. Both strides stay multiples of 4
  // floats, so a 16-byte copy's destination stays 16-byte aligned.
  static constexpr int kStrideA = BK + 8;
  static constexpr int kStrideB = BN + 4;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block tile exactly");
  static_assert(WM % 8 == 0 && WN % 16 == 0, "mma tiles of 8 x 16 cover a warp tile exactly");
  static_assert(BK % 32 == 0 && BN % 32 == 0, "the bank arithmetic of kStrideA, kStrideB");
  static_assert(kThreads >= 32 && kThreads <= 1024, "a block has 32 to 1024 threads");
  static_assert((BM * BK / 4) % kThreads == 0 && (BK * BN / 4) % kThreads == 0,
                "the threads copy the A and B tiles in whole passes of 16-byte chunks");
  static_assert(STAGES >= 2, "a ring of at least two buffers");
  static constexpr int kFloatsA = BM * kStrideA;  // one buffer of As
  static constexpr int kFloatsB = BK * kStrideB;  // one buffer of Bs
  static constexpr int kSharedBytes = STAGES * (kFloatsA + kFloatsB) * 4;
  static_assert(kSharedBytes <= 227 * 1024,
                "the ring fits in the 227 KiB of shared memory a block may have on an H100");
  // Blocks resident per SM: as many as the ring allows, at most 2 (each thread keeps
  // WM * WN / 32 accumulators, 128 at a 64 x 64 warp tile: it needs up to 255 registers).
  static constexpr int kMinBlocks = kSharedBytes * 2 <= 227 * 1024 && kThreads <= 256 ? 2 : 1;
  static constexpr int kLoadsA = BM * BK / 4 / kThreads;  // chunks of A per thread per tile
  static constexpr int kLoadsB = BK * BN / 4 / kThreads;  // chunks of B per thread per tile
};

// kAlignedA, kAlignedB: the operand's pointer is 16-byte aligned and its ld a multiple of 4,
// so its tiles move in 16-byte copies. alignedC: C's pointer is 8-byte aligned and ldc even,
// so a lane's two neighbouring elements of C are one 64-bit store.
// kSlice (a multiple of BK), sliceStride: block z multiplies slice z of K, columns z * kSlice ..
// of A by those rows of B, a problem of its own, into C + z * sliceStride (rung 11's split).
template <int BM, int BN, int BK, int WM, int WN, int STAGES, bool kAlignedA, bool kAlignedB>
__global__ void __launch_bounds__(Tile<BM, BN, BK, WM, WN, STAGES>::kThreads,
                                  Tile<BM, BN, BK, WM, WN, STAGES>::kMinBlocks)
    sgemm_mma_3xtf32(int M, int N, int K, int kSlice, float alpha, const float* A, int lda,
                     const float* B, int ldb, float beta, float* C, int ldc, long long sliceStride,
                     const int* guard, bool alignedC) {
  using T = Tile<BM, BN, BK, WM, WN, STAGES>;
  const int kBegin = blockIdx.z * kSlice;
  A += kBegin, B += static_cast<std::size_t>(kBegin) * ldb, C += blockIdx.z * sliceStride;
  K = min(K - kBegin, kSlice);
  extern __shared__ float4 ring[];  // the ring: STAGES buffers of each tile
  // As[.][r * kStrideA + k] = A[blockRow + r][k0 + k]   (BM, BK) of (BM, kStrideA)
  float(*As)[T::kFloatsA] = reinterpret_cast<float(*)[T::kFloatsA]>(ring);
  // Bs[.][k * kStrideB + c] = B[k0 + k][blockCol + c]   (BK, BN) of (BK, kStrideB)
  float(*Bs)[T::kFloatsB] = reinterpret_cast<float(*)[T::kFloatsB]>(As + STAGES);

  // Blocks over tiles of C, in bands of kGroupRows tile rows, each band column by column.
  const int tilesM = (M + BM - 1) / BM, tilesN = (N + BN - 1) / BN;
  const int band = blockIdx.x / (kGroupRows * tilesN);
  const int bandRows = min(tilesM - band * kGroupRows, kGroupRows);
  const int inBand = blockIdx.x % (kGroupRows * tilesN);
  const int blockRow = (band * kGroupRows + inBand % bandRows) * BM;
  const int blockCol = inBand / bandRows * BN;

  // Warps tile the block tile: warpIdx over (BM/WM, BN/WN), column fastest.
  const int warpIdx = threadIdx.x / 32;
  const int warpCol = warpIdx % (BN / WN);  // this warp owns columns warpCol*WN ..
  const int warpRow = warpIdx / (BN / WN);  // and rows warpRow*WM .. of the block tile
  const int lane = threadIdx.x % 32;
  const int g = lane / 4;  // the fragments' group: row g of A, columns 2g, 2g+1 of B and C
  const int t = lane % 4;  // thread in group: k 2t, 2t+1 of A and B, rows 2t, 2t+1 of C

  // Starts copying the tiles at k0 into buffer `buf`, zero past K and N (rows of A past M repeat
  // row M-1). Chunk (or float) i = threadIdx.x + l * kThreads of a tile, row-major.
  // The 4-byte copies' sources are recomputed per tile from an opaque thread index: kept across
  // the loop, their 48 addresses (two registers each) would spill. Now the 16-byte copies' too.
  auto fetch = [&](int k0, int buf) {
    const int tid = opaque(threadIdx.x);
#pragma unroll
    for (int l = 0; l < T::kLoadsA; ++l) {
      if constexpr (kAlignedA) {
        const int i = tid + l * T::kThreads;  // i over (BM, BK/4)
        const int r = i / (BK / 4), k = i % (BK / 4) * 4;
        const int rowA = min(blockRow + r, M - 1), colA = k0 + k;
        const int valid = min(max(K - colA, 0), 4);  // floats inside the matrix
        copy16(&As[buf][r * T::kStrideA + k],
               A + static_cast<std::size_t>(rowA) * lda + (valid ? colA : 0), valid);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const int i = tid + (l * 4 + q) * T::kThreads;  // i over (BM, BK)
          const int r = i / BK, k = i % BK;
          const int rowA = min(blockRow + r, M - 1), colA = k0 + k;
          copy4(&As[buf][r * T::kStrideA + k],
                A + static_cast<std::size_t>(rowA) * lda + (colA < K ? colA : 0), colA < K);
        }
      }
    }
#pragma unroll
    for (int l = 0; l < T::kLoadsB; ++l) {
      if constexpr (kAlignedB) {
        const int i = tid + l * T::kThreads;  // i over (BK, BN/4)
        const int k = i / (BN / 4), c = i % (BN / 4) * 4;
        const int rowB = k0 + k, colB = blockCol + c;
        const int valid = rowB < K ? min(max(N - colB, 0), 4) : 0;
        copy16(&Bs[buf][k * T::kStrideB + c],
               B + (valid ? static_cast<std::size_t>(rowB) * ldb + colB : 0), valid);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const int i = tid + (l * 4 + q) * T::kThreads;  // i over (BK, BN)
          const int k = i / BN, c = i % BN;
          const int rowB = k0 + k, colB = blockCol + c;
          const bool valid = rowB < K && colB < N;
          copy4(&Bs[buf][k * T::kStrideB + c],
                B + (valid ? static_cast<std::size_t>(rowB) * ldb + colB : 0), valid);
        }
      }
    }
  };

  float acc[T::NITER][T::MITER][4] = {};  // (WN/16, WM/8) d-fragments of 4
  // Tiles 0 .. STAGES-2 start on their way, one group each; a group stays empty past the end
  // of K, so that group g is always tile g and the wait below counts right.
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s * BK < K) fetch(s * BK, s);
    commit();
  }
  for (int k0 = 0, buf = 0; k0 < K; k0 += BK, buf = buf + 1 < STAGES ? buf + 1 : 0) {
    wait_pending<STAGES - 2>();  // this thread's copies of this tile have landed
    __syncthreads();  // one barrier a step: everyone's have, and everyone is done with the
                      // buffer computed on last step, which the next tile now refills
    const int ahead = k0 + (STAGES - 1) * BK;
    if (ahead < K) fetch(ahead, buf > 0 ? buf - 1 : STAGES - 1);  // in flight for STAGES-1 steps
    commit();

    // Each mma step, for 8 k: D = P Q with P = (a 16-column slice of B)^T, Q = (an 8-row slice
    // of A)^T, D = (the 8 x 16 tile of C)^T; P's and Q's k t, t+4 renamed 2t, 2t+1, P's rows
    // g, g+8 columns 2g, 2g+1. So lane (g, t) holds, with k = 8 ks + 2t and c = column 2g,
    //   p = B(k, c), B(k, c+1), B(k+1, c), B(k+1, c+1)   q = A(r, k), A(r, k+1) for r = g
    //   d = C(2t, c), C(2t+1, c), C(2t, c+1), C(2t+1, c+1)  (rows of the 8-row slice)
#pragma unroll 1  // unrolled, ptxas keeps loads of the next step in flight and spills
    for (int ks = 0; ks < T::KITER; ++ks) {
      uint32_t a[T::MITER][2], aSmall[T::MITER][2];  // (WM/8, 2) q-fragments: big, small
#pragma unroll
      for (int mi = 0; mi < T::MITER; ++mi) {
        const float2 v = *reinterpret_cast<const float2*>(
            &As[buf][(warpRow * WM + mi * 8 + g) * T::kStrideA + ks * 8 + 2 * t]);
        split_tf32(v.x, a[mi][0], aSmall[mi][0]), split_tf32(v.y, a[mi][1], aSmall[mi][1]);
      }
      // One p-fragment at a time (its parts live for one ni only): small*big and big*small, then
      // big*big, into a fresh partial sum per mma tile that FADD adds to the accumulator (the
      // tensor core's rounding toward zero cancels over steps, but grows with K in the
      // accumulator). Each pass walks the WM/8 tiles of this ni: consecutive mma do not wait.
#pragma unroll
      for (int ni = 0; ni < T::NITER; ++ni) {
        uint32_t b[4], bSmall[4];  // (4) p-fragment: big, small
        const float* p = &Bs[buf][(ks * 8 + 2 * t) * T::kStrideB + warpCol * WN + ni * 16 + 2 * g];
        const float2 k0row = *reinterpret_cast<const float2*>(p);                // k 2t
        const float2 k1row = *reinterpret_cast<const float2*>(p + T::kStrideB);  // k 2t+1
        split_tf32(k0row.x, b[0], bSmall[0]), split_tf32(k0row.y, b[1], bSmall[1]);
        split_tf32(k1row.x, b[2], bSmall[2]), split_tf32(k1row.y, b[3], bSmall[3]);
        // kPartTiles tiles at a time: partial sums for all WM/8 would not fit in 255 registers.
#pragma unroll
        for (int m0 = 0; m0 < T::MITER; m0 += T::kPartTiles) {
          float part[T::kPartTiles][4] = {};  // (kPartTiles, 4) d-fragments: this step's sums
#pragma unroll
          for (int mi = 0; mi < T::kPartTiles; ++mi) mma_m16n8k8(part[mi], bSmall, a[m0 + mi]);
#pragma unroll
          for (int mi = 0; mi < T::kPartTiles; ++mi) mma_m16n8k8(part[mi], b, aSmall[m0 + mi]);
#pragma unroll
          for (int mi = 0; mi < T::kPartTiles; ++mi) mma_m16n8k8(part[mi], b, a[m0 + mi]);
#pragma unroll
          for (int mi = 0; mi < T::kPartTiles; ++mi)
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[ni][m0 + mi][j] += part[mi][j];
        }
      }
    }
  }

  // Lane (g, t) holds C(2t + h, 2g .. 2g+1) = acc[ni][mi][h], acc[ni][mi][h + 2], h = 0, 1.
  // Unrolled, so that acc[] is indexed with constants and stays in registers.
  // guardBits: the flags of the lane's rows (bit 2mi + h: row 2t + h of tile mi) and columns
  // (bit 16 + 2ni + j: column 2g + j of ni). The guard path sums what they name, at the end.
  uint32_t guardBits = 0;
#pragma unroll
  for (int i = 0; i < 2 * T::MITER; ++i) {
    const int row = blockRow + warpRow * WM + i / 2 * 8 + 2 * t + i % 2;
    if (row < M && guard[row]) guardBits |= 1u << i;
  }
#pragma unroll
  for (int i = 0; i < 2 * T::NITER; ++i) {
    const int col = blockCol + warpCol * WN + i / 2 * 16 + 2 * g + i % 2;
    if (col < N && guard[M + col]) guardBits |= 1u << (16 + i);
  }
  static_assert(2 * T::MITER <= 16 && 2 * T::NITER <= 16, "the flags fit guardBits");
  auto guarded = [&](int mi, int h, int ni, int j) {
    return ((guardBits >> (2 * mi + h)) | (guardBits >> (16 + 2 * ni + j))) & 1;
  };
#pragma unroll
  for (int mi = 0; mi < T::MITER; ++mi)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = blockRow + warpRow * WM + mi * 8 + 2 * t + h;
      if (row >= M) continue;
#pragma unroll
      for (int ni = 0; ni < T::NITER; ++ni) {
        const int col = blockCol + warpCol * WN + ni * 16 + 2 * g;
        float* c = &C[static_cast<std::size_t>(row) * ldc + col];
        const float r[2] = {acc[ni][mi][h], acc[ni][mi][h + 2]};
        const bool paired = !guarded(mi, h, ni, 0) && !guarded(mi, h, ni, 1);
        if (alignedC && paired && col + 1 < N) {  // one 64-bit store (and load, beta != 0)
          float2 out = make_float2(alpha * r[0], alpha * r[1]);
          if (beta != 0.f) {  // BLAS semantics: with beta == 0, C is not read (it may hold NaN)
            const float2 old = *reinterpret_cast<const float2*>(c);
            out.x += beta * old.x, out.y += beta * old.y;
          }
          *reinterpret_cast<float2*>(c) = out;
          continue;
        }
        for (int j = 0; j < 2 && col + j < N; ++j)
          if (!guarded(mi, h, ni, j))
            c[j] = beta == 0.f ? alpha * r[j] : alpha * r[j] + beta * c[j];
      }
    }

  // The guard path: flagged elements one at a time, e over (MITER, 2, NITER, 2), C still C0
  // there. The sizes go through opaque(): kept in registers across the main loop, they spilled.
  if (guardBits == 0) return;
#pragma unroll 1
  for (int e = 0; e < 4 * T::MITER * T::NITER; ++e) {
    const int mi = e / (4 * T::NITER), h = e / (2 * T::NITER) % 2, ni = e / 2 % T::NITER, j = e % 2;
    const int row = blockRow + warpRow * WM + mi * 8 + 2 * t + h;
    const int col = blockCol + warpCol * WN + ni * 16 + 2 * g + j;
    if (row >= M || col >= N || !guarded(mi, h, ni, j)) continue;
    float* c = &C[static_cast<std::size_t>(row) * ldc + col];
    const float r = fp32_dot(A, opaque(lda), B, opaque(ldb), opaque(K), row, col);
    *c = beta == 0.f ? alpha * r : alpha * r + beta * *c;
  }
}

inline bool aligned(const void* p, int bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

// Few tiles (a small square, a skinny M or N, a long K) leave SMs idle: where they would fill
// fewer than half of the `slots` (blocks the GPU holds at once), K is cut into as many slices as
// fill them once, each at least kMinSliceK deep, and a second kernel adds the slices. This is the
// path off Hopper (rung 11's and rung 17's splits are sm_90a code): on an A100-class GPU a 1024^3
// problem is 32 tiles of 128 x 256.
constexpr int kMinSliceK = 128, kMaxSlices = 16;

// The slices' sum (rung 11's): C = alpha * (W[0] + W[1] + ... + W[slices-1]) + beta * C, W
// tight M x N slices one after another, added in the same order for every element: the same
// bits on every run of a device (the number of slices follows its SMs and the workspace). A
// thread takes V elements of a row, V = 4 where N, C and ldc allow 16-byte access, and loads
// every slice's before it adds any: like the flag pass, the sum waits on memory, not on adds.
template <int V>
__global__ void __launch_bounds__(256) sum_slices(int M, int N, int slices, float alpha,
                                                  const float* W, float beta, float* C, int ldc) {
  struct alignas(4 * V) Run {
    float v[V];
  };
  const long long count = static_cast<long long>(M) * N;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x * V;
  for (long long e = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * V; e < count;
       e += stride) {
    Run part[kMaxSlices];
#pragma unroll
    for (int z = 0; z < kMaxSlices; ++z)
      if (z < slices) part[z] = *reinterpret_cast<const Run*>(W + z * count + e);
    Run* c = reinterpret_cast<Run*>(C + e / N * ldc + e % N);
    Run out = beta == 0.f ? Run{} : *c;  // beta == 0: C is not read
#pragma unroll
    for (int v = 0; v < V; ++v) {
      float sum = 0.f;
#pragma unroll
      for (int z = 0; z < kMaxSlices; ++z)
        if (z < slices) sum += part[z].v[v];
      out.v[v] = beta == 0.f ? alpha * sum : alpha * sum + beta * out.v[v];
    }
    *c = out;
  }
}

// Blocks of 256 threads that fill the GPU once: the flag pass and the sum stride over the rest.
constexpr int kPassBlocksPerSm = 8;

// The flags: zeroed, then the flag pass over A and B (and their packed copies, where given).
inline cudaError_t flag_rows_and_columns(int M, int N, int K, const float* A, int lda,
                                         const float* B, int ldb, int* guard, float* packedA,
                                         float* packedB, int sms, cudaStream_t stream) {
  cudaError_t err = cudaMemsetAsync(guard, 0, (static_cast<size_t>(M) + N) * sizeof(int), stream);
  if (err != cudaSuccess) return err;
  const long long chunks =
      std::max(static_cast<long long>(M) * K, static_cast<long long>(K) * N) / kFlagChunk;
  const dim3 grid(static_cast<unsigned>(std::clamp<long long>(chunks, 1, kPassBlocksPerSm * sms)),
                  1, 2);
  const bool wideA = aligned(A, 16) && lda % 4 == 0, wideB = aligned(B, 16) && ldb % 4 == 0;
  sgemm_mma_3xtf32_flag<<<grid, kFlagThreads, 0, stream>>>(M, N, K, A, lda, wideA, B, ldb, wideB,
                                                           guard, packedA, packedB);
  return cudaGetLastError();
}

// The sum's launch: 16-byte runs where every row of C and of W starts on 16 bytes.
inline cudaError_t add_slices(int M, int N, int slices, float alpha, const float* W, float beta,
                              float* C, int ldc, int sms, cudaStream_t stream) {
  const bool wide = N % 4 == 0 && ldc % 4 == 0 && aligned(C, 16) && aligned(W, 16);
  const long long runs = static_cast<long long>(M) * N / (wide ? 4 : 1);
  const unsigned blocks =
      static_cast<unsigned>(std::clamp<long long>((runs + 255) / 256, 1, kPassBlocksPerSm * sms));
  if (wide)
    sum_slices<4><<<blocks, 256, 0, stream>>>(M, N, slices, alpha, W, beta, C, ldc);
  else
    sum_slices<1><<<blocks, 256, 0, stream>>>(M, N, slices, alpha, W, beta, C, ldc);
  return cudaGetLastError();
}

int slices_for(long long tiles, int K, int slots) {
  if (2 * tiles > slots) return 1;
  return static_cast<int>(
      std::clamp<long long>(std::min<long long>(slots / tiles, K / kMinSliceK), 1, kMaxSlices));
}

// The guard flags (M + N ints) come from the workspace; the flag pass runs first. With
// slices > 1 each slice's partial product goes, raw (alpha = 1, beta = 0), to the workspace,
// and the sum applies alpha and beta; where the workspace cannot hold the slices, one slice.
// An operand whose rows cannot move in 16-byte copies (its pointer, its ld) is copied by the
// flag pass into the workspace where it fits, rows packed_ld apart: the product then reads
// that copy as an aligned operand, at the cost of one more write of it.
template <int BM, int BN, int BK, int WM, int WN, int STAGES>
cudaError_t launch_tile(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                        int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
  using T = Tile<BM, BN, BK, WM, WN, STAGES>;
  int sms = 0, smBytes = 0;
  cudaError_t err = runtime::multiprocessors(&sms);
  if (err == cudaSuccess) err = runtime::shared_bytes_per_sm(&smBytes);
  if (err != cudaSuccess) return err;
  const int resident = std::clamp(smBytes / (T::kSharedBytes + runtime::kReservedSharedBytes), 1,
                                  T::kMinBlocks);  // blocks an SM holds
  const long long tiles = static_cast<long long>((M + BM - 1) / BM) * ((N + BN - 1) / BN);
  const int wanted = slices_for(tiles, K, sms * resident);  // > 1 only where K >= 2 * kMinSliceK
  const long long step = static_cast<long long>(wanted) * BK;
  const int kSlice = wanted > 1 ? static_cast<int>((K + step - 1) / step * BK) : K;  // k-tiles
  const int slices = wanted > 1 ? (K + kSlice - 1) / kSlice : 1;
  const long long sliceFloats = static_cast<long long>(M) * N;
  // The flags first: the run needs them, the slices and the packed copies only speed it up.
  runtime::Workspace<int> guard(static_cast<size_t>(M) + N, stream);
  if (guard.error() != cudaSuccess) return guard.error();
  runtime::Workspace<float> W(slices > 1 ? slices * sliceFloats : 0, stream);
  if (W.error() != cudaSuccess && W.error() != cudaErrorMemoryAllocation) return W.error();
  const bool split = slices > 1 && W.error() == cudaSuccess;
  const bool a16 = aligned(A, 16) && lda % 4 == 0, b16 = aligned(B, 16) && ldb % 4 == 0;
  runtime::Workspace<float> packedA(a16 ? 0 : static_cast<size_t>(M) * packed_ld(K), stream);
  runtime::Workspace<float> packedB(b16 ? 0 : static_cast<size_t>(K) * packed_ld(N), stream);
  for (const cudaError_t e : {packedA.error(), packedB.error()})
    if (e != cudaSuccess && e != cudaErrorMemoryAllocation) return e;
  err = flag_rows_and_columns(M, N, K, A, lda, B, ldb, guard.get(), packedA.get(), packedB.get(),
                              sms, stream);
  if (err != cudaSuccess) return err;
  if (packedA.get()) A = packedA.get(), lda = packed_ld(K);
  if (packedB.get()) B = packedB.get(), ldb = packed_ld(N);
  const dim3 block(T::kThreads);
  const dim3 grid(static_cast<unsigned>(tiles), 1, split ? slices : 1);  // x: the kernel bands it
  // One kernel per alignment of A and of B; C's is a run-time flag.
  auto run = [&](auto alignedA, auto alignedB) {
    constexpr auto kernel = sgemm_mma_3xtf32<BM, BN, BK, WM, WN, STAGES, decltype(alignedA)::value,
                                             decltype(alignedB)::value>;
    const cudaError_t allowed = runtime::allow_shared_bytes<kernel>(T::kSharedBytes);
    if (allowed != cudaSuccess) return allowed;
    if (split)
      kernel<<<grid, block, T::kSharedBytes, stream>>>(M, N, K, kSlice, 1.f, A, lda, B, ldb, 0.f,
                                                       W.get(), N, sliceFloats, guard.get(),
                                                       N % 2 == 0);
    else  // one slice: all of K
      kernel<<<grid, block, T::kSharedBytes, stream>>>(M, N, K, K, alpha, A, lda, B, ldb, beta, C,
                                                       ldc, 0, guard.get(),
                                                       aligned(C, 8) && ldc % 2 == 0);
    return cudaGetLastError();
  };
  const bool readA16 = a16 || packedA.get(), readB16 = b16 || packedB.get();
  if (readA16)
    err = readB16 ? run(std::true_type{}, std::true_type{})
                  : run(std::true_type{}, std::false_type{});
  else
    err = readB16 ? run(std::false_type{}, std::true_type{})
                  : run(std::false_type{}, std::false_type{});
  if (err != cudaSuccess || !split) return err;
  // W, the copies and the flags go back to the pool after the sum
  return add_slices(M, N, slices, alpha, W.get(), beta, C, ldc, sms, stream);
}

// Below this K the three products miss FP32's componentwise bound (docs/13): shorter products
// run on the CUDA cores (kernels/fallbacks.inc).
constexpr int kMinK = 16;

// The tiles, best first, BK = 32. The first that a GPU's shared memory holds as the list says is
// the rung's tile there:
//   0: 128 x 128 of warps of 64 x 64 (128 accumulators a thread), 3 stages (109.5 KiB), two
//      blocks of 4 warps an SM (an H100's or H200's 228 KiB)
//   1: 128 x 256 of warps of 64 x 64, 3 stages (157.5 KiB), one block of 8 warps (an A100's 164)
//   2: 64 x 128 of warps of 32 x 64, 3 stages (79.5 KiB), one block of 4 warps (99 KiB a block:
//      RTX 30 and 40; 128 x 128 in 2 stages would fit, but its 4-byte copies spill)
using Tile0 = Tile<128, 128, 32, 64, 64, 3>;
using Tile1 = Tile<128, 256, 32, 64, 64, 3>;
using Tile2 = Tile<64, 128, 32, 32, 64, 3>;
constexpr int kConfigCount = 3;

int tile_config_for(int blockBytes, int smBytes) {
  constexpr int reserved = runtime::kReservedSharedBytes;
  if (Tile0::kSharedBytes <= blockBytes && 2 * (Tile0::kSharedBytes + reserved) <= smBytes)
    return 0;
  if (Tile1::kSharedBytes <= blockBytes) return 1;
  if (Tile2::kSharedBytes <= blockBytes) return 2;
  return -1;
}

int config_count() { return kConfigCount; }

cudaError_t launch_config(int config, const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  switch (config) {
    //                           BM   BN  BK  WM  WN STAGES
    case 0:
      return launch_tile<128, 128, 32, 64, 64, 3>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                                  stream);
    case 1:
      return launch_tile<128, 256, 32, 64, 64, 3>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                                  stream);
    case 2:
      return launch_tile<64, 128, 32, 32, 64, 3>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                                 stream);
    default:
      return cudaErrorInvalidValue;
  }
}

runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  if (gemm.K >= 1 && gemm.K < kMinK)
    return runtime::LaunchAnswer::hand_on(FallbackReason::shape_unsuitable);
  int blockBytes = 0, smBytes = 0;
  cudaError_t err = runtime::shared_bytes_per_block(&blockBytes);
  if (err == cudaSuccess) err = runtime::shared_bytes_per_sm(&smBytes);
  if (err != cudaSuccess) return err;
  const int config = tile_config_for(blockBytes, smBytes);
  if (config < 0) return runtime::LaunchAnswer::hand_on(FallbackReason::gpu_unsupported);
  return launch_config(config, gemm, stream);
}

}  // namespace sgemm::mma_3xtf32
