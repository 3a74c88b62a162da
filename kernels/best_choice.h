// Rung 18's choice as host code: the table of measured rates (kernels/18_best_table.inc,
// written by scripts/autotune --best) and the predictions made from it. No CUDA here, so that
// tests/best_table_test.cpp checks the table and the choice on a machine without a GPU, and
// sgemm_best_rates --predict prints what the launcher would choose.
#pragma once

#include <string>
#include <vector>

namespace sgemm::best {

// Rates measured on a grid of shapes: every (M, N, K) with M from Ms, N from Ns, K from Ks,
// and for each, the GFLOP/s of every candidate. A candidate is a rung of kernels/ladder.inc,
// by name; adding one is a column of rates.
struct Table {
  std::vector<std::string> candidates;  // the columns: rung names
  std::vector<int> Ms, Ns, Ks;          // each axis, ascending
  // rates[((m * Ns.size() + n) * Ks.size() + k) * candidates.size() + c]: GFLOP/s of candidate
  // c at (Ms[m], Ns[n], Ks[k]); 0 where the table has no row for that shape
  std::vector<double> rates;
  std::string source;  // where the numbers come from (BEST_SOURCE)
  size_t rows = 0;     // BEST_RATE lines read: one per grid shape when the table is whole

  double rate(size_t m, size_t n, size_t k, size_t c) const {
    return rates[((m * Ns.size() + n) * Ks.size() + k) * candidates.size() + c];
  }
};

// The table compiled into the library (kernels/18_best_table.inc).
const Table& table();

// Each candidate's predicted time for an M x N x K product, in microseconds, in the table's
// column order: its rate interpolated trilinearly in (log M, log N, log K) between the eight
// grid shapes around the problem, on log rates, and held at the grid's edges; then the
// problem's 2MNK FLOPs at that rate.
std::vector<double> predict_micros(const Table& table, int M, int N, int K);

// The column with the fastest prediction among those `usable` allows (all when it is empty);
// the first on a tie; -1 when none is usable.
int choose(const Table& table, int M, int N, int K, const std::vector<bool>& usable = {});

}  // namespace sgemm::best
