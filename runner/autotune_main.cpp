// sgemm_autotune: checks and times every tile configuration that scripts/autotune compiled
// in, against cuBLAS in the same process, and writes the results as JSON and CSV.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "autotune.h"
#include "report.h"

namespace sgemm::autotune {

std::vector<Candidate>& candidates() {
  static std::vector<Candidate> list;
  return list;
}

}  // namespace sgemm::autotune

namespace {

using namespace sgemm;

struct Result {
  const autotune::Candidate* candidate = nullptr;
  std::string check;  // "PASS" or the failure
  bool pass = false;
  Timing timing;
  double gflops = 0, percent = 0;
};

struct Args {
  int size = 4096, reps = 10, device = 0;
  std::string json = "autotune.json", csv = "autotune.csv";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--size")
      a.size = std::stoi(value);
    else if (flag == "--reps")
      a.reps = std::stoi(value);
    else if (flag == "--device")
      a.device = std::stoi(value);
    else if (flag == "--json")
      a.json = value;
    else if (flag == "--csv")
      a.csv = value;
    else
      throw Error("unknown option " + flag + " (options: --size --reps --device --json --csv)");
  }
  if (a.size < 1 || a.reps < 1) throw Error("--size and --reps must be >= 1");
  return a;
}

// A candidate must pass on an odd shape (edges, scalar path) and an aligned one (vector path).
std::string check(Harness& h, const autotune::Candidate& c) {
  const Problem odd{Shape{257, 131, 75, 0, 0, 0}, 1.f, 0.f};
  const Problem aligned{Shape{384, 512, 264, 0, 0, 0}, 2.f, -1.f};
  for (const Problem& p : {odd, aligned})
    for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
      const CheckReport r = h.check(c.kernel, p, mode, 7, "autotune");
      if (!r.pass()) return p.shape.str() + " " + r.summary();
    }
  return "PASS";
}

void write(const Args& a, const GpuInfo& gpu, const Timing& cublas, const std::vector<Result>& rs) {
  std::ofstream csv(a.csv);
  csv << "rung,params,check,median_ms,gflops,percent_of_cublas\n";
  for (const Result& r : rs)
    csv << r.candidate->rung << ",\"" << r.candidate->params << "\"," << (r.pass ? "PASS" : "FAIL")
        << "," << r.timing.median_ms << "," << r.gflops << "," << r.percent << "\n";
  std::ofstream json(a.json);
  json << "{\n  \"context\": {\"gpu\": \"" << gpu.name
       << "\", \"sm_clock_mhz\": " << gpu.sm_clock_current_mhz << ", \"driver\": \""
       << gpu.driver_version << "\", \"cuda_runtime\": \"" << gpu.cuda_runtime_version
       << "\", \"size\": " << a.size << ", \"cublas_median_ms\": " << cublas.median_ms
       << "},\n  \"results\": [";
  for (size_t i = 0; i < rs.size(); ++i) {
    const Result& r = rs[i];
    json << (i ? "," : "") << "\n    {\"rung\": " << r.candidate->rung << ", \"params\": \""
         << r.candidate->params << "\", \"pass\": " << (r.pass ? "true" : "false")
         << ", \"median_ms\": " << r.timing.median_ms << ", \"gflops\": " << r.gflops
         << ", \"percent_of_cublas\": " << r.percent << "}";
  }
  json << "\n  ]\n}\n";
}

int run(const Args& a) {
  Harness h(a.device);
  std::printf("GPU %d: %s\n", a.device, describe(h.gpu()).c_str());
  const Problem p{Shape{a.size, a.size, a.size, 0, 0, 0}, 1.f, 0.f};
  TimingOptions t;
  t.reps = a.reps;
  t.budget_ms = 1000;
  const Timing cublas = h.time(kCublasRung, p, t);
  std::printf("cuBLAS at %s: %.0f GFLOP/s\n", p.shape.str().c_str(), cublas.gflops(p));

  const auto& all = autotune::candidates();
  std::vector<Result> results;
  for (size_t i = 0; i < all.size(); ++i) {
    Result r;
    r.candidate = &all[i];
    r.check = check(h, all[i]);
    r.pass = r.check == "PASS";
    if (r.pass) {
      r.timing = h.time(all[i].kernel, p, t);
      r.gflops = r.timing.gflops(p);
      r.percent = 100.0 * cublas.median_ms / r.timing.median_ms;
    }
    std::printf("[%3zu/%zu] rung %d %-48s %s %8.0f GFLOP/s %6.1f%% of cuBLAS\n", i + 1, all.size(),
                all[i].rung, all[i].params.c_str(), r.pass ? "PASS" : r.check.c_str(), r.gflops,
                r.percent);
    std::fflush(stdout);
    results.push_back(r);
  }
  write(a, h.gpu(), cublas, results);

  std::vector<Result> ranked = results;
  std::sort(ranked.begin(), ranked.end(),
            [](const Result& x, const Result& y) { return x.gflops > y.gflops; });
  bool any_failed = false;
  for (const Result& r : results) any_failed = any_failed || !r.pass;
  std::printf("\nbest per rung at %s on %s:\n", p.shape.str().c_str(), h.gpu().name.c_str());
  std::vector<int> shown;
  for (const Result& r : ranked) {
    if (!r.pass || std::count(shown.begin(), shown.end(), r.candidate->rung)) continue;
    shown.push_back(r.candidate->rung);
    std::printf("  rung %d: %s  %.0f GFLOP/s, %.1f%% of cuBLAS\n", r.candidate->rung,
                r.candidate->params.c_str(), r.gflops, r.percent);
  }
  std::printf("results: %s, %s\n", a.json.c_str(), a.csv.c_str());
  return any_failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgemm_autotune: %s\n", e.what());
    return 1;
  }
}
