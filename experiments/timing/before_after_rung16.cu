// Rung 16's kernel file at three commits and today's library, in one process, each file compiled
// into a namespace of its own, with cuBLAS SGEMM beside them, timed in turn on the same inputs:
//  - issue 26's shared headers: the file at the baseline (0fce4f7, before the headers) against
//    the file at the refactor commit (5f87f2c, the headers and nothing else: issue 27 changed
//    the rung afterwards, so today's file is not that "after"). On the 2^-23 grid: both are the
//    rung before issue 27, fast on that grid alone (on full-precision inputs their per-element
//    slow path times the inputs, not the code).
//  - a later change: the file at a commit given as .ba16/16_head.cu against the library's rung
//    16, on full-precision uniform inputs.
// The files and the headers they include sit in one folder, so that hopper.cuh and pipeline.cuh
// (the same code in every commit named) are included once:
//   mkdir .ba16 && git show 0fce4f7:kernels/hopper/hopper.cuh > .ba16/hopper.cuh &&
//   git show 5f87f2c:kernels/hopper/pipeline.cuh > .ba16/pipeline.cuh &&
//   git show 0fce4f7:kernels/16_ozaki_int8.cu > .ba16/16_before.cu &&
//   git show 5f87f2c:kernels/16_ozaki_int8.cu > .ba16/16_after.cu &&
//   git show <commit>:kernels/16_ozaki_int8.cu > .ba16/16_head.cu
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner -I.ba16 \
//        experiments/timing/before_after_rung16.cu <build>/libsgemm_harness.a \
//        <build>/libsgemm_ladder.a -lcublas -ldl -o before_after_rung16 &&
//   ./before_after_rung16 4096 8192
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "harness.h"
#include "inputs.h"
#include "report.h"
#include "sgemm/sgemm.h"

#define ozaki_int8 ozaki_int8_before
#include "16_before.cu"
#undef ozaki_int8
#define ozaki_int8 ozaki_int8_after
#include "16_after.cu"
#undef ozaki_int8
#define ozaki_int8 ozaki_int8_head
#include "16_head.cu"
#undef ozaki_int8

int main(int argc, char** argv) {
  using namespace sgemm;
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {4096, 8192};
  Harness h(0);
  std::printf("GPU: %s\n", describe(h.gpu()).c_str());
  // Each pair is timed in both orders (cuBLAS, before, after; then cuBLAS, after, before): at
  // 8192^3 the slot after another rung 16 loses ~3.6% on a power-capped card, whatever the code
  // (the control below measured it). after/before is the geometric mean of the two orders.
  auto compare = [&](const char* inputs, Kernel before, Kernel after, const char* what) {
    std::printf("%s, inputs %s\n%-6s %10s %10s %10s %14s %14s %12s\n", what, inputs, "size",
                "cuBLAS", "before", "after", "after/before 1", "after/before 2", "after/before");
    for (int n : sizes) {
      Problem problem{{n, n, n}};
      problem.inputs = *parse_inputs(inputs);
      const Kernel reference = h.kernel(reference_for(Precision::fp32));
      const std::vector<Timing> one = h.time_in_turn({reference, before, after}, problem, {});
      const std::vector<Timing> two = h.time_in_turn({reference, after, before}, problem, {});
      const double first = one[1].median_ms / one[2].median_ms;
      const double second = two[2].median_ms / two[1].median_ms;
      auto tflops = [&](double ms) { return problem.flops() / ms / 1e9; };
      std::printf("%-6d %10.1f %10.1f %10.1f %14.4f %14.4f %12.4f\n", n, tflops(one[0].median_ms),
                  tflops(std::sqrt(one[1].median_ms * two[2].median_ms)),
                  tflops(std::sqrt(one[2].median_ms * two[1].median_ms)), first, second,
                  std::sqrt(first * second));
    }
  };
  // The noise floor: one launcher against itself.
  compare("grid", launched(&ozaki_int8_before::launch, "0fce4f7"),
          launched(&ozaki_int8_before::launch, "0fce4f7 again"), "control: 0fce4f7 -> 0fce4f7");
  compare("grid", launched(&ozaki_int8_before::launch, "0fce4f7"),
          launched(&ozaki_int8_after::launch, "5f87f2c"), "issue 26: 0fce4f7 -> 5f87f2c");
  compare("uniform", launched(&ozaki_int8_head::launch, "head"), h.kernel(16),
          "16_head.cu -> the library's rung 16");
  return 0;
}
