// The candidates of scripts/autotune. Each generated candidate file registers its tile
// configurations here with a static Registrar; sgemm_autotune checks and times them all.
#pragma once

#include <string>
#include <vector>

#include "harness.h"

namespace sgemm::autotune {

struct Candidate {
  int rung;            // the rung whose kernel template this configures
  std::string params;  // "BM=128 BN=128 BK=8 TM=8 TN=8"
  Kernel kernel;
};

std::vector<Candidate>& candidates();

// A kernel file's launch_tile<...>, which takes the problem's values one by one.
using TileLauncher = cudaError_t (*)(int M, int N, int K, float alpha, const float* A, int lda,
                                     const float* B, int ldb, float beta, float* C, int ldc,
                                     cudaStream_t stream);

struct Registrar {
  Registrar(int rung, const char* params, TileLauncher tile) {
    const Kernel kernel = launched(
        [tile](const Gemm& g, cudaStream_t stream) {
          return tile(g.M, g.N, g.K, g.alpha, g.A, g.lda, g.B, g.ldb, g.beta, g.C, g.ldc, stream);
        },
        "rung " + std::to_string(rung) + " " + params);
    candidates().push_back({rung, params, kernel});
  }
};

}  // namespace sgemm::autotune
