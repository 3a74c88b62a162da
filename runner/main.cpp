// `sgemm`: validate rungs against cuBLAS, time them in turn with cuBLAS in the same run.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"
#include "harness.h"
#include "measure.h"
#include "report.h"
#include "sgemm/sgemm.h"

namespace {

using namespace sgemm;

// The rungs whose kernel file says "// Needs: sm_90a" (cmake/ladder.cmake): Hopper-only code,
// which runs on compute capability 9.0 alone. CMakeLists.txt passes their numbers.
bool needs_sm90a(const Runnable& r) {
#ifdef SGEMM_SM90A_RUNGS
  const std::vector<int> numbers = {SGEMM_SM90A_RUNGS};
  for (int n : numbers)
    if (!r.reference && r.number == n) return true;
#endif
  (void)r;
  return false;
}

// `sgemm --list`: every runnable, the GPUs it needs, and under a rung what runs when it cannot
// (fallbacks.inc).
void print_list() {
  std::printf("rung\tname\tneeds\tclass\twhat it changes\n");
  for (const Runnable& r : runnables()) {
    std::printf("%d\t%s\t%s\t%s\t%s\n", r.number, r.name.c_str(), needs_sm90a(r) ? "sm_90a" : "-",
                to_string(r.precision), r.summary.c_str());
    for (const FallbackInfo& f : fallbacks())
      if (f.rung == r.rung)
        std::printf("\tfalls back to %d %s when %s (%s)\n", f.instead->number, f.instead->name,
                    f.when, to_string(f.reason));
  }
  std::printf(
      "\nneeds sm_90a: Hopper-only code (compute capability 9.0: H100, H200, GH200); on another "
      "GPU the rung\nruns the one it falls back to for gpu_unsupported, else answers `unsupported "
      "GPU`.\n");
#ifndef SGEMM_SM90A_BUILT
  std::printf(
      "This build has no sm_90a code (90 is not among its CUDA architectures): to run those "
      "rungs on a\nHopper GPU, configure with -DCMAKE_CUDA_ARCHITECTURES=90 (or a list with "
      "90).\n");
#endif
}

int run(const Options& o) {
  const RunOptions& r = o.run;
  Harness harness(r.device);
  std::printf("GPU %d: %s\n", r.device, describe(harness.gpu()).c_str());

  const TimingOptions& timing = r.timing;

  std::vector<Measurement> all_rows, summary;
  bool all_pass = true;
  for (const Runnable* each : o.rungs) {
    const Runnable& runnable = *each;
    const Kernel kernel = harness.kernel(runnable);
    std::printf("\nrung %s [%s] - %s\n", runnable.label().c_str(), to_string(runnable.precision),
                runnable.summary.c_str());
    print_rung_header(std::cout, start_measurement(runnable, {}).reference);
    for (const Shape& shape : r.shapes) {
      Measurement m = start_measurement(runnable, {shape, r.alpha, r.beta, {}, r.inputs});
      try {
        if (!runnable.reference)
          check(harness, kernel, r.checks, r.seed, "rung" + std::to_string(runnable.number), m);
        for (const Mismatch& x : m.mismatches)
          std::printf("    mismatch at row %d, col %d: got %.9g, expected %.9g\n", x.row, x.col,
                      x.got, x.expected);
        // A rung that fails is not timed: its speed would mean nothing.
        if (m.pass) time(harness, kernel, runnable.reference, timing, m);
        if (m.pass && o.accuracy) measure_accuracy(harness, kernel, r.seed, m);
      } catch (const UnsupportedGpu& e) {  // not a failure: this GPU has no kernel for it
        m = start_measurement(runnable, m.problem);
        m.unsupported = true;
        m.check_text = std::string("unsupported GPU: ") + e.what();
      }
      all_pass = all_pass && m.pass;
      print_rung_row(std::cout, m);
      all_rows.push_back(m);
    }
    summary.push_back(all_rows.back());
  }

  if (o.all) {
    std::printf("\nsummary at %s (%% of each rung's reference, timed in turn with it run by run)\n",
                summary.back().problem.shape.str().c_str());
    print_summary(std::cout, summary);
  }
  if (!r.json_path.empty()) {
    write_json(r.json_path, harness.gpu(), all_rows);
    std::printf("\nresults written to %s\n", r.json_path.c_str());
  }
  if (!all_pass) std::printf("\nFAILED: at least one check did not pass\n");
  return all_pass ? kExitOk : kExitCheckFailed;
}

}  // namespace

int main(int argc, char** argv) {
  const ParseResult parsed = parse_args(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.ok()) {
    std::fprintf(stderr, "sgemm: %s\n", parsed.error.c_str());
    return parsed.status;  // 2 (bad usage), or 3 for a --json file that cannot be written
  }
  if (!parsed.help.empty()) {
    std::fputs(parsed.help.c_str(), stdout);
    return kExitOk;
  }
  if (parsed.options.list) {
    print_list();
    return kExitOk;
  }
  try {
    return run(parsed.options);
  } catch (const std::exception& e) {  // no GPU, a CUDA or cuBLAS error: not a failed check
    std::fprintf(stderr, "sgemm: %s\n", e.what());
    return kExitRuntimeError;
  }
}
