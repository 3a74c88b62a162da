#include "sweep.h"

#include <cstdio>
#include <vector>

#include "measure.h"
#include "report.h"
#include "sgemm/sgemm.h"

namespace sgemm::bench {

namespace {

constexpr double kProbeFlops = 2.0 * kProbeSize * kProbeSize * kProbeSize;

// Google Benchmark 1.8 reports a skip as "skipped"; older versions only have errors, so a
// skip shows as an error whose message starts with "skipped: " (scripts/bench_results.py
// reads both).
template <typename State>
auto skip_with_message(State& state, const std::string& why, int)
    -> decltype(state.SkipWithMessage(why)) {
  state.SkipWithMessage(why);
}
template <typename State>
void skip_with_message(State& state, const std::string& why, long) {
  state.SkipWithError(("skipped: " + why).c_str());
}
void skip(benchmark::State& state, const std::string& why) { skip_with_message(state, why, 0); }

}  // namespace

Sweep::Sweep(Harness& harness, const SweepOptions& options)
    : harness_(harness), options_(options), timing_(options.run.timing) {}

void Sweep::run(benchmark::State& state, const Runnable& runnable, const Shape& shape) {
  Measurement m = start_measurement(
      runnable, {shape, options_.run.alpha, options_.run.beta, {}, options_.run.inputs});
  const Kernel kernel = harness_.kernel(runnable);
  std::string label = "reference", why;
  try {
    if (too_slow(runnable, m.problem, &why) || !fits(m.problem, !runnable.reference, &why))
      return skip(state, why);
    if (!runnable.reference) {
      const Measurement& verdict = validate(runnable, kernel, m.problem);
      if (!verdict.pass) return fail(state, runnable.label() + " failed: " + verdict.check_text);
      label = verdict.check_text;
    }
  } catch (const UnsupportedGpu& e) {  // a skip with the reason, not the rung's failure
    return skip(state, std::string("unsupported GPU: ") + e.what());
  } catch (const std::exception& e) {
    return fail(state, e.what());
  }

  for (auto _ : state) {
    try {
      time(harness_, kernel, runnable.reference, timing_, m);
    } catch (const std::exception& e) {
      fail(state, e.what());
      break;
    }
    state.SetIterationTime(m.timing.median_ms / 1e3);
  }
  if (state.error_occurred()) return;
  record(runnable, m.problem, m.timing);

  // A rung's label names the reference its % is of: "vs cublas_tf32: exact PASS, random PASS".
  state.SetLabel(runnable.reference ? label : "vs " + m.reference + ": " + label);
  state.counters["GFLOP/s"] = m.gflops();
  if (!runnable.reference) {
    // Of the rung's reference (its precision class: scripts/ladder.py REFERENCES), which the
    // label names too.
    state.counters["reference_GFLOP/s"] = m.reference_gflops();
    state.counters["pct_of_reference"] = m.percent_of_reference();
  }
  state.counters["M"] = shape.M;
  state.counters["N"] = shape.N;
  state.counters["K"] = shape.K;
  state.counters["reps"] = m.timing.reps;
  state.counters["min_ms"] = m.timing.min_ms;
  state.counters["max_ms"] = m.timing.max_ms;
}

const Measurement& Sweep::validate(const Runnable& runnable, const Kernel& kernel,
                                   const Problem& problem) {
  const std::string key = benchmark_name(runnable.number, problem.shape);
  auto found = verdicts_.find(key);
  if (found != verdicts_.end()) return found->second;  // --benchmark_repetitions: check once
  Measurement verdict = start_measurement(runnable, problem);
  check(harness_, kernel, options_.run.checks, options_.run.seed,
        "rung" + std::to_string(runnable.number), verdict);
  return verdicts_[key] = verdict;
}

bool Sweep::fits(const Problem& problem, bool for_check, std::string* why) const {
  try {
    harness_.require_memory(problem, for_check);
    return true;
  } catch (const Error& e) {  // too large for this GPU: a skip, not the rung's failure
    *why = e.what();
    return false;
  }
}

bool Sweep::too_slow(const Runnable& runnable, const Problem& problem, std::string* why) {
  const double limit = options_.max_seconds_per_run;
  if (limit <= 0 || problem.flops() <= kProbeFlops) return false;
  const Throughput& basis = throughput(runnable);
  const double seconds = problem.flops() / (basis.gflops * 1e9);
  if (seconds <= limit) return false;
  char text[512];
  std::snprintf(text, sizeof text,
                "%s would take ~%.2g s per run at %s (predicted from %.0f GFLOP/s at %s); "
                "the limit is --max-seconds-per-run=%g, raise it to run this",
                runnable.label().c_str(), seconds, problem.shape.str().c_str(), basis.gflops,
                basis.shape.c_str(), limit);
  *why = text;
  return true;
}

const Sweep::Throughput& Sweep::throughput(const Runnable& runnable) {
  auto found = throughput_.find(runnable.number);
  if (found != throughput_.end()) return found->second;
  // Nothing this large timed yet (a filter, or --mnk): a short probe at 1024^3 predicts.
  Problem probe{Shape{}, options_.run.alpha, options_.run.beta};
  probe.shape.M = probe.shape.N = probe.shape.K = kProbeSize;
  TimingOptions quick = timing_;  // one warm-up, then one block of 2 runs, the second counted
  quick.warmup = 1;
  quick.block_ms = 0;
  quick.rounds = 1;
  record(runnable, probe, harness_.time(runnable, probe, quick));
  return throughput_.at(runnable.number);
}

void Sweep::record(const Runnable& runnable, const Problem& problem, const Timing& timing) {
  if (problem.flops() < kProbeFlops) return;
  Throughput& t = throughput_[runnable.number];
  if (problem.flops() < t.flops) return;  // keep the largest problem: the best predictor
  t = {problem.flops(), timing.gflops(problem), problem.shape.str()};
}

void Sweep::fail(benchmark::State& state, const std::string& why) {
  ++errors_;
  state.SkipWithError(why.c_str());
}

}  // namespace sgemm::bench
