#include "report.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace sgemm {

namespace {

std::string format(const char* fmt, double v) {
  char text[64];
  std::snprintf(text, sizeof text, fmt, v);
  return text;
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) {
      out += format("\\u%04x", static_cast<unsigned char>(ch));
      continue;
    }
    out += ch;
  }
  return out;
}

std::string json_number(double v) { return std::isfinite(v) ? format("%.6g", v) : "null"; }

std::string label(const Measurement& m) {
  return m.rung == kCublasRung ? "0 cublas" : std::to_string(m.rung) + " " + m.name;
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

constexpr const char* kRungRow = "%-30s %10s %10s %9s %10s  %s\n";

void print_rung_header(std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line, kRungRow, "size (MxNxK)", "GFLOP/s", "cuBLAS", "% cuBLAS",
                "max err", "check");
  out << line;
}

void print_rung_row(std::ostream& out, const Measurement& m) {
  const std::string gf = m.timed ? format("%.0f", m.gflops()) : "-";
  const std::string cb = m.timed ? format("%.0f", m.cublas_gflops()) : "-";
  const std::string pct = m.timed ? format("%.1f%%", m.percent_of_cublas()) : "-";
  const std::string err = m.checked ? format("%.2e", m.max_abs_error) : "-";
  char line[512];
  std::snprintf(line, sizeof line, kRungRow, m.problem.shape.str().c_str(), gf.c_str(), cb.c_str(),
                pct.c_str(), err.c_str(), m.checked ? m.check_text.c_str() : "not checked");
  out << line << std::flush;
}

void print_summary(std::ostream& out, const std::vector<Measurement>& rows) {
  char line[256];
  std::snprintf(line, sizeof line, "%-20s %-26s %10s %9s  %s\n", "rung", "size", "GFLOP/s",
                "% cuBLAS", "checks");
  out << line;
  for (const Measurement& m : rows) {
    const std::string gf = m.timed ? format("%.0f", m.gflops()) : "-";
    const std::string pct = m.timed ? format("%.1f%%", m.percent_of_cublas()) : "-";
    std::snprintf(line, sizeof line, "%-20s %-26s %10s %9s  %s\n", label(m).c_str(),
                  m.problem.shape.str().c_str(), gf.c_str(), pct.c_str(),
                  !m.checked ? "-"
                  : m.pass   ? "PASS"
                             : "FAIL");
    out << line;
  }
}

void write_json(const std::string& path, const GpuInfo& gpu, const std::vector<Measurement>& rows) {
  std::ofstream out(path);
  if (!out) throw Error("cannot write " + path);
  out << "{\n  \"context\": {\n"
      << "    \"gpu\": \"" << json_escape(gpu.name) << "\",\n"
      << "    \"sm_count\": " << gpu.sm_count << ",\n"
      << "    \"sm_clock_mhz\": " << gpu.sm_clock_current_mhz << ",\n"
      << "    \"sm_clock_max_mhz\": " << gpu.sm_clock_max_mhz << ",\n"
      << "    \"driver\": \"" << json_escape(gpu.driver_version) << "\",\n"
      << "    \"cuda_driver\": \"" << gpu.cuda_driver_version << "\",\n"
      << "    \"cuda_runtime\": \"" << gpu.cuda_runtime_version << "\"\n  },\n"
      << "  \"results\": [";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Measurement& m = rows[i];
    const Shape& s = m.problem.shape;
    out << (i ? "," : "") << "\n    {\"rung\": " << m.rung << ", \"name\": \"" << m.name
        << "\", \"M\": " << s.M << ", \"N\": " << s.N << ", \"K\": " << s.K
        << ", \"lda\": " << s.a_ld() << ", \"ldb\": " << s.b_ld() << ", \"ldc\": " << s.c_ld()
        << ", \"alpha\": " << json_number(m.problem.alpha)
        << ", \"beta\": " << json_number(m.problem.beta)
        << ", \"checked\": " << (m.checked ? "true" : "false")
        << ", \"pass\": " << (m.pass ? "true" : "false") << ", \"check\": \""
        << json_escape(m.check_text) << "\", \"max_abs_error\": " << json_number(m.max_abs_error);
    if (m.timed)
      out << ", \"median_ms\": " << json_number(m.timing.median_ms)
          << ", \"reps\": " << m.timing.reps << ", \"gflops\": " << json_number(m.gflops())
          << ", \"cublas_median_ms\": " << json_number(m.cublas.median_ms)
          << ", \"cublas_gflops\": " << json_number(m.cublas_gflops())
          << ", \"percent_of_cublas\": " << json_number(m.percent_of_cublas());
    out << "}";
  }
  out << "\n  ]\n}\n";
  if (!out) throw Error("failed writing " + path);
}

}  // namespace sgemm
