// sgemm_moduli: rung 16's speed and error against the number of moduli, beside cuBLAS SGEMM,
// cuBLAS TF32 and rungs 14 and 15, measured in one run (docs/16_ozaki_int8.md plots it).
//
//   sgemm_moduli [--sizes 4096,8192] [--counts 4,5,6,7,8] [--block-ms 250] > moduli.json
//
// Per size (M = N = K): every kernel timed in turn in blocks (docs/00_method.md, "Timing"),
// then its error against the FP64 product of the same inputs (cuBLAS DGEMM), on uniform and
// wide-range inputs: the relative Frobenius error and the largest element's relative error.
// Prints one JSON document. `sgemm_moduli --help` lists the flags and exit statuses.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "entries.h"  // rung 16 with its number of moduli forced
#include "harness.h"
#include "options.h"
#include "sgemm/sgemm.h"

namespace {

std::string number_text(double v) {  // 1048576 rather than 1.04858e+06
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", v);
  return text;
}

// Accepts a number from lo to hi, a whole one when `whole`; the message says which.
CLI::Validator number_from(double lo, double hi, bool whole) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(v >= lo && v <= hi) || (whole && v != int(v)))
          return "'" + text + "' is not " + (whole ? "a whole number" : "a number") + " from " +
                 number_text(lo) + " to " + number_text(hi);
        return "";
      },
      "");
}

struct Entry {
  std::string name;
  sgemm::Kernel kernel;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {4096, 8192}, counts = {4, 5, 6, 7, 8};
  sgemm::TimingOptions timing;
  CLI::App app(
      "Rung 16's speed and error against FP64 for each number of moduli, beside cuBLAS SGEMM,\n"
      "cuBLAS TF32 and rungs 14 and 15, timed in turn in one run (docs/16_ozaki_int8.md).\n"
      "Prints one JSON document on stdout.",
      "sgemm_moduli");
  app.footer(
      "exit status:\n  0  the JSON is complete\n  2  bad usage: the message names the flag; "
      "nothing ran\n  3  no usable GPU, or a CUDA or cuBLAS error\n");
  app.add_option("--sizes", sizes, "square sizes S1,S2,...")
      ->type_name("S1,S2,...")
      ->delimiter(',')
      ->check(number_from(1, sgemm::kMaxDimension, true))
      ->capture_default_str();
  app.add_option("--counts", counts, "numbers of moduli, each 4 to 8")
      ->type_name("N1,N2,...")
      ->delimiter(',')
      ->check(number_from(4, 8, true))
      ->capture_default_str();
  app.add_option("--block-ms", timing.block_ms,
                 "time kernels in blocks of at least T ms of GPU time (docs/00_method.md)")
      ->type_name("T")
      ->check(number_from(0, 3600000, false))
      ->capture_default_str();
  bool is_help = false;
  const std::string text =
      sgemm::parse(app, std::vector<std::string>(argv + 1, argv + argc), &is_help);
  if (!text.empty()) {
    std::fputs((is_help ? text : "sgemm_moduli: " + text + "\n").c_str(),
               is_help ? stdout : stderr);
    return is_help ? sgemm::kExitOk : sgemm::kExitUsage;
  }
  try {
    sgemm::Harness harness(0);
    std::vector<Entry> entries = {{"cublas", harness.kernel(sgemm::kCublasRung)},
                                  {"cublas_tf32", harness.kernel(sgemm::kCublasTf32Rung)},
                                  {"rung14", harness.kernel(14)},
                                  {"rung15", harness.kernel(15)}};
    for (int count : counts) {
      const std::string name = "rung16_moduli" + std::to_string(count);
      entries.push_back({name, sgemm::launched(
                                   [count](const sgemm::Gemm& g, cudaStream_t s) {
                                     return sgemm::ozaki_int8::launch_moduli(count, g, s).error();
                                   },
                                   name)});
    }
    std::vector<sgemm::Kernel> kernels;
    for (const Entry& e : entries) kernels.push_back(e.kernel);
    std::printf("{\"gpu\": \"%s\", \"block_ms\": %g, \"results\": [\n", harness.gpu().name.c_str(),
                timing.block_ms);
    for (size_t s = 0; s < sizes.size(); ++s) {
      sgemm::Problem p{{sizes[s], sizes[s], sizes[s]}};
      harness.require_memory(p, true);
      const std::vector<sgemm::Timing> t = harness.time_in_turn(kernels, p, timing);
      std::vector<std::vector<sgemm::Accuracy>> errors;
      for (const char* name : {"uniform", "phi=2"}) {
        sgemm::Problem q = p;
        q.inputs = *sgemm::parse_inputs(name);
        errors.push_back(harness.accuracy(kernels, q, 7));
      }
      for (size_t k = 0; k < entries.size(); ++k) {
        std::printf(
            "  {\"size\": %d, \"name\": \"%s\", \"median_ms\": %.6f, \"tflops\": %.2f, "
            "\"uniform\": {\"rel_frobenius\": %.3e, \"max_componentwise_u\": %.3g}, "
            "\"phi=2\": {\"rel_frobenius\": %.3e, \"max_componentwise_u\": %.3g}}%s\n",
            sizes[s], entries[k].name.c_str(), t[k].median_ms, t[k].gflops(p) / 1000,
            errors[0][k].rel_frobenius, errors[0][k].max_componentwise, errors[1][k].rel_frobenius,
            errors[1][k].max_componentwise,
            s + 1 == sizes.size() && k + 1 == entries.size() ? "" : ",");
        std::fflush(stdout);
      }
    }
    std::printf("]}\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgemm_moduli: %s\n", e.what());
    return sgemm::kExitRuntimeError;
  }
  return 0;
}
