#include "sweep_options.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "harness.h"
#include "sgemm/sgemm.h"

namespace sgemm::bench {

const std::vector<NamedShape>& square_shapes() {
  static const std::vector<NamedShape> shapes = [] {
    std::vector<NamedShape> out;
    for (int n : {128, 256, 512, 1000, 1024, 2048, 3000, 4096, 4097, 6000, 8192, 16384})
      out.push_back({"square", n, n, n});
    return out;
  }();
  return shapes;
}

const std::vector<NamedShape>& nonsquare_shapes() {
  static const std::vector<NamedShape> shapes = {
      {"wide", 512, 16384, 4096},         // few rows of C: few tiles along M
      {"tall-skinny", 16384, 512, 4096},  // few columns of C: few tiles along N
      {"small-K", 8192, 8192, 128},       // a rank-128 update: little reuse per element of C
      {"large-K", 1024, 1024, 65536},     // few tiles of C, a long loop over K each
      {"skinny-N", 4096, 256, 4096},      // 32 tiles of 128 x 256: a quarter of 132 SMs
      {"skinny-M", 256, 4096, 4096},      // the same, turned
      {"unaligned", 4095, 4097, 4093},    // no leading dimension a multiple of 16 bytes
  };
  return shapes;
}

std::string shape_kinds() {
  std::string kinds;
  for (const NamedShape& s : nonsquare_shapes())
    kinds += (kinds.empty() ? "" : ",") + std::to_string(s.M) + "x" + std::to_string(s.N) + "x" +
             std::to_string(s.K) + "=" + s.kind;
  return kinds;
}

namespace {

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

bool is_benchmark_flag(const std::string& arg) { return starts_with(arg, "--benchmark_"); }

// Everything in argv[1..] that is not a --benchmark_* flag; argv keeps the rest, in order.
std::vector<std::string> take_sweep_args(int* argc, char** argv) {
  std::vector<std::string> ours;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    if (is_benchmark_flag(argv[i]))
      argv[kept++] = argv[i];
    else
      ours.push_back(argv[i]);
  }
  *argc = kept;
  argv[kept] = nullptr;
  return ours;
}

std::vector<Shape> default_shapes(const std::string& set) {
  std::vector<Shape> shapes;
  for (const auto* named : {&square_shapes(), &nonsquare_shapes()}) {
    const bool square = named == &square_shapes();
    if (set == (square ? "nonsquare" : "square")) continue;
    for (const NamedShape& s : *named) shapes.push_back(Shape{s.M, s.N, s.K});
  }
  return shapes;
}

// One line per shape, the kinds in a column of their own.
std::string shapes_text() {
  size_t width = 0;
  for (const auto* set : {&square_shapes(), &nonsquare_shapes()})
    for (const NamedShape& s : *set) width = std::max(width, std::strlen(s.kind));
  std::string text;
  for (const auto* set : {&square_shapes(), &nonsquare_shapes()})
    for (const NamedShape& s : *set)
      text += "  " + std::string(s.kind) + std::string(width - std::strlen(s.kind) + 2, ' ') +
              std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K) + "\n";
  return text;
}

}  // namespace

SweepParseResult parse_sweep_args(int* argc, char** argv) {
  SweepParseResult result;
  SweepOptions& o = result.options;
  o.run.checks = ChecksToRun::exact;  // cheap, and it catches any dropped term at every K
  CLI::App app(
      "Google Benchmark sweep of every rung and cuBLAS over problem shapes. Each (rung, shape)\n"
      "is validated against cuBLAS before it is timed; a failure is reported as an error and\n"
      "not timed. Time is the median of CUDA-event-timed runs, each rung timed in turn with\n"
      "cuBLAS (docs/00_method.md). Google Benchmark's own flags (--benchmark_filter=REGEX,\n"
      "--benchmark_out=FILE --benchmark_out_format=json, --benchmark_list_tests,\n"
      "--benchmark_repetitions=N) pass through.",
      "sgemm_bench");
  app.footer("shapes (MxNxK):\n" + shapes_text() + "\nrungs:\n" + runnables_help() + "\n" +
             exit_status_help("a benchmark failed its check or hit a CUDA error (the others run)",
                              "no usable GPU, a CUDA error before the sweep started, or the "
                              "--json (--benchmark_out) file cannot be written (found before "
                              "any GPU work)"));
  app.set_help_flag("-h,--help", "this text, with the shapes and rungs");
  bool list = false;
  app.add_flag("--list", list, "the same as --help");
  std::string rungs_text = "all", shape_set;
  app.add_option("--rungs", rungs_text, "rungs to run, e.g. 0,4,5 (0 is cuBLAS)")
      ->type_name("LIST")
      ->capture_default_str();
  app.add_option("--shapes", shape_set, "square, nonsquare or all (default all)")
      ->type_name("SET")
      ->check(CLI::IsMember({"square", "nonsquare", "all"}));
  const std::string probe = std::to_string(kProbeSize) + "^3";
  app.add_option("--max-seconds-per-run", o.max_seconds_per_run,
                 "skip a (rung, shape) whose predicted time for one run exceeds S seconds (the\n"
                 "shape's FLOPs over the rung's GFLOP/s on its largest problem timed so far, at\n"
                 "least " +
                     probe + ", or a 2-run probe at " + probe + "); 0: no limit")
      ->type_name("S")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (text.empty() || *end != '\0' || !(v >= 0) || std::isinf(v))
              return "'" + text + "' is not a number of seconds, 0 or more (0: no limit)";
            return "";
          },
          ""))
      ->capture_default_str();
  CommonOptions common(app, o.run);
  app.callback([&] {
    if (list) throw CLI::CallForHelp();
    if (common.shapes_given() && !shape_set.empty())
      throw CLI::ValidationError("--shapes", "give either --shapes or --mnk/--sizes, not both");
    if (rungs_text.empty()) throw CLI::ValidationError("--rungs", "needs a list, e.g. 0,5 or all");
    for (const std::string& part : split(rungs_text, ',')) {
      if (part == "all") {
        for (const Runnable& r : runnables()) o.rungs.push_back(r.number);
        continue;
      }
      const Runnable* found = find_runnable(part);
      if (!found)
        throw CLI::ValidationError("--rungs", "unknown rung '" + part + "': rungs are 1 to " +
                                                  std::to_string(runnables().back().number) +
                                                  " or their names, cublas (0), cublas_tf32 (-1)");
      o.rungs.push_back(found->number);
    }
    // Ladder order, references first: each shape's cuBLAS benchmark comes before its rungs.
    std::sort(o.rungs.begin(), o.rungs.end());
    o.rungs.erase(std::unique(o.rungs.begin(), o.rungs.end()), o.rungs.end());
    common.finish(default_shapes(shape_set));  // last: it checks the --json file
    o.shapes = o.run.shapes;
  });
  bool is_help = false;
  const std::string text = parse(app, take_sweep_args(argc, argv), &is_help, &result.status);
  (is_help ? o.help : result.error) = text;
  // Google Benchmark exits with 1, which means a failed benchmark here, when it cannot open
  // --benchmark_out: a file that cannot be written is a runtime error (as --json), found now,
  // before any GPU work.
  for (int i = 1; result.ok() && !is_help && i < *argc; ++i) {
    const std::string arg = argv[i];
    if (starts_with(arg, "--benchmark_out=")) {
      const std::string why = writable_error(arg.substr(arg.find('=') + 1));
      if (!why.empty()) {
        result.error = "--benchmark_out: " + why;
        result.status = kExitRuntimeError;
      }
    }
  }
  if (result.ok()) result.status = kExitOk;
  // The bench's JSON is Google Benchmark's: --json FILE asks it for exactly that.
  if (result.ok() && !o.run.json_path.empty()) {
    o.benchmark_out = {"--benchmark_out=" + o.run.json_path, "--benchmark_out_format=json"};
  }
  return result;
}

bool lists_benchmarks_only(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--benchmark_list_tests") return true;
    if (starts_with(arg, "--benchmark_list_tests=")) {
      const std::string value = arg.substr(arg.find('=') + 1);
      return value != "false" && value != "0" && value != "no";
    }
  }
  return false;
}

std::string benchmark_name(int rung, const Shape& shape) {
  std::string size = shape.str();  // "MxNxK", then " lda=.. ldb=.. ldc=.." when padded
  std::replace(size.begin(), size.end(), ' ', '/');
  // "rung:05_blocktiling_2d": the kernel file's name, so a filter reads like `ls kernels/`.
  return "sgemm/" + find_runnable(rung)->id() + "/" + size;
}

}  // namespace sgemm::bench
