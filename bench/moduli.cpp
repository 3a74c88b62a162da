// sgemm_moduli: rung 16's speed and error against the number of moduli, beside cuBLAS SGEMM,
// cuBLAS TF32 and rungs 14 and 15, measured in one run (docs/16_ozaki_int8.md plots it).
//
//   sgemm_moduli [--sizes 4096,8192] [--counts 4,5,6,7,8] [--block-ms 250] > moduli.json
//
// Per size (M = N = K): every kernel timed in turn in blocks (docs/00_method.md, "Timing"),
// then its error against the FP64 product of the same inputs (cuBLAS DGEMM), on uniform and
// wide-range inputs: the relative Frobenius error and the largest element's relative error.
// Prints one JSON document. Exit 3 without a GPU, 2 on bad usage.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"

namespace sgemm::ozaki_int8 {
cudaError_t launch_moduli(int count, const Gemm& gemm, cudaStream_t stream);
}

namespace {

std::vector<int> parse_list(const char* text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const int v = std::atoi(item.c_str());
    if (v < 1) throw std::invalid_argument("not a positive number: " + item);
    out.push_back(v);
  }
  return out;
}

struct Entry {
  std::string name;
  sgemm::Kernel kernel;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {4096, 8192}, counts = {4, 5, 6, 7, 8};
  sgemm::TimingOptions timing;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string flag = argv[i];
      if (i + 1 >= argc) throw std::invalid_argument("missing value after " + flag);
      if (flag == "--sizes")
        sizes = parse_list(argv[++i]);
      else if (flag == "--counts")
        counts = parse_list(argv[++i]);
      else if (flag == "--block-ms")
        timing.block_ms = std::atof(argv[++i]);
      else
        throw std::invalid_argument("unknown flag " + flag);
    }
    for (int count : counts)
      if (count < 4 || count > 8)
        throw std::invalid_argument("--counts: " + std::to_string(count) +
                                    " moduli; rung 16 takes 4 to 8");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgemm_moduli: %s\n", e.what());
    return 2;
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
                                     return sgemm::ozaki_int8::launch_moduli(count, g, s);
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
    return 3;
  }
  return 0;
}
