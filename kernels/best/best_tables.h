// Rung 18's tables as compiled in: each GPU's kernels/best/table_<gpu>.inc read into a
// Table (best_choice.h), its rows placed on the grid. Host code that no rung teaches (the
// tables are data; kernels/18_best.cu teaches how they are used). Included by
// kernels/18_best.cu alone; scripts/autotune --best writes the tables.
#pragma once

#include <algorithm>
#include <vector>

#include "best_choice.h"  // Table, GpuProfile

namespace sgemm::best {

namespace {

struct Row {
  int M, N, K;
  std::vector<double> rates;
};

// Each row to its place in the grid; a row off the grid, or with a rate too many or too few, is
// left out, and a shape with no row keeps rates of 0 (tests/best_table_test.cpp finds both).
Table placed(Table t, const std::vector<Row>& rows) {
  const size_t C = t.candidates.size();
  t.rates.assign(t.Ms.size() * t.Ns.size() * t.Ks.size() * C, 0.0);
  auto at = [](const std::vector<int>& axis, int x) {
    return static_cast<size_t>(std::find(axis.begin(), axis.end(), x) - axis.begin());
  };
  t.rows = rows.size();
  for (const Row& r : rows) {
    const size_t m = at(t.Ms, r.M), n = at(t.Ns, r.N), k = at(t.Ks, r.K);
    if (m == t.Ms.size() || n == t.Ns.size() || k == t.Ks.size() || r.rates.size() != C) continue;
    std::copy(r.rates.begin(), r.rates.end(),
              t.rates.begin() + ((m * t.Ns.size() + n) * t.Ks.size() + k) * C);
  }
  return t;
}

}  // namespace

const std::vector<Table>& tables() {
  static const std::vector<Table> built = [] {
    std::vector<Table> all;
#define BEST_GPU(name, sms, mhz, gbs) t.gpu = {name, sms, mhz, gbs};
#define BEST_SOURCE(text) t.source = text;
#define BEST_CANDIDATES(...) t.candidates = {__VA_ARGS__};
#define BEST_AXIS(axis, ...) t.axis = {__VA_ARGS__};
#define BEST_RATE(M, N, K, ...) rows.push_back({M, N, K, {__VA_ARGS__}});
    {  // the H200's: the first, the one the docs' predictions show
      Table t;
      std::vector<Row> rows;
#include "table_h200.inc"
      all.push_back(placed(t, rows));
    }
    {
      Table t;
      std::vector<Row> rows;
#include "table_h100.inc"
      all.push_back(placed(t, rows));
    }
#undef BEST_GPU
#undef BEST_SOURCE
#undef BEST_CANDIDATES
#undef BEST_AXIS
#undef BEST_RATE
    return all;
  }();
  return built;
}

}  // namespace sgemm::best
