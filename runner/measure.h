// One measurement of a rung (or the reference) on one problem: the checks the policy allows,
// then the time, next to cuBLAS. The sgemm CLI, the bench and the autotuner all measure
// through here, so they check and time the same way.
#pragma once

#include <string>
#include <vector>

#include "check.h"
#include "harness.h"

namespace sgemm {

struct Measurement {
  int rung = 0;
  std::string name;     // "blocktiling_2d", or "cublas" for the reference
  std::string variant;  // the autotuner's tile parameters, "" otherwise
  Problem problem;
  bool checked = false;      // at least one check ran
  bool pass = true;          // every check that ran passed, and none asked for was impossible
  std::string check_text;    // "exact PASS, random PASS" or the failure
  double max_abs_error = 0;  // over the checks that ran
  std::vector<Mismatch> mismatches;  // the first few of each failing check
  bool timed = false;
  Timing timing;
  Timing cublas;  // timed in turn with `timing`, run by run (the same for the reference)
  double gflops() const { return timed ? timing.gflops(problem) : 0; }
  double cublas_gflops() const { return timed ? cublas.gflops(problem) : 0; }
  double percent_of_cublas() const {
    return timed ? 100.0 * cublas.median_ms / timing.median_ms : 0;
  }
};

// A measurement of `runnable` on `problem`, not yet checked or timed.
Measurement start_measurement(const Runnable& runnable, const Problem& problem);

// Runs the checks that plan_checks allows for `requested` on `kernel` (the reference is never
// checked) and records the verdict: a requested check that cannot run is a failure, --check
// none is "not checked". `label` names a failure dump.
void check(Harness& harness, const Kernel& kernel, ChecksToRun requested, uint64_t seed,
           const std::string& label, Measurement& m);

// Times the measured kernel: the reference alone, anything else in turn with cuBLAS.
void time(Harness& harness, const Kernel& kernel, bool reference, const TimingOptions& options,
          Measurement& m);

}  // namespace sgemm
