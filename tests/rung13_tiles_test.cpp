// On the host: rung 13 picks its tile by the shared memory a GPU has (kernels/13_mma_3xtf32.cu,
// tile_config_for), so that the one call off Hopper runs on every GPU with TF32 tensor cores:
// two 128 x 128 blocks an SM where 228 KiB hold them, 128 x 256 on an A100's 164 KiB, 64 x 128
// where a block may have 99 KiB (RTX 30 and 40 series), and none below (rung 9 runs instead).
#include <gtest/gtest.h>

#include "entries.h"  // mma_3xtf32::tile_config_for

namespace sgemm::mma_3xtf32 {
namespace {

// cudaDevAttrMaxSharedMemoryPerBlockOptin and cudaDevAttrMaxSharedMemoryPerMultiprocessor, as
// the CUDA programming guide's table of compute capabilities gives them.
TEST(Rung13TileChoice, EachGpuGetsTheTileItsSharedMemoryHolds) {
  EXPECT_EQ(tile_config_for(227 * 1024, 228 * 1024), 0);  // 9.0: H100, H200
  EXPECT_EQ(tile_config_for(163 * 1024, 164 * 1024), 1);  // 8.0, 8.7: A100, Orin
  EXPECT_EQ(tile_config_for(99 * 1024, 100 * 1024), 2);   // 8.6, 8.9: RTX 30, RTX 40, L4
  EXPECT_EQ(tile_config_for(64 * 1024, 64 * 1024), -1);   // 7.5: no tile (nor TF32)
}

TEST(Rung13TileChoice, TwoBlocksAnSmOrNotTheFirstTile) {
  // The first tile's 109.5 KiB fits one block of an A100, but two do not fit its SM.
  EXPECT_EQ(tile_config_for(163 * 1024, 2 * 110 * 1024), 1);
  EXPECT_EQ(tile_config_for(163 * 1024, 2 * (112128 + 1024)), 0);
  EXPECT_EQ(tile_config_for(163 * 1024, 2 * (112128 + 1024) - 1), 1);
  // Every config is a tile: the list has three.
  EXPECT_EQ(config_count(), 3);
}

}  // namespace
}  // namespace sgemm::mma_3xtf32
