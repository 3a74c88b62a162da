// Candidate for scripts/autotune --extra (experiments/rung09/README.md says how to run it).
// b: 2 stages (48 KiB): what depth buys
#define SGEMM_AUTOTUNE_CANDIDATES
#include "autotune.h"
#include "chunked_as.cuh"

static const sgemm::autotune::Registrar candidate(
    109, "(b) BM=128 BN=256 BK=16 WM=64 WN=64 WNITER=4 TM=4 TN=4 STAGES=2",
    &sgemm::async_copy_chunked::launch_tile<128, 256, 16, 64, 64, 4, 4, 4, 2>);
