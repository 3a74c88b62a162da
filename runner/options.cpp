#include "options.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <utility>

#include "runnables.h"
#include "sgemm/sgemm.h"

namespace sgemm {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.push_back("");
  return parts;
}

std::string exit_status_help(const std::string& failed, const std::string& runtime_error) {
  const std::pair<ExitStatus, std::string> meanings[] = {
      {kExitOk, "every check passed"},
      {kExitCheckFailed, failed},
      {kExitUsage, "bad usage: the message names the flag; nothing ran"},
      {kExitRuntimeError, runtime_error}};
  std::string text = "exit status:\n";
  for (const auto& [status, meaning] : meanings)
    text += "  " + std::to_string(status) + "  " + meaning + "\n";
  return text;
}

std::string runnables_help() {
  size_t number_width = 0, name_width = 0;
  for (const Runnable& r : runnables()) {
    number_width = std::max(number_width, std::to_string(r.number).size());
    name_width = std::max(name_width, r.name.size());
  }
  std::string text;
  for (const Runnable& r : runnables()) {
    const std::string number = std::to_string(r.number);
    text += "  " + std::string(number_width - number.size(), ' ') + number + "  " + r.name +
            std::string(name_width - r.name.size(), ' ') + "  " + to_string(r.precision) + "  " +
            r.summary + "\n";
  }
  return text;
}

std::vector<Shape> square_shapes(const std::vector<int>& sizes) {
  std::vector<Shape> shapes;
  for (int n : sizes) shapes.push_back(Shape{n, n, n});
  return shapes;
}

namespace {

// "" when `text` is a whole number in [lo, hi]; otherwise why not, naming the one bound it
// breaks.
std::string whole_number_error(const std::string& text, long long lo, long long hi) {
  errno = 0;
  char* end = nullptr;
  // Beyond long long, strtoll returns its limit (errno ERANGE): a whole number, only too large.
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') return "'" + text + "' is not a whole number";
  if (v > hi) return text + " is larger than the limit " + std::to_string(hi);
  if (v < lo) return text + " is smaller than the minimum " + std::to_string(lo);
  return "";
}

CLI::Validator whole_number(long long lo, long long hi) {
  return CLI::Validator([lo, hi](std::string& text) { return whole_number_error(text, lo, hi); },
                        std::to_string(lo) + ".." + std::to_string(hi));
}

// "" when `text` is a number that FP32 holds, subnormal ones included: BLAS takes them. strtof
// sets ERANGE for those, so the value decides here, not errno. Otherwise why not.
std::string fp32_error(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const float f = static_cast<float>(v);
  if (text.empty() || *end != '\0' || std::isnan(v) || (std::isinf(v) && errno != ERANGE))
    return "'" + text + "' is not a finite number";
  if (std::isinf(f)) return text + " is larger than FP32's largest number, about 3.4e38";
  if (f == 0 && (v != 0 || errno == ERANGE))
    return text + " is too small for FP32: it would be 0 (the least is about 1.4e-45)";
  return "";
}

CLI::Validator fp32_number() {
  return CLI::Validator([](std::string& text) { return fp32_error(text); }, "");
}

std::string size_error(const std::string& text) {
  const std::string why = whole_number_error(text, 1, kMaxDimension);
  return why.empty() ? "" : "bad size: " + why;
}

// "M,N,K" or "MxNxK" (as in benchmark names); several separated by ';'.
std::vector<std::string> problems_in(const std::string& text) { return split(text, ';'); }

// The three sizes of "M,N,K", or of "MxNxK" when there is no comma.
std::vector<std::string> mnk_parts(const std::string& problem) {
  return split(problem, problem.find(',') != std::string::npos ? ',' : 'x');
}

std::string mnk_error(const std::string& problem) {
  const std::vector<std::string> parts = mnk_parts(problem);
  if (parts.size() != 3) return "takes three sizes M,N,K (or MxNxK), got '" + problem + "'";
  for (const std::string& part : parts)
    if (std::string why = size_error(part); !why.empty()) return why;
  return "";
}

Shape mnk_shape(const std::string& problem) {
  const std::vector<std::string> parts = mnk_parts(problem);
  return Shape{std::stoi(parts[0]), std::stoi(parts[1]), std::stoi(parts[2])};
}

const std::pair<const char*, ChecksToRun> kCheckNames[] = {{"both", ChecksToRun::both},
                                                           {"exact", ChecksToRun::exact},
                                                           {"random", ChecksToRun::random},
                                                           {"none", ChecksToRun::none}};

}  // namespace

OutputError::OutputError(std::string message)
    : CLI::ParseError("OutputError", std::move(message), kExitRuntimeError) {}

std::string writable_error(const std::string& path) {
  if (path.empty()) return "needs a file name";
  std::error_code ignored;
  const bool existed = std::filesystem::exists(path, ignored);
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (!file) return "cannot write '" + path + "': " + std::strerror(errno);
  std::fclose(file);
  if (!existed) std::remove(path.c_str());
  return "";
}

CommonOptions::CommonOptions(CLI::App& app, RunOptions& o) : options_(o) {
  for (const auto& [name, value] : kCheckNames)
    if (value == o.checks) checks_ = name;
  auto repeatable = [](CLI::Option* option) {
    return option->take_all()->expected(1)->allow_extra_args(false);
  };
  repeatable(app.add_option("--sizes", sizes_, "square sizes S1,S2,... (repeatable)"))
      ->type_name("S1,S2,...")
      ->check(CLI::Validator(
          [](std::string& text) {
            if (text.empty()) return std::string("needs sizes, e.g. --sizes 1024,4096");
            for (const std::string& part : split(text, ','))
              if (std::string why = size_error(part); !why.empty()) return why;
            return std::string();
          },
          ""));
  repeatable(
      app.add_option("--mnk", mnk_, "one problem of any shape (repeatable; replaces --sizes)"))
      ->type_name("M,N,K")
      ->check(CLI::Validator(
          [](std::string& text) {
            if (text.empty()) return std::string("needs a problem, e.g. --mnk 4096,4096,1024");
            for (const std::string& problem : problems_in(text))
              if (std::string why = mnk_error(problem); !why.empty()) return why;
            return std::string();
          },
          ""));
  app.add_option("--alpha", o.alpha, "C = alpha*A*B + beta*C")
      ->check(fp32_number())
      ->capture_default_str();
  app.add_option("--beta", o.beta, "(0: C is not read)")
      ->check(fp32_number())
      ->capture_default_str();
  app.add_option_function<std::string>(
         "--inputs",
         [&o](const std::string& text) {
           if (const std::optional<Inputs> in = parse_inputs(text)) o.inputs = *in;
         },
         "what fills A and B in random checks and timing: " + inputs_help())
      ->type_name("DIST")
      ->check(CLI::Validator([](std::string& text) { return inputs_error(text); }, ""))
      ->default_str("uniform");
  app.add_option("--layout", layout_,
                 "how A, B and C are stored: row (row-major, the rungs' own) or col\n"
                 "(column-major, as cuBLAS); the rungs run col as the row-major C^T = B^T A^T")
      ->type_name("row|col")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return text == "row" || text == "col" ? "" : "takes row or col, not '" + text + "'";
          },
          ""))
      ->capture_default_str();
  app.add_option("--ops", ops_,
                 "op(A) and op(B) in C = alpha*op(A)*op(B) + beta*C: N as stored, T transposed\n"
                 "(the library copies a transposed operand before the rung runs)")
      ->type_name("NN|NT|TN|TT")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            const bool ok = text.size() == 2 && (text[0] == 'N' || text[0] == 'T') &&
                            (text[1] == 'N' || text[1] == 'T');
            return ok ? "" : "takes NN, NT, TN or TT, not '" + text + "'";
          },
          ""))
      ->capture_default_str();
  app.add_option("--pad", o.pad,
                 "leading dimensions = the length of a stored row (a column with --layout col) "
                 "+ P")
      ->type_name("P")
      ->check(whole_number(0, 4096))
      ->capture_default_str();
  app.add_option("--check", checks_, "both, exact, random or none (docs/00_method.md)")
      ->type_name("MODE")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            for (const auto& entry : kCheckNames)
              if (text == entry.first) return "";
            return "takes both, exact, random or none, not '" + text + "'";
          },
          ""))
      ->capture_default_str();
  app.add_option("--warmup", o.timing.warmup, "untimed runs of each kernel first")
      ->check(whole_number(0, 100000))
      ->capture_default_str();
  app.add_option("--block-ms", o.timing.block_ms,
                 "time kernels in blocks of back-to-back runs of at least T ms of GPU time,\n"
                 "each kernel and its reference in turn, " +
                     std::to_string(kTimingRounds) + " blocks each (docs/00_method.md)")
      ->type_name("T")
      ->check(whole_number(0, 3600000))
      ->capture_default_str();
  app.add_option("--reps", o.timing.reps,
                 "runs of a block at most (its first is not counted); the median is reported")
      ->check(whole_number(2, 100000))
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the check inputs")
      ->check(whole_number(0, 1LL << 62))
      ->capture_default_str();
  app.add_option("--device", o.device, "CUDA device")
      ->check(whole_number(0, 1023))
      ->capture_default_str();
  json_ = app.add_option("--json", o.json_path, "also write the results, with GPU context, as JSON")
              ->type_name("FILE")
              ->check(CLI::Validator(
                  [](std::string& text) { return text.empty() ? "needs a file name" : ""; }, ""));
}

void CommonOptions::finish(const std::vector<Shape>& defaults) const {
  if (!sizes_.empty() && !mnk_.empty())
    throw CLI::ValidationError("--sizes, --mnk", "give either --sizes or --mnk, not both");
  for (const auto& [name, value] : kCheckNames)
    if (checks_ == name) options_.checks = value;
  std::vector<Shape> shapes;
  for (const std::string& list : sizes_)
    for (const std::string& size : split(list, ',')) shapes.push_back({std::stoi(size)});
  for (Shape& s : shapes) s.N = s.K = s.M;
  for (const std::string& list : mnk_)
    for (const std::string& problem : problems_in(list)) shapes.push_back(mnk_shape(problem));
  if (shapes.empty()) shapes = defaults;
  Operation& op = options_.operation;
  op.layout = layout_ == "col" ? Layout::col_major : Layout::row_major;
  op.a = ops_[0] == 'T' ? Op::T : Op::N;
  op.b = ops_[1] == 'T' ? Op::T : Op::N;
  for (Shape& s : shapes) {
    s.op = op;
    if (options_.pad)
      s.lda = s.a_stored().length + options_.pad, s.ldb = s.b_stored().length + options_.pad,
      s.ldc = s.c_stored().length + options_.pad;
    // A check that was asked for and cannot run is an error now, before any GPU work.
    const CheckPlan plan = plan_checks(options_.checks, options_.alpha, options_.beta, s.K);
    if (!plan.error.empty())
      throw CLI::ValidationError("--check", s.str() + ": " + plan.error + " (try --check random)");
  }
  options_.shapes = shapes;
  // Last, once every flag is good: a file that cannot be written is a runtime error.
  if (json_->count() > 0)
    if (const std::string why = writable_error(options_.json_path); !why.empty())
      throw OutputError("--json: " + why);
}

std::string parse(CLI::App& app, std::vector<std::string> args, bool* is_help, int* status) {
  *is_help = false;
  if (status) *status = kExitUsage;
  std::reverse(args.begin(), args.end());  // CLI11 takes the last argument first
  try {
    app.parse(args);
    return "";
  } catch (const CLI::CallForHelp&) {
    *is_help = true;
    return app.help();
  } catch (const CLI::ExtrasError& e) {  // "The following argument(s) were not expected: x"
    const std::string text = e.what();
    return "unknown option or argument " + text.substr(text.find(": ") + 2) + " (see --help)";
  } catch (const OutputError& e) {
    if (status) *status = kExitRuntimeError;
    return e.what();
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
}

}  // namespace sgemm
