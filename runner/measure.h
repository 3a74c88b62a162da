// One measurement of a rung (or a reference) on one problem: the checks the policy allows,
// then the time, next to the cuBLAS of its precision class, then (when asked) its error
// against FP64. The sgemm CLI, the bench and the autotuner all measure through here, so they
// check and time the same way.
#pragma once

#include <string>
#include <vector>

#include "check.h"
#include "harness.h"

namespace sgemm {

// Errors against FP64 on one input distribution: the measured runnable's and, on the same
// inputs, both cuBLAS references'.
struct AccuracyRow {
  Inputs inputs;
  Accuracy measured, cublas, cublas_tf32;
};

struct Measurement {
  int rung = 0;
  std::string name;     // the rung's name, or "cublas" for the reference
  std::string variant;  // the autotuner's tile parameters, "" otherwise
  Precision precision = Precision::fp32;
  std::string reference;  // the runnable it is compared with: "cublas" or "cublas_tf32"
  Problem problem;
  bool unsupported = false;  // the rung has no kernel for this GPU (check_text says why)
  bool checked = false;      // at least one check ran
  bool pass = true;          // every check that ran passed, and none asked for was impossible
  std::string check_text;    // "exact PASS, random PASS" or the failure
  double max_abs_error = 0;  // over the checks that ran
  std::vector<Mismatch> mismatches;  // the first few of each failing check
  bool timed = false;
  Timing timing;
  Timing reference_timing;  // timed in turn with `timing`, run by run (the same for a reference)
  std::vector<AccuracyRow> accuracy;  // empty unless asked for
  double gflops() const { return timed ? timing.gflops(problem) : 0; }
  double reference_gflops() const { return timed ? reference_timing.gflops(problem) : 0; }
  double percent_of_reference() const {
    return timed ? 100.0 * reference_timing.median_ms / timing.median_ms : 0;
  }
};

// A measurement of `runnable` on `problem`, not yet checked or timed.
Measurement start_measurement(const Runnable& runnable, const Problem& problem);

// Runs the checks that plan_checks allows for `requested` on `kernel` (the reference is never
// checked) and records the verdict: a requested check that cannot run is a failure, --check
// none is "not checked". `label` names a failure dump.
void check(Harness& harness, const Kernel& kernel, ChecksToRun requested, uint64_t seed,
           const std::string& label, Measurement& m);

// Times the measured kernel: a reference alone, anything else in turn with its reference.
void time(Harness& harness, const Kernel& kernel, bool reference, const TimingOptions& options,
          Measurement& m);

// Measures the error against FP64 of `kernel` and of both cuBLAS references on each of
// accuracy_inputs() (inputs.h).
void measure_accuracy(Harness& harness, const Kernel& kernel, uint64_t seed, Measurement& m);

}  // namespace sgemm
