// The inputs where FP32's componentwise bound is tightest, and the shapes they are checked at
// (gpu_inputs_test.cpp, gpu_planted_test.cpp).
#pragma once

#include <vector>

#include "harness.h"

namespace sgemm::testing {

// Small K (3, 7, 33, 129), odd shapes, a tall one, and K = 4096.
inline const std::vector<Shape>& hard_shapes() {
  static const std::vector<Shape> shapes = {{3, 5, 7},     {5, 3, 3},       {33, 17, 33},
                                            {64, 96, 129}, {4097, 33, 129}, {256, 192, 4096}};
  return shapes;
}

inline std::vector<Inputs> hard_inputs() {
  std::vector<Inputs> inputs;
  for (const char* name : {"uniform", "normal", "phi=0.5", "phi=1", "phi=2", "phi=4", "exponents=8",
                           "exponents=16", "span=8", "span=12", "span=16", "span=20", "span-b=8",
                           "span-b=16", "span-b=20", "big-column", "big-rows"})
    inputs.push_back(*parse_inputs(name));
  return inputs;
}

}  // namespace sgemm::testing
