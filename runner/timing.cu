// The harness's timings (timing.h says how every measurement is timed): a kernel alone, or
// kernels in turn on the same inputs, block by block, events around each run.
#include <algorithm>
#include <vector>

#include "harness_state.h"
#include "input_fills.h"

namespace sgemm {

namespace {

Timing summarize(std::vector<double>& runs_ms) {
  std::sort(runs_ms.begin(), runs_ms.end());
  Timing t;
  const size_t n = runs_ms.size();
  t.reps = static_cast<int>(n);
  t.median_ms = n % 2 ? runs_ms[n / 2] : 0.5 * (runs_ms[n / 2 - 1] + runs_ms[n / 2]);
  t.min_ms = runs_ms.front();
  t.max_ms = runs_ms.back();
  return t;
}

}  // namespace

Timing Harness::time(const Runnable& runnable, const Problem& p, const TimingOptions& options) {
  return time(kernel(runnable), p, options);
}

Timing Harness::time(const Kernel& kernel, const Problem& p, const TimingOptions& options) {
  return time_in_turn({kernel}, p, options).front();
}

Race Harness::time_against_reference(const Runnable& rung, const Problem& p,
                                     const TimingOptions& options) {
  return time_against_reference(kernel(rung), rung.precision, p, options);
}

Race Harness::time_against_reference(const Kernel& kernel, Precision precision, const Problem& p,
                                     const TimingOptions& options) {
  const Kernel reference = this->kernel(reference_for(precision));
  const std::vector<Timing> t = time_in_turn({reference, kernel}, p, options);
  return Race{t[1], t[0]};
}

std::vector<Timing> Harness::time_in_turn(const std::vector<Kernel>& kernels, const Problem& p,
                                          const TimingOptions& options) {
  require_memory(p, false);
  const Shape& s = p.shape;
  Impl& m = *impl_;
  const Operands in = m.operands(p);
  fill_inputs(p, in.A, in.B, kTimingSeedA, kTimingSeedB, 0.f, m.stream);
  const Extent c = s.c_stored();
  fill_matrix(in.C, c.lines, c.length, s.c_ld(), Fill::uniform, kTimingSeedC, 0.f, m.stream);
  const Gemm g = gemm_of(p, in.A, in.B, in.C);

  for (int i = 0; i < options.warmup; ++i)
    for (const Kernel& k : kernels) k(s.op, g, m.stream);
  CUDA_CHECK(cudaStreamSynchronize(m.stream));

  // One timed run: L2 flushed first, events around the run.
  auto once = [&](const Kernel& kernel) {
    if (options.flush_l2) m.flusher->flush(m.stream);
    CUDA_CHECK(cudaEventRecord(m.start, m.stream));
    kernel(s.op, g, m.stream);
    CUDA_CHECK(cudaEventRecord(m.stop, m.stream));
    CUDA_CHECK(cudaEventSynchronize(m.stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, m.start, m.stop));
    return static_cast<double>(ms);
  };
  // Blocks in turn: a block runs its kernel back to back until it holds block_ms of GPU time
  // (at least 2 runs, at most reps); its first run follows the other kernel's block and is not
  // counted, the rest are.
  std::vector<std::vector<double>> samples(kernels.size());
  const int most = std::max(2, options.reps);
  for (int round = 0; round < std::max(1, options.rounds); ++round)
    for (size_t i = 0; i < kernels.size(); ++i) {
      double spent = 0;
      for (int run = 0; run < most && (run < 2 || spent < options.block_ms); ++run) {
        const double ms = once(kernels[i]);
        spent += ms;
        if (run > 0) samples[i].push_back(ms);
      }
    }
  std::vector<Timing> timings;
  for (std::vector<double>& runs : samples) timings.push_back(summarize(runs));
  return timings;
}

}  // namespace sgemm
