#include "sweep_options.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "harness.h"
#include "sgemm.h"

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

std::string mnk_arg(const NamedShape& s) {
  return std::to_string(s.M) + "," + std::to_string(s.N) + "," + std::to_string(s.K);
}

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

}  // namespace

SweepParseResult parse_sweep_args(int* argc, char** argv) {
  SweepParseResult result;
  SweepOptions& o = result.options;
  auto fail = [&](std::string why) {
    result.error = std::move(why);
    return result;
  };
  // The bench validates with exact checks by default: cheap, and they catch any dropped term.
  std::vector<std::string> rung_args, cli_args = {"--check", "exact"};
  std::string shape_set;
  bool explicit_shapes = false;

  const std::vector<std::string> ours = take_sweep_args(argc, argv);
  for (size_t i = 0; i < ours.size(); ++i) {
    const std::string& arg = ours[i];
    if (arg == "--help" || arg == "-h" || arg == "--list") {  // the help lists the rungs
      o.help = true;
      continue;
    }
    if (!starts_with(arg, "--"))
      return fail("unexpected argument '" + arg + "' (choose rungs with --rungs=0,5; see --help)");
    // Every flag takes a value, as `--flag=value` or `--flag value`.
    std::string flag = arg, value;
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    } else if (i + 1 < ours.size()) {
      value = ours[++i];
    } else {
      return fail(arg + " needs a value (see --help)");
    }
    if (flag == "--rungs") {
      if (value.empty()) return fail("--rungs needs a list, e.g. --rungs=0,5 or --rungs=all");
      rung_args = split(value, ',');
    } else if (flag == "--shapes") {
      if (value != "square" && value != "nonsquare" && value != "all")
        return fail("--shapes takes square, nonsquare or all, not '" + value + "'");
      shape_set = value;
    } else if (flag == "--max-seconds-per-run") {
      errno = 0;
      char* end = nullptr;
      o.max_seconds_per_run = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || errno == ERANGE ||
          !std::isfinite(o.max_seconds_per_run) || o.max_seconds_per_run < 0)
        return fail("--max-seconds-per-run takes seconds >= 0 (0: no limit), not '" + value + "'");
    } else if (flag == "--json") {
      return fail("the bench writes JSON with --benchmark_out=FILE --benchmark_out_format=json");
    } else if (flag == "--mnk") {
      // "M,N,K;M,N,K" and the "MxNxK" of benchmark names both work.
      for (std::string mnk : split(value, ';')) {
        std::replace(mnk.begin(), mnk.end(), 'x', ',');
        cli_args.insert(cli_args.end(), {"--mnk", mnk});
      }
      explicit_shapes = true;
    } else {
      // The flags the `sgemm` CLI has too; its parser checks them and names bad values.
      explicit_shapes = explicit_shapes || flag == "--sizes";
      cli_args.insert(cli_args.end(), {flag, value});
    }
  }
  if (o.help) return result;
  if (explicit_shapes && !shape_set.empty())
    return fail("give either --shapes or --mnk/--sizes, not both");
  if (!explicit_shapes) {
    for (const auto* set : {&square_shapes(), &nonsquare_shapes()}) {
      const bool square = set == &square_shapes();
      if (shape_set == (square ? "nonsquare" : "square")) continue;
      for (const NamedShape& s : *set) cli_args.insert(cli_args.end(), {"--mnk", mnk_arg(s)});
    }
  }

  if (rung_args.empty()) rung_args = {"all"};
  rung_args.insert(rung_args.end(), cli_args.begin(), cli_args.end());
  const ParseResult parsed = parse_args(rung_args);
  if (!parsed.ok()) return fail(parsed.error);
  o.run = parsed.options;
  o.shapes = o.run.shapes;
  if (o.run.all) {  // every rung of the kernel list, and cuBLAS
    o.rungs = {kCublasRung};
    for (const RungInfo& r : rungs()) o.rungs.push_back(r.number);
  } else {  // ladder order, cuBLAS first: each rung then finds the cuBLAS time of its shape
    o.rungs = o.run.rungs;
    std::sort(o.rungs.begin(), o.rungs.end());
    o.rungs.erase(std::unique(o.rungs.begin(), o.rungs.end()), o.rungs.end());
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
  if (rung == kCublasRung) return "sgemm/cublas/" + size;
  // "rung:05_blocktiling_2d": the kernel file's name, so a filter reads like `ls kernels/`.
  const std::string stem = std::filesystem::path(kernel_file(*find_rung(rung))).stem().string();
  return "sgemm/rung:" + stem + "/" + size;
}

std::string sweep_usage() {
  std::ostringstream out;
  out << "usage: sgemm_bench [options] [--benchmark_* flags]\n"
         "\n"
         "Google Benchmark sweep of every rung and cuBLAS over problem shapes. Each (rung, shape)\n"
         "is validated against cuBLAS before it is timed; a failure is reported as an error and\n"
         "not timed. Time is the median of CUDA-event-timed runs (see docs/00_method.md);\n"
         "counters give GFLOP/s and % of cuBLAS, cuBLAS timed in this process on the same shape.\n"
         "\n"
         "options:\n"
         "  --rungs=LIST          rungs to run, e.g. 0,4,5 (0 is cuBLAS; default all)\n"
         "  --shapes=SET          square, nonsquare or all (default all; see below)\n"
         "  --mnk=M,N,K;...       explicit problems instead (MxNxK also works; repeatable)\n"
         "  --sizes=S1,S2,...     explicit square problems instead\n"
         "  --max-seconds-per-run=S\n"
         "                        skip a (rung, shape) whose predicted time for one run exceeds\n"
         "                        S seconds; the prediction is the shape's FLOPs over the rung's\n"
         "                        GFLOP/s on its largest problem timed so far (at least 1024^3),\n"
         "                        or on a 3-run probe at 1024^3 (default "
      << kDefaultMaxSecondsPerRun
      << "; 0: no limit)\n"
         "  --check=MODE          exact, random, both or none (default exact; random where\n"
         "                        alpha and beta make exact checks impossible)\n"
         "  --warmup=N --reps=N --budget-ms=T --alpha=X --beta=Y --pad=P --seed=N --device=N\n"
         "                        as for `sgemm` (see sgemm --help)\n"
         "  --help, --list        this text, with the rungs\n"
         "\n"
         "Google Benchmark flags, e.g.:\n"
         "  --benchmark_filter=REGEX   by name: 'cublas|rung:05', '/4096x4096x4096$'\n"
         "  --benchmark_out=FILE --benchmark_out_format=json\n"
         "  --benchmark_list_tests     list the benchmark names and exit (no GPU needed)\n"
         "  --benchmark_repetitions=N\n"
         "\n"
         "shapes (MxNxK):\n";
  for (const auto* set : {&square_shapes(), &nonsquare_shapes()})
    for (const NamedShape& s : *set)
      out << "  " << s.kind << " " << s.M << "x" << s.N << "x" << s.K << "\n";
  out << "\nrungs:\n  0  cublas\n";
  for (const RungInfo& r : rungs()) out << "  " << r.number << "  " << r.name << "\n";
  return out.str();
}

}  // namespace sgemm::bench
