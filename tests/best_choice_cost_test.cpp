// Rung 18's choice as its launcher makes it on every call (kernels/best/best_choice.h:
// PreparedTable): no heap allocation, and the same predictions, bit for bit, as the arithmetic it
// replaced (each rate's logarithm taken per call, the predictions in a vector). No GPU needed.
// The test counts operator new in this executable alone: it replaces the global one.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "best/best_choice.h"
#include "rung_id.h"  // rung_id: the reference's way of finding rung 16, by name

namespace {
std::atomic<long> allocations{0};  // operator new calls, all threads
}  // namespace

void* operator new(std::size_t bytes) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(bytes ? bytes : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace sgemm::best {
namespace {

// The choice as rung 18 made it before PreparedTable: the logarithms per call, a vector of
// predictions, each column's name read per call.
std::vector<double> reference_micros(const Table& t, int M, int N, int K) {
  struct Bracket {
    size_t lo, hi;
    double upper;
  };
  auto bracket = [](const std::vector<int>& axis, int x) -> Bracket {
    if (axis.size() < 2 || x <= axis.front()) return {0, 0, 0};
    if (x >= axis.back()) return {axis.size() - 2, axis.size() - 1, 1};
    size_t lo = 0;
    while (axis[lo + 1] <= x) ++lo;
    return {lo, lo + 1, std::log(double(x) / axis[lo]) / std::log(double(axis[lo + 1]) / axis[lo])};
  };
  const Bracket bm = bracket(t.Ms, M), bn = bracket(t.Ns, N), bk = bracket(t.Ks, K);
  std::vector<double> micros;
  for (size_t c = 0; c < t.candidates.size(); ++c) {
    double logRate = 0;
    for (int corner = 0; corner < 8; ++corner) {
      const bool um = corner & 1, un = corner & 2, uk = corner & 4;
      const double w = (um ? bm.upper : 1 - bm.upper) * (un ? bn.upper : 1 - bn.upper) *
                       (uk ? bk.upper : 1 - bk.upper);
      if (w == 0) continue;
      logRate +=
          w * std::log(t.rate(um ? bm.hi : bm.lo, un ? bn.hi : bn.lo, uk ? bk.hi : bk.lo, c));
    }
    micros.push_back(2.0 * M * N * K / (std::exp(logRate) * 1e3));
  }
  return micros;
}

int reference_choice(const Table& t, int M, int N, int K) {
  std::vector<double> micros = reference_micros(t, M, N, K);
  int best = -1;
  for (size_t c = 0; c < micros.size(); ++c) {
    if (rung_id(t.candidates[c]) == RungId::ozaki_int8) micros[c] *= kDataDependentMargin;
    if (best < 0 || micros[c] < micros[best]) best = static_cast<int>(c);
  }
  return best;
}

// Shapes inside, on and beyond every table's grid: odd sizes, grid points, thin and deep.
std::vector<int> sizes() {
  std::vector<int> s;
  for (int x = 1; x <= 100000; x = x * 3 / 2 + 1) s.push_back(x);
  for (int x : {128, 256, 1000, 1024, 4096, 8192, 65536}) s.push_back(x);
  return s;
}

TEST(BestChoiceCost, TheCompiledTablesFitTheStack) {
  for (const Table& t : tables()) EXPECT_LE(t.candidates.size(), kMaxCandidates) << t.gpu.name;
}

TEST(BestChoiceCost, PreparedPredictionsAreTheOldOnesBitForBit) {
  const std::vector<int> s = sizes();
  for (const Table& t : tables()) {
    const PreparedTable p = prepare(t);
    std::vector<double> micros(t.candidates.size());
    for (int M : s)
      for (int N : s)
        for (int K : s) {
          predict_micros(p, M, N, K, micros.data());
          const std::vector<double> expected = reference_micros(t, M, N, K);
          ASSERT_EQ(std::memcmp(micros.data(), expected.data(), micros.size() * sizeof(double)), 0)
              << t.gpu.name << " at " << M << "x" << N << "x" << K;
          ASSERT_EQ(choose(p, M, N, K), reference_choice(t, M, N, K))
              << t.gpu.name << " at " << M << "x" << N << "x" << K;
          ASSERT_EQ(choose(t, M, N, K), reference_choice(t, M, N, K));
        }
  }
}

TEST(BestChoiceCost, AChoiceAllocatesNothing) {
  const std::vector<int> s = sizes();
  for (const Table& t : tables()) {
    const PreparedTable p = prepare(t);
    const std::vector<bool> usable(t.candidates.size(), true);  // as the launcher passes it
    int sum = 0;
    const long before = allocations.load();
    for (int M : s)
      for (int N : s) sum += choose(p, M, N, 1024, usable) + choose(p, M, 1024, N);
    EXPECT_EQ(allocations.load() - before, 0) << t.gpu.name;
    EXPECT_GE(sum, 0);
  }
  // The counter counts: the table-taking form prepares a table, and that allocates.
  const long before = allocations.load();
  EXPECT_GE(choose(tables().front(), 1024, 1024, 1024), 0);
  EXPECT_GT(allocations.load() - before, 0) << "operator new is not counted";
}

// Not a check: the time of one choice, prepared and as before, printed for the record.
TEST(BestChoiceCost, TimePerChoice) {
  const Table& t = tables().front();
  const PreparedTable p = prepare(t);
  const std::vector<int> s = sizes();
  auto per_choice_ns = [&](auto choice) {
    volatile int sink = 0;
    long calls = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int round = 0; round < 20; ++round)
      for (int M : s)
        for (int N : s) sink = sink + choice(M, N, 1024), ++calls;
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
               .count() /
           calls;
  };
  const double prepared = per_choice_ns([&](int M, int N, int K) { return choose(p, M, N, K); });
  const double before =
      per_choice_ns([&](int M, int N, int K) { return reference_choice(t, M, N, K); });
  std::printf("rung 18's choice on %s's table: %.0f ns prepared, %.0f ns as before\n",
              t.gpu.name.c_str(), prepared, before);
  RecordProperty("prepared_ns", std::to_string(prepared));
  RecordProperty("before_ns", std::to_string(before));
}

}  // namespace
}  // namespace sgemm::best
