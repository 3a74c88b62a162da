// How the timing method moves a reference's time on a GPU that runs at its power cap. For a
// reference (cuBLAS SGEMM or TF32) and a rung, at one size, three methods on the same inputs:
//   steady: the reference alone, back to back, after 2 s of it (the steady state of real use);
//   turn:   reference and rung alternated run by run (the harness's method until now);
//   blocks: alternating blocks of back-to-back runs, each block at least `block_ms` long.
// Every run starts with L2 flushed and is timed with CUDA events; medians over the runs (in
// blocks, the first run of each block is dropped: it follows the other kernel).
//   nvcc -O2 -std=c++17 -Ilibrary -Irunner experiments/timing/power_cap.cu
//   <build>/libsgemm_harness.a \
//        <build>/libsgemm_ladder.a -lcublas -ldl -o power_cap && ./power_cap
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "device.h"
#include "harness.h"
#include "report.h"
#include "sgemm/sgemm.h"

namespace {

using namespace sgemm;

struct Timer {
  Harness& h;
  L2Flusher flusher;
  cudaEvent_t start, stop;
  const float *A, *B;
  float* C;
  Problem p;
  explicit Timer(Harness& harness, const Problem& problem, const float* a, const float* b, float* c)
      : h(harness), flusher(harness.gpu().l2_bytes), A(a), B(b), C(c), p(problem) {
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
  }
  double once(const Kernel& k) {
    flusher.flush(h.stream());
    CUDA_CHECK(cudaEventRecord(start, h.stream()));
    CUDA_CHECK(k(gemm_of(p, A, B, C), h.stream()));
    CUDA_CHECK(cudaEventRecord(stop, h.stream()));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void measure(Harness& h, int reference, int rung, int n, double block_ms) {
  const Problem p{{n, n, n}};
  DeviceBuffer A(size_t(n) * n), B(size_t(n) * n), C(size_t(n) * n);
  fill_matrix(A.get(), n, n, n, Fill::uniform, 1, 0.f, h.stream());
  fill_matrix(B.get(), n, n, n, Fill::uniform, 2, 0.f, h.stream());
  Timer t(h, p, A.get(), B.get(), C.get());
  const Kernel ref = h.kernel(reference), other = h.kernel(rung);
  const double tflop = p.flops() / 1e12;
  // steady: 2 s of the reference, then 40 timed runs
  std::vector<double> steady;
  for (double spent = 0; spent < 2000;) spent += t.once(ref);
  for (int i = 0; i < 40; ++i) steady.push_back(t.once(ref));
  const int clock_steady = gpu_info(0).sm_clock_current_mhz;
  // turn: 40 rounds
  std::vector<double> turn_ref, turn_rung;
  for (int i = 0; i < 40; ++i) turn_ref.push_back(t.once(ref)), turn_rung.push_back(t.once(other));
  const int clock_turn = gpu_info(0).sm_clock_current_mhz;
  // blocks: 4 blocks each, alternating, each at least block_ms
  std::vector<double> block_ref, block_rung;
  for (int b = 0; b < 8; ++b) {
    const Kernel& k = b % 2 ? other : ref;
    std::vector<double>& out = b % 2 ? block_rung : block_ref;
    double spent = 0;
    for (int i = 0; spent < block_ms; ++i) {
      const double ms = t.once(k);
      spent += ms;
      if (i > 0) out.push_back(ms);
    }
  }
  const int clock_blocks = gpu_info(0).sm_clock_current_mhz;
  const std::string rn = find_runnable(reference)->name, kn = find_runnable(rung)->name;
  std::printf(
      "%5d %-12s %-14s | steady %7.1f TF/s (%4d MHz) | turn %7.1f vs %7.1f = %6.1f%% (%4d MHz)"
      " | blocks %7.1f vs %7.1f = %6.1f%% (%4d MHz) | rung/steady %6.1f%%\n",
      n, rn.c_str(), kn.c_str(), tflop / median(steady) * 1e3, clock_steady,
      tflop / median(turn_ref) * 1e3, tflop / median(turn_rung) * 1e3,
      100 * median(turn_ref) / median(turn_rung), clock_turn, tflop / median(block_ref) * 1e3,
      tflop / median(block_rung) * 1e3, 100 * median(block_ref) / median(block_rung), clock_blocks,
      100 * median(steady) / median(turn_rung));
}

}  // namespace

int main(int argc, char** argv) {
  const double block_ms = argc > 1 ? std::atof(argv[1]) : 300;
  Harness h(0);
  std::printf("GPU: %s; blocks of >= %.0f ms\n", describe(h.gpu()).c_str(), block_ms);
  measure(h, kCublasTf32Rung, 12, 8192, block_ms);
  measure(h, kCublasTf32Rung, 14, 8192, block_ms);
  measure(h, kCublasRung, 14, 8192, block_ms);
  measure(h, kCublasRung, 11, 8192, block_ms);
  measure(h, kCublasRung, 11, 4096, block_ms);
  measure(h, kCublasRung, 14, 4096, block_ms);
  measure(h, kCublasTf32Rung, 12, 4096, block_ms);
  return 0;
}
