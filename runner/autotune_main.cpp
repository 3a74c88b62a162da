// sgemm_autotune: checks and times every tile configuration that scripts/autotune compiled
// in, each in turn with cuBLAS, and writes the results as JSON and CSV.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "autotune.h"
#include "measure.h"
#include "options.h"
#include "report.h"

namespace sgemm::autotune {

std::vector<Candidate>& candidates() {
  static std::vector<Candidate> list;
  return list;
}

}  // namespace sgemm::autotune

namespace {

using namespace sgemm;

struct Args {
  RunOptions run;
  std::string csv = "autotune.csv";
};

// A candidate must pass on an odd shape (edges, scalar path) and an aligned one (vector path).
void check_candidate(Harness& h, const autotune::Candidate& c, const RunOptions& r,
                     Measurement& m) {
  for (const Problem& p :
       {Problem{Shape{257, 131, 75}, 1.f, 0.f}, Problem{Shape{384, 512, 264}, 2.f, -1.f}}) {
    Measurement trial = m;
    trial.problem = p;
    check(h, c.kernel, r.checks, r.seed, "autotune", trial);
    m.checked = m.checked || trial.checked;
    m.pass = m.pass && trial.pass;
    m.check_text += (m.check_text.empty() ? "" : "; ") + p.shape.str() + " " + trial.check_text;
  }
}

void write_csv(const std::string& path, const std::vector<Measurement>& rows) {
  std::ofstream csv(path);
  csv << "rung,params,M,N,K,check,median_ms,cublas_median_ms,gflops,percent_of_cublas\n";
  for (const Measurement& m : rows) {
    const Shape& s = m.problem.shape;
    csv << m.rung << ",\"" << m.variant << "\"," << s.M << "," << s.N << "," << s.K << ","
        << (m.pass ? "PASS" : "FAIL") << "," << m.timing.median_ms << ","
        << m.reference_timing.median_ms << "," << m.gflops() << "," << m.percent_of_reference()
        << "\n";
  }
  if (!csv) throw Error("cannot write " + path);
}

int run(const Args& a) {
  const RunOptions& r = a.run;
  Harness h(r.device);
  std::printf("GPU %d: %s\n", r.device, describe(h.gpu()).c_str());
  const TimingOptions& t = r.timing;

  const auto& all = autotune::candidates();
  std::vector<Measurement> results;
  for (size_t i = 0; i < all.size(); ++i) {
    const autotune::Candidate& c = all[i];
    Measurement m;  // candidates of an experiment may carry a number no rung has
    m.rung = c.rung;
    m.name = find_runnable(c.rung) ? find_runnable(c.rung)->name : "candidate";
    m.variant = c.params;
    check_candidate(h, c, r, m);
    for (const Shape& shape : r.shapes) {
      Measurement timed = m;
      timed.problem = {shape, r.alpha, r.beta, {}, r.inputs};
      if (timed.pass) time(h, c.kernel, false, t, timed);  // in turn with cuBLAS
      std::printf("[%3zu/%zu] rung %d %-48s %s %s %8.0f GFLOP/s %6.1f%% of cuBLAS\n", i + 1,
                  all.size(), c.rung, c.params.c_str(), shape.str().c_str(),
                  timed.pass ? "PASS" : timed.check_text.c_str(), timed.gflops(),
                  timed.percent_of_reference());
      std::fflush(stdout);
      results.push_back(timed);
    }
  }
  write_json(r.json_path, h.gpu(), results);
  write_csv(a.csv, results);

  std::vector<Measurement> ranked = results;
  std::sort(ranked.begin(), ranked.end(),
            [](const Measurement& x, const Measurement& y) { return x.gflops() > y.gflops(); });
  bool any_failed = false;
  for (const Measurement& m : results) any_failed = any_failed || !m.pass;
  std::printf("\nbest per rung on %s:\n", h.gpu().name.c_str());
  std::vector<int> shown;
  for (const Measurement& m : ranked) {
    if (!m.pass || std::count(shown.begin(), shown.end(), m.rung)) continue;
    shown.push_back(m.rung);
    std::printf("  rung %d: %s at %s  %.0f GFLOP/s, %.1f%% of cuBLAS\n", m.rung, m.variant.c_str(),
                m.problem.shape.str().c_str(), m.gflops(), m.percent_of_reference());
  }
  std::printf("results: %s, %s\n", r.json_path.c_str(), a.csv.c_str());
  return any_failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  a.run.timing.block_ms = 100;  // many candidates: shorter blocks than a measurement's
  a.run.json_path = "autotune.json";
  CLI::App app("Checks and times the tile configurations scripts/autotune compiled in.",
               "sgemm_autotune");
  CommonOptions common(app, a.run);
  app.add_option("--csv", a.csv, "also write the results as CSV")->capture_default_str();
  app.callback([&] { common.finish(square_shapes({4096})); });
  bool is_help = false;
  int status = kExitUsage;  // or kExitRuntimeError: a --json file that cannot be written
  const std::string text =
      parse(app, std::vector<std::string>(argv + 1, argv + argc), &is_help, &status);
  if (!text.empty()) {
    std::fputs((is_help ? text : "sgemm_autotune: " + text + "\n").c_str(),
               is_help ? stdout : stderr);
    return is_help ? 0 : status;
  }
  try {
    return run(a);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgemm_autotune: %s\n", e.what());
    return 1;
  }
}
