// The warp-specialized pipeline of the Hopper rungs: a ring of shared-memory buffers under
// `full` and `empty` mbarriers, a producer warpgroup that fills it, consumer warpgroups that
// drain it, and the setmaxnreg split of registers between them. Rung 10 teaches it
// (docs/10_tma_specialized.md explains each part, with this header's code); rung 14 adds the
// wgmma consumer's late release and the grouped tile order (docs/14_wgmma_3xtf32.md). Every
// Hopper rung from 10 on includes this header; none copies its lines.
// Device code only, on top of hopper.cuh's primitives.
#pragma once

#include <cstdint>

#include "hopper/hopper.cuh"

namespace sgemm::pipeline {

using namespace hopper;

// Registers of a block of kThreads threads, one block per SM (__launch_bounds__(kThreads, 1)):
// the register file is split among the SM's 4 schedulers (16384 each), and a block of w warps
// puts ceil(w / 4) on one, so a thread gets at most 16384 / (32 ceil(w / 4)), a multiple of 8
// (168 for 12 warps). The producer warpgroup drops to kProducerRegs (a rung's measured choice:
// enough for its copies' addresses, and what suits ptxas's allocation for the consumers); the
// consumers rise to what it released.
template <int kThreads, int kProducerThreads, int kProducerRegs_>
struct RegisterSplit {
  static constexpr int kConsumerThreads = kThreads - kProducerThreads;
  static constexpr int kLaunchRegs = 16384 / (32 * ((kThreads / 32 + 3) / 4)) / 8 * 8;
  static constexpr int kProducerRegs = kProducerRegs_;
  static constexpr int kConsumerRegs =
      kLaunchRegs + kProducerThreads * (kLaunchRegs - kProducerRegs) / kConsumerThreads / 8 * 8;
  static_assert(kProducerThreads % 128 == 0 && kConsumerThreads % 128 == 0,
                "setmaxnreg acts on whole warpgroups");
  static_assert(kConsumerRegs <= 256 && kConsumerThreads * (kConsumerRegs - kLaunchRegs) <=
                                            kProducerThreads * (kLaunchRegs - kProducerRegs),
                "the consumers claim no more registers than the producer released");
};

// Thread 0 makes the ring's barriers: full[s] completes once `fullArrivals` arrivals (and the
// bytes announced with expect_tx) have come, empty[s] once `emptyArrivals` have. The block
// synchronizes after it, before anyone waits on them.
template <int STAGES>
__device__ __forceinline__ void ring_init(uint64_t* full, uint64_t* empty, unsigned fullArrivals,
                                          unsigned emptyArrivals) {
  for (int s = 0; s < STAGES; ++s) {
    mbar_init(&full[s], fullArrivals);
    mbar_init(&empty[s], emptyArrivals);
  }
  fence_barrier_init();
}

// The producer's loop over stages k = begin, begin + step, .. (< end), buffer buf = the stage's
// place in the ring. Fill n of a buffer (phase n % 2) waits for the consumers to release fill
// n - 1: the completion of empty[buf] with parity phase ^ 1. A fresh mbarrier counts as having
// completed the phase before phase 0, so a buffer's first fill does not wait. fill(k, buf)
// issues the stage's copies, which complete on full[buf].
template <int STAGES, class Fill>
__device__ __forceinline__ void produce(uint64_t* empty, int begin, int end, int step,
                                        Fill&& fill) {
  for (int k = begin, buf = 0, phase = 0; k < end; k += step) {
    mbar_wait(&empty[buf], phase ^ 1);  // every consumer warp is done with this buffer
    fill(k, buf);
    if (++buf == STAGES) buf = 0, phase ^= 1;
  }
}

// A wgmma consumer's place in the ring (rung 14). wgmmas read shared memory asynchronously, so
// a buffer is released only once the group that read it has completed: the group just issued
// keeps the tensor cores busy while the one before it is waited for.
template <int STAGES>
struct WgmmaRing {
  uint64_t* full;
  uint64_t* empty;
  int buf = 0, phase = 0;  // the ring's next buffer and the parity of its fill
  int pending = -1;        // a buffer read by the last group issued, not yet released

  __device__ __forceinline__ void wait() { mbar_wait(&full[buf], phase); }  // buf has landed
  __device__ __forceinline__ void advance() {
    if (++buf == STAGES) buf = 0, phase ^= 1;
  }
  // The group before the one just issued has completed: its buffer is read, release it (one
  // arrival per warp, from lane 0).
  __device__ __forceinline__ void release_previous(int lane) {
    wgmma_wait<1>();
    if (pending >= 0 && lane == 0) mbar_arrive(&empty[pending]);
    pending = buf;
    advance();
  }
  // Drains the warpgroup's wgmmas (wait_group 0) and releases both buffers they read.
  __device__ __forceinline__ void release_all(int lane) {
    wgmma_wait<0>();
    if (lane == 0) {
      if (pending >= 0) mbar_arrive(&empty[pending]);
      mbar_arrive(&empty[buf]);
    }
    pending = -1;
    advance();
  }
  // After wgmma_wait<0>: releases the buffer of the last group, which release_previous left
  // pending, so that a block that walks several tiles (rung 15) hands the producer the whole
  // ring for the next one.
  __device__ __forceinline__ void release_pending(int lane) {
    if (pending >= 0 && lane == 0) mbar_arrive(&empty[pending]);
    pending = -1;
  }
};

// The first row and column of C of tile `tile` (rung 14's order): tiles are walked in groups of
// `groupRows` tile rows, down the columns of each group, so that the blocks running at once
// share rows of A and columns of B in L2.
//   tile -> group tile / (groupRows * tilesN); in it, row tile % rowsHere, column tile / rowsHere
__device__ __forceinline__ int2 tile_origin(int tile, int M, int N, int BM, int BN, int groupRows) {
  const int tilesM = (M + BM - 1) / BM, tilesN = (N + BN - 1) / BN;
  const int perGroup = groupRows * tilesN;
  const int first = tile / perGroup * groupRows;  // the group's first tile row
  const int rowsHere = min(tilesM - first, groupRows);
  const int inGroup = tile % perGroup;
  return make_int2((first + inGroup % rowsHere) * BM, inGroup / rowsHere * BN);
}

}  // namespace sgemm::pipeline
