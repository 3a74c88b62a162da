// `sgemm`: validate rungs against cuBLAS, time them against cuBLAS in the same run.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cli.h"
#include "harness.h"
#include "report.h"
#include "sgemm.h"

namespace {

using namespace sgemm;

std::vector<CheckMode> modes_for(ChecksToRun checks) {
  switch (checks) {
    case ChecksToRun::both:
      return {CheckMode::exact, CheckMode::random};
    case ChecksToRun::exact:
      return {CheckMode::exact};
    case ChecksToRun::random:
      return {CheckMode::random};
    case ChecksToRun::none:
      return {};
  }
  return {};
}

std::string rung_name(int rung) { return rung == kCublasRung ? "cublas" : find_rung(rung)->name; }

// Checks one rung on one problem in every requested mode; prints the first mismatches.
void check(Harness& harness, const Options& o, int rung, Measurement& m) {
  for (CheckMode mode : modes_for(o.checks)) {
    if (mode == CheckMode::exact &&
        !exact_mode_possible(m.problem.alpha, m.problem.beta, m.problem.shape.K)) {
      m.check_text += std::string(m.check_text.empty() ? "" : ", ") +
                      "exact skipped (alpha, beta not multiples of 1/16)";
      continue;
    }
    const CheckReport report = harness.check(rung, m.problem, mode, o.seed);
    m.checked = true;
    m.pass = m.pass && report.pass();
    m.max_abs_error = std::max(m.max_abs_error, report.comparison.max_abs_error);
    m.check_text += std::string(m.check_text.empty() ? "" : ", ") +
                    (report.pass() ? std::string(to_string(mode)) + " PASS" : report.summary());
    for (const Mismatch& x : report.comparison.first)
      std::printf("    mismatch (%s) at row %d, col %d: got %.9g, expected %.9g\n", to_string(mode),
                  x.row, x.col, x.got, x.expected);
  }
}

int run(const Options& o) {
  Harness harness(o.device);
  std::printf("GPU %d: %s\n", o.device, describe(harness.gpu()).c_str());

  std::vector<int> ladder = o.rungs;
  if (o.all) {
    ladder.clear();
    for (const RungInfo& r : rungs()) ladder.push_back(r.number);
  }
  TimingOptions timing;
  timing.warmup = o.warmup;
  timing.reps = o.reps;
  timing.budget_ms = o.budget_ms;

  // cuBLAS is timed once per shape and shared by every rung in this run.
  std::map<std::tuple<int, int, int, int, int, int>, Timing> cublas_times;
  auto cublas_time = [&](const Problem& p) {
    const Shape& s = p.shape;
    const auto key = std::make_tuple(s.M, s.N, s.K, s.a_ld(), s.b_ld(), s.c_ld());
    auto it = cublas_times.find(key);
    if (it == cublas_times.end())
      it = cublas_times.emplace(key, harness.time(kCublasRung, p, timing)).first;
    return it->second;
  };

  std::vector<Measurement> all_rows, summary;
  bool all_pass = true;
  for (int rung : ladder) {
    const RungInfo* info = find_rung(rung);
    std::printf("\nrung %d: %s%s%s\n", rung, rung_name(rung).c_str(), info ? " - " : " - ",
                info ? info->summary : "the reference, cuBLAS SGEMM in true FP32");
    print_rung_header(std::cout);
    for (const Shape& shape : o.shapes) {
      Measurement m;
      m.rung = rung;
      m.name = rung_name(rung);
      m.problem = {shape, o.alpha, o.beta};
      if (rung != kCublasRung) check(harness, o, rung, m);
      if (m.pass) {  // a rung that fails is not timed: its speed would mean nothing
        m.cublas = cublas_time(m.problem);
        m.timing = rung == kCublasRung ? m.cublas : harness.time(rung, m.problem, timing);
        m.timed = true;
      }
      all_pass = all_pass && m.pass;
      print_rung_row(std::cout, m);
      all_rows.push_back(m);
    }
    summary.push_back(all_rows.back());
  }

  if (o.all) {
    Measurement reference = summary.back();  // cuBLAS at the same (last) problem
    reference.rung = kCublasRung;
    reference.name = "cublas";
    reference.checked = false;
    reference.pass = true;
    reference.timing = reference.cublas;
    reference.timed = true;
    summary.insert(summary.begin(), reference);
    std::printf("\nsummary at %s (%% of cuBLAS measured in this run)\n",
                summary.back().problem.shape.str().c_str());
    print_summary(std::cout, summary);
  }
  if (!o.json_path.empty()) {
    write_json(o.json_path, harness.gpu(), all_rows);
    std::printf("\nresults written to %s\n", o.json_path.c_str());
  }
  if (!all_pass) std::printf("\nFAILED: at least one check did not pass\n");
  return all_pass ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const ParseResult parsed = parse_args(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.ok()) {
    std::fprintf(stderr, "sgemm: %s\n", parsed.error.c_str());
    return 2;
  }
  const Options& o = parsed.options;
  if (o.help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  if (o.list) {
    std::printf("0\tcublas\tthe reference: cuBLAS SGEMM in true FP32\n");
    for (const RungInfo& r : rungs())
      std::printf("%d\t%s\t%s\t%s\n", r.number, r.name, kernel_file(r).c_str(), r.summary);
    return 0;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgemm: %s\n", e.what());
    return 1;
  }
}
