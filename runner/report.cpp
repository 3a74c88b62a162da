#include "report.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace sgemm {

namespace {

std::string format(const char* fmt, double v) {
  char text[64];
  std::snprintf(text, sizeof text, fmt, v);
  return text;
}

std::string label(const Measurement& m) { return std::to_string(m.rung) + " " + m.name; }

// A finite number, or null: JSON has no Inf or NaN.
nlohmann::ordered_json number(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
}

nlohmann::ordered_json timing_json(const Timing& t) {
  return {{"median_ms", number(t.median_ms)},
          {"min_ms", number(t.min_ms)},
          {"max_ms", number(t.max_ms)},
          {"reps", t.reps}};
}

}  // namespace

std::string describe(const GpuInfo& gpu) {
  std::ostringstream out;
  out << gpu.name << " | " << gpu.sm_count << " SMs | SM clock ";
  if (gpu.sm_clock_current_mhz) out << gpu.sm_clock_current_mhz << " MHz now, ";
  out << gpu.sm_clock_max_mhz << " MHz max | driver " << gpu.driver_version << " (CUDA "
      << gpu.cuda_driver_version << ") | runtime CUDA " << gpu.cuda_runtime_version;
  return out.str();
}

constexpr const char* kRungRow = "%-30s %10s %12s %9s %10s  %s\n";

void print_rung_header(std::ostream& out, const std::string& reference) {
  char line[256];
  std::snprintf(line, sizeof line, kRungRow, "size (MxNxK)", "GFLOP/s", reference.c_str(),
                "% of ref", "max err", "check");
  out << line;
}

namespace {

std::string error_pair(const Accuracy& a) {
  return format("%.2e", a.rel_frobenius) + " / " + format("%.3g", a.max_componentwise);
}

void print_accuracy(std::ostream& out, const Measurement& m) {
  if (m.accuracy.empty()) return;
  constexpr const char* kRow = "    %-12s %-22s %-22s %-22s\n";
  char line[256];
  out << "    error vs FP64 (relative Frobenius / largest componentwise error, in units of\n"
         "    u sum_k |a_ik||b_kj|, u = 2^-24; FP32's bound is about K):\n";
  std::snprintf(line, sizeof line, kRow, "inputs", m.name.c_str(), "cublas", "cublas_tf32");
  out << line;
  for (const AccuracyRow& a : m.accuracy) {
    std::snprintf(line, sizeof line, kRow, a.inputs.name().c_str(), error_pair(a.measured).c_str(),
                  error_pair(a.cublas).c_str(), error_pair(a.cublas_tf32).c_str());
    out << line;
  }
}

}  // namespace

void print_rung_row(std::ostream& out, const Measurement& m) {
  const std::string gf = m.timed ? format("%.0f", m.gflops()) : "-";
  const std::string cb = m.timed ? format("%.0f", m.reference_gflops()) : "-";
  const std::string pct = m.timed ? format("%.1f%%", m.percent_of_reference()) : "-";
  const std::string err = m.checked ? format("%.2e", m.max_abs_error) : "-";
  char line[512];
  std::snprintf(line, sizeof line, kRungRow, m.problem.shape.str().c_str(), gf.c_str(), cb.c_str(),
                pct.c_str(), err.c_str(), m.check_text.c_str());
  out << line;
  print_accuracy(out, m);
  out << std::flush;
}

void print_summary(std::ostream& out, const std::vector<Measurement>& rows) {
  constexpr const char* kRow = "%-20s %-26s %10s %-12s %10s %9s  %s\n";
  char line[256];
  std::snprintf(line, sizeof line, kRow, "rung", "size", "GFLOP/s", "reference", "ref GFLOP/s",
                "% of ref", "checks");
  out << line;
  for (const Measurement& m : rows) {
    const std::string gf = m.timed ? format("%.0f", m.gflops()) : "-";
    const std::string cb = m.timed ? format("%.0f", m.reference_gflops()) : "-";
    const std::string pct = m.timed ? format("%.1f%%", m.percent_of_reference()) : "-";
    std::snprintf(line, sizeof line, kRow, label(m).c_str(), m.problem.shape.str().c_str(),
                  gf.c_str(), m.reference.c_str(), cb.c_str(), pct.c_str(),
                  m.unsupported ? "unsupported GPU"
                  : !m.pass     ? "FAIL"
                  : m.checked   ? "PASS"
                                : "-");
    out << line;
  }
}

nlohmann::ordered_json to_json(const GpuInfo& gpu) {
  return {{"gpu", gpu.name},
          {"sm_count", gpu.sm_count},
          {"sm_clock_mhz", gpu.sm_clock_current_mhz},
          {"sm_clock_max_mhz", gpu.sm_clock_max_mhz},
          {"memory_bandwidth_gbs", std::round(gpu.memory_bandwidth_gbs)},
          {"driver", gpu.driver_version},
          {"cuda_driver", gpu.cuda_driver_version},
          {"cuda_runtime", gpu.cuda_runtime_version}};
}

nlohmann::ordered_json to_json(const Measurement& m) {
  const Shape& s = m.problem.shape;
  nlohmann::ordered_json row = {{"rung", m.rung},
                                {"name", m.name},
                                {"precision", to_string(m.precision)},
                                {"reference", m.reference},
                                {"M", s.M},
                                {"N", s.N},
                                {"K", s.K},
                                {"lda", s.a_ld()},
                                {"ldb", s.b_ld()},
                                {"ldc", s.c_ld()},
                                {"alpha", number(m.problem.alpha)},
                                {"beta", number(m.problem.beta)},
                                {"inputs", m.problem.inputs.name()},
                                {"unsupported_gpu", m.unsupported},
                                {"checked", m.checked},
                                // Never true for what was not checked: null, or false when a check
                                // that was asked for could not run.
                                {"pass", !m.pass     ? nlohmann::ordered_json(false)
                                         : m.checked ? nlohmann::ordered_json(true)
                                                     : nlohmann::ordered_json()},
                                {"check", m.check_text},
                                {"max_abs_error", number(m.max_abs_error)}};
  if (!m.variant.empty()) row["variant"] = m.variant;
  if (!s.op.is_rungs_own()) {  // absent: row-major N, N, the rungs' own problem
    row["layout"] = to_string(s.op.layout);
    row["ops"] = std::string(to_string(s.op.a)) + to_string(s.op.b);
  }
  if (m.timed) {
    row["median_ms"] = number(m.timing.median_ms);
    row["reps"] = m.timing.reps;
    row["timing"] = timing_json(m.timing);
    row["gflops"] = number(m.gflops());
    // Of the runnable named by "reference", timed in turn with this one.
    row["reference_median_ms"] = number(m.reference_timing.median_ms);
    row["reference_timing"] = timing_json(m.reference_timing);
    row["reference_gflops"] = number(m.reference_gflops());
    row["percent_of_reference"] = number(m.percent_of_reference());
  }
  if (!m.accuracy.empty()) {
    auto error = [](const Accuracy& a) {
      return nlohmann::ordered_json{{"rel_frobenius", number(a.rel_frobenius)},
                                    {"max_rel", number(a.max_rel)},
                                    {"max_componentwise_u", number(a.max_componentwise)}};
    };
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const AccuracyRow& a : m.accuracy)
      rows.push_back({{"inputs", a.inputs.name()},
                      {"measured", error(a.measured)},
                      {"cublas", error(a.cublas)},
                      {"cublas_tf32", error(a.cublas_tf32)}});
    row["error_vs_fp64"] = rows;
  }
  return row;
}

void write_json(const std::string& path, const GpuInfo& gpu, const std::vector<Measurement>& rows,
                const nlohmann::ordered_json& settings) {
  nlohmann::ordered_json doc = {{"context", to_json(gpu)},
                                {"results", nlohmann::ordered_json::array()}};
  for (auto& [key, value] : settings.items()) doc["context"][key] = value;
  for (const Measurement& m : rows) doc["results"].push_back(to_json(m));
  std::ofstream out(path);
  if (!out) throw Error("cannot write " + path);
  out << doc.dump(2) << "\n";
  if (!out) throw Error("failed writing " + path);
}

}  // namespace sgemm
