// The speed of rungs before and after a change, in one process: the rungs' launchers as they
// were (kernel files from a baseline tree, each compiled into a namespace of its own, `_before`)
// against the library's, with the cuBLAS of each rung's class beside them, timed in turn in
// blocks on the same inputs (Harness::time_in_turn). The ratio after / before is what a change
// did to a rung's speed; the percentages of cuBLAS show the session's clocks.
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner \
//        -I<baseline>/kernels experiments/timing/before_after.cu <build>/libsgemm_harness.a \
//        <build>/libsgemm_ladder.a -lcublas -ldl -o before_after && ./before_after 4096 8192
// Arguments: sizes n (n^3) or shapes MxNxK; --rung R keeps one rung of the four.
// (not -Ikernels: the kernel files' names are the same in both trees, and the first found wins;
// the baseline's launchers take the problem as one Gemm, as the library's do)
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "harness.h"
#include "report.h"
#include "sgemm/sgemm.h"

// The baseline's kernel files, renamed: the SIMT rungs 10 and 11, and rung 9, which both call
// for the operands TMA cannot read; the Hopper 3xTF32 rungs 14 and 15.
#define async_copy async_copy_before
#include "09_async_copy.cu"
#define tma_specialized tma_specialized_before
#include "10_tma_specialized.cu"
#undef tma_specialized
#define every_shape every_shape_before
#include "11_every_shape.cu"
#undef every_shape
#undef async_copy
// The Hopper 3xTF32 rungs (issue 26 moved their plumbing into shared headers).
#define wgmma_3xtf32 wgmma_3xtf32_before
#include "14_wgmma_3xtf32.cu"
#define every_shape_3xtf32 every_shape_3xtf32_before
#include "15_every_shape_3xtf32.cu"
#undef every_shape_3xtf32
#undef wgmma_3xtf32

namespace {

using namespace sgemm;

struct Pair {
  int rung;
  LaunchFunction before;
};

// A baseline launcher whatever it returns: cudaError_t, or runtime::LaunchAnswer (its error).
template <typename F>
LaunchFunction error_of(F launch) {
  return [launch](const Gemm& g, cudaStream_t s) {
    const auto answer = launch(g, s);
    if constexpr (std::is_same_v<decltype(answer), const cudaError_t>)
      return answer;
    else
      return answer.error();
  };
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Shape> shapes;
  int only = 0;  // --rung R: that rung alone
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rung" && i + 1 < argc) {
      only = std::atoi(argv[++i]);
    } else {
      int m = 0, n = 0, k = 0;
      if (std::sscanf(a.c_str(), "%dx%dx%d", &m, &n, &k) != 3) m = n = k = std::atoi(a.c_str());
      shapes.push_back({m, n, k});
    }
  }
  if (shapes.empty()) shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}};
  Harness h(0);
  std::printf("GPU: %s\n", describe(h.gpu()).c_str());
  const std::vector<Pair> pairs = {{10, error_of(&tma_specialized_before::launch)},
                                   {11, error_of(&every_shape_before::launch)},
                                   {14, error_of(&wgmma_3xtf32_before::launch)},
                                   {15, error_of(&every_shape_3xtf32_before::launch)}};
  std::printf("%-18s %-16s %10s %10s %10s %9s %9s %12s\n", "shape", "rung", "reference", "before",
              "after", "% before", "% after", "after/before");
  for (const Shape& shape : shapes)
    for (const Pair& p : pairs) {
      if (only && p.rung != only) continue;
      const Problem problem{shape};
      const std::vector<Timing> t =
          h.time_in_turn({h.kernel(reference_for(find_rung(p.rung)->precision)),
                          launched(p.before, "before"), h.kernel(p.rung)},
                         problem, TimingOptions{});
      auto tflops = [&](const Timing& x) { return x.gflops(problem) / 1e3; };
      const std::string name =
          std::to_string(shape.M) + "x" + std::to_string(shape.N) + "x" + std::to_string(shape.K);
      std::printf("%-18s %-16s %10.1f %10.1f %10.1f %9.1f %9.1f %12.4f\n", name.c_str(),
                  find_rung(p.rung)->name, tflops(t[0]), tflops(t[1]), tflops(t[2]),
                  100 * t[0].median_ms / t[1].median_ms, 100 * t[0].median_ms / t[2].median_ms,
                  t[1].median_ms / t[2].median_ms);
    }
  return 0;
}
