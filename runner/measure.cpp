#include "measure.h"

#include <algorithm>

namespace sgemm {

Measurement start_measurement(const Runnable& runnable, const Problem& problem) {
  Measurement m;
  m.rung = runnable.number;
  m.name = runnable.name;
  m.problem = problem;
  return m;
}

void check(Harness& harness, const Kernel& kernel, ChecksToRun requested, uint64_t seed,
           const std::string& label, Measurement& m) {
  const Problem& p = m.problem;
  const CheckPlan plan = plan_checks(requested, p.alpha, p.beta, p.shape.K);
  auto add_text = [&](const std::string& text) {
    m.check_text += (m.check_text.empty() ? "" : ", ") + text;
  };
  if (!plan.error.empty()) {
    m.pass = false;
    return add_text(plan.error);
  }
  if (plan.modes.empty()) add_text("not checked (--check none)");
  for (CheckMode mode : plan.modes) {
    const CheckReport report = harness.check(kernel, p, mode, seed, label);
    m.checked = true;
    m.pass = m.pass && report.pass();
    m.max_abs_error = std::max(m.max_abs_error, report.comparison.max_abs_error);
    add_text(report.pass() ? std::string(to_string(mode)) + " PASS" : report.summary());
    m.mismatches.insert(m.mismatches.end(), report.comparison.first.begin(),
                        report.comparison.first.end());
  }
  if (!plan.note.empty()) add_text(plan.note);
}

void time(Harness& harness, const Kernel& kernel, bool reference, const TimingOptions& options,
          Measurement& m) {
  if (reference) {
    m.timing = m.cublas = harness.time(kernel, m.problem, options);
  } else {
    const Race race = harness.time_against_cublas(kernel, m.problem, options);
    m.timing = race.kernel;
    m.cublas = race.cublas;
  }
  m.timed = true;
}

}  // namespace sgemm
