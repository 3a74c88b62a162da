// Candidate for scripts/autotune --extra (experiments/rung09/README.md says how to run it).
// a: BK=32, 3 stages
#include "autotune.h"
#include "launchers.h"
#define launch autotune_candidate_launch  // the file for its tile template alone
#include "09_async_copy.cu"
#undef launch

static const sgemm::autotune::Registrar candidate(
    9, "(a) BM=128 BN=256 BK=32 WM=64 WN=64 WNITER=4 TM=4 TN=4 STAGES=3",
    &sgemm::async_copy::launch_tile<128, 256, 32, 64, 64, 4, 4, 4, 3>);
