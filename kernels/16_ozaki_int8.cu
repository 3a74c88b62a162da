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
// (log2 P - log2 K) / 2 bits below its norm, 4 more per modulus. The launcher takes the number
// of moduli (4 to 8); the ladder's rung uses the fewest that meet FP32 accuracy (docs/16
// derives the error). That bound is relative to a line's norm, FP32's to each element's
// sum_k |a_ik||b_kj|: so every element is certified (Certificate, ozaki_certificate.cuh)
// against a lower bound of that sum from one more INT8 plane of magnitude bytes. What fails
// goes to the slow path: the flagged rows (or columns) gathered, run through rung 15, scattered.
//
// Kernels, in order: the lines' statistics and a prediction (a problem whose slow path would be
// large goes to rung 15 at once); the rows of A (scales, residues, magnitude bytes); the
// columns of B (the same, through a transpose); the bound plane (the certificate); the INT8
// GEMM, its moduli in turn; the reconstruction (CRT, scale back, alpha, beta); the slow path.
// The result is bitwise the same on every run. Every decision that depends on the values is
// made on the device, each kernel gated by it: the launcher never waits for the GPU. This file
// holds the lesson and the launcher; kernels/ozaki_*.cuh the rest (docs/16 lists them).
//
// FP32's semantics. The integers cannot hold Inf or NaN: their lines are never certified, and
// neither is an element near FP32's overflow, so rung 15 answers those as cuBLAS does. K beyond
// INT32's exact range (K 2^14 < 2^31) is cut into chunks, each reduced mod p_l before the next
// is added; beyond the bound plane's (K > 2^17), and where the workspace cannot hold the
// planes, rung 15 runs instead (kernels/fallbacks.inc). sm_90a code: on a GPU that is not
// compute capability 9.0 the launcher returns cudaErrorNoKernelImageForDevice.
// Needs: sm_90a   (cmake/ladder.cmake finds this line: CMakeLists.txt builds the file for it)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "hopper/hopper.cuh"    // mbarriers, TMA copies, setmaxnreg, wgmma (docs/10 explains each)
#include "hopper/pipeline.cuh"  // the ring, producer loop, register split, tile order (rungs 10, 14)
#include "launchers.h"          // Gemm, and the one launcher signature every rung shares
#include "ozaki/ozaki_bits.cuh"         // the moduli, Crt, integers and residues from the bits
#include "ozaki/ozaki_certificate.cuh"  // the certificate, the bound plane's epilogue, prediction
#include "ozaki/ozaki_residues.cuh"     // store_residues, the columns' pass through a transpose
#include "ozaki/ozaki_slow_path.cuh"    // the flagged lists, gather and scatter, the slow path
#include "ozaki/ozaki_statistics.cuh"   // Stats, Line, Tally, Plan, magnitude bytes, first pass
#include "ozaki/ozaki_workspace.cuh"    // the workspace's Layout, the launch's Memory
#include "runtime/device.h"             // the shared-memory opt-in, the Hopper check
#include "runtime/tensor_map.h"         // tensor maps
#include "runtime/workspace.h"          // the workspace

namespace sgemm::ozaki_int8 {

using namespace hopper;
using namespace pipeline;
using namespace ozaki;  // sgemm::ozaki: the code of the ozaki_*.cuh headers
using ozaki::Layout;    // the workspace's, not sgemm::Layout (sgemm.h: a matrix's storage order)

// ---- The moduli (kModuli, kMinModuli to kMaxModuli of them; Crt: ozaki_bits.cuh).

constexpr int kLadderModuli = 7;  // the fewest that meet FP32 accuracy (docs/16)

// ---- The pre-pass: norms, scales, residues (the statistics: ozaki_statistics.cuh).

// The rows of A, second pass (after sgemm_ozaki_int8_row_stats): one block a row stores its
// residues and magnitude bytes (store_residues, ozaki_residues.cuh) into planes [count + 1][M][Kp]
// (Kp % 16 == 0), and its Line.
__global__ void __launch_bounds__(kRowThreads)
    sgemm_ozaki_int8_rows(int M, int K, const float* A, long long lda, const Stats* stats, Crt crt,
                          uint8_t* planes, int Kp, Line* lines, const Plan* plan) {
  __shared__ Tally partialTally[kRowThreads / 32];
  if (!plan->integer) return;
  const size_t planeBytes = static_cast<size_t>(M) * Kp;
  for (int i = blockIdx.x; i < M; i += gridDim.x) {
    const float* a = A + i * lda;
    const Stats row = stats[i];
    const int s = row.scale(crt.T), e = row.magnitude_exponent(K);
    const bool vectors = (reinterpret_cast<uintptr_t>(a) & 15) == 0;  // float4 loads
    Tally tally{0, 0};
    for (int k = 4 * threadIdx.x; k < K; k += 4 * kRowThreads) {
      float x[4];
      if (vectors && k + 3 < K) {
        const float4 v = *reinterpret_cast<const float4*>(a + k);
        x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
      } else {
#pragma unroll
        for (int c = 0; c < 4; ++c) x[c] = k + c < K ? a[k + c] : 0.f;
      }
      store_residues(x, s, e, crt.count, planes + static_cast<size_t>(i) * Kp + k, planeBytes,
                     tally);
    }
    const Tally all = block_tally<kRowThreads>(tally, partialTally);
    if (threadIdx.x == 0)
      lines[i] = {static_cast<double>(all.integers), sqrt(row.squares), s, e,
                  row.flags() | (all.inexact ? kInexact : 0)};
  }
}

// ---- The INT8 GEMM, one modulus per block.

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
  // and the consumers rise to 240 (pipeline.cuh).
  using Registers = RegisterSplit<kThreads, 128, 24>;
};

// Block b multiplies tile b (tiles walked in groups of `groupRows` tile rows, as in rung 14) for
// each modulus l in turn and stores each product mod p_l, one byte an element, into residues
// [count][M][ldr]. The tensor maps hold all planes, stacked (A_l's rows start at row l M): rows
// past M read the next plane's, whose products land in rows of C that are never stored.
// kBound: the bound plane alone (plane `count`), no reduction mod anything (K <= kBoundMaxK
// keeps the sums in INT32), and an epilogue that checks the certificate instead.
constexpr int kBoundMaxK = 131072;  // 127^2 K < 2^31
template <int BN, int STAGES, bool kBound>
__global__ void __launch_bounds__(Tile<BN, STAGES>::kThreads, 1)
    sgemm_ozaki_int8(int M, int N, int K, int count, const __grid_constant__ CUtensorMap tmA,
                     const __grid_constant__ CUtensorMap tmB, uint8_t* residues, int ldr,
                     int groupRows, Certificate cert, const Plan* plan) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // compiled out (SGEMM_NO_SM90A): the launcher never starts this kernel
#else
  using T = Tile<BN, STAGES>;
  constexpr int BM = T::BM, BK = T::BK;
  if (!plan->integer) return;
  // The ring, aligned to 1024 bytes: stage s holds [A_l | Bt_l], each box [rows][128 bytes of
  // K] as TMA writes it (rows 128 bytes apart, 16-byte chunks swizzled).
  extern __shared__ uint8_t raw[];
  uint8_t* ring = raw + (1024 - smem_addr(raw) % 1024) % 1024;
  __shared__ uint64_t full[STAGES];   // buffer s holds its boxes: 1 arrival and their bytes
  __shared__ uint64_t empty[STAGES];  // buffer s is read: one arrival per consumer warp
  // The bound plane: the certificate's part of the tile's BM rows, then its BN columns.
  __shared__ LineBound bounds[kBound ? BM + BN : 1];

  const int2 origin = tile_origin(static_cast<int>(blockIdx.x), M, N, BM, BN, groupRows);
  const int blockRow = origin.x, blockCol = origin.y;   // (lambdas below capture them)
  const int kStep = kBound && plan->halfBound ? 2 : 1;  // the bound plane: maybe half the k-tiles
  const int kTiles = (K + kStep * BK - 1) / (kStep * BK);  // k-tiles read, kStep BK apart
  const int first = kBound ? count : 0, planes = kBound ? 1 : count;  // planes first, first + 1..

  if (threadIdx.x == 0) {
    prefetch_tensormap(&tmA);
    prefetch_tensormap(&tmB);
    ring_init<STAGES>(full, empty, 1, T::kConsumerWarps);
  }
  if constexpr (kBound) tile_bounds<BM, BN, T::kThreads>(bounds, cert, M, N, K, blockRow, blockCol);
  __syncthreads();  // the block's one barrier: the mbarriers exist before anyone uses them

  if (threadIdx.x >= 128 * T::kConsumers) {  // the producer warpgroup, as in rung 14
    release_registers<T::Registers::kProducerRegs>();
    if (threadIdx.x == 128 * T::kConsumers)
      produce<STAGES>(empty, 0, planes * kTiles, 1, [&](int s, int buf) {
        const int modulus = first + s / kTiles, kt = s % kTiles * kStep;
        uint8_t* stage = ring + buf * T::kStageBytes;
        mbar_arrive_expect_tx(&full[buf], T::kStageBytes);
        tma_load_2d(stage, &tmA, kt * BK, modulus * M + blockRow, &full[buf]);
        tma_load_2d(stage + T::kBoxBytesA, &tmB, kt * BK, modulus * N + blockCol, &full[buf]);
      });
    return;
  }
  claim_registers<T::Registers::kConsumerRegs>();

  const int wg = threadIdx.x / 128;  // consumer warpgroup: rows wg*WGM .. of the block tile
  const int lane = threadIdx.x % 32;
  // acc[4j + 2i + c] = (A'_l B'_l)[blockRow + wg*WGM + 16warp + lane/4 + 8i]
  //                              [blockCol + 8j + 2(lane%4) + c]   (the wgmma fragment)
  int acc[T::kAccumulators];
#pragma unroll
  for (int e = 0; e < T::kAccumulators; ++e) acc[e] = 0;

  WgmmaRing<STAGES> at{full, empty};  // the next buffer to read, and the one to release
  auto issue_stage = [&](int accumulate) {
    at.wait();  // this buffer's two boxes have landed
    const uint8_t* stage = ring + at.buf * T::kStageBytes;
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

  const int warp = threadIdx.x / 32 % 4;
#pragma unroll 1
  for (int modulus = first; modulus < first + planes; ++modulus) {
    for (int kt = 0; kt < kTiles; ++kt) {
      issue_stage(kt > 0);  // (the first stage of a plane overwrites acc)
      if (!kBound && (kt + 1) % T::kChunkStages == 0 && kt + 1 < kTiles) {
        // A chunk of K ends and more follows: drain, release both buffers, reduce mod p_l.
        at.release_all(lane);
        fence_accumulators(acc);
        with_modulus(modulus, [&](auto p) { reduce_mod<decltype(p)::value>(acc); });
      } else {
        at.release_previous(lane);
      }
    }
    wgmma_wait<0>();
    fence_accumulators(acc);
    at.release_pending(lane);  // the ring is the producer's again, for the next plane
    if constexpr (kBound) {    // the bound plane: the certificate, on this thread's elements
      certify<BM, BN>(acc, bounds, cert, M, N, blockRow, blockCol, wg * T::WGM + warp * 16, lane);
      return;
    }
    with_modulus(modulus, [&](auto p) { reduce_mod<decltype(p)::value>(acc); });

    // Epilogue: each thread holds pairs of adjacent columns: two bytes a store.
    uint8_t* plane = residues + static_cast<size_t>(modulus) * M * ldr;
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
  }
#endif  // sm_90a
}

// ---- The reconstruction.

// Element (i, j) from its residues r_l in [0, p_l): X = sum r_l w_l - n P = (A'B')_ij, n =
// rint(sum r_l w_l / P), exactly: with w_l and P in high and low parts (Crt), each partial sum
// is exact in FP64 and X, their difference, is rounded once. Then X is scaled back by
// 2^-(s_i + t_j), and alpha and beta applied: one rounding to FP32. Four columns a thread.
// The elements the slow path computes (plan->flagged, fails; all of C where plan->reconstruct
// is off) are left alone.
constexpr int kQuads = 64;  // blockDim.x: 256 columns a block; blockDim.y rows

// kCount moduli (a template argument: the loops over them unroll). A thread walks
// kReconstructRows rows of its 4 columns, the next row's residues in flight meanwhile.
// At least 2 blocks an SM: up to 128 registers (left to itself, ptxas held it to 64 and spilled).
constexpr int kReconstructRows = 8;
template <int kCount>
__global__ void __launch_bounds__(kQuads * 4, 2)
    sgemm_ozaki_int8_reconstruct(int M, int N, float alpha, float beta, float* C, int ldc,
                                 const uint8_t* residues, int ldr, Crt crt, const Line* lines,
                                 const int* fails, const Plan* plan) {
  const int j0 = (blockIdx.x * kQuads + threadIdx.x) * 4;
  if (j0 >= N || !plan->reconstruct) return;
  const bool byRows =
      static_cast<long long>(plan->flagged[0]) * N <= static_cast<long long>(plan->flagged[1]) * M;
  const int* skipRow = byRows ? fails : nullptr;
  double columnScale[4];  // 2^-t_j
  bool store[4];          // j < N, and the slow path does not own column j
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const int j = j0 + q;
    store[q] = j < N && (byRows || !fails[M + j]);
    columnScale[q] = j < N ? power_of_two(-lines[M + j].scale) : 0.0;
  }
  const size_t planeBytes = static_cast<size_t>(M) * ldr;
  auto load = [&](int i, uint32_t(&word)[kCount]) {
#pragma unroll
    for (int l = 0; l < kCount; ++l)
      word[l] = i < M ? *reinterpret_cast<const uint32_t*>(residues + l * planeBytes +
                                                           static_cast<size_t>(i) * ldr + j0)
                      : 0u;
  };
  const int step = gridDim.y * blockDim.y;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  uint32_t word[kCount];
  load(i, word);
  for (; i < M; i += step) {
    uint32_t next[kCount];
    load(i + step, next);
    if (!(skipRow && skipRow[i])) {
      // alpha 2^-s_i 2^-t_j: exact (powers of two, in FP64's range), so that the one rounding
      // is of alpha X 2^-(s_i + t_j).
      const double rowScale = double(alpha) * power_of_two(-lines[i].scale);
      float* c = C + static_cast<long long>(i) * ldc;
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        if (!store[q]) continue;
        double high = 0, low = 0;
#pragma unroll
        for (int l = 0; l < kCount; ++l) {
          const double r = byte_to_double(word[l], q);
          high = fma(r, crt.weightHi[l], high);
          low = fma(r, crt.weightLo[l], low);
        }
        const double n = rint((high + low) * crt.inverseP);
        const double X = fma(-n, crt.P_hi, high) + fma(-n, crt.P_lo, low);
        const double product = rowScale * columnScale[q] * X;
        // BLAS: with beta == 0, C is not read
        c[j0 + q] = static_cast<float>(beta == 0.f ? product : product + double(beta) * c[j0 + q]);
      }
    }
#pragma unroll
    for (int l = 0; l < kCount; ++l) word[l] = next[l];
  }
}

// The reconstruction, one kernel for each count of moduli (a template argument), a block 256
// columns and 4 kReconstructRows rows of C.
cudaError_t queue_reconstruction(int count, const Gemm& g, const uint8_t* residues, int ldr,
                                 const Crt& crt, const Line* lines, const int* fails,
                                 const Plan* plan, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = g;
  const dim3 block(kQuads, 4);
  const int rowsPerBlock = 4 * kReconstructRows;
  const dim3 grid((N + 4 * kQuads - 1) / (4 * kQuads),
                  std::min((M + rowsPerBlock - 1) / rowsPerBlock, 65535));
  constexpr decltype(&sgemm_ozaki_int8_reconstruct<kMaxModuli>) kReconstruct[] = {
      sgemm_ozaki_int8_reconstruct<4>, sgemm_ozaki_int8_reconstruct<5>,
      sgemm_ozaki_int8_reconstruct<6>, sgemm_ozaki_int8_reconstruct<7>,
      sgemm_ozaki_int8_reconstruct<8>};
  static_assert(kMinModuli == 4 && kMaxModuli == 8, "one kernel for each count of moduli");
  kReconstruct[count - kMinModuli]<<<grid, block, 0, stream>>>(M, N, alpha, beta, C, ldc, residues,
                                                               ldr, crt, lines, fails, plan);
  return cudaGetLastError();
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
  // An element is at most 2^T + 1/2: below 2^kScaledBits (this caps 8 moduli only).
  crt.T = std::min(crt.T, kScaledBits - 0.1);
  return crt;
}

// The INT8 GEMM over the residues' planes, or (kBound) the bound plane alone.
template <int BN, int STAGES, bool kBound>
cudaError_t multiply(int M, int N, int K, int count, const uint8_t* W, const Layout& L,
                     uint8_t* residues, const Certificate& cert, const Plan* plan,
                     cudaStream_t stream, int groupRows) {
  using T = Tile<BN, STAGES>;
  constexpr auto kernel = sgemm_ozaki_int8<BN, STAGES, kBound>;
  CUtensorMap tmA, tmB;  // built per call (pointers and sizes change)
  cudaError_t err = runtime::allow_shared_bytes<kernel>(T::kSharedBytes);
  if (err == cudaSuccess)
    err = runtime::make_tensor_map(&tmA, W + L.a, CU_TENSOR_MAP_DATA_TYPE_UINT8,
                                   static_cast<long long>(count + 1) * M, K, L.Kp, T::BM, T::BK,
                                   CU_TENSOR_MAP_SWIZZLE_128B);
  if (err == cudaSuccess)
    err = runtime::make_tensor_map(&tmB, W + L.b, CU_TENSOR_MAP_DATA_TYPE_UINT8,
                                   static_cast<long long>(count + 1) * N, K, L.Kp, BN, T::BK,
                                   CU_TENSOR_MAP_SWIZZLE_128B);
  if (err != cudaSuccess) return err;
  const long long blocks = static_cast<long long>((M + T::BM - 1) / T::BM) * ((N + BN - 1) / BN);
  if (blocks > 0x7fffffff) return cudaErrorInvalidValue;
  kernel<<<static_cast<unsigned>(blocks), T::kThreads, T::kSharedBytes, stream>>>(
      M, N, K, count, tmA, tmB, residues, L.ldr, std::max(1, groupRows), cert, plan);
  return cudaGetLastError();
}

// C = alpha A B + beta C with `count` moduli (kMinModuli to kMaxModuli): the kernels in the order
// they run (the top comment), each gated by the Plan, which the GPU fills: the launch queues the
// same kernels whatever the inputs and never waits for the GPU (a CUDA graph can capture it).
// halfBoundAlways: a choice the tests force (kernels/entries.h: launch_half_bound_always).
runtime::LaunchAnswer launch_moduli(int count, bool halfBoundAlways, const Gemm& g,
                                    cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = g;
  if (M < 1 || N < 1 || K < 1 || lda < K || ldb < N || ldc < N || count < kMinModuli ||
      count > kMaxModuli)
    return cudaErrorInvalidValue;
  cudaError_t err = runtime::require_sm90();
  if (err != cudaSuccess) return err;
  // Beyond INT32's range for the bound plane: rung 15 (kernels/fallbacks.inc).
  if (K > kBoundMaxK) return runtime::LaunchAnswer::hand_on(FallbackReason::shape_unsuitable);
  // Everything the launch needs, before anything is queued: without it, the problem goes down
  // the chain (workspace_short: kernels/fallbacks.inc) with C untouched.
  const Memory memory(M, N, K, count, stream);
  if ((err = memory.error()) != cudaSuccess) return err;
  const Layout& L = memory.L;
  uint8_t* w = memory.W.get();
  const auto [lines, stats, partial, fails, lists, plan, sample] = parts_of(w, L);
  const Crt crt = crt_of(count, K);
  const double budget = certificate_budget(K);
  if ((err = zero_workspace(w, L, M, N, stream)) != cudaSuccess) return err;
  auto launched = [] { return cudaGetLastError(); };

  // The prediction, from a sample of lines: a problem whose slow path would take more than
  // kSlowPathShare of C's rows and of its columns goes to rung 15 before any integer work.
  err = queue_statistics(g, Lines::sampled, stats, partial, plan, stream);
  if (err == cudaSuccess)
    err = queue_prediction(g, partial, stats, crt.T, budget, w + L.sampleRows, L.Kq,
                           reinterpret_cast<uint32_t*>(w + L.sampleColumns), sample, plan,
                           halfBoundAlways, stream);
  if (err == cudaSuccess) err = queue_statistics(g, Lines::all, stats, partial, plan, stream);
  if (err != cudaSuccess) return err;

  // The pre-pass proper: residues and magnitude bytes of the rows of A, the columns of B.
  sgemm_ozaki_int8_rows<<<std::min(M, 65535 * 8), kRowThreads, 0, stream>>>(
      M, K, A, lda, stats, crt, w + L.a, L.Kp, lines, plan);
  if ((err = launched()) != cudaSuccess) return err;
  err = queue_columns(g, stats + M, crt, w + L.b, L.Kp, lines + M, plan, stream);
  if (err != cudaSuccess) return err;

  // The certificate and the lists of what it flags, the residues' GEMM, the slow path's size,
  // then the reconstruction of every element the certificate passed.
  const Certificate cert{lines, budget, alpha, fails, fails + M};
  uint8_t* residues = w + L.r;
  err = multiply<256, 4, true>(M, N, K, count, w, L, residues, cert, plan, stream, 8);
  if (err != cudaSuccess) return err;
  sgemm_ozaki_int8_list<<<2, kListThreads, 0, stream>>>(M, N, fails, lists, plan);
  if ((err = launched()) != cudaSuccess) return err;
  err = multiply<256, 4, false>(M, N, K, count, w, L, residues, cert, plan, stream, 8);
  if (err != cudaSuccess) return err;
  sgemm_ozaki_int8_assign<<<1, 32, 0, stream>>>(M, N, memory.rowsCap, memory.columnsCap, plan);
  if ((err = launched()) != cudaSuccess) return err;
  err = queue_reconstruction(count, g, residues, L.ldr, crt, lines, fails, plan, stream);
  if (err != cudaSuccess) return err;
  // The slow path: rung 15 on the flagged rows, on the flagged columns, or on the whole problem
  // (at most one has work); below its K, sgemm_ozaki_int8_short.
  err = queue_slow_path(g, memory, fails, lists, plan, stream);
  // C may hold the reconstruction now: no fallback may start again from it, whatever failed.
  return runtime::LaunchAnswer::stop(err);
}

runtime::LaunchAnswer launch_moduli(int count, const Gemm& gemm, cudaStream_t stream) {
  return launch_moduli(count, false, gemm, stream);
}
runtime::LaunchAnswer launch_half_bound_always(const Gemm& gemm, cudaStream_t stream) {
  return launch_moduli(kLadderModuli, true, gemm, stream);
}

runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  return launch_moduli(kLadderModuli, false, gemm, stream);
}

}  // namespace sgemm::ozaki_int8
