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

struct Registrar {
  Registrar(int rung, const char* params, Kernel kernel) {
    candidates().push_back({rung, params, std::move(kernel)});
  }
};

}  // namespace sgemm::autotune
