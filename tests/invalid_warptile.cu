// Compiled by the test tile.invalid_warptile_rejected, which expects it NOT to compile: warp
// tiles 96 rows tall cannot cover a block tile of 128 rows, and rung 8's Tile<> must say so.
#define SGEMM_AUTOTUNE_CANDIDATES
#include "08_warptiling.cu"

template cudaError_t sgemm::warptiling::launch_tile<128, 128, 16, 96, 64, 4, 4, 4>(
    int, int, int, float, const float*, int, const float*, int, float, float*, int, cudaStream_t);
