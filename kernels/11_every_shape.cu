// Rung 11: every shape. Rung 10's kernel is fast where its grid fills the GPU; a problem with
// few tiles (a long K, a skinny M or N, a small square) leaves most SMs idle. Now the launcher
// chooses, per problem, a tile and a number of slices of K (split-K): with s slices, block
// (x, y, z) computes its tile over the z-th slice of K into the library's workspace, and a
// second kernel adds the slices in order, z = 0, 1, ..., so that the result is the same bit for
// bit on every run. The choice is data: a table of tiles with what each delivers, measured by
// scripts/autotune, and a model that predicts each (tile, slices) pair's time from waves of
// blocks and takes the fastest. Where TMA cannot read B, B is first copied into the workspace
// with rows 16 bytes apart, so every shape gets the same kernel (rung 9 only when it cannot).
// Needs: sm_90a   (cmake/ladder.cmake finds this line: CMakeLists.txt builds the file for it)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "entries.h"             // launch_config and the other entries this file defines
#include "hopper/hopper.cuh"     // mbarriers, TMA copies, setmaxnreg (docs/10 explains each)
#include "hopper/pipeline.cuh"   // the mbarrier ring, producer loop, register split (rung 10)
#include "launchers.h"           // Gemm, and the one launcher signature every rung shares
#include "runtime/device.h"      // the shared-memory opt-in, device facts
#include "runtime/tensor_map.h"  // tensor maps
#include "runtime/workspace.h"   // the workspace

namespace sgemm::every_shape {

using namespace hopper;
using namespace pipeline;

// BM x BN: C per block; BK: depth staged per step; WM x WN: C per consumer warp, walked as
// WMITER x WNITER sub-tiles of WSUBM x WSUBN; TM x TN: C per thread in each sub-tile;
// STAGES: buffers of the ring.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES>
struct Tile {
  static constexpr int kConsumerThreads = (BM / WM) * (BN / WN) * 32;  // one warp per warp tile
  static constexpr int kProducerThreads = 128;  // a warpgroup: it copies A, one thread issues B's
  static constexpr int kThreads = kConsumerThreads + kProducerThreads;
  static constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);
  static constexpr int WSUBM = WM / (WMITER > 0 ? WMITER : 1);  // rows of one warp sub-tile
  static constexpr int WSUBN = WN / WNITER;                     // columns of one
  static constexpr int kAccumulators = WM * WN / 32;            // elements of C per thread
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block tile exactly");
  static_assert(WMITER >= 1 && (WM * WN) % (32 * TM * TN * WNITER) == 0,
                "a warp's 32 threads cover its tile in whole sub-tiles");
  static_assert(WM % WMITER == 0 && WN % WNITER == 0, "sub-tiles cover the warp tile exactly");
  static_assert(WSUBM % TM == 0 && WSUBN % TN == 0 && (WSUBM / TM) * (WSUBN / TN) == 32,
                "the 32 threads of a warp tile one sub-tile with their micro-tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "a thread's slices of As and Bs are whole float4s");
  static_assert(BM % 32 == 0, "the As swizzle permutes rows within groups of 32");
  static_assert(BK % 16 == 0 && BM % (kProducerThreads / 32 * 8) == 0 && kProducerThreads == 128,
                "the producer copies A in blocks of 8 rows x 16 k per warp, in whole passes");
  static_assert(BN * 4 % 128 == 0 && BN <= 256 && BK <= 256,
                "a TMA box of B is at most 256 elements a side, its rows whole 128-byte lines");
  static_assert(kThreads >= 32 && kThreads <= 1024, "a block has 32 to 1024 threads");
  static_assert(STAGES >= 2, "a ring of at least two buffers");
  static constexpr int kStageBytesA = BM * BK * 4;  // one tile of A: 4-byte copies
  static constexpr int kStageBytesB = BK * BN * 4;  // one box of B: what TMA announces on `full`
  static_assert(kStageBytesA % 128 == 0 && kStageBytesB % 128 == 0,
                "every box of B starts on a 128-byte boundary (TMA's alignment in shared memory)");
  static constexpr int kSharedBytes =
      STAGES * (kStageBytesA + kStageBytesB) + 128;  // the ring,
                                                     // and room to align it to 128
  static_assert(kSharedBytes + 2 * STAGES * 8 <= 227 * 1024,
                "the ring and its mbarriers fit in the 227 KiB of shared memory a block may have");
  // The producer's copies of A: blocks of 8 rows x 16 k per warp, kCopyRows rows at a time.
  static constexpr int kCopyRows = kProducerThreads / 32 * 8;
  // One block per SM (the ring takes most of its shared memory), and a register count at
  // launch that setmaxnreg can rely on.
  static constexpr int kMinBlocks = 1;
  // The register split (pipeline.cuh): 168 registers a thread at launch; the consumers rise to
  // what the producer releases. It drops to 56, not rung 10's 40: with 40, ptxas gave this
  // loop more register-bank conflicts than tests/sass_expectations.json allows.
  using Registers = RegisterSplit<kThreads, kProducerThreads, 56>;
};

// Rung 8's swizzle: element r of row k of As is stored at r XOR a multiple of 8.
__device__ __forceinline__ int swizzle(int r, int k) { return r ^ ((k / 4) % 4 * 8); }

// kMinBlocks = 1 fixes each thread's registers at launch (kLaunchRegs), which setmaxnreg then
// moves between the warpgroups. tmB: tensor map of B (boxes of BK x BN). alignedC: C's pointer
// is 16-byte aligned and ldc a multiple of 4, so that its tiles move in 128-bit stores.
// kSlice: whole BK tiles; block z walks K from z * kSlice and writes at C + z * sliceStride.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES>
__global__ void __launch_bounds__(Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>::kThreads,
                                  Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>::kMinBlocks)
    sgemm_every_shape(int M, int N, int K, int kSlice, float alpha, const float* A, int lda,
                      const __grid_constant__ CUtensorMap tmB, float beta, float* C, int ldc,
                      long long sliceStride, bool alignedC) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // compiled out (SGEMM_NO_SM90A): the launcher never starts this kernel
#else
  using T = Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>;
  // The ring, in dynamic shared memory aligned to 128 bytes: STAGES buffers of each tile.
  extern __shared__ float4 ring[];
  float4* ring128 = ring + (128 - smem_addr(ring) % 128) % 128 / 16;
  // Bs[.][k * BN + c] = B[k0 + k][blockCol + c]: TMA's boxes, 128-byte aligned
  float(*Bs)[BK * BN] = reinterpret_cast<float(*)[BK * BN]>(ring128);
  // As[.][k * BM + swizzle(r, k)] = A[blockRow + r][k0 + k]: transposed by the copies
  float(*As)[BK * BM] = reinterpret_cast<float(*)[BK * BM]>(Bs + STAGES);
  __shared__ uint64_t full[STAGES];   // buffer s holds its tiles: B's bytes, and one arrival
                                      // per producer thread once its copies of A have landed
  __shared__ uint64_t empty[STAGES];  // buffer s is read: one arrival per consumer warp

  // Warps tile the block tile: warpIdx over (BM/WM, BN/WN), column fastest. The warps after
  // them, the last warpgroup, are the producer.
  const int warpIdx = threadIdx.x / 32;
  const int warpCol = warpIdx % (BN / WN);  // this warp owns columns warpCol*WN ..
  const int warpRow = warpIdx / (BN / WN);  // and rows warpRow*WM .. of the block tile
  // Lanes tile one sub-tile: lane over (WSUBM/TM, WSUBN/TN), column fastest.
  const int lane = threadIdx.x % 32;
  const int threadCol = lane % (T::WSUBN / TN);  // this thread owns columns threadCol*TN ..
  const int threadRow = lane / (T::WSUBN / TN);  // and rows threadRow*TM .. of each sub-tile
  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const int kBegin = blockIdx.z * kSlice;    // this block's slice of K: whole BK tiles,
  const int kEnd = min(K, kBegin + kSlice);  // so no k-tile spans two slices

  if (threadIdx.x == 0) {
    prefetch_tensormap(&tmB);
    // full: the copies of A, and B's expect_tx; empty: one arrival per consumer warp
    ring_init<STAGES>(full, empty, T::kProducerThreads + 1, T::kConsumerThreads / 32);
  }
  __syncthreads();  // the block's one barrier: the mbarriers exist before anyone uses them

  if (threadIdx.x >= T::kConsumerThreads) {
    // The producer warpgroup gives registers to the consumers and keeps the ring full.
    release_registers<T::Registers::kProducerRegs>();
    const int p = threadIdx.x - T::kConsumerThreads;  // 0 .. 127
    // Rung 9's copies of A, lane over (8 rows, 4 groups of 4 k): each instruction writes 32
    // banks. A thread's rows are copyRow + 32 rp, its k copyK + 16 h + q: one swizzle for all,
    // so every copy's shared address is one register plus a constant. Rows past M repeat M-1.
    const int copyRow = p / 32 * 8 + lane / 4, copyK = lane % 4 * 4;
    const float* src[BM / T::kCopyRows];  // this thread's rows of A, at its first k
#pragma unroll
    for (int rp = 0; rp < BM / T::kCopyRows; ++rp)
      src[rp] = A +
                static_cast<long long>(min(blockRow + copyRow + rp * T::kCopyRows, M - 1)) * lda +
                copyK;
    const int dst = copyK * BM + swizzle(copyRow, copyK);
    // One tile's copies into As[buf]; an edge tile (past K) zero-fills the k past the end
    // and reads nothing there.
    auto copy_tile = [&](auto edge, int k0, int buf) {
#pragma unroll
      for (int h = 0; h < BK / 16; ++h)
#pragma unroll
        for (int q = 0; q < 4; ++q)
#pragma unroll
          for (int rp = 0; rp < BM / T::kCopyRows; ++rp) {
            const int k = 16 * h + q;  // past copyK
            const bool valid = !decltype(edge)::value || k0 + copyK + k < kEnd;
            copy4_async(&As[buf][dst + k * BM + rp * T::kCopyRows], valid ? src[rp] + k0 + k : A,
                        valid);
          }
    };
    produce<STAGES>(empty, kBegin, kEnd, BK, [&](int k0, int buf) {
      if (p == 0) {  // B: one TMA copy, whose bytes complete full[buf] as they land
        mbar_arrive_expect_tx(&full[buf], T::kStageBytesB);
        tma_load_2d(Bs[buf], &tmB, blockCol, k0, &full[buf]);  // B's box at (n, k)
      }
      if (k0 + BK <= kEnd)
        copy_tile(std::false_type{}, k0, buf);
      else
        copy_tile(std::true_type{}, k0, buf);
      copies_arrive(&full[buf]);  // once this thread's copies have landed
    });
    return;
  }
  claim_registers<T::Registers::kConsumerRegs>();

  // acc[i * WNITER*TN + j]: i over (WMITER, TM), j over (WNITER, TN): this thread's
  // element (threadRow*TM + i%TM) of sub-tile row i/TM, (threadCol*TN + j%TN) of column j/TN.
  float acc[T::WMITER * TM * WNITER * TN] = {};
  float regM[T::WMITER * TM];  // regM[i]: i over (WMITER, TM), rows of As at this k
  float regN[WNITER * TN];     // regN[j]: j over (WNITER, TN), columns of Bs at this k
  for (int k0 = kBegin, buf = 0, phase = 0; k0 < kEnd; k0 += BK) {
    mbar_wait(&full[buf], phase);  // this buffer's tiles have landed

    // Rung 8's loads: each k reads float4s of As (a thread's TM consecutive rows per sub-tile)
    // and of Bs (its TN consecutive columns). Unrolled 16 deep, not over all of BK: the loop
    // then stays small enough for the instruction cache (docs/10 measures both).
#pragma unroll 16
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int wm = 0; wm < T::WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; i += 4) {
          const int r = warpRow * WM + wm * T::WSUBM + threadRow * TM + i;
          *reinterpret_cast<float4*>(&regM[wm * TM + i]) =
              *reinterpret_cast<const float4*>(&As[buf][k * BM + swizzle(r, k)]);
        }
#pragma unroll
      for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
        for (int j = 0; j < TN; j += 4)
          *reinterpret_cast<float4*>(&regN[wn * TN + j]) = *reinterpret_cast<const float4*>(
              &Bs[buf][k * BN + warpCol * WN + wn * T::WSUBN + threadCol * TN + j]);
      // The micro-tile in pairs of columns, one register of each bank (regN[2p], regN[2p+1]),
      // each walked down the rows and back up for the next pair: every FFMA shares an operand
      // with the one before, so the operand reuse cache serves it (docs/10).
      constexpr int kRows = T::WMITER * TM, kCols = WNITER * TN;
#pragma unroll
      for (int p = 0; p < kCols / 2; ++p)
#pragma unroll
        for (int step = 0; step < kRows; ++step) {
          const int i = p % 2 == 0 ? step : kRows - 1 - step;
          acc[i * kCols + 2 * p] += regM[i] * regN[2 * p];
          acc[i * kCols + 2 * p + 1] += regM[i] * regN[2 * p + 1];
        }
    }
    __syncwarp();                             // every lane of this warp is done reading buf,
    if (lane == 0) mbar_arrive(&empty[buf]);  // so the warp releases it to the producer
    if (++buf == STAGES) buf = 0, phase ^= 1;
  }

  // Unrolled, so that acc[] is indexed with constants and stays in registers.
  C += blockIdx.z * sliceStride;  // this slice's partial tile (0: the one and only slice)
#pragma unroll
  for (int i = 0; i < T::WMITER * TM; ++i) {
    const int row = blockRow + warpRow * WM + (i / TM) * T::WSUBM + threadRow * TM + i % TM;
    if (row >= M) continue;
#pragma unroll
    for (int j = 0; j < WNITER * TN; j += 4) {
      const int col = blockCol + warpCol * WN + (j / TN) * T::WSUBN + threadCol * TN + j % TN;
      float* c = &C[row * ldc + col];
      const float* r = &acc[i * WNITER * TN + j];
      if (alignedC && col + 3 < N) {  // one 128-bit store (and load, when beta != 0)
        float4 out = make_float4(alpha * r[0], alpha * r[1], alpha * r[2], alpha * r[3]);
        if (beta != 0.f) {  // BLAS semantics: with beta == 0, C is not read (it may hold NaN)
          const float4 old = *reinterpret_cast<const float4*>(c);
          out.x += beta * old.x, out.y += beta * old.y, out.z += beta * old.z,
              out.w += beta * old.w;
        }
        *reinterpret_cast<float4*>(c) = out;
        continue;
      }
      for (int jj = 0; jj < 4 && col + jj < N; ++jj)
        c[jj] = beta == 0.f ? alpha * r[jj] : alpha * r[jj] + beta * c[jj];
    }
  }
#endif  // sm_90a
}

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// Block (x, y, z) computes tile (x, y) of C over slice z of K, into C + z * sliceStride.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES>
cudaError_t launch_tile(int M, int N, int K, int kSlice, float alpha, const float* A, int lda,
                        const float* B, int ldb, float beta, float* C, int ldc,
                        long long sliceStride, cudaStream_t stream) {
  using T = Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>;
  const dim3 block(T::kThreads);
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM, (K + kSlice - 1) / kSlice);
  constexpr auto kernel = sgemm_every_shape<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>;
  CUtensorMap tmB;  // built per call (pointer and sizes change); 128 bytes
  cudaError_t err = runtime::allow_shared_bytes<kernel>(T::kSharedBytes);
  if (err == cudaSuccess)
    err = runtime::make_tensor_map(&tmB, B, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, K, N, ldb, BK, BN,
                                   CU_TENSOR_MAP_SWIZZLE_NONE);
  if (err != cudaSuccess) return err;
  kernel<<<grid, block, T::kSharedBytes, stream>>>(M, N, K, kSlice, alpha, A, lda, tmB, beta, C,
                                                   ldc, sliceStride, aligned16(C) && ldc % 4 == 0);
  return cudaGetLastError();
}

// The slices' sum: C = alpha * (W[0] + W[1] + ... + W[slices-1]) + beta * C, W tight M x N
// tiles one after another, in the same order for every element: the same bits on every run.
__global__ void sum_slices(int M, int N, int slices, float alpha, const float* W, float beta,
                           float* C, int ldc) {
  const long long count = static_cast<long long>(M) * N;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    float sum = 0.f;
    for (int z = 0; z < slices; ++z) sum += W[z * count + e];
    float* c = C + e / N * ldc + e % N;
    *c = beta == 0.f ? alpha * sum : alpha * sum + beta * *c;  // beta == 0: C is not read
  }
}

using TileLauncher = cudaError_t (*)(int M, int N, int K, int kSlice, float alpha, const float* A,
                                     int lda, const float* B, int ldb, float beta, float* C,
                                     int ldc, long long sliceStride, cudaStream_t stream);

// A tile this rung can run, and what it delivers: the data the choice is made from.
struct Config {
  int BM, BN, BK;
  double gflopsPerSM;  // one SM's rate with one block on long K
  double blockMicros;  // a block's fixed cost: the ring's first fill, the epilogue, the tail
  TileLauncher run;
};

// The table (experiments/rung11/fit_table.py, from scripts/autotune's runs; docs/11): rung 10's
// tile, and one of half the columns whose eight consumer warps own 32 x 64 of C each: slower
// per SM, but cheaper to start and twice as many blocks.
//                                         BM   BN  BK  WM  WN WNITER TM TN STAGES
constexpr Config kConfigs[] = {
    {128, 256, 32, 390, 2, &launch_tile<128, 256, 32, 64, 64, 4, 4, 4, 4>},
    {128, 128, 32, 300, 1, &launch_tile<128, 128, 32, 32, 64, 4, 4, 4, 4>},
};
constexpr int kSliceCounts[] = {1, 2, 3, 4, 6, 8, 12, 16};  // the splits of K considered
constexpr double kSumMicros = 8;                            // the sum's launch and tail
constexpr double kSumBytesPerMicro = 3e6;  // its rate through device memory (3 TB/s)

// How one problem runs: a tile, and K cut into `slices` of kSlice (a multiple of BK).
struct Plan {
  const Config* config = nullptr;
  int slices = 1, kSlice = 0;
  double micros = 0;  // the model's prediction
};

// The model: blocks run in waves of one per SM; a wave takes a block's fixed cost plus its
// slice's FFMA at the tile's rate; slices > 1 add the sum, which reads every slice and C and
// writes C once. The fastest prediction wins; ties go to fewer slices.
Plan choose(int M, int N, int K, int sms) {
  Plan best;
  for (const Config& c : kConfigs) {
    const long long tiles = static_cast<long long>((M + c.BM - 1) / c.BM) * ((N + c.BN - 1) / c.BN);
    for (int want : kSliceCounts) {
      const int kSlice = (K + want * c.BK - 1) / (want * c.BK) * c.BK;  // whole k-tiles
      const int slices = (K + kSlice - 1) / kSlice;
      if (slices != want && want > 1) continue;  // K too short to cut this many times
      const double bytes = (slices + 2.0) * M * N * sizeof(float);
      const long long waves = (tiles * slices + sms - 1) / sms;
      const double block = c.blockMicros + 2.0 * c.BM * c.BN * kSlice / (c.gflopsPerSM * 1e3);
      const double micros =
          waves * block + (slices > 1 ? kSumMicros + bytes / kSumBytesPerMicro : 0);
      if (best.config == nullptr || micros < best.micros) best = {&c, slices, kSlice, micros};
    }
  }
  return best;
}

// The plan's launches: one kernel, or the sliced kernel into the workspace and the sum. When
// the workspace cannot hold the slices, the plan's tile runs unsplit, which needs none.
cudaError_t run(const Plan& plan, int M, int N, int K, float alpha, const float* A, int lda,
                const float* B, int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
  const int whole = (K + plan.config->BK - 1) / plan.config->BK * plan.config->BK;  // 1 slice
  if (plan.slices == 1)
    return plan.config->run(M, N, K, whole, alpha, A, lda, B, ldb, beta, C, ldc, 0, stream);
  const long long sliceFloats = static_cast<long long>(M) * N;
  runtime::Workspace<float> W(plan.slices * sliceFloats, stream);
  if (W.error() == cudaErrorMemoryAllocation)
    return plan.config->run(M, N, K, whole, alpha, A, lda, B, ldb, beta, C, ldc, 0, stream);
  if (W.error() != cudaSuccess) return W.error();
  // Each slice's partial tile, raw (alpha = 1, beta = 0), into W[z]; the sum applies alpha, beta.
  cudaError_t err = plan.config->run(M, N, K, plan.kSlice, 1.f, A, lda, B, ldb, 0.f, W.get(), N,
                                     sliceFloats, stream);
  if (err != cudaSuccess) return err;
  const long long blocks = std::min<long long>((sliceFloats + 255) / 256, 4096);
  sum_slices<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(M, N, plan.slices, alpha, W.get(),
                                                                beta, C, ldc);
  return cudaGetLastError();  // W goes back to the pool, ordered after the sum
}

// A tensor map needs a 16-byte aligned base and rows a multiple of 16 bytes apart.
bool tma_can_read(const float* X, int ld) { return aligned16(X) && ld % 4 == 0; }

// Copies the rows x cols matrix X (leading dimension ld) to P, whose leading dimension ldP is
// a multiple of 4, so that TMA can read it. P's padding columns stay unwritten: a tensor map
// of cols columns never reads them.
__global__ void pack(int rows, int cols, const float* X, int ld, float* P, int ldP) {
  const long long count = static_cast<long long>(rows) * cols;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<long long>(gridDim.x) * blockDim.x)
    P[e / cols * ldP + e % cols] = X[e / cols * ld + e % cols];
}

// Where TMA cannot read X, a copy with rows 16 bytes apart takes its place (one pass), so that
// unaligned shapes get the same kernel, tiles and slices as aligned ones. `copy` holds it, from
// the workspace; its error is cudaErrorMemoryAllocation when the workspace cannot hold it.
struct Readable {
  const float* X;
  int ld;
  runtime::Workspace<float> copy;
  Readable(const float* x, int rows, int cols, int ld_, cudaStream_t stream)
      : X(x), ld(ld_), copy(tma_can_read(x, ld_) ? 0 : size_t(rows) * padded(cols), stream) {
    if (tma_can_read(x, ld_) || copy.error() != cudaSuccess) return;
    const long long blocks =
        std::min<long long>((static_cast<long long>(rows) * cols + 255) / 256, 4096);
    pack<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(rows, cols, x, ld_, copy.get(),
                                                            padded(cols));
    X = copy.get(), ld = padded(cols);
  }
  static int padded(int cols) { return (cols + 3) / 4 * 4; }
};

// Runs `plan` with a B that TMA can read, packing it if it cannot (A's 4-byte copies read any
// A). Where the workspace cannot hold the copy, it says so before queueing anything.
cudaError_t run_readable(const Plan& plan, int M, int N, int K, float alpha, const float* A,
                         int lda, const float* B, int ldb, float beta, float* C, int ldc,
                         cudaStream_t stream) {
  const Readable b(B, K, N, ldb, stream);
  if (b.copy.error() != cudaSuccess) return b.copy.error();
  cudaError_t err = cudaGetLastError();  // the packing kernel's launch
  if (err != cudaSuccess) return err;
  return run(plan, M, N, K, alpha, A, lda, b.X, b.ld, beta, C, ldc, stream);
}

// For scripts/autotune, which measures the table's rates: tile `config` of the table with K
// cut into `slices`, whatever the model would choose.
cudaError_t launch_config(int config, int slices, int M, int N, int K, float alpha, const float* A,
                          int lda, const float* B, int ldb, float beta, float* C, int ldc,
                          cudaStream_t stream) {
  constexpr int kCount = sizeof kConfigs / sizeof kConfigs[0];
  if (config < 0 || config >= kCount || slices < 1) return cudaErrorInvalidValue;
  cudaError_t err = runtime::require_sm90();
  if (err != cudaSuccess) return err;
  Plan plan;
  plan.config = &kConfigs[config];
  plan.kSlice = (K + slices * plan.config->BK - 1) / (slices * plan.config->BK) * plan.config->BK;
  plan.slices = (K + plan.kSlice - 1) / plan.kSlice;
  return run_readable(plan, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  cudaError_t err = runtime::require_sm90();
  if (err != cudaSuccess) return err;
  int sms = 0;
  err = runtime::multiprocessors(&sms);
  if (err != cudaSuccess) return err;
  return run_readable(choose(M, N, K, sms), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace sgemm::every_shape
