// The JSON and tables of report.h: a row that was not checked never says it passed. Host
// only, so these run on every machine.
#include "report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "rung_id.h"

namespace sgemm {
namespace {

Measurement row(bool checked, bool pass, const std::string& text) {
  Measurement m;
  m.rung = 1;
  m.name = rung_name(RungId::naive);
  m.problem = {{16, 16, 16}};
  m.checked = checked;
  m.pass = pass;
  m.check_text = text;
  return m;
}

// The rows of the JSON write_json writes, read back.
nlohmann::json results_of(const std::vector<Measurement>& rows) {
  // One file per test: ctest runs the tests as parallel processes.
  const std::string path = ::testing::TempDir() + "sgemm_report_test_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                           ".json";
  write_json(path, GpuInfo{}, rows);
  std::ifstream in(path);
  return nlohmann::json::parse(in).at("results");
}

TEST(ReportJson, PassIsNullWhenNothingWasChecked) {
  const nlohmann::json r = results_of({row(false, true, "not checked (--check none)")})[0];
  EXPECT_EQ(r.at("checked"), false);
  EXPECT_TRUE(r.at("pass").is_null()) << r;
}

TEST(ReportJson, AnImpossibleCheckIsAFailure) {
  const nlohmann::json r = results_of({row(false, false, "the exact check cannot run")})[0];
  EXPECT_EQ(r.at("pass"), false) << r;
}

TEST(ReportJson, CheckedRowsSayPassOrFail) {
  const nlohmann::json r = results_of({row(true, true, "exact PASS"), row(true, false, "FAIL")});
  EXPECT_EQ(r[0].at("pass"), true);
  EXPECT_EQ(r[1].at("pass"), false);
}

TEST(ReportJson, NumbersThatAreNotFiniteAreNull) {
  Measurement m = row(true, false, "FAIL");
  m.max_abs_error = INFINITY;  // what a NaN in the result gives
  const nlohmann::json r = results_of({m})[0];
  EXPECT_TRUE(r.at("max_abs_error").is_null()) << r;
}

TEST(ReportTable, SummarySaysFailOrDashNeverPassForUnchecked) {
  std::ostringstream out;
  print_summary(out, {row(false, true, "not checked"), row(false, false, "cannot run")});
  EXPECT_EQ(out.str().find("PASS"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("FAIL"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace sgemm
