// Where does the one call lose its time off Hopper? Rung 13 (the path of a compute-8.0 build)
// runs 70-89% of cuBLAS SGEMM on 8 suite shapes through the JIT on an H200. This program times,
// in turn with cuBLAS SGEMM and L2 flushed before each run (Harness::time_in_turn, as the bench),
// rung 13's launch and its pieces apart:
//   r13      the launch, as the library runs it
//   flags    the memset and the flag pass alone
//   main     the product kernel alone (the slices of K where launch() splits, into a workspace)
//   sum      the slices' sum alone
//   t128     the product on 128 x 128 tiles (2 blocks an SM) in place of 128 x 256, no split
//   c0..c2   the launch with each tile of rung 13's list forced (mma_3xtf32::launch_config)
// main, sum and t128 time the 128 x 256 kernel with the flag pass's first version's slices.
// Each variant that writes C is checked first (exact and random inputs, odd and padded shapes).
// Build for compute 8.0 (PTX only, so that the driver JITs it on a Hopper), beside build-sm80:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_80,code=compute_80 -Ikernels -Irunner -Iinclude \
//        -I.deps/usr/include experiments/rung13_split/pieces.cu build-sm80/libsgemm_harness.a \
//        build-sm80/libsgemm_ladder.a build-sm80/libsgemm_cublas_compat.a -lcublas -ldl \
//        -o pieces && ./pieces
// (experiments/rung13_split/pieces.sh does it in one GPU call.)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "entries.h"
#include "harness.h"
#include "launchers.h"
#include "report.h"
#include "runtime/device.h"
#include "runtime/workspace.h"
#include "sgemm/sgemm.h"

// Rung 13's file, its names moved into exp13:: so that they do not collide with the library's.
namespace exp13 {
namespace sgemm {
using namespace ::sgemm;
}
#include "13_mma_3xtf32.cu"
}  // namespace exp13

namespace r13 = exp13::sgemm::mma_3xtf32;

// Buffers the pieces reuse across runs: the flags and the slices, as large as the largest shape.
int* g_guard = nullptr;
float* g_slices = nullptr;
constexpr size_t kSliceFloats = size_t(1) << 28;  // 1 GiB

int multiprocessors() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  return sms;
}

struct Split {
  int slices, kSlice;
  long long tiles;
};
Split split_of(int M, int N, int K, int BM, int BN) {
  const int sms = multiprocessors();
  const long long tiles = static_cast<long long>((M + BM - 1) / BM) * ((N + BN - 1) / BN);
  const int wanted = r13::slices_for(tiles, K, sms);
  const long long step = static_cast<long long>(wanted) * 32;
  const int kSlice = wanted > 1 ? static_cast<int>((K + step - 1) / step * 32) : K;
  return {wanted > 1 ? (K + kSlice - 1) / kSlice : 1, kSlice, tiles};
}

cudaError_t flags(const sgemm::Gemm& g, cudaStream_t s) {
  return r13::flag_rows_and_columns(g.M, g.N, g.K, g.A, g.lda, g.B, g.ldb, g_guard, nullptr,
                                    nullptr, multiprocessors(), s);
}

// The product kernel of a BM x BN tile, with launch()'s slices of K into g_slices where
// `splitAsLaunch`, else all of K into C.
template <int BM, int BN, int WM, int WN, bool kAlignedA, bool kAlignedB>
cudaError_t product_aligned(const sgemm::Gemm& g, cudaStream_t s, bool splitAsLaunch) {
  using T = r13::Tile<BM, BN, 32, WM, WN, 3>;
  constexpr auto kernel = r13::sgemm_mma_3xtf32<BM, BN, 32, WM, WN, 3, kAlignedA, kAlignedB>;
  cudaError_t err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSharedBytes);
  if (err != cudaSuccess) return err;
  const Split sp = split_of(g.M, g.N, g.K, BM, BN);
  const bool split = splitAsLaunch && sp.slices > 1;
  const dim3 grid(static_cast<unsigned>(sp.tiles), 1, split ? sp.slices : 1);
  if (split)
    kernel<<<grid, T::kThreads, T::kSharedBytes, s>>>(
        g.M, g.N, g.K, sp.kSlice, 1.f, g.A, g.lda, g.B, g.ldb, 0.f, g_slices, g.N,
        static_cast<long long>(g.M) * g.N, g_guard, g.N % 2 == 0);
  else
    kernel<<<grid, T::kThreads, T::kSharedBytes, s>>>(g.M, g.N, g.K, g.K, g.alpha, g.A, g.lda, g.B,
                                                      g.ldb, g.beta, g.C, g.ldc, 0, g_guard,
                                                      r13::aligned(g.C, 8) && g.ldc % 2 == 0);
  return cudaGetLastError();
}

template <int BM, int BN, int WM, int WN>
cudaError_t product(const sgemm::Gemm& g, cudaStream_t s, bool splitAsLaunch) {
  const bool a16 = r13::aligned(g.A, 16) && g.lda % 4 == 0;
  const bool b16 = r13::aligned(g.B, 16) && g.ldb % 4 == 0;
  if (a16 && b16) return product_aligned<BM, BN, WM, WN, true, true>(g, s, splitAsLaunch);
  if (a16) return product_aligned<BM, BN, WM, WN, true, false>(g, s, splitAsLaunch);
  if (b16) return product_aligned<BM, BN, WM, WN, false, true>(g, s, splitAsLaunch);
  return product_aligned<BM, BN, WM, WN, false, false>(g, s, splitAsLaunch);
}

cudaError_t sum(const sgemm::Gemm& g, cudaStream_t s) {
  const Split sp = split_of(g.M, g.N, g.K, 128, 256);
  if (sp.slices == 1) return cudaSuccess;
  return r13::add_slices(g.M, g.N, sp.slices, g.alpha, g_slices, g.beta, g.C, g.ldc,
                         multiprocessors(), s);
}

int main(int argc, char** argv) {
  using namespace sgemm;
  TimingOptions timing;
  timing.block_ms = argc > 1 ? std::atof(argv[1]) : 40;
  Harness h(0);
  std::printf("GPU: %s; blocks of >= %.0f ms; a build for compute 8.0 through the JIT\n",
              describe(h.gpu()).c_str(), timing.block_ms);
  if (cudaMalloc(&g_guard, 64 << 20) != cudaSuccess ||
      cudaMalloc(&g_slices, kSliceFloats * sizeof(float)) != cudaSuccess ||
      cudaMemset(g_guard, 0, 64 << 20) != cudaSuccess) {
    std::printf("cannot allocate the pieces' buffers\n");
    return 1;
  }
  const std::vector<std::string> names = {"cublas", "r13", "flags", "main", "sum",
                                          "t128",   "c0",  "c1",    "c2"};
  std::vector<Kernel> kernels = {
      h.kernel(kCublasRung),
      launched([](const Gemm& g, cudaStream_t s) { return r13::launch(g, s).error(); }, "r13"),
      launched(flags, "flags"),
      launched([](const Gemm& g, cudaStream_t s) { return product<128, 256, 64, 64>(g, s, true); },
               "main"),
      launched(sum, "sum"),
      launched([](const Gemm& g, cudaStream_t s) { return product<128, 128, 64, 64>(g, s, false); },
               "t128")};
  for (int config = 0; config < r13::config_count(); ++config)
    kernels.push_back(launched(
        [config](const Gemm& g, cudaStream_t s) { return r13::launch_config(config, g, s); },
        names[6 + config]));
  int failures = 0;
  const Problem checked[] = {Problem{Shape{333, 260, 517}, 1.5f, 0.25f},
                             Problem{Shape{200, 136, 1000, 1004, 140, 144}, -1.f, 0.f}};
  for (size_t i : {1, 5, 6, 7, 8})
    for (const Problem& p : checked)
      for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
        const CheckReport r = h.check(kernels[i], p, mode, 7, names[i]);
        if (!r.pass()) {
          ++failures;
          std::printf("CHECK %s %s: %s\n", names[i].c_str(), p.str().c_str(), r.summary().c_str());
        }
      }
  std::printf("checks: %d failures\n", failures);
  const Shape shapes[] = {{1000, 1000, 1000},
                          {1024, 1024, 1024},
                          {4096, 256, 4096},
                          {256, 4096, 4096},
                          {8192, 8192, 128},
                          {3000, 3000, 3000},
                          {4096, 4096, 4096},
                          {4097, 4097, 4097},
                          {4097, 4097, 4097, 4100, 4100, 4100},
                          {4095, 4097, 4093},
                          {4095, 4097, 4093, 4096, 4100, 4100}};
  std::printf("%-30s %9s", "shape", "cuBLAS us");
  for (size_t i = 1; i < names.size(); ++i) std::printf(" %8s", names[i].c_str());
  std::printf("   (us; then %% of cuBLAS for r13, t128, c0, c1, c2)\n");
  for (const Shape& s : shapes) {
    const Problem p{s};
    const std::vector<Timing> t = h.time_in_turn(kernels, p, timing);
    std::printf("%-30s %9.1f", s.str().c_str(), 1e3 * t[0].median_ms);
    for (size_t i = 1; i < t.size(); ++i) std::printf(" %8.1f", 1e3 * t[i].median_ms);
    for (size_t i : {1, 5, 6, 7, 8}) std::printf(" %5.1f", 100 * t[0].median_ms / t[i].median_ms);
    std::printf("\n");
    std::fflush(stdout);
  }
  return failures ? 1 : 0;
}
