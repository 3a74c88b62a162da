// sgemm_best_rates: the measurements behind rung 18's tables (kernels/best/table_*.inc). For
// each shape given, cuBLAS SGEMM and every candidate rung are timed in turn on the same
// full-precision uniform inputs (docs/00_method.md, "Timing"), after each candidate has passed
// the FP32 checks on an odd shape. scripts/autotune --best runs it on the table's grid and the
// bench's suite and writes the table from its JSON; that is the one line to run:
//
//   scripts/autotune --best                    # measure, then write the table and the JSON
//
// With --predict it runs nothing on a GPU: it prints, per shape, each candidate's predicted
// time from a table compiled in (--gpu's, by name, else the first), and the one rung 18 would
// choose there (docs/18_best.md).
#include <cstdio>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

#include "best/best_choice.h"
#include "measure.h"
#include "options.h"
#include "report.h"

namespace {

using namespace sgemm;

// The candidates of the first table compiled in, unless --candidates names others.
std::vector<std::string> table_candidates() { return best::tables().front().candidates; }

int predict(const std::vector<Shape>& shapes, const std::string& gpu) {
  best::GpuProfile profile;
  profile.name = gpu;
  const best::Table& t = best::tables()[best::table_for(best::tables(), profile)];
  std::printf("M,N,K,chosen");
  for (const std::string& c : t.candidates) std::printf(",%s_us", c.c_str());
  std::printf("\n");
  for (const Shape& s : shapes) {
    const std::vector<double> micros = best::predict_micros(t, s.M, s.N, s.K);
    std::printf("%d,%d,%d,%s", s.M, s.N, s.K, t.candidates[best::choose(t, s.M, s.N, s.K)].c_str());
    for (double us : micros) std::printf(",%.3f", us);
    std::printf("\n");
  }
  return kExitOk;
}

int measure(const RunOptions& r, const std::vector<std::string>& names) {
  Harness h(r.device);
  std::fprintf(stderr, "GPU %d: %s\n", r.device, describe(h.gpu()).c_str());
  std::vector<const Runnable*> runnables = {&require_runnable(kCublasRung)};
  for (const std::string& name : names) {
    const Runnable* found = find_runnable(name);
    if (found == nullptr || found->reference || found->precision != Precision::fp32)
      throw Error("'" + name + "' is not an fp32 rung of kernels/ladder.inc");
    runnables.push_back(found);
  }
  std::vector<Kernel> kernels;
  for (const Runnable* x : runnables) kernels.push_back(h.kernel(*x));

  // Each candidate on an odd shape first: the timings are of rungs that compute C.
  bool pass = true;
  for (size_t i = 1; i < runnables.size(); ++i) {
    Measurement m = start_measurement(*runnables[i], {Shape{257, 131, 75}, 2.f, -1.f});
    check(h, kernels[i], r.checks, r.seed, "best_rates", m);
    std::fprintf(stderr, "check %s %s: %s\n", runnables[i]->name.c_str(), m.problem.str().c_str(),
                 m.check_text.c_str());
    pass = pass && m.pass;
  }

  std::vector<Measurement> rows;
  for (const Shape& shape : r.shapes) {
    const Problem p{shape, r.alpha, r.beta, {}, r.inputs};
    h.require_memory(p, false);
    const std::vector<Timing> t = h.time_in_turn(kernels, p, r.timing);
    for (size_t i = 0; i < runnables.size(); ++i) {
      Measurement m = start_measurement(*runnables[i], p);
      m.timed = true;
      m.timing = t[i];
      m.reference_timing = t[0];  // cuBLAS, timed in turn with every candidate
      rows.push_back(m);
      std::fprintf(stderr, "%-16s %-20s %9.4f ms %9.0f GFLOP/s %6.1f%% of cuBLAS\n",
                   shape.str().c_str(), runnables[i]->name.c_str(), t[i].median_ms, m.gflops(),
                   m.percent_of_reference());
    }
  }
  std::ostringstream timing;
  timing << "median of CUDA-event-timed runs in " << r.timing.rounds
         << " blocks per kernel, cuBLAS and every candidate in turn, a block at least "
         << r.timing.block_ms << " ms (at most " << r.timing.reps << " runs), after "
         << r.timing.warmup << " warm-up runs; L2 flushed before each";
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  write_json(
      r.json_path, h.gpu(), rows,
      {{"sgemm_date", date}, {"sgemm_timing", timing.str()}, {"sgemm_inputs", r.inputs.name()}});
  std::fprintf(stderr, "results: %s\n", r.json_path.c_str());
  return pass ? kExitOk : kExitCheckFailed;
}

}  // namespace

int main(int argc, char** argv) {
  RunOptions r;
  r.json_path = "best_rates.json";
  std::vector<std::string> names = table_candidates();
  bool predict_only = false;
  std::string gpu;
  CLI::App app(
      "Times cuBLAS SGEMM and rung 18's candidates in turn on each shape, for its table\n"
      "(scripts/autotune --best writes kernels/best/table_<gpu>.inc from the JSON); with\n"
      "--predict, prints the table's predictions instead and needs no GPU.",
      "sgemm_best_rates");
  CommonOptions common(app, r);
  app.add_option("--candidates", names, "rung names to time (default: the table's columns)")
      ->delimiter(',')
      ->capture_default_str();
  CLI::Option* predicting =
      app.add_flag("--predict", predict_only,
                   "print each candidate's predicted time and the choice, as CSV; time nothing");
  std::vector<std::string> measured;  // the GPUs of the tables compiled in
  for (const best::Table& t : best::tables()) measured.push_back(t.gpu.name);
  app.add_option("--gpu", gpu,
                 "with --predict: the table measured on this GPU (default: the first)")
      ->check(CLI::IsMember(measured))
      ->needs(predicting);
  app.footer(exit_status_help("a candidate failed its check",
                              "no usable GPU, a CUDA error, or the --json file cannot be written"));
  app.callback([&] { common.finish(square_shapes({4096})); });
  bool is_help = false;
  int status = kExitUsage;
  const std::string text =
      parse(app, std::vector<std::string>(argv + 1, argv + argc), &is_help, &status);
  if (!text.empty()) {
    std::fputs((is_help ? text : "sgemm_best_rates: " + text + "\n").c_str(),
               is_help ? stdout : stderr);
    return is_help ? kExitOk : status;
  }
  try {
    return predict_only ? predict(r.shapes, gpu) : measure(r, names);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgemm_best_rates: %s\n", e.what());
    return kExitRuntimeError;
  }
}
