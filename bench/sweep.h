// The body of every benchmark in the sweep: validate the rung on the shape once, skip it when
// one run would take too long, time it with the harness, and report GFLOP/s and % of cuBLAS.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "harness.h"
#include "measure.h"
#include "sweep_options.h"

namespace sgemm::bench {

class Sweep {
 public:
  Sweep(Harness& harness, const SweepOptions& options);

  // Runs the benchmark of `runnable` (a rung, or a cuBLAS reference) on `shape`: one iteration
  // whose manual time is the harness's median.
  void run(benchmark::State& state, const Runnable& runnable, const Shape& shape);

  // Benchmarks that failed validation or hit an error (skips for time or memory are not).
  int errors() const { return errors_; }

 private:
  struct Throughput {
    double flops = 0, gflops = 0;
    std::string shape;
  };

  // The checks of (rung, shape), run once per process: a Measurement holding the verdict.
  const Measurement& validate(const Runnable& runnable, const Kernel& kernel,
                              const Problem& problem);
  bool fits(const Problem& problem, bool for_check, std::string* why) const;
  bool too_slow(const Runnable& runnable, const Problem& problem, std::string* why);
  const Throughput& throughput(const Runnable& runnable);
  void record(const Runnable& runnable, const Problem& problem, const Timing& timing);
  void fail(benchmark::State& state, const std::string& why);

  Harness& harness_;
  const SweepOptions& options_;
  TimingOptions timing_;
  std::map<std::string, Measurement> verdicts_;  // by benchmark name: each (rung, shape) once
  std::map<int, Throughput> throughput_;         // by rung: its largest problem timed so far
  int errors_ = 0;
};

}  // namespace sgemm::bench
