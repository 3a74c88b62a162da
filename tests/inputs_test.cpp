// The input distributions' names (runner/inputs.h), as --inputs and the JSON read and write
// them. Host code: runs without a GPU.
#include "inputs.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace sgemm::testing {
namespace {

TEST(Inputs, EveryNameReadsBackAsItself) {
  for (const char* name : {"uniform", "grid", "normal", "phi=0", "phi=0.5", "phi=4", "phi=8",
                           "big-column", "big-rows", "span=0", "span=20", "span-b=16",
                           "exponents=8", "exponents=60", "k-scales=0", "k-scales=40"}) {
    const std::optional<Inputs> in = parse_inputs(name);
    ASSERT_TRUE(in.has_value()) << name;
    EXPECT_EQ(in->name(), name);
  }
}

TEST(Inputs, TheDefaultIsFullPrecisionUniform) {
  EXPECT_EQ(Inputs{}.distribution, Distribution::uniform);
  EXPECT_EQ(Inputs{}.name(), "uniform");
}

TEST(Inputs, BadNamesAndParametersAreRefused) {
  for (const char* name :
       {"", "Uniform", "phi", "phi=", "phi=-1", "phi=8.5", "phi=x", "phi=1x", "span=1.5", "span=61",
        "exponents=-2", "normal=1", "wide_range", "k-scales", "k-scales=61", "k-scales=2.5"})
    EXPECT_FALSE(parse_inputs(name).has_value()) << name;
}

TEST(Inputs, TheAccuracyReportCoversWideRanges) {
  bool phi4 = false, normal = false;
  for (const Inputs& in : accuracy_inputs()) {
    phi4 |= in.distribution == Distribution::phi && in.parameter == 4;
    normal |= in.distribution == Distribution::normal;
  }
  EXPECT_TRUE(phi4);
  EXPECT_TRUE(normal);
}

}  // namespace
}  // namespace sgemm::testing
