// Rung 17's choices measured: every tile of its table (kConfigs) on clusters of 1 to 16 blocks,
// checked (exact and random, on an odd and a padded shape), then on the few-tile shapes timed in
// turn (Harness::time_in_turn) with cuBLAS SGEMM, rung 11 and what launch() picks. Prints % of
// cuBLAS per shape; a variant that cannot launch prints its CUDA error.
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Ikernels -Irunner \
//        experiments/rung17/configs.cu <build>/libsgemm_harness.a <build>/libsgemm_ladder.a \
//        -lcublas -ldl -o configs17 && ./configs17 [block_ms]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "entries.h"  // config_count, launch_config
#include "harness.h"
#include "registry.h"  // rung_info(): a rung by its typed handle
#include "report.h"
#include "sgemm/sgemm.h"

int main(int argc, char** argv) {
  using namespace sgemm;
  namespace r17 = sgemm::cluster_splitk;
  TimingOptions timing;
  timing.block_ms = argc > 1 ? std::atof(argv[1]) : 60;
  Harness h(0);
  std::printf("GPU: %s; blocks of >= %.0f ms\n", describe(h.gpu()).c_str(), timing.block_ms);
  const char* const tiles[] = {"32x64",    "64x64",       "128x64",   "128x128",   "32x64k32",
                               "64x64t84", "64x64t84k32", "32x64t84", "32x64k32s4"};
  std::vector<std::string> names = {"cublas", "rung11", "choice"};
  std::vector<Kernel> kernels = {h.kernel(kCublasRung), h.kernel(11),
                                 launched(rung_info(RungId::cluster_splitk).launch, "rung 17")};
  for (int config = 0; config < r17::config_count(); ++config)
    for (int ranks : {1, 2, 3, 4, 8, 16}) {
      names.push_back(std::string(tiles[config]) + "/" + std::to_string(ranks));
      kernels.push_back(launched(
          [config, ranks](const Gemm& g, cudaStream_t s) {
            return r17::launch_config(config, ranks, g, s);
          },
          names.back()));
    }
  // Every variant checked before any timing, on an odd shape and a padded, offset one.
  int failures = 0;
  const Problem checked[] = {Problem{Shape{333, 257, 517}, 1.5f, 0.25f},
                             Problem{Shape{200, 136, 1000, 1003, 141, 139}, -1.f, 0.f, {1, 2, 3}}};
  for (size_t i = 2; i < kernels.size(); ++i)
    for (const Problem& p : checked)
      for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
        try {
          const CheckReport r = h.check(kernels[i], p, mode, 7, names[i]);
          if (!r.pass()) {
            ++failures;
            std::printf("CHECK %s %s: %s\n", names[i].c_str(), p.str().c_str(),
                        r.summary().c_str());
          }
        } catch (const std::exception& e) {
          ++failures;
          std::printf("CHECK %s %s: error %s\n", names[i].c_str(), p.str().c_str(), e.what());
        }
      }
  std::printf("checks: %d failures over %zu variants\n", failures, kernels.size() - 2);
  const Shape shapes[] = {{128, 128, 128},    {256, 256, 256},    {512, 512, 512},
                          {768, 768, 768},    {1000, 1000, 1000}, {1024, 1024, 1024},
                          {4096, 256, 4096},  {256, 4096, 4096},  {1024, 1024, 65536},
                          {2048, 2048, 2048}, {128, 128, 4096},   {64, 64, 64},
                          {4096, 4096, 4096}};
  std::printf("%-18s %9s", "shape", "cuBLAS TF/s");
  for (size_t i = 1; i < names.size(); ++i) std::printf(" %11s", names[i].c_str());
  std::printf("   (%% of cuBLAS)\n");
  for (const Shape& s : shapes) {
    const Problem p{s};
    std::vector<Timing> t;
    try {
      t = h.time_in_turn(kernels, p, timing);
    } catch (const std::exception& e) {  // one variant that cannot launch: time them one by one
      std::printf("%-18s in turn: %s\n", s.str().c_str(), e.what());
      for (size_t i = 0; i < kernels.size(); ++i) {
        try {
          t.push_back(h.time_in_turn({kernels[0], kernels[i]}, p, timing)[1]);
        } catch (const std::exception&) {
          t.push_back(Timing{});
        }
      }
    }
    std::printf("%-18s %9.2f", s.str().c_str(), t[0].gflops(p) / 1e3);
    for (size_t i = 1; i < t.size(); ++i)
      std::printf(" %11.1f", t[i].median_ms > 0 ? 100 * t[0].median_ms / t[i].median_ms : 0.0);
    std::printf("\n");
    std::printf("%-18s %9.2f", "  (us)", 1e3 * t[0].median_ms);
    for (size_t i = 1; i < t.size(); ++i) std::printf(" %11.2f", 1e3 * t[i].median_ms);
    std::printf("\n");
    std::fflush(stdout);
  }
  return failures ? 1 : 0;
}
