// Rung 18's tables and choice, as host code (kernels/best/best_choice.h): no GPU needed. Every
// table compiled in is whole, names rungs that exist and the GPU it was measured on; a GPU gets its
// own table by name, another the nearest in balance; the interpolation reproduces what it
// should (grid points, rates that follow a power law, held edges); the choice takes the fastest.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "best/best_choice.h"
#include "registry.h"  // rung_info(): a rung by its typed handle
#include "sgemm/sgemm.h"

namespace sgemm::best {
namespace {

// Each test of the tables compiled in runs on every one of them.
class EveryTable : public ::testing::TestWithParam<size_t> {
 protected:
  const Table& table() const { return tables().at(GetParam()); }
};

TEST(BestTables, OnePerGpuMeasuredEachNamed) {
  ASSERT_GE(tables().size(), 2u) << "the H200's and the H100's";
  for (size_t i = 0; i < tables().size(); ++i) {
    const GpuProfile& g = tables()[i].gpu;
    EXPECT_FALSE(g.name.empty());
    EXPECT_GT(g.sms, 0) << g.name;
    EXPECT_GT(g.clock_mhz, 0) << g.name;
    for (size_t j = 0; j < i; ++j) EXPECT_NE(tables()[j].gpu.name, g.name) << "one table a GPU";
    EXPECT_EQ(table_for(tables(), g), i) << g.name << " gets its own table";
  }
}

TEST_P(EveryTable, IsWhole) {
  const Table& t = table();
  EXPECT_FALSE(t.source.empty());
  ASSERT_FALSE(t.candidates.empty());
  for (const std::vector<int>* axis : {&t.Ms, &t.Ns, &t.Ks}) {
    ASSERT_GE(axis->size(), 2u) << "an axis needs two points to interpolate between";
    EXPECT_GE(axis->front(), 1);
    for (size_t i = 1; i < axis->size(); ++i) EXPECT_LT((*axis)[i - 1], (*axis)[i]) << "sorted";
  }
  EXPECT_EQ(t.rows, t.Ms.size() * t.Ns.size() * t.Ks.size()) << "one BEST_RATE per grid shape";
  for (size_t m = 0; m < t.Ms.size(); ++m)
    for (size_t n = 0; n < t.Ns.size(); ++n)
      for (size_t k = 0; k < t.Ks.size(); ++k)
        for (size_t c = 0; c < t.candidates.size(); ++c) {
          const double r = t.rate(m, n, k, c);
          EXPECT_TRUE(std::isfinite(r) && r > 0)
              << t.candidates[c] << " at " << t.Ms[m] << "x" << t.Ns[n] << "x" << t.Ks[k] << ": "
              << r << " (a row missing, off the grid, or with the wrong column count)";
        }
}

TEST_P(EveryTable, CandidatesAreOtherFp32Rungs) {
  for (const std::string& name : table().candidates) {
    const std::optional<RungId> id = rung_id(name);
    ASSERT_TRUE(id.has_value()) << "'" << name << "' is not in kernels/ladder.inc";
    EXPECT_EQ(rung_info(*id).precision, Precision::fp32) << name;
    EXPECT_NE(*id, RungId::best) << "rung 18 cannot choose itself";
  }
}

// A data-dependent candidate's rate counts kDataDependentMargin times less (best_choice.h).
TEST_P(EveryTable, AtAGridShapeTheFastestMeasuredRateWins) {
  const Table& t = table();
  for (size_t m = 0; m < t.Ms.size(); ++m)
    for (size_t n = 0; n < t.Ns.size(); ++n)
      for (size_t k = 0; k < t.Ks.size(); ++k) {
        auto counted = [&](size_t c) {
          const double r = t.rate(m, n, k, c);
          return data_dependent(t.candidates[c]) ? r / kDataDependentMargin : r;
        };
        size_t fastest = 0;
        for (size_t c = 1; c < t.candidates.size(); ++c)
          if (counted(c) > counted(fastest)) fastest = c;
        EXPECT_EQ(choose(t, t.Ms[m], t.Ns[n], t.Ks[k]), int(fastest))
            << t.Ms[m] << "x" << t.Ns[n] << "x" << t.Ks[k];
      }
}

TEST_P(EveryTable, PredictionsArePositiveAndFinite) {
  const Table& t = table();
  for (int s : {1, 100, 128, 1000, 4095, 16384, 100000}) {
    const std::vector<double> micros = predict_micros(t, s, s, s);
    ASSERT_EQ(micros.size(), t.candidates.size());
    for (size_t c = 0; c < micros.size(); ++c)
      EXPECT_TRUE(std::isfinite(micros[c]) && micros[c] > 0) << s << " " << t.candidates[c];
  }
}

INSTANTIATE_TEST_SUITE_P(Compiled, EveryTable, ::testing::Range<size_t>(0, tables().size()),
                         [](const ::testing::TestParamInfo<size_t>& p) {
                           std::string name = tables()[p.param].gpu.name;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// Three GPUs of one SM count and clock, told apart by bandwidth (GB/s per SM-GHz: 10, 20, 40).
std::vector<Table> three_gpus() {
  std::vector<Table> t(3);
  t[0].gpu = {"A", 100, 1000, 1000};
  t[1].gpu = {"B", 100, 1000, 2000};
  t[2].gpu = {"C", 100, 1000, 4000};
  return t;
}

TEST(BestTableFor, ByNameFirst) {
  const std::vector<Table> t = three_gpus();
  EXPECT_EQ(table_for(t, {"C", 1, 1, 1}), 2u) << "a name match wins whatever the balance";
  EXPECT_EQ(table_for(t, {"B", 0, 0, 0}), 1u);
}

TEST(BestTableFor, ElseTheNearestBalanceInLog) {
  const std::vector<Table> t = three_gpus();
  EXPECT_EQ(table_for(t, {"X", 100, 1000, 1300}), 0u);
  EXPECT_EQ(table_for(t, {"X", 100, 1000, 1500}), 1u) << "1500 is nearer 2000 than 1000 in log";
  EXPECT_EQ(table_for(t, {"X", 50, 1000, 2000}), 2u) << "half the SMs: twice the balance";
  EXPECT_EQ(table_for(t, {"X", 100, 1000, 1e6}), 2u) << "held at the ends";
}

TEST(BestTableFor, UnknownBalanceTakesTheFirst) {
  std::vector<Table> t = three_gpus();
  EXPECT_EQ(table_for(t, {"X", 100, 1000, 0}), 0u) << "the device's bandwidth unknown";
  t[0].gpu.bandwidth_gbs = 0;
  EXPECT_EQ(table_for(t, {"X", 100, 1000, 1000}), 1u) << "a table of unknown balance is skipped";
  for (Table& x : t) x.gpu.bandwidth_gbs = 0;
  EXPECT_EQ(table_for(t, {"X", 100, 1000, 1000}), 0u);
}

// A synthetic table: two candidates on a 3 x 3 x 3 grid, whose rates follow power laws.
Table synthetic() {
  Table t;
  t.candidates = {"slow_start", "fast_start"};
  t.Ms = t.Ns = {100, 400, 1600};
  t.Ks = {100, 1000, 10000};
  for (int M : t.Ms)
    for (int N : t.Ns)
      for (int K : t.Ks) {
        // GFLOP/s: one grows with the problem, the other is flat
        t.rates.push_back(0.01 * std::pow(double(M) * N * K, 0.5));
        t.rates.push_back(1000);
      }
  t.rows = t.rates.size() / 2;
  return t;
}

TEST(BestChoice, AtGridPointsTheMeasuredRate) {
  const Table t = synthetic();
  const std::vector<double> us = predict_micros(t, 400, 1600, 1000);
  EXPECT_NEAR(us[0], 2.0 * 400 * 1600 * 1000 / (t.rate(1, 2, 1, 0) * 1e3), 1e-9 * us[0]);
  EXPECT_NEAR(us[1], 2.0 * 400 * 1600 * 1000 / 1e6, 1e-9 * us[1]);
}

TEST(BestChoice, BetweenGridPointsAPowerLawIsExact) {
  // Trilinear in log M, log N, log K on log rates reproduces any rate c M^a N^b K^g exactly.
  const Table t = synthetic();
  for (const auto& [M, N, K] : {std::tuple{150, 900, 333}, {1000, 123, 5000}, {777, 777, 777}}) {
    const double rate = 0.01 * std::pow(double(M) * N * K, 0.5);
    EXPECT_NEAR(predict_micros(t, M, N, K)[0], 2.0 * M * N * K / (rate * 1e3),
                1e-9 * predict_micros(t, M, N, K)[0])
        << M << "x" << N << "x" << K;
  }
}

TEST(BestChoice, BeyondTheEdgesTheRateIsHeld) {
  const Table t = synthetic();
  const double edge = predict_micros(t, 1600, 1600, 10000)[0];
  EXPECT_NEAR(predict_micros(t, 6400, 1600, 10000)[0], 4 * edge, 1e-9 * edge);
  const double corner = predict_micros(t, 100, 100, 100)[0];
  EXPECT_NEAR(predict_micros(t, 10, 100, 50)[0], corner / 20, 1e-9 * corner);
}

TEST(BestChoice, TakesTheFastestUsableFirstOnATie) {
  const Table t = synthetic();
  // Small problems: the flat 1000 GFLOP/s is faster; large ones: the growing rate.
  EXPECT_EQ(choose(t, 100, 100, 100), 1);
  EXPECT_EQ(choose(t, 1600, 1600, 10000), 0);
  EXPECT_EQ(choose(t, 1600, 1600, 10000, {false, true}), 1);
  EXPECT_EQ(choose(t, 1600, 1600, 10000, {false, false}), -1);
  Table tie = t;
  for (size_t i = 0; i < tie.rates.size(); i += 2) tie.rates[i] = tie.rates[i + 1];
  EXPECT_EQ(choose(tie, 400, 400, 1000), 0);
}

// Rung 16 (RungId::ozaki_int8) is chosen only where it is predicted kDataDependentMargin times
// faster than the best other candidate; any other candidate, where it is faster at all.
TEST(BestChoice, ADataDependentCandidateNeedsItsMargin) {
  const std::string rung15 = rung_name(RungId::every_shape_3xtf32);
  const std::string rung16 = rung_name(RungId::ozaki_int8);
  ASSERT_TRUE(data_dependent(rung16));
  ASSERT_FALSE(data_dependent(rung15));
  ASSERT_GT(kDataDependentMargin, 1.0);
  Table t;
  t.candidates = {rung15, rung16};
  t.Ms = t.Ns = t.Ks = {100, 1000};
  for (double gain :
       {1.05, 1.0 + (kDataDependentMargin - 1) / 2, kDataDependentMargin * 1.01, 1.5}) {
    t.rates.clear();
    for (int i = 0; i < 8; ++i) t.rates.insert(t.rates.end(), {1000, 1000 * gain});
    t.rows = 8;
    EXPECT_EQ(choose(t, 300, 300, 300), gain > kDataDependentMargin ? 1 : 0) << gain;
    Table plain = t;
    plain.candidates[1] = "shape_only";
    EXPECT_EQ(choose(plain, 300, 300, 300), 1) << gain;
  }
}

}  // namespace
}  // namespace sgemm::best
