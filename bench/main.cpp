// `sgemm_bench`: the Google Benchmark sweep of every rung and cuBLAS over problem shapes.
// `sgemm_bench --help` lists the flags; docs/00_method.md says how it measures.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "device.h"
#include "harness.h"
#include "report.h"
#include "sweep.h"
#include "sweep_options.h"

namespace {

using namespace sgemm;
using namespace sgemm::bench;

std::string number(double v) {  // 2 rather than std::to_string's 2.000000
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

// The GPU and the method land in the JSON's "context", beside Google Benchmark's own facts.
void add_context(const GpuInfo& gpu, const SweepOptions& o) {
  benchmark::AddCustomContext("gpu", gpu.name);
  benchmark::AddCustomContext("gpu_description", describe(gpu));
  benchmark::AddCustomContext("sm_count", std::to_string(gpu.sm_count));
  benchmark::AddCustomContext("sm_clock_max_mhz", std::to_string(gpu.sm_clock_max_mhz));
  // Read once, when the sweep starts (0: unknown, no NVML). Clocks are never locked or set.
  benchmark::AddCustomContext("sm_clock_mhz_at_start", std::to_string(gpu.sm_clock_current_mhz));
  benchmark::AddCustomContext("driver_version", gpu.driver_version);
  benchmark::AddCustomContext("cuda_driver_version", gpu.cuda_driver_version);
  benchmark::AddCustomContext("cuda_runtime_version", gpu.cuda_runtime_version);
  const RunOptions& r = o.run;
  char timing[256];
  std::snprintf(timing, sizeof timing,
                "median of CUDA-event-timed runs in %d blocks per kernel, each kernel and its "
                "reference in turn, a block at least %g ms (at most %d runs, its first not "
                "counted), after %d warm-up runs; L2 flushed before each",
                r.timing.rounds, r.timing.block_ms, r.timing.reps, r.timing.warmup);
  benchmark::AddCustomContext("sgemm_timing", timing);
  benchmark::AddCustomContext("sgemm_alpha_beta", number(r.alpha) + ", " + number(r.beta));
  benchmark::AddCustomContext("sgemm_inputs", r.inputs.name());
  benchmark::AddCustomContext("sgemm_check_seed", std::to_string(r.seed));
  benchmark::AddCustomContext("sgemm_max_seconds_per_run", number(o.max_seconds_per_run));
  benchmark::AddCustomContext("sgemm_shape_kinds", shape_kinds());
  // Absent: row-major N, N. Each benchmark's name says it too ("4096x4096x4096/col/TN").
  if (!r.operation.is_rungs_own())
    benchmark::AddCustomContext("sgemm_operation", r.operation.str());
}

// Shape-major order: at each shape, cuBLAS first, then the ladder, so every rung's % of
// cuBLAS uses a cuBLAS time taken moments before, and the console reads as a ladder per size.
void register_benchmarks(const SweepOptions& o, Sweep* sweep) {
  for (const Shape& shape : o.shapes) {
    for (int rung : o.rungs) {
      const Runnable& runnable = require_runnable(rung);  // resolved once, here
      benchmark::RegisterBenchmark(benchmark_name(rung, shape).c_str(),
                                   [sweep, &runnable, shape](benchmark::State& state) {
                                     sweep->run(state, runnable, shape);
                                   })
          ->UseManualTime()
          ->Iterations(1)  // one harness call: it runs its own warm-up and repetitions
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const SweepParseResult parsed = parse_sweep_args(&argc, argv);
  if (!parsed.ok()) {
    std::fprintf(stderr, "sgemm_bench: %s\n", parsed.error.c_str());
    return parsed.status;  // 2 (bad usage), or 3 for an output file that cannot be written
  }
  const SweepOptions& options = parsed.options;
  if (!options.help.empty()) {
    std::fputs(options.help.c_str(), stdout);
    return kExitOk;
  }
  // argv now holds the program name and the --benchmark_* flags; --json adds two more.
  std::vector<char*> args(argv, argv + argc);
  std::vector<std::string> extra = options.benchmark_out;
  for (std::string& flag : extra) args.push_back(flag.data());
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  // Listing the benchmark names needs no GPU; running them does. (Asked before Initialize,
  // which takes the --benchmark_* flags out of argv.)
  const bool list_only = lists_benchmarks_only(count, args.data());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return kExitUsage;

  std::unique_ptr<Harness> harness;
  std::unique_ptr<Sweep> sweep;
  if (!list_only) {
    try {
      harness = std::make_unique<Harness>(options.run.device);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "sgemm_bench: %s\n", e.what());
      return kExitRuntimeError;
    }
    std::printf("GPU %d: %s\n", options.run.device, describe(harness->gpu()).c_str());
    add_context(harness->gpu(), options);
    sweep = std::make_unique<Sweep>(*harness, options);
  }
  register_benchmarks(options, sweep.get());
  // None selected: Google Benchmark has said why in one line (a --benchmark_filter that matches
  // no name, or one that is not a regular expression). Bad usage, not a success.
  const size_t selected = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (selected == 0) return kExitUsage;
  if (sweep && sweep->errors() > 0) {
    std::fprintf(stderr, "sgemm_bench: %d benchmark(s) failed validation or hit an error\n",
                 sweep->errors());
    return kExitCheckFailed;
  }
  return kExitOk;
}
