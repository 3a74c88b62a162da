// Hopper's primitives, for the rungs that use them (10 and later): shared-memory addresses,
// mbarriers, TMA copies, cp.async that completes on an mbarrier, setmaxnreg, and wgmma with its
// shared-memory descriptors and TF32 and INT8 instruction shapes. None of them is a lesson of its
// own; docs/10_tma_specialized.md explains each one once, and the rungs' docs show how they are
// used. Device code only; the host side (tensor maps, shared-memory opt-in, the workspace) is in
// runtime.h.
//
// Every function here is one PTX instruction, or a handful, with what it guarantees. The
// sm_90a-only ones (setmaxnreg, wgmma) compile to nothing in a pass for another target, so a
// kernel file that includes this header still compiles for every architecture; its launcher
// refuses to start such a kernel (runtime::require_sm90).
#pragma once

#include <cuda.h>  // CUtensorMap (a type only: the library does not link libcuda)
#include <cuda_runtime.h>

#include <cstdint>

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL) && !defined(SGEMM_NO_SM90A)
#error "sm_90a device code: build it with -arch=sm_90a, or define SGEMM_NO_SM90A to omit it"
#endif

namespace sgemm::hopper {

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ---- mbarriers. An mbarrier completes a phase when `count` arrivals have happened and every
// byte announced with expect_tx has landed; then its phase parity flips and a new phase begins.
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

// Orders this thread's ordinary stores to shared memory before later reads of it by the async
// proxy (TMA, wgmma). Each writing thread fences, then a barrier tells the readers.
__device__ __forceinline__ void fence_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Waits until `threads` threads (whole warps) of the block have reached barrier `id` (1 to
// 15; __syncthreads is barrier 0): a barrier for one role of a warp-specialized block.
__device__ __forceinline__ void sync_role(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// sync_role that also answers whether any of the `threads` threads passed `p` true.
__device__ __forceinline__ bool sync_role_any(int id, int threads, bool p) {
  int any;
  asm volatile(
      "{\n\t.reg .pred in, out;\n\t"
      "setp.ne.s32 in, %3, 0;\n\t"
      "barrier.red.or.pred out, %1, %2, in;\n\t"
      "selp.s32 %0, 1, 0, out;\n}\n"
      : "=r"(any)
      : "r"(id), "r"(threads), "r"(static_cast<int>(p))
      : "memory");
  return any != 0;
}

// ---- Thread-block clusters (rungs 15, 17).

// The cluster's barrier. Arrive with release, wait with acquire: the shared-memory stores of
// every block before it are visible to every block's loads after it. (cooperative_groups'
// cluster.sync() adds a fence at GPU scope, MEMBAR.ALL.GPU, which this exchange does not need.)
__device__ __forceinline__ void cluster_sync_shared() {
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n"
      "barrier.cluster.wait.acquire.aligned;\n" ::
          : "memory");
}
// The same barrier with no ordering: a block waits here until every block of the cluster has
// arrived, that is, finished its loads of the others' shared memory, before it may exit.
__device__ __forceinline__ void cluster_sync_relaxed() {
  asm volatile(
      "barrier.cluster.arrive.relaxed.aligned;\n"
      "barrier.cluster.wait.aligned;\n" ::
          : "memory");
}
// This block's rank in its cluster.
__device__ __forceinline__ int cluster_rank() {
  unsigned rank;
  asm("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return static_cast<int>(rank);
}
// The address of the same shared variable in block `rank` of the cluster (mapa), and a 16-byte
// load from there (distributed shared memory).
__device__ __forceinline__ unsigned map_rank(unsigned address, int rank) {
  unsigned out;
  asm("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(out) : "r"(address), "r"(rank));
  return out;
}
__device__ __forceinline__ float4 load_dsmem(unsigned address) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(address)
               : "memory");
  return v;
}

// ---- TMA. Copies the box of tensor map `map` at coordinates (c0 innermost, c1) to shared
// `dst`; the copy completes its bytes on `bar`. Parts of the box outside the tensor arrive as
// zeros and count toward the bytes all the same.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int c0, int c1,
                                            uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(smem_addr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(smem_addr(bar))
      : "memory");
}

// The same from a three-dimensional map (c2 outermost: a batch's problem).
__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, int c0, int c1,
                                            int c2, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(smem_addr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(smem_addr(bar))
      : "memory");
}

// ---- TMA stores: a box of shared memory (laid out as a load of the same map would write it)
// to global memory, coordinates as tma_load_3d's; parts of the box outside the map's dimensions
// are not written. Stores a thread issued form bulk groups: commit closes one, wait_read<N>
// returns once at most N of its groups are still reading shared memory (which may then be
// written again), wait<N> once at most N are unfinished.
__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, const void* src, int c0,
                                             int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
          map),
      "r"(smem_addr(src)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
__device__ __forceinline__ void bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

// ---- cp.async with mbarrier completion: 4 bytes from global `src` to shared `dst`, zeros
// when `valid` is false (src is not read). .ca: cached in L1 as well, since the rest of each
// 32-byte sector arrives through the warp's next copies.
__device__ __forceinline__ void copy4_async(float* dst, const float* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(dst)),
               "l"(__cvta_generic_to_global(src)), "r"(valid ? 4 : 0)
               : "memory");
}

// Arrives once on `bar` when every cp.async this thread issued before has landed (and its
// bytes are visible to whoever waits on the barrier). .noinc: the arrival is one of the
// `count` the barrier was initialized with.
__device__ __forceinline__ void copies_arrive(uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_addr(bar))
               : "memory");
}

// Fetches a tensor map into the descriptor cache ahead of its first copy.
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(map) : "memory");
}

// ---- setmaxnreg (sm_90a): every warp of a warpgroup sets its registers per thread to kRegs.
// dec returns registers to the block's pool; inc waits until the pool holds enough. It acts
// only in a kernel whose register count is fixed at launch (__launch_bounds__(threads, 1)).
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
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int kGroups>
__device__ __forceinline__ void wgmma_wait() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kGroups) : "memory");
#endif
}

// Keeps the compiler from moving accesses of the accumulators across the asm around it: the
// registers wgmma writes behind the compiler's back are "read and written" here.
template <int kCount>
__device__ __forceinline__ void fence_accumulators(float (&d)[kCount]) {
#pragma unroll
  for (int i = 0; i < kCount; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// A shared-memory matrix descriptor for a K-major tile whose rows (M or N) are kSpan bytes of
// K, as TMA writes it with the kSpan-byte swizzle; tiles start on 1024-byte boundaries, so the
// swizzle's phase is the address's and the base offset (bits 49-51) is 0.
//   bits  0-13: start address >> 4
//   bits 16-29: leading byte offset >> 4: unused for swizzled K-major tiles whose K fits the
//               span (one k step is 32 bytes of a row); 1 by convention
//   bits 32-45: stride byte offset >> 4: from one group of 8 rows to the next, 8 * kSpan bytes
//   bits 62-63: swizzle: 1 = 128 bytes, 2 = 64 bytes, 3 = 32 bytes
// A k step that starts b bytes into each row is the same descriptor with b >> 4 added to its
// address: the hardware applies the swizzle to the resulting address.
template <int kSpan>
__device__ __forceinline__ uint64_t make_descriptor(const void* tile) {
  static_assert(kSpan == 32 || kSpan == 64 || kSpan == 128, "a swizzle span of 32, 64 or 128 B");
  constexpr uint64_t kMode = kSpan == 128 ? 1 : kSpan == 64 ? 2 : 3;
  return static_cast<uint64_t>((smem_addr(tile) & 0x3FFFF) >> 4) | (1ull << 16) |
         (static_cast<uint64_t>(8 * kSpan >> 4) << 32) | (kMode << 62);
}

// D[64 x kN] += A[64 x 8] * B[8 x kN] in TF32 with FP32 accumulators, A and B K-major in shared
// memory (descriptors). The accumulator fragment, per thread of the warpgroup (warp w, lane l):
// d[4j + 2i + c] = D[16w + l/4 + 8i][8j + 2(l%4) + c], i, c in {0, 1}, j < kN/8.
// scale-d (a predicate, from `accumulate`): 1: D += A B; 0: D = A B. imm-scale-a =
// imm-scale-b = 1: no negation.
template <int kN>
struct WgmmaTf32;

// The 64 FP32 accumulators of an m64n128 wgmma, as the asm's first 64 operands (%0 .. %63):
// the register list in the instruction and the read-write operands that bind it to d[].
#define SGEMM_WGMMA_D64                                                              \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "          \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define SGEMM_WGMMA_D64_OPERANDS(d)                                                               \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),    \
      "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),  \
      "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),  \
      "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),  \
      "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),  \
      "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),  \
      "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),  \
      "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])

template <>
struct WgmmaTf32<128> {
  static __device__ __forceinline__ void mma(float (&d)[64], uint64_t a, uint64_t b,
                                             int accumulate) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " SGEMM_WGMMA_D64
        ", %64, %65, p, 1, 1;\n}\n"
        : SGEMM_WGMMA_D64_OPERANDS(d)
        : "l"(a), "l"(b), "r"(accumulate));
#endif
  }
};

// The same product with A from registers (B still a descriptor): a[4] holds this thread's TF32
// bits of A's 64 x 8 tile, a[v] = A[16w + l/4 + 8(v%2)][l%4 + 4(v/2)] (warp w, lane l). wgmma
// reads them asynchronously: they stay unchanged until the group's wait_group.
template <int kN>
struct WgmmaTf32Regs;

template <>
struct WgmmaTf32Regs<128> {
  static __device__ __forceinline__ void mma(float (&d)[64], const uint32_t (&a)[4], uint64_t b,
                                             int accumulate) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %69, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " SGEMM_WGMMA_D64
        ", {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
        : SGEMM_WGMMA_D64_OPERANDS(d)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
#endif
  }
};
// The same product 64 columns wide (m64n64k8: 32 accumulators a thread), for small tiles.
template <>
struct WgmmaTf32<64> {
  static __device__ __forceinline__ void mma(float (&d)[32], uint64_t a, uint64_t b,
                                             int accumulate) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %34, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
        ", %32, %33, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(a), "l"(b), "r"(accumulate));
#endif
  }
};
// ... and with A from registers, as WgmmaTf32Regs<128>.
template <>
struct WgmmaTf32Regs<64> {
  static __device__ __forceinline__ void mma(float (&d)[32], const uint32_t (&a)[4], uint64_t b,
                                             int accumulate) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %37, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
        ", {%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
#endif
  }
};

#undef SGEMM_WGMMA_D64
#undef SGEMM_WGMMA_D64_OPERANDS

// One float from shared memory at a 32-bit shared address.
__device__ __forceinline__ float load_shared(unsigned address) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(address));
  return v;
}

// Keeps the compiler from moving accesses of integer accumulators across the asm around it.
template <int kCount>
__device__ __forceinline__ void fence_accumulators(int (&d)[kCount]) {
#pragma unroll
  for (int i = 0; i < kCount; ++i) asm volatile("" : "+r"(d[i])::"memory");
}

// D[64 x 256] += A[64 x 32] * B[32 x 256] on signed 8-bit integers with exact INT32 sums (wraps
// on overflow: no .satfinite), A and B K-major in shared memory (8-bit types have no transposed
// form). The fragment is the TF32 one's: d[4j + 2i + c] = D[16w + l/4 + 8i][8j + 2(l%4) + c].
// scale-d as for WgmmaTf32; integer wgmma has no negation operands.
struct WgmmaS8N256 {
  static __device__ __forceinline__ void mma(int (&d)[128], uint64_t a, uint64_t b,
                                             int accumulate) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %130, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 {"
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
        "}, %128, %129, p;\n}\n"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]),
          "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]),
          "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]),
          "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]),
          "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]),
          "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]),
          "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]),
          "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]),
          "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]),
          "+r"(d[63]), "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]),
          "+r"(d[70]), "+r"(d[71]), "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]),
          "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]),
          "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), "+r"(d[88]), "+r"(d[89]), "+r"(d[90]),
          "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), "+r"(d[96]), "+r"(d[97]),
          "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]),
          "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]),
          "+r"(d[110]), "+r"(d[111]), "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]),
          "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), "+r"(d[120]), "+r"(d[121]),
          "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
        : "l"(a), "l"(b), "r"(accumulate));
#endif
  }
};

}  // namespace sgemm::hopper
