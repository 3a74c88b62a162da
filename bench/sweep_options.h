// The bench's own flags and its default shapes. Parsing only, no CUDA: the flags are checked
// by CPU tests. The flags every program shares (--mnk, --sizes, --warmup, ...) come from
// runner/options.h, so they mean the same thing in every front door.
#pragma once

#include <string>
#include <vector>

#include "check.h"
#include "options.h"

namespace sgemm::bench {

// One problem of the default sweep and the family it belongs to ("square", "wide", ...).
struct NamedShape {
  const char* kind;
  int M, N, K;
};

// Square 128 .. 16384: powers of two and sizes that are not (edges, partial tiles).
const std::vector<NamedShape>& square_shapes();
// Wide, tall-skinny, small-K, large-K, skinny and unaligned problems.
const std::vector<NamedShape>& nonsquare_shapes();
// "512x16384x4096=wide,...": the kinds of the non-square problems, for the JSON's context
// (scripts/plot labels its bars with them).
std::string shape_kinds();

// A rung whose predicted time for one run is above this many seconds is skipped.
constexpr double kDefaultMaxSecondsPerRun = 2.0;

// Problems of this size cubed or smaller are never skipped for time, and a rung's speed
// measured on one this large (or larger) predicts its speed on larger ones: launch overhead no
// longer dominates. Without such a measurement, a short probe at this size gives one.
constexpr int kProbeSize = 1024;

struct SweepOptions {
  std::vector<int> rungs;     // 0 (cuBLAS) and rung numbers, ladder order
  std::vector<Shape> shapes;  // in sweep order, leading dimensions included
  RunOptions run;             // alpha, beta, timing, checks, seed, device, json
  double max_seconds_per_run = kDefaultMaxSecondsPerRun;  // 0: no limit
  std::string help;                                       // the --help text, when asked for
  std::vector<std::string> benchmark_out;                 // --json FILE as Google Benchmark's flags
};

struct SweepParseResult {
  SweepOptions options;
  std::string error;  // empty on success; otherwise one sentence naming the problem
  int status = 0;     // with an error, the exit status: kExitUsage, or kExitRuntimeError when
                      // the --json or --benchmark_out file cannot be written
  bool ok() const { return error.empty(); }
};

// Takes the bench's flags out of argv (argv[0] and --benchmark_* flags stay, in order, for
// benchmark::Initialize) and parses them. Never throws, never exits.
SweepParseResult parse_sweep_args(int* argc, char** argv);

// True when argv asks Google Benchmark only to list the benchmarks (no GPU needed).
bool lists_benchmarks_only(int argc, char** argv);

// "sgemm/cublas/4096x4096x4096", "sgemm/rung:05_blocktiling_2d/4096x4096x4096".
std::string benchmark_name(int rung, const Shape& shape);

}  // namespace sgemm::bench
