#include "sweep.h"

#include <cstdio>
#include <vector>

#include "report.h"
#include "sgemm.h"

namespace sgemm::bench {

namespace {

// Problems this small are never skipped for time, and a rung's speed measured on one this
// large (or larger) predicts its speed on larger ones: launch overhead no longer dominates.
constexpr int kProbeSize = 1024;
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

std::string rung_text(int rung) {
  return rung == kCublasRung ? "cuBLAS"
                             : "rung " + std::to_string(rung) + " (" + find_rung(rung)->name + ")";
}

std::vector<CheckMode> check_modes(ChecksToRun checks, const Problem& p) {
  const bool exact = checks == ChecksToRun::exact || checks == ChecksToRun::both;
  const bool random = checks == ChecksToRun::random || checks == ChecksToRun::both;
  // Exact checks need alpha and beta in 1/16 steps; otherwise random checks stand in.
  const bool exact_possible = exact_mode_possible(p.alpha, p.beta, p.shape.K);
  std::vector<CheckMode> modes;
  if (exact && exact_possible) modes.push_back(CheckMode::exact);
  if (random || (exact && !exact_possible)) modes.push_back(CheckMode::random);
  return modes;
}

}  // namespace

Sweep::Sweep(Harness& harness, const SweepOptions& options) : harness_(harness), options_(options) {
  timing_.warmup = options.run.warmup;
  timing_.reps = options.run.reps;
  timing_.budget_ms = options.run.budget_ms;
}

void Sweep::run(benchmark::State& state, int rung, const Shape& shape) {
  Measurement m;
  m.rung = rung;
  m.problem = {shape, options_.run.alpha, options_.run.beta};
  std::string label = "reference", why;
  const Timing* cublas = nullptr;
  try {
    if (too_slow(rung, m.problem, &why) || !fits(m.problem, rung != kCublasRung, &why))
      return skip(state, why);
    if (rung != kCublasRung) {
      const Verdict& verdict = validate(rung, m.problem);
      if (!verdict.pass) return fail(state, rung_text(rung) + " failed: " + verdict.text);
      label = verdict.text;
      cublas = cublas_timing(m.problem, &why);
      if (!cublas) label += "; no % of cuBLAS: " + why;
    }
  } catch (const std::exception& e) {
    return fail(state, e.what());
  }

  for (auto _ : state) {
    try {
      m.timing = harness_.time(rung, m.problem, timing_);
    } catch (const std::exception& e) {
      fail(state, e.what());
      break;
    }
    state.SetIterationTime(m.timing.median_ms / 1e3);
  }
  if (state.error_occurred()) return;
  m.timed = true;
  if (rung == kCublasRung) cublas = &(cublas_[shape.str()] = m.timing);
  record(rung, m.problem, m.timing);

  state.SetLabel(label);
  state.counters["GFLOP/s"] = m.gflops();
  if (cublas) {
    m.cublas = *cublas;
    state.counters["cublas_GFLOP/s"] = m.cublas_gflops();
    state.counters["pct_of_cublas"] = m.percent_of_cublas();
  }
  state.counters["M"] = shape.M;
  state.counters["N"] = shape.N;
  state.counters["K"] = shape.K;
  state.counters["reps"] = m.timing.reps;
  state.counters["min_ms"] = m.timing.min_ms;
  state.counters["max_ms"] = m.timing.max_ms;
}

const Sweep::Verdict& Sweep::validate(int rung, const Problem& problem) {
  const std::string key = benchmark_name(rung, problem.shape);
  auto found = verdicts_.find(key);
  if (found != verdicts_.end()) return found->second;  // --benchmark_repetitions: check once
  Verdict verdict;
  for (CheckMode mode : check_modes(options_.run.checks, problem)) {
    const CheckReport report = harness_.check(rung, problem, mode, options_.run.seed);
    verdict.pass = verdict.pass && report.pass();
    verdict.text += (verdict.text.empty() ? "" : ", ") + report.summary();
  }
  if (verdict.text.empty()) verdict.text = "not checked (--check=none)";
  return verdicts_[key] = verdict;
}

const Timing* Sweep::cublas_timing(const Problem& problem, std::string* why) {
  // Normally the cuBLAS benchmark of this shape ran just before; a filter may have left it out.
  auto found = cublas_.find(problem.shape.str());
  if (found != cublas_.end()) return &found->second;
  if (too_slow(kCublasRung, problem, why)) return nullptr;
  const Timing timing = harness_.time(kCublasRung, problem, timing_);
  record(kCublasRung, problem, timing);
  return &(cublas_[problem.shape.str()] = timing);
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

bool Sweep::too_slow(int rung, const Problem& problem, std::string* why) {
  const double limit = options_.max_seconds_per_run;
  if (limit <= 0 || problem.flops() <= kProbeFlops) return false;
  const Throughput& basis = throughput(rung);
  const double seconds = problem.flops() / (basis.gflops * 1e9);
  if (seconds <= limit) return false;
  char text[512];
  std::snprintf(text, sizeof text,
                "%s would take ~%.2g s per run at %s (predicted from %.0f GFLOP/s at %s); "
                "the limit is --max-seconds-per-run=%g, raise it to run this",
                rung_text(rung).c_str(), seconds, problem.shape.str().c_str(), basis.gflops,
                basis.shape.c_str(), limit);
  *why = text;
  return true;
}

const Sweep::Throughput& Sweep::throughput(int rung) {
  auto found = throughput_.find(rung);
  if (found != throughput_.end()) return found->second;
  // Nothing this large timed yet (a filter, or --mnk): a short probe at 1024^3 predicts.
  Problem probe{Shape{}, options_.run.alpha, options_.run.beta};
  probe.shape.M = probe.shape.N = probe.shape.K = kProbeSize;
  TimingOptions quick = timing_;
  quick.warmup = 1;
  quick.reps = 3;
  quick.budget_ms = 0;
  record(rung, probe, harness_.time(rung, probe, quick));
  return throughput_.at(rung);
}

void Sweep::record(int rung, const Problem& problem, const Timing& timing) {
  if (problem.flops() < kProbeFlops) return;
  Throughput& t = throughput_[rung];
  if (problem.flops() < t.flops) return;  // keep the largest problem: the best predictor
  t = {problem.flops(), timing.gflops(problem), problem.shape.str()};
}

void Sweep::fail(benchmark::State& state, const std::string& why) {
  ++errors_;
  state.SkipWithError(why.c_str());
}

}  // namespace sgemm::bench
