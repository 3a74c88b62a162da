// Rung 19's cluster sizes measured: every size from 1 to 16 blocks, checked (exact and random,
// on an odd and a padded shape), then timed in turn (Harness::time_in_turn: events around each
// run, as the bench) with cuBLAS SGEMM, rung 17 and what rung 19's launch() picks, on the small
// and few-tile shapes, L2 flushed before each run. Prints % of cuBLAS per shape, then
// microseconds.
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Ikernels -Irunner \
//        experiments/rung19/clusters.cu <build>/libsgemm_harness.a <build>/libsgemm_ladder.a \
//        -lcublas -ldl -o clusters19 && ./clusters19 [block_ms [json]]
// With a second argument, also writes every timing as JSON there (results/<gpu>/clusters.json).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "entries.h"  // cluster_3xtf32::launch_config
#include "harness.h"
#include "registry.h"  // rung_info(): a rung by its typed handle
#include "report.h"
#include "sgemm/sgemm.h"

int main(int argc, char** argv) {
  using namespace sgemm;
  TimingOptions timing;
  timing.block_ms = argc > 1 ? std::atof(argv[1]) : 40;
  std::FILE* json = argc > 2 ? std::fopen(argv[2], "w") : nullptr;
  const char* separator = "";
  Harness h(0);
  std::printf("GPU: %s; blocks of >= %.0f ms\n", describe(h.gpu()).c_str(), timing.block_ms);
  if (json) std::fprintf(json, "{\"gpu\": \"%s\", \"results\": [", h.gpu().name.c_str());
  std::vector<std::string> names = {"cublas", "rung17", "rung19"};
  std::vector<Kernel> kernels = {h.kernel(kCublasRung),
                                 launched(rung_info(RungId::cluster_splitk).launch, "rung 17"),
                                 launched(rung_info(RungId::cluster_3xtf32).launch, "rung 19")};
  for (int ranks : {1, 2, 4, 8, 16}) {
    names.push_back("r19/" + std::to_string(ranks));
    kernels.push_back(
        launched([ranks](const Gemm& g,
                         cudaStream_t s) { return cluster_3xtf32::launch_config(ranks, g, s); },
                 names.back()));
  }
  int failures = 0;
  const Problem checked[] = {Problem{Shape{333, 257, 517}, 1.5f, 0.25f},
                             Problem{Shape{200, 136, 1000, 1003, 141, 139}, -1.f, 0.f, {1, 2, 3}}};
  for (size_t i = 2; i < kernels.size(); ++i)
    for (const Problem& p : checked)
      for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
        const CheckReport r = h.check(kernels[i], p, mode, 7, names[i]);
        if (!r.pass()) {
          ++failures;
          std::printf("CHECK %s %s: %s\n", names[i].c_str(), p.str().c_str(), r.summary().c_str());
        }
      }
  std::printf("checks: %d failures over %zu variants\n", failures, kernels.size() - 2);
  const Shape shapes[] = {{128, 128, 128}, {256, 256, 256},    {512, 512, 512},
                          {768, 768, 768}, {1024, 1024, 1024}, {128, 128, 4096},
                          {64, 64, 64},    {256, 4096, 4096},  {8192, 8192, 128}};
  std::printf("%-18s %9s", "shape", "cuBLAS TF/s");
  for (size_t i = 1; i < names.size(); ++i) std::printf(" %8s", names[i].c_str());
  std::printf("   (%% of cuBLAS)\n");
  for (const Shape& s : shapes) {
    const Problem p{s};
    const std::vector<Timing> t = h.time_in_turn(kernels, p, timing);
    std::printf("%-18s %9.2f", s.str().c_str(), t[0].gflops(p) / 1e3);
    for (size_t i = 1; i < t.size(); ++i)
      std::printf(" %8.1f", t[i].median_ms > 0 ? 100 * t[0].median_ms / t[i].median_ms : 0.0);
    for (size_t i = 0; json && i < t.size(); ++i, separator = ",")
      std::fprintf(json,
                   "%s\n  {\"shape\": \"%s\", \"kernel\": \"%s\", "
                   "\"us\": %.3f, \"pct_of_cublas\": %.1f}",
                   separator, s.str().c_str(), names[i].c_str(), 1e3 * t[i].median_ms,
                   100 * t[0].median_ms / t[i].median_ms);
    std::printf("\n%-18s %9.2f", "  (us)", 1e3 * t[0].median_ms);
    for (size_t i = 1; i < t.size(); ++i) std::printf(" %8.2f", 1e3 * t[i].median_ms);
    std::printf("\n");
    std::fflush(stdout);
  }
  if (json) std::fprintf(json, "\n]}\n"), std::fclose(json);
  return failures ? 1 : 0;
}
