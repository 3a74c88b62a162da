// Where does the one call lose its time off Hopper? Rung 13 (the path of a compute-8.0 build)
// runs 70-89% of cuBLAS SGEMM on 8 suite shapes through the JIT on an H200. This program times,
// in turn with cuBLAS SGEMM and L2 flushed before each run (Harness::time_in_turn, as the bench),
// rung 13's launch and its pieces apart:
//   r13      the launch, as the library runs it
//   flags    the memset and the flag pass alone (as an unsliced launch runs it)
//   c0..c2   the launch with each tile of rung 13's list forced (mma_3xtf32::launch_config)
// Its first version (results/h200/pieces.txt, git history) also timed the product kernel and
// the slices' sum apart, and the product on 128 x 128 tiles: those kernels changed since.
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

// The flags, as large as the largest shape needs.
int* g_guard = nullptr;

cudaError_t flags(const sgemm::Gemm& g, cudaStream_t s) {
  cudaError_t err = cudaMemsetAsync(g_guard, 0, (static_cast<size_t>(g.M) + g.N) * sizeof(int), s);
  if (err != cudaSuccess) return err;
  const long long chunks = std::max(static_cast<long long>(g.M) * ((g.K + 1023) / 1024),
                                    static_cast<long long>(g.K) * ((g.N + 1023) / 1024));
  const dim3 grid(static_cast<unsigned>(std::min<long long>(chunks, 4096)), 1, 2);
  r13::sgemm_mma_3xtf32_flag<<<grid, 256, 0, s>>>(g.M, g.N, g.K, g.A, g.lda, g.B, g.ldb, g_guard,
                                                  nullptr, nullptr, nullptr, 0);
  return cudaGetLastError();
}

int main(int argc, char** argv) {
  using namespace sgemm;
  TimingOptions timing;
  timing.block_ms = argc > 1 ? std::atof(argv[1]) : 40;
  Harness h(0);
  std::printf("GPU: %s; blocks of >= %.0f ms; a build for compute 8.0 through the JIT\n",
              describe(h.gpu()).c_str(), timing.block_ms);
  if (cudaMalloc(&g_guard, 64 << 20) != cudaSuccess) {
    std::printf("cannot allocate the pieces' buffers\n");
    return 1;
  }
  const std::vector<std::string> names = {"cublas", "r13", "flags", "c0", "c1", "c2"};
  std::vector<Kernel> kernels = {
      h.kernel(kCublasRung),
      launched([](const Gemm& g, cudaStream_t s) { return r13::launch(g, s).error(); }, "r13"),
      launched(flags, "flags")};
  for (int config = 0; config < r13::config_count(); ++config)
    kernels.push_back(launched(
        [config](const Gemm& g, cudaStream_t s) { return r13::launch_config(config, g, s); },
        names[3 + config]));
  int failures = 0;
  const Problem checked[] = {Problem{Shape{333, 260, 517}, 1.5f, 0.25f},
                             Problem{Shape{200, 136, 1000, 1004, 140, 144}, -1.f, 0.f}};
  for (size_t i : {1, 3, 4, 5})
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
  std::printf("   (us; then %% of cuBLAS for r13, c0, c1, c2)\n");
  for (const Shape& s : shapes) {
    const Problem p{s};
    const std::vector<Timing> t = h.time_in_turn(kernels, p, timing);
    std::printf("%-30s %9.1f", s.str().c_str(), 1e3 * t[0].median_ms);
    for (size_t i = 1; i < t.size(); ++i) std::printf(" %8.1f", 1e3 * t[i].median_ms);
    for (size_t i : {1, 3, 4, 5}) std::printf(" %5.1f", 100 * t[0].median_ms / t[i].median_ms);
    std::printf("\n");
    std::fflush(stdout);
  }
  return failures ? 1 : 0;
}
