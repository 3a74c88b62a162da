// Candidate for scripts/autotune --extra (experiments/rung09/README.md says how to run it).
// b: 128x128 block tile of 4 warps, 2 blocks per SM, 4 stages (64 KiB each)
#define SGEMM_AUTOTUNE_CANDIDATES
#include "autotune.h"
#include "chunked_as.cuh"

static const sgemm::autotune::Registrar candidate(
    109, "(b) BM=128 BN=128 BK=16 WM=64 WN=64 WNITER=4 TM=4 TN=4 STAGES=4",
    &sgemm::async_copy_chunked::launch_tile<128, 128, 16, 64, 64, 4, 4, 4, 4>);
