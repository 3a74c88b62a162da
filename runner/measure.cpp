#include "measure.h"

#include <algorithm>

namespace sgemm {

Measurement start_measurement(const Runnable& runnable, const Problem& problem) {
  Measurement m;
  m.rung = runnable.number;
  m.name = runnable.name;
  m.precision = runnable.precision;
  m.reference = runnable.reference ? runnable.name : reference_for(runnable.precision).name;
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
    const CheckReport report = harness.check(kernel, p, mode, seed, label, m.precision);
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
    m.timing = m.reference_timing = harness.time(kernel, m.problem, options);
  } else {
    const Race race = harness.time_against_reference(kernel, m.precision, m.problem, options);
    m.timing = race.kernel;
    m.reference_timing = race.reference;
  }
  m.timed = true;
}

void measure_accuracy(Harness& harness, const Kernel& kernel, uint64_t seed, Measurement& m) {
  const std::vector<Kernel> kernels = {kernel, harness.kernel(kCublasRung),
                                       harness.kernel(kCublasTf32Rung)};
  for (const Inputs& inputs : accuracy_inputs()) {
    Problem p = m.problem;
    p.inputs = inputs;
    const std::vector<Accuracy> e = harness.accuracy(kernels, p, seed);
    m.accuracy.push_back({inputs, e[0], e[1], e[2]});
  }
}

}  // namespace sgemm
