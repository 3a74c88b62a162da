#include "cli.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "sgemm.h"

namespace sgemm {

const std::vector<int>& default_sizes() {
  static const std::vector<int> sizes = {128, 256, 512, 1024, 2048, 4096};
  return sizes;
}

std::string usage() {
  std::ostringstream out;
  out << "usage: sgemm RUNG|all [options]\n"
         "\n"
         "Validates rung RUNG against cuBLAS (exact and random checks), then times it and\n"
         "cuBLAS in the same run. RUNG 0 is cuBLAS alone; `all` runs every rung and ends with\n"
         "a summary table. Exits non-zero if any check fails.\n"
         "\n"
         "options:\n"
         "  --sizes S1,S2,...   square sizes (default 128,256,512,1024,2048,4096)\n"
         "  --mnk M,N,K         one problem of any shape; repeat for more (replaces --sizes)\n"
         "  --alpha X           C = alpha*A*B + beta*C (default 1)\n"
         "  --beta Y            (default 0: C is not read)\n"
         "  --pad P             leading dimensions = row length + P (default 0)\n"
         "  --check MODE        both|exact|random|none (default both)\n"
         "  --reps N            timed runs, median reported (default 30)\n"
         "  --warmup N          untimed runs first (default 3)\n"
         "  --budget-ms T       stop adding timed runs after T ms of GPU time (default 2000)\n"
         "  --seed N            seed of the check inputs (default 1)\n"
         "  --json FILE         also write the results, with GPU context, as JSON\n"
         "  --device N          CUDA device (default 0)\n"
         "  --list              list the rungs and exit\n"
         "  --help              this text\n"
         "\n"
         "rungs:\n";
  out << "  0  cublas  the reference: cuBLAS SGEMM in true FP32\n";
  for (const RungInfo& r : rungs())
    out << "  " << r.number << "  " << r.name << "  " << r.summary << "\n";
  return out.str();
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.push_back("");
  return parts;
}

namespace {

// Whole number in [lo, hi]; false (with a reason) otherwise.
bool parse_int(const std::string& text, long long lo, long long hi, long long* value,
               std::string* why) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE) {
    *why = "'" + text + "' is not a whole number";
    return false;
  }
  if (v < lo || v > hi) {
    *why = std::to_string(v) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi);
    return false;
  }
  *value = v;
  return true;
}

bool parse_float(const std::string& text, float* value, std::string* why) {
  errno = 0;
  char* end = nullptr;
  const float v = std::strtof(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v)) {
    *why = "'" + text + "' is not a finite number";
    return false;
  }
  *value = v;
  return true;
}

// Parses "a,b,c" as sizes in 1..kMaxDimension.
bool parse_sizes(const std::string& text, std::vector<int>* sizes, std::string* why) {
  for (const std::string& part : split(text, ',')) {
    long long v = 0;
    if (!parse_int(part, 1, kMaxDimension, &v, why)) {
      *why = "bad size: " + *why + " (sizes are 1 to " + std::to_string(kMaxDimension) + ")";
      return false;
    }
    sizes->push_back(static_cast<int>(v));
  }
  return true;
}

bool parse_rung(const std::string& text, int* rung, std::string* why) {
  long long v = 0;
  std::string reason;
  if (!parse_int(text, 0, 1000, &v, &reason) ||
      (v != 0 && find_rung(static_cast<int>(v)) == nullptr)) {
    *why = "unknown rung '" + text + "': rungs are 0 (cuBLAS) to " +
           std::to_string(rungs().back().number) + ", or all (see --list)";
    return false;
  }
  *rung = static_cast<int>(v);
  return true;
}

}  // namespace

ParseResult parse_args(const std::vector<std::string>& args) {
  ParseResult result;
  Options& o = result.options;
  std::vector<int> sizes;
  std::vector<Shape> shapes;
  auto fail = [&](std::string why) {
    result.error = std::move(why);
    return result;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      o.help = true;
      continue;
    }
    if (arg == "--list") {
      o.list = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {  // a positional argument: a rung, or `all`
      if (arg == "all") {
        o.all = true;
        continue;
      }
      int rung = 0;
      std::string why;
      if (!parse_rung(arg, &rung, &why)) return fail(why);
      o.rungs.push_back(rung);
      continue;
    }
    // Every other flag takes a value, as `--flag value` or `--flag=value`.
    std::string flag = arg, value;
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) flag = arg.substr(0, eq);
    static const char* const kFlagsWithValue[] = {"--sizes", "--mnk",    "--alpha",  "--beta",
                                                  "--pad",   "--reps",   "--warmup", "--budget-ms",
                                                  "--seed",  "--device", "--json",   "--check"};
    if (std::find(std::begin(kFlagsWithValue), std::end(kFlagsWithValue), flag) ==
        std::end(kFlagsWithValue))
      return fail("unknown option " + flag + " (see --help)");
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return fail(arg + " needs a value (see --help)");
    }
    std::string why;
    long long v = 0;
    if (flag == "--sizes") {
      if (!parse_sizes(value, &sizes, &why)) return fail(why);
    } else if (flag == "--mnk") {
      std::vector<int> mnk;
      if (!parse_sizes(value, &mnk, &why)) return fail("--mnk: " + why);
      if (mnk.size() != 3) return fail("--mnk takes three sizes M,N,K, got '" + value + "'");
      Shape s;
      s.M = mnk[0], s.N = mnk[1], s.K = mnk[2];
      shapes.push_back(s);
    } else if (flag == "--alpha") {
      if (!parse_float(value, &o.alpha, &why)) return fail("--alpha: " + why);
    } else if (flag == "--beta") {
      if (!parse_float(value, &o.beta, &why)) return fail("--beta: " + why);
    } else if (flag == "--pad") {
      if (!parse_int(value, 0, 4096, &v, &why)) return fail("--pad: " + why);
      o.pad = static_cast<int>(v);
    } else if (flag == "--reps") {
      if (!parse_int(value, 1, 100000, &v, &why)) return fail("--reps: " + why);
      o.reps = static_cast<int>(v);
    } else if (flag == "--warmup") {
      if (!parse_int(value, 0, 100000, &v, &why)) return fail("--warmup: " + why);
      o.warmup = static_cast<int>(v);
    } else if (flag == "--budget-ms") {
      if (!parse_int(value, 1, 3600000, &v, &why)) return fail("--budget-ms: " + why);
      o.budget_ms = static_cast<double>(v);
    } else if (flag == "--seed") {
      if (!parse_int(value, 0, (1LL << 62), &v, &why)) return fail("--seed: " + why);
      o.seed = static_cast<uint64_t>(v);
    } else if (flag == "--device") {
      if (!parse_int(value, 0, 1023, &v, &why)) return fail("--device: " + why);
      o.device = static_cast<int>(v);
    } else if (flag == "--json") {
      if (value.empty()) return fail("--json needs a file name");
      o.json_path = value;
    } else if (flag == "--check") {
      if (value == "both")
        o.checks = ChecksToRun::both;
      else if (value == "exact")
        o.checks = ChecksToRun::exact;
      else if (value == "random")
        o.checks = ChecksToRun::random;
      else if (value == "none")
        o.checks = ChecksToRun::none;
      else
        return fail("--check takes both, exact, random or none, not '" + value + "'");
    }
  }
  if (o.help || o.list) return result;
  if (o.all && !o.rungs.empty()) return fail("give either rung numbers or all, not both");
  if (!o.all && o.rungs.empty()) return fail("no rung given: try `sgemm 5`, `sgemm all` or --help");
  if (!sizes.empty() && !shapes.empty()) return fail("give either --sizes or --mnk, not both");
  if (shapes.empty()) {
    for (int n : sizes.empty() ? default_sizes() : sizes) {
      Shape s;
      s.M = s.N = s.K = n;
      shapes.push_back(s);
    }
  }
  for (Shape& s : shapes) {
    if (o.pad) s.lda = s.K + o.pad, s.ldb = s.N + o.pad, s.ldc = s.N + o.pad;
  }
  o.shapes = shapes;
  return result;
}

}  // namespace sgemm
