// The eight operations of BLAS's general form that sgemm.h offers, for the tests that run each:
// both layouts, every op(A), op(B).
#pragma once

#include <vector>

#include "sgemm/sgemm.h"

namespace sgemm::testing {

inline std::vector<Operation> every_operation() {
  std::vector<Operation> out;
  for (Layout layout : {Layout::row_major, Layout::col_major})
    for (Op a : {Op::N, Op::T})
      for (Op b : {Op::N, Op::T}) out.push_back(Operation{layout, a, b});
  return out;
}

}  // namespace sgemm::testing
