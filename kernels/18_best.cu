// Rung 18: the one call's choice. The ladder now has several FP32-accurate paths, and none is
// fastest everywhere: on an H200, rung 17's cluster-split CUDA-core tiles win at 128^3 to
// 512^3, where the tensor-core rungs' pre-passes and launches cost more than their products
// (rung 11 did before rung 17 existed); rung 15's 3xTF32 wins from about 1000^3 and on few-tile
// shapes; rung 16's INT8 Ozaki path wins on large cubes (docs/18_best.md has the numbers). A user
// should not have to know which. This rung runs no kernel of its own: per problem it predicts each
// candidate's time and answers the fastest (LaunchAnswer::run): the library runs that rung
// (kernels/ladder.inc, by name) and down its own fallback chain (kernels/fallbacks.inc): a
// candidate that cannot run the problem hands it on as it always does, and rung 16 hands inputs
// its certificate rejects to rung 15 by itself.
//
// The prediction is data, as rung 11's is, one level up: a table of every candidate's measured
// rate (GFLOP/s) on a log-spaced grid of shapes, one table per GPU measured
// (kernels/best/table_h200.inc, _h100.inc, written by scripts/autotune --best from a run of
// sgemm_best_rates; adding a candidate is a column of rates). The table measured on a GPU of the
// device's name serves it; on another GPU, the one measured on the GPU nearest it in balance
// (memory bandwidth per SM-GHz, the one fact in which the H200 and the H100 differ: the more a
// GPU has, the less rung 16's pre-passes and rung 15's split operands cost beside the products).
// Between grid shapes the rate is interpolated trilinearly in (log M, log N, log K), on log rates:
// a rate changes by factors, not by steps, as a dimension doubles, and a prediction that moves
// smoothly with the shape puts the switch from one path to the next between grid points, where the
// measurements cross, not at the edge of a cell as the nearest measured shape would. Beyond the
// grid's edges the rate is held: past 8192 a dimension adds waves of tiles at the rate the GPU has
// already reached. Rung 11 modelled its tiles from two constants each; a whole rung's rate has too
// many causes (pre-passes, waves, split-K, a certificate) for a model, so this one is measured
// where it is used.
//
// On any GPU but a Hopper (or in a build without 90) the table does not apply, and the model is
// the fallback table's: every candidate is sm_90a code and hands the problem on
// (kernels/fallbacks.inc, gpu_unsupported) to rung 13, 3xTF32 on mma.sync, the fastest
// FP32-accurate path of compute capability 8.0 on; rung 13 gives K below 16 to rung 9, and
// where there are no TF32 tensor cores (7.x) the problem goes to rung 9, then rung 8. What runs
// is decided by what the build holds and what the device is, as each rung answers.
//
// No workspace of its own and nothing on the device: the choice is host arithmetic on a few
// hundred numbers, a fraction of a microsecond beside the launches it picks. What does not change
// from call to call (the rates' logarithms, which column is rung 16, which columns are rungs) is
// worked out once per table (prepare), and a call allocates nothing: at 1024^3 the host's time
// per call is the product's business (tests/best_choice_cost_test.cpp counts the allocations).
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "best/best_choice.h"  // the table and the choice, as host code the CPU tests call
#include "best/best_tables.h"  // the tables compiled in, one per GPU measured: tables()
#include "launchers.h"         // Gemm, and the one launcher signature every rung shares
#include "rung_id.h"           // a column's rung: rung_id(name), RungId::ozaki_int8, its precision
#include "runtime/device.h"    // PerDevice: each device's table, found once

namespace sgemm::best {

size_t table_for(const std::vector<Table>& tables, const GpuProfile& device) {
  for (size_t i = 0; i < tables.size(); ++i)
    if (tables[i].gpu.name == device.name) return i;
  size_t nearest = 0;
  double distance = INFINITY;
  for (size_t i = 0; i < tables.size(); ++i) {
    const double a = tables[i].gpu.balance(), b = device.balance();
    if (a <= 0 || b <= 0) continue;
    const double d = std::abs(std::log(a / b));
    if (d < distance) nearest = i, distance = d;
  }
  return nearest;
}

namespace {

// Where x lies on an ascending axis: the grid point below it and the weight of the one above,
// in log x; held at the ends (weight 0 below the first point, 1 past the last).
struct Bracket {
  size_t lo, hi;
  double upper;
};

Bracket bracket(const std::vector<int>& axis, int x) {
  if (axis.size() < 2 || x <= axis.front()) return {0, 0, 0};
  if (x >= axis.back()) return {axis.size() - 2, axis.size() - 1, 1};
  const size_t lo = std::upper_bound(axis.begin(), axis.end(), x) - axis.begin() - 1;
  return {lo, lo + 1, std::log(double(x) / axis[lo]) / std::log(double(axis[lo + 1]) / axis[lo])};
}

}  // namespace

PreparedTable prepare(const Table& table) {
  PreparedTable p;
  p.table = &table;
  p.log_rates.reserve(table.rates.size());
  for (double rate : table.rates) p.log_rates.push_back(std::log(rate));
  for (const std::string& name : table.candidates) p.data_dependent.push_back(data_dependent(name));
  return p;
}

void predict_micros(const PreparedTable& prepared, int M, int N, int K, double* micros) {
  const Table& table = *prepared.table;
  const Bracket bm = bracket(table.Ms, M), bn = bracket(table.Ns, N), bk = bracket(table.Ks, K);
  const double flops = 2.0 * M * N * K;
  const size_t columns = table.candidates.size();
  // log_rates[...] is table.rate(m, n, k, c)'s logarithm: Table::rate's index
  const auto logRate = [&](size_t m, size_t n, size_t k, size_t c) {
    return prepared.log_rates[((m * table.Ns.size() + n) * table.Ks.size() + k) * columns + c];
  };
  for (size_t c = 0; c < columns; ++c) {
    double sum = 0;
    for (int corner = 0; corner < 8; ++corner) {  // bit 0: upper M, bit 1: upper N, bit 2: K
      const bool um = corner & 1, un = corner & 2, uk = corner & 4;
      const double w = (um ? bm.upper : 1 - bm.upper) * (un ? bn.upper : 1 - bn.upper) *
                       (uk ? bk.upper : 1 - bk.upper);
      if (w == 0) continue;  // an edge's outside corner, or a point exactly on the grid
      sum += w * logRate(um ? bm.hi : bm.lo, un ? bn.hi : bn.lo, uk ? bk.hi : bk.lo, c);
    }
    micros[c] = flops / (std::exp(sum) * 1e3);  // GFLOP/s = 1e3 FLOP per microsecond
  }
}

std::vector<double> predict_micros(const Table& table, int M, int N, int K) {
  std::vector<double> micros(table.candidates.size());
  predict_micros(prepare(table), M, N, K, micros.data());
  return micros;
}

bool data_dependent(const std::string& candidate) {
  return rung_id(candidate) == RungId::ozaki_int8;
}

int choose(const PreparedTable& prepared, int M, int N, int K, const std::vector<bool>& usable) {
  const size_t columns = prepared.table->candidates.size();
  std::array<double, kMaxCandidates> onStack;
  std::vector<double> onHeap(columns > kMaxCandidates ? columns : 0);  // (none, as compiled)
  double* micros = columns > kMaxCandidates ? onHeap.data() : onStack.data();
  predict_micros(prepared, M, N, K, micros);
  for (size_t c = 0; c < columns; ++c)
    if (prepared.data_dependent[c]) micros[c] *= kDataDependentMargin;
  int best = -1;
  for (size_t c = 0; c < columns; ++c)
    if ((usable.empty() || usable[c]) && (best < 0 || micros[c] < micros[best]))
      best = static_cast<int>(c);
  return best;
}

int choose(const Table& table, int M, int N, int K, const std::vector<bool>& usable) {
  return choose(prepare(table), M, N, K, usable);
}

namespace {

// A table's candidates as rungs, each column's name read into a RungId once: an FP32 rung other
// than this one, or nullopt (a column measured by a build that had a rung this one lacks).
struct Candidates {
  std::vector<std::optional<RungId>> rungs;
  std::vector<bool> usable;
  PreparedTable prepared;  // the table made ready for a choice per call
};

Candidates candidates_of(const Table& table) {
  Candidates f;
  f.prepared = prepare(table);
  for (const std::string& name : table.candidates) {
    std::optional<RungId> id = rung_id(name);
    if (id && (*id == RungId::best || rung_precision(*id) != Precision::fp32)) id.reset();
    f.rungs.push_back(id);
    f.usable.push_back(id.has_value());
  }
  return f;
}

// The current device as the choice of table reads it: its name, and its balance from the
// attributes the driver reports (peak memory bandwidth: two transfers per memory clock).
cudaError_t device_profile(int device, GpuProfile* out) {
  cudaDeviceProp prop;
  int sms = 0, mhz = 0, memoryKhz = 0, busBits = 0;
  cudaError_t err = cudaGetDeviceProperties(&prop, device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&mhz, cudaDevAttrClockRate, device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&memoryKhz, cudaDevAttrMemoryClockRate, device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&busBits, cudaDevAttrGlobalMemoryBusWidth, device);
  if (err != cudaSuccess) return err;
  *out = {prop.name, sms, mhz / 1000, 2.0 * memoryKhz * 1e3 * (busBits / 8) / 1e9};
  return cudaSuccess;
}

// The current device's table, found once per device.
cudaError_t current_table(size_t* index) {
  static runtime::PerDevice<size_t> found;
  return found.get(index, [](int device, size_t* out) {
    GpuProfile profile;
    const cudaError_t err = device_profile(device, &profile);
    if (err == cudaSuccess) *out = table_for(tables(), profile);
    return err;
  });
}

}  // namespace

runtime::LaunchAnswer launch(const Gemm& gemm,
                             cudaStream_t /*stream: the library runs the chosen rung on it*/) {
  static const std::vector<Candidates> all = [] {
    std::vector<Candidates> c;
    for (const Table& t : tables()) c.push_back(candidates_of(t));
    return c;
  }();
  size_t index = 0;
  const cudaError_t err = current_table(&index);
  if (err != cudaSuccess) return err;
  const Candidates& c = all[index];
  const int chosen = choose(c.prepared, gemm.M, gemm.N, gemm.K, c.usable);
  if (chosen < 0) return cudaErrorInvalidValue;  // no column is a rung: tests/best_table_test
  return runtime::LaunchAnswer::run(*c.rungs[chosen]);  // the library runs it, with its chain
}

}  // namespace sgemm::best
