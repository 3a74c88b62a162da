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
// Needs: sm_90a   (cmake/ladder.cmake finds this line: CMakeLists.txt builds the file for it)
#include <cuda.h>          // CUtensorMap and its enums (types only: libcuda is not linked)
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL) && !defined(SGEMM_NO_SM90A)
#error "sm_90a device code: build it with -arch=sm_90a, or define SGEMM_NO_SM90A to omit it"
#endif

namespace sgemm::wgmma_3xtf32 {

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// An mbarrier completes a phase when `count` arrivals have happened and every byte announced
// with expect_tx has landed; then its phase parity flips and a new phase begins.
__device__ __forceinline__ void mbar_init(uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count)
               : "memory");
}

// Makes the initialized mbarriers visible to the other threads and to TMA (the async proxy).
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;\n" ::
                   : "memory");
}

// Arrives once, announcing `bytes` that copies will complete on the barrier.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}

// Arrives once (release: this thread's reads before it are done before the phase completes).
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}

// Returns once the phase with this parity has completed. try_wait may suspend the thread for a
// while before it answers no; then it asks again.
__device__ __forceinline__ void mbar_wait(uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n"
      "WAIT_%=:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT_%=;\n}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

// Copies the box of tensor map `map` at coordinates (c0 innermost, c1) to shared `dst`; the
// copy completes its bytes on `bar`.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int c0, int c1,
                                            uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(smem_addr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(smem_addr(bar))
      : "memory");
}

// Fetches a tensor map into the descriptor cache ahead of its first copy.
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(map) : "memory");
}

// setmaxnreg (sm_90a): every warp of a warpgroup sets its registers per thread to kRegs. dec
// returns registers to the block's pool; inc waits until the pool holds enough.
template <int kRegs>
__device__ __forceinline__ void release_registers() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#endif
}
template <int kRegs>
__device__ __forceinline__ void claim_registers() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#endif
}

// ---- wgmma (sm_90a). A warpgroup's wgmmas run asynchronously: fence orders the registers'
// earlier accesses before them, commit closes a group of the wgmmas issued so far, and
// wait_group<n> returns once at most n groups are still running.
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int kGroups>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kGroups) : "memory");
}
// Keeps the compiler from moving accesses of the accumulators across the asm around it: the
// registers wgmma writes behind the compiler's back are "read and written" here.
template <int kCount>
__device__ __forceinline__ void fence_accumulators(float (&d)[kCount]) {
#pragma unroll
  for (int i = 0; i < kCount; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// A shared-memory matrix descriptor for a K-major tile whose rows (M or N) are kSpan bytes of
// K (BK floats), as TMA writes it with the kSpan-byte swizzle; tiles start on 1024-byte
// boundaries, so the swizzle's phase is the address's and the base offset (bits 49-51) is 0.
//   bits  0-13: start address >> 4
//   bits 16-29: leading byte offset >> 4: unused for swizzled K-major tiles whose K fits the
//               span (one k8 step is 32 bytes of a row); 1 by convention
//   bits 32-45: stride byte offset >> 4: from one group of 8 rows to the next, 8 * kSpan bytes
//   bits 62-63: swizzle: 1 = 128 bytes, 2 = 64 bytes, 3 = 32 bytes
// Step kk (k = 8kk .. 8kk+7) of the tile starts 32 * kk bytes into each row: the descriptor's
// address advances by 32 bytes and the hardware applies the swizzle to the resulting address.
template <int kSpan>
__device__ __forceinline__ uint64_t make_descriptor(const void* tile) {
  static_assert(kSpan == 32 || kSpan == 64 || kSpan == 128, "a swizzle span of 32, 64 or 128 B");
  constexpr uint64_t kMode = kSpan == 128 ? 1 : kSpan == 64 ? 2 : 3;
  return static_cast<uint64_t>((smem_addr(tile) & 0x3FFFF) >> 4) | (1ull << 16) |
         (static_cast<uint64_t>(8 * kSpan >> 4) << 32) | (kMode << 62);
}

// D[64 x kN] += A[64 x 8] * B[8 x kN] in TF32 with FP32 accumulators, A and B from shared
// memory (descriptors). The accumulator fragment, per thread of the warpgroup (warp w, lane l):
// d[4j + 2i + c] = D[16w + l/4 + 8i][8j + 2(l%4) + c], i, c in {0, 1}, j < kN/8.
// scale-d (a predicate, from `accumulate`): 1: D += A B; 0: D = A B. imm-scale-a =
// imm-scale-b = 1: no negation.
template <int kN>
struct Wgmma;

template <>
struct Wgmma<128> {
  static __device__ __forceinline__ void mma(float (&d)[64], uint64_t a, uint64_t b,
                                             int accumulate) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63])
        : "l"(a), "l"(b), "r"(accumulate));
  }
};

template <>
struct Wgmma<192> {
  static __device__ __forceinline__ void mma(float (&d)[96], uint64_t a, uint64_t b,
                                             int accumulate) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %98, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n192k8.f32.tf32.tf32 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
        "}, %96, %97, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
        : "l"(a), "l"(b), "r"(accumulate));
  }
};

template <>
struct Wgmma<256> {
  static __device__ __forceinline__ void mma(float (&d)[128], uint64_t a, uint64_t b,
                                             int accumulate) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %130, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, "
        "%111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, "
        "%127"
        "}, %128, %129, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(accumulate));
  }
};

// ---- The pre-pass: split into TF32 hi and lo parts, and pack K-major.

// x rounded to TF32 (10 explicit mantissa bits), to nearest with ties away from zero: the
// low 13 bits of the result are zero, so wgmma reads it exactly.
__device__ __forceinline__ float tf32_rna(float x) {
  unsigned bits;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(bits) : "f"(x));
  return __uint_as_float(bits);
}

// x = hi + lo + (a remainder below 2^-22 |x|): hi = tf32(x), and x - hi is exact in FP32. An
// infinite or NaN x keeps lo = 0, so that hi carries it alone (inf - inf would make a NaN).
__device__ __forceinline__ void split(float x, float* hi, float* lo) {
  const float h = tf32_rna(x);
  *hi = h;
  *lo = isfinite(h) ? tf32_rna(x - h) : 0.f;
}

// A (rows x cols, leading dimension ld, any alignment) -> hi, lo (leading dimension ldp), same
// orientation: K stays contiguous. Each thread splits 4 elements 256 apart (4 loads in flight);
// a warp reads and writes 128 contiguous bytes.
constexpr int kSplitThreads = 256;
constexpr int kSplitPerThread = 4;
__global__ void __launch_bounds__(kSplitThreads)
    sgemm_wgmma_3xtf32_split_rows(int rows, int cols, const float* X, long long ld, float* hi,
                                  float* lo, long long ldp) {
  for (int r = blockIdx.y; r < rows; r += gridDim.y) {
    const float* x = X + r * ld;
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
        if (c < cols) split(v[i], &hi[r * ldp + c], &lo[r * ldp + c]);
      }
    }
  }
}

// B (rows = K x cols = N, leading dimension ld) -> hi, lo transposed (N x K, leading dimension
// ldp), through a 32 x 32 tile in shared memory (33 columns: the transposed reads hit 32
// banks), so that both the reads along n and the writes along k are coalesced.
constexpr int kTransposeTile = 32;
constexpr int kTransposeRows = 8;  // blockDim.y: each thread moves 4 elements
__global__ void __launch_bounds__(kTransposeTile* kTransposeRows)
    sgemm_wgmma_3xtf32_split_transpose(int rows, int cols, const float* X, long long ld, float* hi,
                                       float* lo, long long ldp) {
  __shared__ float tile[kTransposeTile][kTransposeTile + 1];  // tile[k][n]
  const int c0 = blockIdx.x * kTransposeTile;
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
      if (n < cols && k < rows) split(tile[threadIdx.x][i], &hi[n * ldp + k], &lo[n * ldp + k]);
    }
    __syncthreads();
  }
}

// ---- The main kernel.

// BN: columns of C per block; BK: depth of one stage (16 or 32 floats: one 64- or 128-byte
// swizzle span per row); STAGES: buffers of the ring; MI: m64 slabs per consumer warpgroup;
// PROMOTE: stages per chunk of K that the tensor cores sum before the chunk is added to FP32
// accumulators in registers (0: the tensor cores sum all of K).
template <int BN, int BK, int STAGES, int MI, int PROMOTE>
struct Tile {
  static constexpr int kConsumers = 2;                     // consumer warpgroups
  static constexpr int WGM = 64 * MI;                      // rows of C per consumer warpgroup
  static constexpr int BM = kConsumers * WGM;              // rows of C per block
  static constexpr int kThreads = 128 * (kConsumers + 1);  // + the producer warpgroup
  static constexpr int kConsumerWarps = kConsumers * 4;    // each arrives on `empty`
  static constexpr int kSpan = BK * 4;                     // bytes of a box's row: the swizzle span
  static constexpr int kBoxBytesA = BM * BK * 4;           // A_hi's box (A_lo's the same)
  static constexpr int kBoxBytesB = BN * BK * 4;           // Bt_hi's box (Bt_lo's the same)
  static constexpr int kStageBytes = 2 * (kBoxBytesA + kBoxBytesB);  // what `full` waits for
  static constexpr int kSharedBytes = STAGES * kStageBytes + 1024;   // + room to align to 1024
  static constexpr int kAccumulators = BN / 2;  // per thread per m64 slab (m64 x BN / 128)
  static_assert(BK == 16 || BK == 32, "a box row is one 64- or 128-byte swizzle span");
  static_assert(BN == 128 || BN == 192 || BN == 256,
                "the wgmma shapes this file wraps: m64n128k8, m64n192k8, m64n256k8");
  static_assert(BM <= 256 && BN <= 256, "a TMA box is at most 256 elements a side");
  static_assert(kBoxBytesA % 1024 == 0 && kBoxBytesB % 1024 == 0 && (64 * BK * 4) % 1024 == 0,
                "every box and every m64 slab of A starts on a 1024-byte boundary, so the "
                "descriptors' base offset is 0");
  static_assert(STAGES >= 2, "a ring of at least two buffers");
  static_assert(kSharedBytes + 2 * STAGES * 8 <= 227 * 1024,
                "the ring and its mbarriers fit in the 227 KiB of shared memory a block may have");
  static constexpr int kRegisterSets = PROMOTE == 0 ? 1 : 2;  // tensor-core (+ FP32) sums
  static_assert(MI * kAccumulators * kRegisterSets <= 192,
                "the accumulators fit in a consumer's registers");
  static_assert(PROMOTE == 0 || PROMOTE % 2 == 0,
                "the second warpgroup promotes half a chunk after the first");
  // One block per SM, 12 warps: 168 registers a thread at launch (the register file is split
  // among 4 schedulers, 3 warps each); the producer drops to 24 and the consumers rise to 240.
  static constexpr int kLaunchRegs = 16384 / (32 * ((kThreads / 32 + 3) / 4)) / 8 * 8;
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs =
      std::min(256, kLaunchRegs + 128 * (kLaunchRegs - kProducerRegs) / (128 * kConsumers) / 8 * 8);
};

// tm, tn: the block's tile of C. Tiles are walked in groups of `groupRows` tile rows, down the
// columns of each group, so that the blocks running at once share rows of A and columns of B
// in L2.
template <int BN, int BK, int STAGES, int MI, int PROMOTE>
__global__ void __launch_bounds__(Tile<BN, BK, STAGES, MI, PROMOTE>::kThreads, 1)
    sgemm_wgmma_3xtf32(int M, int N, int K, float alpha, const __grid_constant__ CUtensorMap tmAhi,
                       const __grid_constant__ CUtensorMap tmAlo,
                       const __grid_constant__ CUtensorMap tmBhi,
                       const __grid_constant__ CUtensorMap tmBlo, float beta, float* C, int ldc,
                       bool pairedC, int groupRows) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // compiled out (SGEMM_NO_SM90A): the launcher never starts this kernel
#else
  using T = Tile<BN, BK, STAGES, MI, PROMOTE>;
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

  const int wg = threadIdx.x / 128;  // consumer warpgroup: rows wg*WGM .. of the block tile
  const int lane = threadIdx.x % 32;
  // acc[mi][4j + 2i + c] = C[blockRow + wg*WGM + 64mi + 16warp + lane/4 + 8i]
  //                         [blockCol + 8j + 2(lane%4) + c]   (the wgmma fragment)
  // With PROMOTE, acc holds the tensor cores' sum over the current chunk of K and sum[] the
  // FP32 sum of the chunks before it (same fragment layout).
  float acc[MI][T::kAccumulators];
  float sum[MI][PROMOTE > 0 ? T::kAccumulators : 1];
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int e = 0; e < T::kAccumulators; ++e) acc[mi][e] = 0.f;
#pragma unroll
    for (int e = 0; e < (PROMOTE > 0 ? T::kAccumulators : 1); ++e) sum[mi][e] = 0.f;
  }
  using Accumulators = float[MI][T::kAccumulators];
  // sum += d, in FP32 on the CUDA cores (round to nearest), once d's wgmmas have completed.
  auto promote = [&](Accumulators& d) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      fence_accumulators(d[mi]);
#pragma unroll
      for (int e = 0; e < T::kAccumulators; ++e) sum[mi][e] += d[mi][e];
    }
  };

  int buf = 0, phase = 0;  // the ring's next buffer and the parity of its fill
  int pending = -1;        // a buffer read by the last group issued, not yet released
  // Waits for buffer `buf` and issues its wgmmas into d as one group: per k8 step the small
  // products first. accumulate = 0: the first wgmma overwrites d (a chunk's first stage).
  auto issue_stage = [&](Accumulators& d, int accumulate) {
    mbar_wait(&full[buf], phase);  // this buffer's four boxes have landed
    const uint8_t* stage = ring + buf * T::kStageBytes;
    const uint8_t* a = stage + wg * T::WGM * T::kSpan;  // this warpgroup's rows of A_hi
    const uint64_t aHi = make_descriptor<T::kSpan>(a);
    const uint64_t aLo = make_descriptor<T::kSpan>(a + T::kBoxBytesA);
    const uint64_t bHi = make_descriptor<T::kSpan>(stage + 2 * T::kBoxBytesA);
    const uint64_t bLo = make_descriptor<T::kSpan>(stage + 2 * T::kBoxBytesA + T::kBoxBytesB);
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) fence_accumulators(d[mi]);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 8; ++kk) {
      const uint64_t step = kk * 32 >> 4;  // k = 8kk: 32 bytes into each row, in 16-byte units
#pragma unroll
      for (int mi = 0; mi < MI; ++mi) {
        const uint64_t slab = mi * 64 * T::kSpan >> 4;  // rows 64mi.. of the warpgroup's A
        Wgmma<BN>::mma(d[mi], aLo + slab + step, bHi + step, kk == 0 ? accumulate : 1);
        Wgmma<BN>::mma(d[mi], aHi + slab + step, bLo + step, 1);
        Wgmma<BN>::mma(d[mi], aHi + slab + step, bHi + step, 1);
      }
    }
    wgmma_commit();
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) fence_accumulators(d[mi]);
  };
  // The group before the one just issued has completed: its buffer is read, release it. The
  // group just issued keeps the tensor cores busy meanwhile.
  auto release_previous = [&] {
    wgmma_wait<1>();
    if (pending >= 0 && lane == 0) mbar_arrive(&empty[pending]);
    pending = buf;
    if (++buf == STAGES) buf = 0, phase ^= 1;
  };

  {
    // A chunk's end drains the warpgroup's wgmmas (wait_group 0) before the add.
    // The second warpgroup's chunks start half a chunk later, so that while one warpgroup
    // drains and adds, the other keeps the tensor cores busy.
    int untilPromote = PROMOTE > 0 ? PROMOTE - wg * (PROMOTE / 2) : 0;
    int accumulate = PROMOTE > 0 ? 0 : 1;
    for (int kt = 0; kt < kTiles; ++kt) {
      issue_stage(acc, accumulate);
      accumulate = 1;
      if (PROMOTE > 0 && --untilPromote == 0) {  // the chunk's end: release both its buffers
        wgmma_wait<0>();
        if (lane == 0) {
          if (pending >= 0) mbar_arrive(&empty[pending]);
          mbar_arrive(&empty[buf]);
        }
        pending = -1;
        if (++buf == STAGES) buf = 0, phase ^= 1;
        promote(acc);
        untilPromote = PROMOTE;
        accumulate = 0;
      } else {
        release_previous();
      }
    }
    wgmma_wait<0>();
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) fence_accumulators(acc[mi]);
    if (PROMOTE > 0 && accumulate) promote(acc);  // the last, partial chunk
  }
  auto result = [&](int mi, int e) -> float {  // C's element e of slab mi, before alpha
    if constexpr (PROMOTE > 0) return sum[mi][e];
    return acc[mi][e];
  };

  // Epilogue, straight from the fragments: each thread holds pairs of adjacent columns.
  const int warp = threadIdx.x / 32 % 4;
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int row = blockRow + wg * T::WGM + mi * 64 + warp * 16 + i * 8 + lane / 4;
      if (row >= M) continue;
      float* c = C + static_cast<long long>(row) * ldc;
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int col = blockCol + j * 8 + 2 * (lane % 4);
        const float v0 = alpha * result(mi, 4 * j + 2 * i),
                    v1 = alpha * result(mi, 4 * j + 2 * i + 1);
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

// More than 48 KiB of dynamic shared memory is opt-in, per kernel and per device. The flags
// are function-local statics, one set per kernel, initialised thread-safely; two threads
// that race on a device both set the same value, which is harmless.
template <auto kernel>
cudaError_t allow_shared_bytes(int bytes) {
  constexpr int kMaxDevices = 64;
  static std::atomic<bool> allowed[kMaxDevices] = {};
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess || (device < kMaxDevices && allowed[device].load())) return err;
  err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (err == cudaSuccess && device < kMaxDevices) allowed[device].store(true);
  return err;
}

// sm_90a code runs on compute capability 9.0 only (H100, H200, GH200): cudaSuccess there,
// else cudaErrorNoKernelImageForDevice, before any call that would fail less clearly. The
// answer is cached per device like the flags above (0: not asked yet, 1: 9.0, 2: other).
inline cudaError_t require_sm90() {
#ifdef SGEMM_NO_SM90A  // built without 90 among the architectures: the kernel is compiled out
  return cudaErrorNoKernelImageForDevice;
#else
  constexpr int kMaxDevices = 64;
  static std::atomic<int> known[kMaxDevices] = {};
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  int state = device < kMaxDevices ? known[device].load() : 0;
  if (state == 0) {
    int major = 0, minor = 0;
    err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    if (err == cudaSuccess)
      err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    if (err != cudaSuccess) return err;
    state = major == 9 && minor == 0 ? 1 : 2;
    if (device < kMaxDevices) known[device].store(state);
  }
  return state == 1 ? cudaSuccess : cudaErrorNoKernelImageForDevice;
#endif
}

// cuTensorMapEncodeTiled is a driver function; the runtime hands out its address, so the
// library links the CUDA runtime only, not libcuda. Looked up once per process (a thread that
// races another looks it up too, harmlessly); a failed lookup is not cached.
inline cudaError_t tensor_map_encoder(PFN_cuTensorMapEncodeTiled_v12000* encode) {
  static std::atomic<PFN_cuTensorMapEncodeTiled_v12000> found{nullptr};
  *encode = found.load();
  if (*encode != nullptr) return cudaSuccess;
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult result = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  // 12000: the version of the function's ABI, the one in the typedef's name
  const cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                           cudaEnableDefault, &result);
#else  // CUDA 12.0 to 12.4 have only the unversioned lookup (deprecated since)
  const cudaError_t err =
      cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &result);
#endif
  if (err != cudaSuccess) return err;
  if (result == cudaDriverEntryPointVersionNotSufficent) return cudaErrorInsufficientDriver;
  if (result != cudaDriverEntryPointSuccess || fn == nullptr) return cudaErrorSymbolNotFound;
  *encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  found.store(*encode);
  return cudaSuccess;
}

// A tensor map of the row-major rows x cols matrix at `base` (leading dimension ld floats),
// read in boxes of boxRows x boxCols. Dimension 0 is the contiguous one; strides are in bytes.
// Elements of a box outside the matrix arrive as zeros (FLOAT_OOB_FILL_NONE).
inline cudaError_t make_tensor_map(CUtensorMap* map, const float* base, int rows, int cols,
                                   long long ld, int boxRows, int boxCols,
                                   CUtensorMapSwizzle swizzle) {
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  const cudaError_t err = tensor_map_encoder(&encode);
  if (err != cudaSuccess) return err;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * sizeof(float)};  // of dim 1
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(boxCols), static_cast<cuuint32_t>(boxRows)};
  const cuuint32_t step[2] = {1, 1};  // every element of the box, no stride
  const CUresult result =
      encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(base), dims, strides, box,
             step, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  // The encoder only checks its arguments against TMA's rules (CUDA_ERROR_INVALID_VALUE).
  return result == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

// The library's workspace: one stream-ordered pool per device that keeps the memory it has
// (release threshold: everything). The first call that needs n bytes allocates them; later
// calls get them back from the pool, ordered on their own stream.
inline cudaError_t workspace_pool(cudaMemPool_t* pool) {
  constexpr int kMaxDevices = 64;
  static std::mutex lock;
  static cudaMemPool_t pools[kMaxDevices] = {};
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  if (device >= kMaxDevices) return cudaErrorInvalidDevice;
  const std::lock_guard<std::mutex> hold(lock);
  if (pools[device] == nullptr) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    err = cudaMemPoolCreate(&pool, &props);
    if (err != cudaSuccess) return err;
    cuuint64_t keep = ~0ull;
    err = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    if (err != cudaSuccess) return err;
    pools[device] = pool;
  }
  *pool = pools[device];
  return cudaSuccess;
}

// The split operands in the workspace: A_hi, A_lo (M x Kp) and Bt_hi, Bt_lo (N x Kp), K
// contiguous, rows Kp floats apart (K rounded up to 4: 16-byte aligned rows for TMA; the
// padding is never read, the tensor maps end at K).
struct Split {
  float *Ahi, *Alo, *Bhi, *Blo;
  int Kp;
};
inline int padded_depth(int K) { return (K + 3) / 4 * 4; }
inline size_t split_bytes(int M, int N, int K) {
  return 2 * (static_cast<size_t>(M) + N) * padded_depth(K) * sizeof(float);
}
inline Split split_layout(float* W, int M, int N, int K) {
  const int Kp = padded_depth(K);
  const size_t a = static_cast<size_t>(M) * Kp, b = static_cast<size_t>(N) * Kp;
  return {W, W + a, W + 2 * a, W + 2 * a + b, Kp};
}

// The pre-pass: A -> A_hi, A_lo; B -> Bt_hi, Bt_lo.
inline cudaError_t split_operands(int M, int N, int K, const float* A, int lda, const float* B,
                                  int ldb, const Split& s, cudaStream_t stream) {
  const dim3 gridA((K + kSplitThreads * kSplitPerThread - 1) / (kSplitThreads * kSplitPerThread),
                   std::min(M, 65535));
  sgemm_wgmma_3xtf32_split_rows<<<gridA, kSplitThreads, 0, stream>>>(M, K, A, lda, s.Ahi, s.Alo,
                                                                     s.Kp);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  const dim3 gridB((N + kTransposeTile - 1) / kTransposeTile,
                   std::min((K + kTransposeTile - 1) / kTransposeTile, 65535));
  sgemm_wgmma_3xtf32_split_transpose<<<gridB, dim3(kTransposeTile, kTransposeRows), 0, stream>>>(
      K, N, B, ldb, s.Bhi, s.Blo, s.Kp);
  return cudaGetLastError();
}

// The main kernel on split operands.
template <int BN, int BK, int STAGES, int MI, int PROMOTE>
cudaError_t multiply(int M, int N, int K, float alpha, const Split& s, float beta, float* C,
                     int ldc, cudaStream_t stream, int groupRows = 8) {
  using T = Tile<BN, BK, STAGES, MI, PROMOTE>;
  constexpr auto kernel = sgemm_wgmma_3xtf32<BN, BK, STAGES, MI, PROMOTE>;
  constexpr CUtensorMapSwizzle kSwizzle =
      BK == 32 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;
  CUtensorMap tmAhi, tmAlo, tmBhi, tmBlo;  // built per call (pointers and sizes change)
  cudaError_t err = allow_shared_bytes<kernel>(T::kSharedBytes);
  if (err == cudaSuccess) err = make_tensor_map(&tmAhi, s.Ahi, M, K, s.Kp, T::BM, BK, kSwizzle);
  if (err == cudaSuccess) err = make_tensor_map(&tmAlo, s.Alo, M, K, s.Kp, T::BM, BK, kSwizzle);
  if (err == cudaSuccess) err = make_tensor_map(&tmBhi, s.Bhi, N, K, s.Kp, BN, BK, kSwizzle);
  if (err == cudaSuccess) err = make_tensor_map(&tmBlo, s.Blo, N, K, s.Kp, BN, BK, kSwizzle);
  if (err != cudaSuccess) return err;
  const long long tiles = static_cast<long long>((M + T::BM - 1) / T::BM) * ((N + BN - 1) / BN);
  if (tiles > 0x7fffffff) return cudaErrorInvalidValue;
  kernel<<<static_cast<unsigned>(tiles), T::kThreads, T::kSharedBytes, stream>>>(
      M, N, K, alpha, tmAhi, tmAlo, tmBhi, tmBlo, beta, C, ldc, aligned8(C) && ldc % 2 == 0,
      std::max(1, groupRows));
  return cudaGetLastError();
}

// Split into the pooled workspace, multiply, give the workspace back (stream-ordered).
template <int BN, int BK, int STAGES, int MI, int PROMOTE>
cudaError_t launch_tile(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                        int ldb, float beta, float* C, int ldc, cudaStream_t stream,
                        int groupRows = 8) {
  if (M < 1 || N < 1 || K < 1 || lda < K || ldb < N || ldc < N) return cudaErrorInvalidValue;
  cudaError_t err = require_sm90();
  if (err != cudaSuccess) return err;
  cudaMemPool_t pool = nullptr;
  err = workspace_pool(&pool);
  if (err != cudaSuccess) return err;
  float* W = nullptr;
  err = cudaMallocFromPoolAsync(reinterpret_cast<void**>(&W), split_bytes(M, N, K), pool, stream);
  if (err != cudaSuccess) return err;
  const Split s = split_layout(W, M, N, K);
  err = split_operands(M, N, K, A, lda, B, ldb, s, stream);
  if (err == cudaSuccess)
    err = multiply<BN, BK, STAGES, MI, PROMOTE>(M, N, K, alpha, s, beta, C, ldc, stream, groupRows);
  const cudaError_t freed = cudaFreeAsync(W, stream);  // back to the pool, after the kernels
  return err != cudaSuccess ? err : freed;
}

cudaError_t launch(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                   int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
  //                 BN  BK STAGES MI PROMOTE
  return launch_tile<128, 32, 3, 1, 4>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace sgemm::wgmma_3xtf32
