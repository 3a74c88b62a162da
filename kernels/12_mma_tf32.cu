// Rung 12: TF32 tensor cores with mma.sync. A warp-wide `mma.sync.aligned.m16n8k8` (SASS
// HMMA.1688.F32.TF32) does 1024 multiply-adds in one instruction, on operands rounded to TF32
// (cvt.rna.tf32.f32: FP32's exponent, 10 mantissa bits) as they leave shared memory; products
// and sums stay FP32. This rung is precision class `tf32`: it is checked against and compared
// with cuBLAS TF32, not SGEMM.
//
// What stays from rung 9: the block tile, the ring of cp.async buffers, the edges. What
// changes (docs/12_mma_tf32.md says why):
//  - A warp owns a WM x WN tile of C, walked as 8 x 16 mma tiles in the fragment layout.
//  - Each mma computes a tile of C^T = B^T A^T, k and columns renamed inside a step, so that
//    every pair of fragment registers is one 64-bit shared load (LDS.64) with no moves.
//  - As keeps A's layout [m][k], so A moves in 16-byte copies too; rows are padded (Tile).
//  - Blocks walk tiles of C in bands of kGroupRows tile rows (a 1D grid), for L2.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "launchers.h"       // Gemm, and the one launcher signature every rung shares
#include "runtime/device.h"  // the shared-memory opt-in

namespace sgemm::mma_tf32 {

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
  static constexpr int MITER = WM / 8;   // mma tiles down a warp tile (8 rows of C each)
  static constexpr int NITER = WN / 16;  // mma tiles across (16 columns of C each)
  static constexpr int KITER = BK / 8;   // mma steps per tile of k
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
template <int BM, int BN, int BK, int WM, int WN, int STAGES, bool kAlignedA, bool kAlignedB>
__global__ void __launch_bounds__(Tile<BM, BN, BK, WM, WN, STAGES>::kThreads,
                                  Tile<BM, BN, BK, WM, WN, STAGES>::kMinBlocks)
    sgemm_mma_tf32(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                   int ldb, float beta, float* C, int ldc, bool alignedC) {
  using T = Tile<BM, BN, BK, WM, WN, STAGES>;
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
  // the loop, their 48 addresses (two registers each) would spill.
  auto fetch = [&](int k0, int buf) {
    const int tid = kAlignedA && kAlignedB ? threadIdx.x : opaque(threadIdx.x);
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
#pragma unroll
    for (int ks = 0; ks < T::KITER; ++ks) {
      uint32_t a[T::MITER][2];  // (WM/8, 2) q-fragments: A(g, 2t .. 2t+1) of each 8-row slice
      uint32_t b[T::NITER][4];  // (WN/16, 4) p-fragments: B(2t .. 2t+1, 2g .. 2g+1) of each
#pragma unroll
      for (int mi = 0; mi < T::MITER; ++mi) {
        const float2 v = *reinterpret_cast<const float2*>(
            &As[buf][(warpRow * WM + mi * 8 + g) * T::kStrideA + ks * 8 + 2 * t]);
        a[mi][0] = to_tf32(v.x), a[mi][1] = to_tf32(v.y);
      }
#pragma unroll
      for (int ni = 0; ni < T::NITER; ++ni) {
        const float* p = &Bs[buf][(ks * 8 + 2 * t) * T::kStrideB + warpCol * WN + ni * 16 + 2 * g];
        const float2 k0row = *reinterpret_cast<const float2*>(p);                // k 2t
        const float2 k1row = *reinterpret_cast<const float2*>(p + T::kStrideB);  // k 2t+1
        b[ni][0] = to_tf32(k0row.x), b[ni][1] = to_tf32(k0row.y);
        b[ni][2] = to_tf32(k1row.x), b[ni][3] = to_tf32(k1row.y);
      }
#pragma unroll
      for (int ni = 0; ni < T::NITER; ++ni)
#pragma unroll
        for (int mi = 0; mi < T::MITER; ++mi) mma_m16n8k8(acc[ni][mi], b[ni], a[mi]);
    }
  }

  // Lane (g, t) holds C(2t + h, 2g .. 2g+1) = acc[ni][mi][h], acc[ni][mi][h + 2], h = 0, 1.
  // Unrolled, so that acc[] is indexed with constants and stays in registers.
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
        if (alignedC && col + 1 < N) {  // one 64-bit store (and load, when beta != 0)
          float2 out = make_float2(alpha * r[0], alpha * r[1]);
          if (beta != 0.f) {  // BLAS semantics: with beta == 0, C is not read (it may hold NaN)
            const float2 old = *reinterpret_cast<const float2*>(c);
            out.x += beta * old.x, out.y += beta * old.y;
          }
          *reinterpret_cast<float2*>(c) = out;
          continue;
        }
        for (int j = 0; j < 2 && col + j < N; ++j)
          c[j] = beta == 0.f ? alpha * r[j] : alpha * r[j] + beta * c[j];
      }
    }
}

inline bool aligned(const void* p, int bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES>
cudaError_t launch_tile(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                        int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
  using T = Tile<BM, BN, BK, WM, WN, STAGES>;
  const dim3 block(T::kThreads);
  const dim3 grid(((N + BN - 1) / BN) * ((M + BM - 1) / BM));  // 1D: the kernel bands it
  // One kernel per alignment of A and of B; C's is a run-time flag.
  auto run = [&](auto alignedA, auto alignedB) {
    constexpr auto kernel = sgemm_mma_tf32<BM, BN, BK, WM, WN, STAGES, decltype(alignedA)::value,
                                           decltype(alignedB)::value>;
    const cudaError_t err = runtime::allow_shared_bytes<kernel>(T::kSharedBytes);
    if (err != cudaSuccess) return err;
    kernel<<<grid, block, T::kSharedBytes, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                                     aligned(C, 8) && ldc % 2 == 0);
    return cudaGetLastError();
  };
  const bool a16 = aligned(A, 16) && lda % 4 == 0, b16 = aligned(B, 16) && ldb % 4 == 0;
  if (a16)
    return b16 ? run(std::true_type{}, std::true_type{}) : run(std::true_type{}, std::false_type{});
  return b16 ? run(std::false_type{}, std::true_type{}) : run(std::false_type{}, std::false_type{});
}

// The tile: 8 warps of 64 x 64 (128 accumulators each) on a 128 x 256 block tile, BK = 32,
// 3 stages (157.5 KiB of ring).
runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  //                BM   BN  BK  WM  WN STAGES
  return launch_tile<128, 256, 32, 64, 64, 3>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace sgemm::mma_tf32
