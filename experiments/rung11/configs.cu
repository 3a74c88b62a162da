// Candidates for scripts/autotune --extra: every tile of rung 11's table with 1, 2, 4 and 8
// slices of K, so that the table's rates (one SM's GFLOP/s, a block's fixed cost) and the
// slices' sum can be read off measurements. See experiments/rung11/README.md.
#include <string>

#include "autotune.h"
#include "entries.h"  // rung 11's launch_config

namespace {

sgemm::Kernel fixed(int config, int slices) {
  return sgemm::launched(
      [config, slices](const sgemm::Gemm& g, cudaStream_t stream) {
        return sgemm::every_shape::launch_config(config, slices, g.M, g.N, g.K, g.alpha, g.A, g.lda,
                                                 g.B, g.ldb, g.beta, g.C, g.ldc, stream);
      },
      "rung 11 config " + std::to_string(config));
}

const char* const kTiles[] = {"128x256", "128x128"};

const bool registered = [] {
  for (int config = 0; config < 2; ++config)
    for (int slices : {1, 2, 4, 8})
      sgemm::autotune::candidates().push_back(
          {11, std::string("tile ") + kTiles[config] + " slices " + std::to_string(slices),
           fixed(config, slices)});
  return true;
}();

}  // namespace
