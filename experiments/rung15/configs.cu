// Rung 15's choices measured: on the bench's 19 shapes, cuBLAS SGEMM, what launch() picks, and
// both paths (launch_config: rung 14's pre-pass path, the fused kernel) with 1 to 16 slices of
// K, timed in turn in blocks (Harness::time_in_turn). Prints % of cuBLAS per shape.
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Ikernels -Irunner \
//        experiments/rung15/configs.cu <build>/libsgemm_harness.a <build>/libsgemm_ladder.a \
//        -lcublas -ldl -o configs && ./configs [block_ms]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "entries.h"  // launch_config
#include "harness.h"
#include "registry.h"  // rung_info(): a rung by its typed handle
#include "report.h"
#include "sgemm/sgemm.h"

int main(int argc, char** argv) {
  using namespace sgemm;
  namespace r15 = sgemm::every_shape_3xtf32;
  TimingOptions timing;
  timing.block_ms = argc > 1 ? std::atof(argv[1]) : 150;
  Harness h(0);
  std::printf("GPU: %s; blocks of >= %.0f ms\n", describe(h.gpu()).c_str(), timing.block_ms);
  const Shape shapes[] = {
      {128, 128, 128},    {256, 256, 256},    {512, 512, 512},    {1000, 1000, 1000},
      {1024, 1024, 1024}, {2048, 2048, 2048}, {3000, 3000, 3000}, {4096, 4096, 4096},
      {4097, 4097, 4097}, {6000, 6000, 6000}, {8192, 8192, 8192}, {16384, 16384, 16384},
      {512, 16384, 4096}, {16384, 512, 4096}, {8192, 8192, 128},  {1024, 1024, 65536},
      {4096, 256, 4096},  {256, 4096, 4096},  {4095, 4097, 4093}};
  std::vector<std::string> names = {"cublas", "choice"};
  std::vector<Kernel> kernels = {h.kernel(kCublasRung),
                                 launched(rung_info(RungId::every_shape_3xtf32).launch, "rung 15")};
  for (int path : {1, 0})
    for (int slices : {1, 2, 4, 8, 16}) {
      if (path == 0 && slices == 2) continue;
      names.push_back((path ? "prepass/" : "fused/") + std::to_string(slices));
      kernels.push_back(launched(
          [path, slices](const Gemm& g, cudaStream_t s) {
            return r15::launch_config(path, slices, g, s);
          },
          names.back()));
    }
  std::printf("%-18s %9s", "shape", "cuBLAS TF/s");
  for (size_t i = 1; i < names.size(); ++i) std::printf(" %10s", names[i].c_str());
  std::printf("   (%% of cuBLAS)\n");
  for (const Shape& s : shapes) {
    const Problem p{s};
    const std::vector<Timing> t = h.time_in_turn(kernels, p, timing);
    std::printf("%-18s %9.1f", s.str().c_str(), t[0].gflops(p) / 1e3);
    for (size_t i = 1; i < t.size(); ++i)
      std::printf(" %10.1f", 100 * t[0].median_ms / t[i].median_ms);
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
