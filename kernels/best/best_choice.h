// Rung 18's choice as host code: the tables of measured rates, one per GPU measured
// (kernels/best/table_<gpu>.inc, written by scripts/autotune --best), which of them serves a
// GPU, and the predictions made from it. No CUDA here, so that
// tests/best_table_test.cpp checks the table and the choice on a machine without a GPU, and
// sgemm_best_rates --predict prints what the launcher would choose.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace sgemm::best {

// The GPU a table was measured on, or the one a launch runs on: what the choice of table reads.
struct GpuProfile {
  std::string name;          // as the driver names it, e.g. "NVIDIA H100 80GB HBM3"
  int sms = 0;               // multiprocessors
  int clock_mhz = 0;         // the rated maximum SM clock
  double bandwidth_gbs = 0;  // peak memory bandwidth, GB/s (0: not known)
  // Memory bandwidth per unit of arithmetic: GB/s per SM-GHz; 0 when a fact is missing.
  double balance() const {
    return sms > 0 && clock_mhz > 0 ? bandwidth_gbs / (sms * clock_mhz * 1e-3) : 0;
  }
};

// Rates measured on a grid of shapes: every (M, N, K) with M from Ms, N from Ns, K from Ks,
// and for each, the GFLOP/s of every candidate. A candidate is a rung of kernels/ladder.inc,
// by name; adding one is a column of rates.
struct Table {
  GpuProfile gpu;                       // where the rates were measured (BEST_GPU)
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

// The tables compiled into the library, one per GPU measured (kernels/best/table_*.inc);
// the first is the one the docs' predictions and a GPU of no known balance use.
const std::vector<Table>& tables();

// Which table serves `device`: the one measured on a GPU of the same name; else a model, the
// one whose GPU is nearest in balance (memory bandwidth per SM-GHz, compared in log): whether a
// path's pre-passes and reads or its arithmetic set its time is what moves the crossings
// between paths from one GPU to the next (the H200 and the H100 differ in bandwidth alone);
// else, with the balance unknown, the first.
size_t table_for(const std::vector<Table>& tables, const GpuProfile& device);

// Each candidate's predicted time for an M x N x K product, in microseconds, in the table's
// column order: its rate interpolated trilinearly in (log M, log N, log K) between the eight
// grid shapes around the problem, on log rates, and held at the grid's edges; then the
// problem's 2MNK FLOPs at that rate.
std::vector<double> predict_micros(const Table& table, int M, int N, int K);

// A candidate whose speed depends on the values, not only the shape, must be predicted this
// much faster than the best other to be chosen. The table's rates are of uniform inputs; rung
// 16's certificate sends wide-range rows and columns to rung 15 after its own pre-pass, and on
// such inputs (results/h200/rung16_inputs.json) it ran 0.94-0.97x rung 15's speed where it ran
// 1.00-1.23x on uniform ones. Past this margin its gain on well-scaled inputs (1.19-1.37x at
// 8192^3 and 16384^3) outweighs that loss; below it, rung 15's speed holds for any inputs. The
// margin also covers the interpolation's error on rung 16, whose rate swings with the shape's
// alignment more than the grid shows (6000^3: 193% of cuBLAS SGEMM measured, ~235% predicted).
constexpr double kDataDependentMargin = 1.10;
bool data_dependent(const std::string& candidate);  // rung 16 (RungId::ozaki_int8)
// The column with the fastest prediction among those `usable` allows (all when it is empty),
// a data-dependent column's time taken kDataDependentMargin times longer; the first on a tie;
// -1 when none is usable.
int choose(const Table& table, int M, int N, int K, const std::vector<bool>& usable = {});

// ---- The choice on every call (rung 18's launcher): nothing allocated, no name compared.

// A table made ready once for the choices made from it: each rate's logarithm (the
// interpolation is on log rates) and which columns are data-dependent, so that a prediction is
// arithmetic on numbers at hand. predict_micros and choose on a Table prepare it and run
// through these, so that both give the same numbers, bit for bit.
struct PreparedTable {
  const Table* table = nullptr;      // must outlive this
  std::vector<double> log_rates;     // std::log of table->rates, in the same order
  std::vector<bool> data_dependent;  // data_dependent(candidates[c]), per column
};
PreparedTable prepare(const Table& table);

// predict_micros into micros[0, candidates.size()).
void predict_micros(const PreparedTable& prepared, int M, int N, int K, double* micros);

// Up to this many columns the choice holds its predictions on the stack; a table with more
// allocates them (tests/best_choice_cost_test.cpp checks that the tables compiled in have no
// more).
constexpr size_t kMaxCandidates = 8;
int choose(const PreparedTable& prepared, int M, int N, int K,
           const std::vector<bool>& usable = {});

}  // namespace sgemm::best
