// Rung 11: every shape. Rung 10's kernel is fast where the grid fills the GPU: at 4096^3 its
// 128 x 256 tiles make 512 blocks, about four waves on 132 SMs. A 1024 x 1024 x 65536 problem
// makes 32 blocks, a quarter of the GPU, each walking 2048 k-tiles alone; 4096 x 256 makes 32
// too. Now the launcher chooses, per problem, a tile and a number of slices of K (split-K):
// with s slices, block (x, y, z) computes its tile over the z-th slice of K, so s times the
// blocks work at once, and a second kernel adds the slices' partial tiles.
//
// The partial tiles go to s x M x N floats of the library's workspace (runtime.h): a pool per
// device that keeps what it holds, so a call allocates only when a problem needs more than
// any before it (the warm-up calls, never the timed ones); when it cannot hold the slices,
// the tile runs unsplit, which needs none. The sum
// runs over the slices in order, z = 0, 1, ..., for every element, so the result is bitwise
// the same from run to run: no atomics whose order would vary. With whole-number inputs every
// partial sum is exact, so the exact check still holds.
//
// The choice is data, not a thicket of ifs: a table of tiles with what each delivers (one
// SM's rate on long K, and a block's fixed cost), measured by scripts/autotune, and a model
// that predicts each (tile, slices) pair's time from waves of blocks, K per slice and the cost
// of the sum, and takes the fastest. docs/11_every_shape.md shows the table and the rules.
//
// TMA needs A and B 16-byte aligned with lda and ldb multiples of 4. Rung 10 ran rung 9 for
// the others (74-80% of cuBLAS at 4097^3 on an H100, against 94% at 4096^3); now an operand
// TMA cannot read is first copied, in one pass, into the workspace with rows 16 bytes apart,
// and every shape gets the same kernel, tiles and slices. Only where the workspace cannot
// hold that copy does rung 9 still run. The kernel is sm_90a code: on a GPU that is not
// compute capability 9.0 the launcher returns cudaErrorNoKernelImageForDevice.
// Needs: sm_90a   (cmake/ladder.cmake finds this line: CMakeLists.txt builds the file for it)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "hopper.cuh"  // mbarriers, TMA copies, setmaxnreg (docs/10 explains each)
#include "runtime.h"   // tensor maps, the shared-memory opt-in, device facts, the workspace
#include "sgemm.h"     // Gemm: the problem, as every rung's launcher takes it

namespace sgemm::async_copy {  // rung 9, the path for operands that TMA cannot read
cudaError_t launch(const Gemm& gemm, cudaStream_t stream);
}

namespace sgemm::every_shape {

using namespace hopper;

// BM x BN: C per block; BK: depth staged per step; WM x WN: C per consumer warp, walked as
// WMITER x WNITER sub-tiles of WSUBM x WSUBN; TM x TN: C per thread in each sub-tile;
// STAGES: buffers of the ring.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES>
struct Tile {
  static constexpr int kConsumerThreads = (BM / WM) * (BN / WN) * 32;  // one warp per warp tile
  static constexpr int kProducerThreads = 128;  // a warpgroup; one of its threads issues copies
  static constexpr int kThreads = kConsumerThreads + kProducerThreads;
  static constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);
  static constexpr int WSUBM = WM / (WMITER > 0 ? WMITER : 1);  // rows of one warp sub-tile
  static constexpr int WSUBN = WN / WNITER;                     // columns of one
  static constexpr int kAccumulators = WM * WN / 32;            // elements of C per thread
  static constexpr int kThreadRows = WSUBM / TM;  // threads down a sub-tile: a thread's rows
                                                  // lie this many rows apart
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block tile exactly");
  static_assert(WMITER >= 1 && (WM * WN) % (32 * TM * TN * WNITER) == 0,
                "a warp's 32 threads cover its tile in whole sub-tiles");
  static_assert(WM % WMITER == 0 && WN % WNITER == 0, "sub-tiles cover the warp tile exactly");
  static_assert(WSUBM % TM == 0 && WSUBN % TN == 0 && (WSUBM / TM) * (WSUBN / TN) == 32,
                "the 32 threads of a warp tile one sub-tile with their micro-tiles");
  static_assert(TN % 4 == 0, "a thread's slices of Bs are whole float4s");
  static_assert(kThreadRows % 8 == 0,
                "a warp reads 8 consecutive rows of As at once, one in each phase of the swizzle");
  static_assert(BK * 4 == 32 || BK * 4 == 64 || BK * 4 == 128,
                "a row of the A box is one swizzle span of 32, 64 or 128 bytes: BK = 8, 16, 32");
  static_assert(BM <= 256 && BN <= 256 && BK <= 256, "a TMA box is at most 256 elements a side");
  static_assert(kConsumerThreads % 128 == 0,
                "setmaxnreg acts on whole warpgroups: the consumers are whole warpgroups");
  static_assert(kThreads >= 32 && kThreads <= 1024, "a block has 32 to 1024 threads");
  static_assert(STAGES >= 2, "a ring of at least two buffers");
  static constexpr int kStageBytesA = BM * BK * 4;  // one box of A: bytes its copy brings
  static constexpr int kStageBytesB = BK * BN * 4;  // one box of B
  static constexpr int kStageBytes = kStageBytesA + kStageBytesB;  // what `full` waits for
  static_assert(kStageBytesA % 1024 == 0 && kStageBytesB % 128 == 0,
                "every A box starts on a 1024-byte boundary (the swizzle's period), every B box "
                "on a 128-byte one (TMA's alignment in shared memory)");
  static constexpr int kSharedBytes = STAGES * kStageBytes + 1024;  // the ring, As and Bs, and
                                                                    // room to align it to 1024
  static_assert(kSharedBytes + 2 * STAGES * 8 <= 227 * 1024,
                "the ring and its mbarriers fit in the 227 KiB of shared memory a block may have");
  // One block per SM (the ring takes most of its shared memory), and a register count at
  // launch that setmaxnreg can rely on.
  static constexpr int kMinBlocks = 1;
  // Registers. The register file is split among the SM's 4 schedulers (16384 each); a block of
  // w warps puts ceil(w / 4) on one scheduler, so a thread gets at most
  // 16384 / (32 * ceil(w / 4)), rounded down to a multiple of 8: 168 for 12 warps. The
  // producer warpgroup drops to kProducerRegs; the consumers rise to kConsumerRegs, paid for
  // by what the producer released.
  static constexpr int kLaunchRegs = 16384 / (32 * ((kThreads / 32 + 3) / 4)) / 8 * 8;
  static constexpr int kProducerRegs = 24;  // setmaxnreg's minimum
  static constexpr int kConsumerRegs =
      kLaunchRegs + kProducerThreads * (kLaunchRegs - kProducerRegs) / kConsumerThreads / 8 * 8;
  static_assert(kConsumerRegs <= 256 && kConsumerThreads * (kConsumerRegs - kLaunchRegs) <=
                                            kProducerThreads * (kLaunchRegs - kProducerRegs),
                "the consumers claim no more registers than the producer released");
};

// Where chunk c (floats 4c .. 4c+3) of row r of an A box lies, in floats from the box's
// start. TMA writes the box row by row, BK floats (one swizzle span) a row, and XORs the
// chunk's index, address bits [4, 4+b), with address bits [7, 7+b), b = log2(BK / 4): the
// 128-byte swizzle for BK = 32 (64-byte for 16, 32-byte for 8). Boxes start on 1024-byte
// boundaries, so offsets and addresses agree in those bits; the pattern repeats every 8 rows.
template <int BK>
__device__ __forceinline__ int swizzle(int r, int c) {
  return r * BK + 4 * (c ^ (r * BK / 32 % (BK / 4)));
}

// kMinBlocks = 1 fixes each thread's registers at launch (kLaunchRegs), which setmaxnreg then
// moves between the warpgroups. tmA, tmB: tensor maps of A and B (boxes of BM x BK and
// BK x BN). kSlice: the depth of K a block walks, a multiple of BK; block z walks
// [z * kSlice, min(K, (z + 1) * kSlice)) and writes its tile at C + z * sliceStride (the
// launcher points C at the workspace when there are several slices). alignedC: C's pointer is
// 16-byte aligned and ldc a multiple of 4, so that its tiles move in 128-bit stores.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES>
__global__ void __launch_bounds__(Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>::kThreads,
                                  Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>::kMinBlocks)
    sgemm_every_shape(int M, int N, int K, int kSlice, float alpha,
                      const __grid_constant__ CUtensorMap tmA,
                      const __grid_constant__ CUtensorMap tmB, float beta, float* C, int ldc,
                      long long sliceStride, bool alignedC) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // compiled out (SGEMM_NO_SM90A): the launcher never starts this kernel
#else
  using T = Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>;
  // The ring, in dynamic shared memory aligned to 1024 bytes: STAGES buffers of each tile.
  extern __shared__ float4 ring[];
  float4* ring1024 = ring + (1024 - smem_addr(ring) % 1024) % 1024 / 16;
  // As[.][swizzle<BK>(r, c) + q] = A[blockRow + r][k0 + 4c + q]: the box as TMA lays it out
  float(*As)[BK * BM] = reinterpret_cast<float(*)[BK * BM]>(ring1024);
  // Bs[.][k * BN + c] = B[k0 + k][blockCol + c]
  float(*Bs)[BK * BN] = reinterpret_cast<float(*)[BK * BN]>(As + STAGES);
  __shared__ uint64_t full[STAGES];   // buffer s holds its tiles: 1 arrival and their bytes
  __shared__ uint64_t empty[STAGES];  // buffer s is read: one arrival per consumer warp

  // Warps tile the block tile: warpIdx over (BM/WM, BN/WN), column fastest. The warps after
  // them, the last warpgroup, are the producer.
  const int warpIdx = threadIdx.x / 32;
  const int warpCol = warpIdx % (BN / WN);  // this warp owns columns warpCol*WN ..
  const int warpRow = warpIdx / (BN / WN);  // and rows warpRow*WM .. of the block tile
  // Lanes tile one sub-tile: lane over (WSUBM/TM, WSUBN/TN), column fastest.
  const int lane = threadIdx.x % 32;
  const int threadCol = lane % (T::WSUBN / TN);  // this thread owns columns threadCol*TN ..
  const int threadRow = lane / (T::WSUBN / TN);  // and rows threadRow + i*kThreadRows of each
  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const int kBegin = blockIdx.z * kSlice;    // this block's slice of K: whole BK tiles,
  const int kEnd = min(K, kBegin + kSlice);  // so no k-tile spans two slices

  // Starts copying the tiles at k0 into buffer `buf`: announce the bytes on full[buf], then
  // one copy per tile, whose bytes complete full[buf] as they land. Parts of a box outside the
  // matrix (past M, N or K) arrive as zeros and count toward the bytes all the same.
  auto fetch = [&](int k0, int buf) {
    mbar_arrive_expect_tx(&full[buf], T::kStageBytes);
    tma_load_2d(As[buf], &tmA, k0, blockRow, &full[buf]);  // A's box at (k, m) = (k0, blockRow)
    tma_load_2d(Bs[buf], &tmB, blockCol, k0, &full[buf]);  // B's box at (n, k) = (blockCol, k0)
  };

  if (threadIdx.x == 0) {
    prefetch_tensormap(&tmA);
    prefetch_tensormap(&tmB);
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], T::kConsumerThreads / 32);
    }
    fence_barrier_init();
  }
  __syncthreads();  // the block's one barrier: the mbarriers exist before anyone uses them

  if (threadIdx.x >= T::kConsumerThreads) {
    // The producer warpgroup gives its registers to the consumers, and one of its threads
    // keeps the ring full. Fill n of a buffer (phase = n % 2) waits for the consumers to
    // release fill n - 1: the completion of empty[buf] with parity (n - 1) % 2 = phase ^ 1. A
    // fresh mbarrier counts as having completed the phase before phase 0, so fill 0 does not
    // wait.
    release_registers<T::kProducerRegs>();
    if (threadIdx.x == T::kConsumerThreads)
      for (int k0 = kBegin, buf = 0, phase = 0; k0 < kEnd; k0 += BK) {
        mbar_wait(&empty[buf], phase ^ 1);  // every consumer warp is done with this buffer
        fetch(k0, buf);
        if (++buf == STAGES) buf = 0, phase ^= 1;
      }
    return;
  }
  claim_registers<T::kConsumerRegs>();

  // acc[i * WNITER*TN + j]: i over (WMITER, TM), j over (WNITER, TN): this thread's
  // element (threadRow + (i%TM)*kThreadRows) of sub-tile row i/TM, (threadCol*TN + j%TN) of
  // column j/TN.
  float acc[T::WMITER * TM * WNITER * TN] = {};
  float regM[T::WMITER * TM * 4];  // regM[i * 4 + q]: i over (WMITER, TM) rows, q over 4 k
  float regN[WNITER * TN];         // regN[j]: j over (WNITER, TN), columns of Bs at this k
  // The thread's rows of As are r0 + wm*WSUBM + i*kThreadRows: r over (BM/WM, WMITER, TM,
  // kThreadRows) = (warp, sub-tile, row, thread). They lie multiples of 8 rows apart, whole
  // periods of the swizzle, so all of them keep r0's chunk order.
  const int r0 = warpRow * WM + threadRow;
  for (int k0 = kBegin, buf = 0, phase = 0; k0 < kEnd; k0 += BK) {
    mbar_wait(&full[buf], phase);  // this buffer's tiles have landed

    // Per chunk c of 4 k: one float4 of As for each of the thread's rows, then four k that
    // each read four float4s of Bs and reuse those As registers.
#pragma unroll
    for (int c = 0; c < BK / 4; ++c) {
      const float* a = &As[buf][swizzle<BK>(r0, c)];
#pragma unroll
      for (int wm = 0; wm < T::WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; ++i)
          *reinterpret_cast<float4*>(&regM[(wm * TM + i) * 4]) =
              *reinterpret_cast<const float4*>(a + (wm * T::WSUBM + i * T::kThreadRows) * BK);
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int k = c * 4 + q;
#pragma unroll
        for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
          for (int j = 0; j < TN; j += 4)
            *reinterpret_cast<float4*>(&regN[wn * TN + j]) = *reinterpret_cast<const float4*>(
                &Bs[buf][k * BN + warpCol * WN + wn * T::WSUBN + threadCol * TN + j]);
#pragma unroll
        for (int i = 0; i < T::WMITER * TM; ++i)
#pragma unroll
          for (int j = 0; j < WNITER * TN; ++j)
            acc[i * WNITER * TN + j] += regM[i * 4 + q] * regN[j];
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
    const int row =
        blockRow + warpRow * WM + (i / TM) * T::WSUBM + (i % TM) * T::kThreadRows + threadRow;
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
  constexpr CUtensorMapSwizzle kSwizzleA = BK == 32   ? CU_TENSOR_MAP_SWIZZLE_128B
                                           : BK == 16 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                      : CU_TENSOR_MAP_SWIZZLE_32B;
  CUtensorMap tmA, tmB;  // built per call (pointers and sizes change); 128 bytes each
  constexpr CUtensorMapDataType kFloat = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  cudaError_t err = runtime::allow_shared_bytes<kernel>(T::kSharedBytes);
  if (err == cudaSuccess)
    err = runtime::make_tensor_map(&tmA, A, kFloat, M, K, lda, BM, BK, kSwizzleA);
  if (err == cudaSuccess)
    err = runtime::make_tensor_map(&tmB, B, kFloat, K, N, ldb, BK, BN, CU_TENSOR_MAP_SWIZZLE_NONE);
  if (err != cudaSuccess) return err;
  kernel<<<grid, block, T::kSharedBytes, stream>>>(M, N, K, kSlice, alpha, tmA, tmB, beta, C, ldc,
                                                   sliceStride, aligned16(C) && ldc % 4 == 0);
  return cudaGetLastError();
}

// The slices' sum: C = alpha * (W[0] + W[1] + ... + W[slices-1]) + beta * C, W tight M x N
// tiles one after another. Every element adds its slices in the same order, whichever block
// of the first kernel finished first: the result is the same, bit for bit, on every run.
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

// The table, fitted to the measurements of every tile with 1, 2, 4 and 8 slices on 7 shapes
// (experiments/rung11: configs.cu measured by scripts/autotune, fit_table.py; NVIDIA H200,
// 2026-11-21, results/h200/experiments/rung11_configs_*.csv): rung 10's tile, and a tile of
// half the columns whose eight consumer warps own 32 x 64 of C each: slower per SM, but
// cheaper to start and twice as many blocks.
//                                         BM   BN  BK  WM  WN WNITER TM TN STAGES
constexpr Config kConfigs[] = {
    {128, 256, 32, 395, 16, &launch_tile<128, 256, 32, 64, 64, 4, 4, 4, 4>},
    {128, 128, 32, 350, 3, &launch_tile<128, 128, 32, 32, 64, 4, 4, 4, 4>},
};
constexpr int kSliceCounts[] = {1, 2, 3, 4, 6, 8, 12, 16};  // the splits of K considered
constexpr double kSumMicros = 6;                            // the sum's launch and tail
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
  // Each slice's partial tile, raw (alpha = 1, beta = 0), into W[z]; then the sum applies
  // alpha and beta once.
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

// Where TMA cannot read X (a pointer not 16-byte aligned, a leading dimension not a multiple
// of 4), a copy with rows 16 bytes apart takes its place: one pass over the matrix, a few
// percent of the time of the product, so that unaligned shapes get the same kernel, tiles and
// slices as aligned ones (rung 10 ran rung 9 for them). `copy` holds the packed copy, from the
// workspace; its error is cudaErrorMemoryAllocation when the workspace cannot hold it.
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

// Runs `plan` on operands TMA can read, packing those it cannot (the copies go back to the
// workspace once the launches are queued). Where the workspace cannot hold a copy, rung 9
// runs instead, unsplit.
cudaError_t run_readable(const Plan& plan, int M, int N, int K, float alpha, const float* A,
                         int lda, const float* B, int ldb, float beta, float* C, int ldc,
                         cudaStream_t stream) {
  const Readable a(A, M, K, lda, stream), b(B, K, N, ldb, stream);
  for (const Readable* x : {&a, &b}) {
    if (x->copy.error() == cudaErrorMemoryAllocation)
      return async_copy::launch({M, N, K, alpha, A, lda, B, ldb, beta, C, ldc}, stream);
    if (x->copy.error() != cudaSuccess) return x->copy.error();
  }
  cudaError_t err = cudaGetLastError();  // the packing kernels' launches
  if (err != cudaSuccess) return err;
  return run(plan, M, N, K, alpha, a.X, a.ld, b.X, b.ld, beta, C, ldc, stream);
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

cudaError_t launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  cudaError_t err = runtime::require_sm90();
  if (err != cudaSuccess) return err;
  int sms = 0;
  err = runtime::multiprocessors(&sms);
  if (err != cudaSuccess) return err;
  return run_readable(choose(M, N, K, sms), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace sgemm::every_shape
