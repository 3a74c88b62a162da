// How every measurement is timed (docs/00_method.md, "Timing"), named once: the harness times
// with TimingOptions, and the programs' flags take their defaults and help texts from here.
// No CUDA here, so the flags are tested on machines without a GPU.
#pragma once

#include <cstdint>

namespace sgemm {

// Kernels are timed in blocks of back-to-back runs,
// kernels in turn block by block, kTimingRounds blocks each: a GPU at its power cap settles
// within milliseconds to the clock each kernel sustains alone, which a kernel timed between
// runs of another (one run each in turn) does not see.
constexpr int kWarmupRuns = 3;          // untimed runs of each kernel first
constexpr double kBlockMs = 250;        // a block lasts at least this much GPU time...
constexpr int kMaxRunsPerBlock = 1000;  // ...unless it reaches this many runs first
constexpr int kTimingRounds = 2;        // blocks of each kernel
// The timed runs' inputs (uniform random, never zeros: zeros can run faster).
constexpr uint64_t kTimingSeedA = 11, kTimingSeedB = 12, kTimingSeedC = 13;

struct TimingOptions {
  int warmup = kWarmupRuns;     // untimed runs of each kernel first
  double block_ms = kBlockMs;   // a block's least GPU time
  int reps = kMaxRunsPerBlock;  // a block's most runs (at least 2; its first is not counted)
  int rounds = kTimingRounds;   // blocks of each kernel
  bool flush_l2 = true;         // evict L2 before each timed run
};

}  // namespace sgemm
