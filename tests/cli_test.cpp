// The `sgemm` command line (cli.h): what each flag sets, and that bad input gets an error
// naming the problem. Parsing only, so these run without a GPU.
#include "cli.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"
#include "sgemm/sgemm.h"

namespace sgemm {
namespace {

ParseResult parse(const std::vector<std::string>& args) { return parse_args(args); }

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return text;
}

// Parsing fails with an error that mentions `what` (ignoring case).
void expect_error(const std::vector<std::string>& args, const std::string& what) {
  std::string line;
  for (const std::string& a : args) line += " " + a;
  SCOPED_TRACE("sgemm" + line);
  ParseResult r = parse(args);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(lower(r.error).find(lower(what)), std::string::npos)
      << "error should mention '" << what << "': " << r.error;
}

// A rung that exists, as text; the tests never assume how long the ladder is.
std::string last_rung() { return std::to_string(rungs().back().number); }

// The numbers of the runnables a parse resolved.
std::vector<int> numbers(const std::vector<const Runnable*>& resolved) {
  std::vector<int> out;
  for (const Runnable* r : resolved) out.push_back(r->number);
  return out;
}

TEST(Cli, OneRungKeepsTheDefaults) {
  ParseResult r = parse({last_rung()});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(numbers(r.options.rungs), std::vector<int>{rungs().back().number});
  EXPECT_FALSE(r.options.all);
  EXPECT_EQ(r.options.run.alpha, 1.f);
  EXPECT_EQ(r.options.run.beta, 0.f);
  EXPECT_EQ(r.options.run.pad, 0);
  EXPECT_EQ(r.options.run.checks, ChecksToRun::both);
  EXPECT_TRUE(r.options.run.json_path.empty());
  EXPECT_EQ(r.options.run.device, 0);
  EXPECT_FALSE(r.options.list);
  EXPECT_TRUE(r.help.empty());
}

TEST(Cli, SeveralRungsInOrder) {
  const int first = rungs().front().number, last = rungs().back().number;
  ParseResult r = parse({std::to_string(last), std::to_string(first)});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(numbers(r.options.rungs), (std::vector<int>{last, first}));
}

TEST(Cli, AllRunsTheLadder) {
  ParseResult r = parse({"all"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.options.all);
}

TEST(Cli, RungZeroIsCublas) {
  ParseResult r = parse({"0"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(numbers(r.options.rungs), std::vector<int>{0});
}

TEST(Cli, RungsByNameAndTheTf32Reference) {
  ParseResult r = parse({"cublas_tf32", rungs().back().name, "cublas", "-1"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(numbers(r.options.rungs),
            (std::vector<int>{kCublasTf32Rung, rungs().back().number, kCublasRung, -1}));
}

TEST(Cli, AccuracyIsAFlag) {
  EXPECT_FALSE(parse({"1"}).options.accuracy);
  ParseResult r = parse({"1", "--accuracy"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.options.accuracy);
}

TEST(Cli, UnknownRungIsNamed) {
  expect_error({"99"}, "99");
  expect_error({std::to_string(rungs().back().number + 1)},
               std::to_string(rungs().back().number + 1));
  expect_error({"-2"}, "-2");
  expect_error({"naiv"}, "naiv");  // a name must be whole
}

TEST(Cli, SizesAreSquareShapes) {
  ParseResult r = parse({"1", "--sizes", "128,1000"});
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.options.run.shapes.size(), 2u);
  for (int n = 0; n < 2; ++n) {
    const Shape& s = r.options.run.shapes[n];
    const int size = n == 0 ? 128 : 1000;
    EXPECT_EQ(s.M, size);
    EXPECT_EQ(s.N, size);
    EXPECT_EQ(s.K, size);
  }
}

TEST(Cli, MnkTakesTheBenchmarkSpellingAndLists) {
  ParseResult r = parse({"1", "--mnk", "4096x4096x4096", "--mnk=8,9,10;11x12x13"});
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.options.run.shapes.size(), 3u);
  EXPECT_EQ(r.options.run.shapes[0].str(), "4096x4096x4096");
  EXPECT_EQ(r.options.run.shapes[1].str(), "8x9x10");
  EXPECT_EQ(r.options.run.shapes[2].str(), "11x12x13");
}

TEST(Cli, AnImpossibleCheckIsRefusedBeforeAnyGpuWork) {
  expect_error({"1", "--check", "exact", "--alpha", "3e37", "--sizes", "8"}, "alpha = 3e+37");
  EXPECT_TRUE(parse({"1", "--check", "both", "--alpha", "3e37", "--sizes", "8"}).ok())
      << "with both, the random check still runs";
}

TEST(Cli, MnkGivesNonSquareShapesAndRepeats) {
  ParseResult r = parse({"1", "--mnk", "100,200,300", "--mnk", "7,1,4096"});
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.options.run.shapes.size(), 2u);
  EXPECT_EQ(r.options.run.shapes[0].M, 100);
  EXPECT_EQ(r.options.run.shapes[0].N, 200);
  EXPECT_EQ(r.options.run.shapes[0].K, 300);
  EXPECT_EQ(r.options.run.shapes[1].M, 7);
  EXPECT_EQ(r.options.run.shapes[1].N, 1);
  EXPECT_EQ(r.options.run.shapes[1].K, 4096);
}

TEST(Cli, ScalarsAcceptNegativeValues) {
  ParseResult r = parse({"1", "--alpha", "0.5", "--beta", "-1"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.options.run.alpha, 0.5f);
  EXPECT_EQ(r.options.run.beta, -1.f);
}

TEST(Cli, NumericFlags) {
  ParseResult r = parse({"1", "--pad", "4", "--reps", "7", "--warmup", "2", "--block-ms", "40",
                         "--device", "1", "--seed", "12345678901"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.options.run.pad, 4);
  EXPECT_EQ(r.options.run.timing.reps, 7);
  EXPECT_EQ(r.options.run.timing.warmup, 2);
  EXPECT_EQ(r.options.run.timing.block_ms, 40);
  EXPECT_EQ(r.options.run.device, 1);
  EXPECT_EQ(r.options.run.seed, 12345678901ull);  // 64-bit seeds
}

TEST(Cli, TimingDefaultsAreTheHarnesssOwn) {
  const ParseResult r = parse({"1"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.options.run.timing.warmup, kWarmupRuns);
  EXPECT_EQ(r.options.run.timing.block_ms, kBlockMs);
  EXPECT_EQ(r.options.run.timing.reps, kMaxRunsPerBlock);
  EXPECT_EQ(r.options.run.timing.rounds, kTimingRounds);
  const std::string help = parse({"--help"}).help;
  EXPECT_NE(help.find(std::to_string(kTimingRounds) + " blocks each"), std::string::npos) << help;
}

TEST(Cli, CheckModes) {
  const std::pair<const char*, ChecksToRun> modes[] = {{"exact", ChecksToRun::exact},
                                                       {"random", ChecksToRun::random},
                                                       {"both", ChecksToRun::both},
                                                       {"none", ChecksToRun::none}};
  for (const auto& [name, checks] : modes) {
    ParseResult r = parse({"1", "--check", name});
    ASSERT_TRUE(r.ok()) << name << ": " << r.error;
    EXPECT_EQ(r.options.run.checks, checks) << name;
  }
  expect_error({"1", "--check", "sometimes"}, "sometimes");
}

// A path in the temporary folder that no other test process uses (removed by the caller).
std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          (name + "_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name()))
      .string();
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Cli, JsonPath) {
  const std::string path = temp_path("sgemm_cli.json");
  ParseResult r = parse({"all", "--json", path});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.options.run.json_path, path);
  EXPECT_FALSE(std::filesystem::exists(path)) << "checking the path must leave no file behind";
}

// An unwritable --json is a runtime error (exit status 3, as --help says), found while parsing,
// before any GPU work, not after it; a bad flag beside it is still bad usage (2).
TEST(Cli, JsonPathThatCannotBeWrittenIsARuntimeError) {
  expect_error({"1", "--json", "/no/such/folder/out.json"}, "--json");
  expect_error({"1", "--json", "/no/such/folder/out.json"}, "No such file or directory");
  expect_error({"1", "--json", std::filesystem::temp_directory_path().string()}, "directory");
  EXPECT_EQ(parse({"1", "--json", "/no/such/folder/out.json"}).status, kExitRuntimeError);
  EXPECT_EQ(parse({"1", "--sizes", "0", "--json", "/no/such/folder/out.json"}).status, kExitUsage);
  EXPECT_EQ(parse({"99", "--json", "/no/such/folder/out.json"}).status, kExitUsage);
  EXPECT_EQ(parse({"1", "--json", ""}).status, kExitUsage);
  EXPECT_EQ(parse({"1", "--sizes", "0"}).status, kExitUsage);
  EXPECT_EQ(parse({"1"}).status, kExitOk);
}

// A distribution's parameter out of range names the range, not every distribution.
TEST(Cli, InputsOutOfRangeNameTheRange) {
  ParseResult r = parse({"1", "--inputs", "phi=0.5"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.options.run.inputs.name(), "phi=0.5");
  expect_error({"1", "--inputs", "phi=9"}, "phi must be in 0..8, not '9'");
  expect_error({"1", "--inputs", "phi"}, "phi=X, X in 0..8");
  expect_error({"1", "--inputs", "exponents=2.5"}, "exponents must be a whole number in 0..60");
  expect_error({"1", "--inputs", "span=-1"}, "span must be a whole number in 0..60, not '-1'");
  expect_error({"1", "--inputs", "normal=2"}, "normal takes no value");
  expect_error({"1", "--inputs", "gauss"}, "no distribution 'gauss'");
  for (const char* bad : {"phi=9", "exponents=99", "span=x"})
    EXPECT_EQ(parse({"1", "--inputs", bad}).error.find("big-column"), std::string::npos) << bad;
}

TEST(Cli, JsonPathOfAnExistingFileLeavesItAsItIs) {
  const std::string path = temp_path("sgemm_cli_existing.json");
  std::ofstream(path) << "earlier results\n";
  ParseResult r = parse({"all", "--json", path});
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(read(path), "earlier results\n");
  std::filesystem::remove(path);
}

TEST(Cli, ListAndHelpNeedNoRung) {
  ParseResult list = parse({"--list"});
  ASSERT_TRUE(list.ok()) << list.error;
  EXPECT_TRUE(list.options.list);
  ParseResult help = parse({"--help"});
  ASSERT_TRUE(help.ok()) << help.error;
  EXPECT_FALSE(help.help.empty());
}

TEST(Cli, MissingRung) {
  expect_error({}, "rung");
  expect_error({"--sizes", "128"}, "rung");
}

TEST(Cli, BadSizes) {
  expect_error({"1", "--sizes", "0"}, "0");
  expect_error({"1", "--sizes", "-5"}, "-5");
  const std::string too_big = std::to_string(kMaxDimension + 1);
  expect_error({"1", "--sizes", too_big}, too_big);
  expect_error({"1", "--sizes", "99999999"}, "99999999");
  expect_error({"1", "--sizes", "99999999999"}, "99999999999");  // beyond int
  expect_error({"1", "--sizes", "128,0"}, "0");
  expect_error({"1", "--mnk", "100,0,300"}, "0");
  expect_error({"1", "--mnk", "100,200"}, "--mnk");  // needs three numbers
}

// Beyond every integer type is still a whole number: too large, not malformed.
TEST(Cli, HugeSizesAreLargerThanTheLimit) {
  const std::string limit = std::to_string(kMaxDimension);
  for (const char* size : {"99999999", "99999999999999999999"}) {
    ParseResult r = parse({"1", "--sizes", size});
    EXPECT_FALSE(r.ok()) << size;
    EXPECT_NE(r.error.find(std::string(size) + " is larger than the limit " + limit),
              std::string::npos)
        << r.error;
    EXPECT_EQ(r.error.find("whole number"), std::string::npos) << r.error;
  }
  expect_error({"1", "--mnk", "8,99999999999999999999,8"}, "larger than the limit " + limit);
}

// The error names the one bound the size breaks, once.
TEST(Cli, SizeErrorStatesTheRangeOnce) {
  const std::string limit = std::to_string(kMaxDimension);
  for (const char* size : {"0", "-5", "99999999"}) {
    const std::string error = parse({"1", "--sizes", size}).error;
    const size_t first = error.find(limit);
    EXPECT_TRUE(first == std::string::npos || error.find(limit, first + 1) == std::string::npos)
        << error;
  }
  expect_error({"1", "--sizes", "0"}, "0 is smaller than the minimum 1");
}

TEST(Cli, EmptyListsNameTheFlag) {
  expect_error({"1", "--sizes", ""}, "--sizes");  // not the default sizes, silently
  expect_error({"1", "--mnk", ""}, "--mnk");
  expect_error({"1", "--sizes", "128,"}, "size");
}

// A subnormal scalar is a finite FP32 number that BLAS takes; only what FP32 cannot hold fails.
TEST(Cli, ScalarsAreAnyFp32Number) {
  ParseResult r = parse({"1", "--alpha", "1e-40", "--beta", "-1e-45"});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.options.run.alpha, 1e-40f);
  EXPECT_NE(r.options.run.alpha, 0.f);
  EXPECT_LT(r.options.run.beta, 0.f);
  r = parse({"1", "--alpha", "3.4e38", "--beta", "1.17549435e-38"});
  EXPECT_TRUE(r.ok()) << r.error;
  expect_error({"1", "--alpha", "1e-50"}, "too small for FP32");
  expect_error({"1", "--beta", "1e-400"}, "too small for FP32");
  expect_error({"1", "--alpha", "1e39"}, "larger than FP32's largest");
  expect_error({"1", "--alpha", "inf"}, "not a finite number");
  expect_error({"1", "--beta", "nan"}, "not a finite number");
}

TEST(Cli, MalformedNumbers) {
  expect_error({"1", "--sizes", "12x"}, "12x");
  expect_error({"1", "--sizes", "128,,256"}, "size");
  expect_error({"1", "--alpha", "abc"}, "abc");
  expect_error({"1", "--reps", "3.5"}, "3.5");
  expect_error({"1", "--mnk", "1,2,3x"}, "3x");
}

TEST(Cli, UnknownFlagAndMissingValue) {
  expect_error({"1", "--bogus"}, "--bogus");
  expect_error({"1", "--bogus"}, "unknown");  // not "needs a value": the flag does not exist
  expect_error({"1", "--bogus", "3"}, "--bogus");
  expect_error({"1", "--sizes"}, "--sizes");
  expect_error({"1", "--json"}, "--json");
  expect_error({"1", "--alpha"}, "--alpha");
}

TEST(Cli, BadCounts) {
  expect_error({"1", "--reps", "1"}, "reps");  // a block's first run is not counted
  expect_error({"1", "--block-ms", "-5"}, "block-ms");
  expect_error({"1", "--pad", "-1"}, "pad");  // would make ld smaller than the row
}

TEST(Cli, UsageNamesEveryFlag) {
  const std::string text = parse({"--help"}).help;
  for (const char* flag :
       {"all", "--sizes", "--mnk", "--alpha", "--beta", "--pad", "--reps", "--warmup", "--block-ms",
        "--check", "--json", "--device", "--seed", "--list", "--help"})
    EXPECT_NE(text.find(flag), std::string::npos) << "usage() does not mention " << flag;
}

// The lines of `text` from the one that starts with `heading` to the next empty line.
std::vector<std::string> section(const std::string& text, const std::string& heading) {
  std::vector<std::string> lines;
  std::istringstream in(text.substr(text.find("\n" + heading) + 1));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line) && !line.empty()) lines.push_back(line);
  return lines;
}

// Every rung in --help, in columns: numbers aligned on the right, then name, class and summary,
// each starting at one place on every line.
TEST(Cli, HelpListsTheRungsInColumns) {
  const std::vector<std::string> lines = section(parse({"--help"}).help, "rungs:");
  ASSERT_EQ(lines.size(), runnables().size());
  std::set<size_t> number_ends, names, classes, summaries;
  for (size_t i = 0; i < lines.size(); ++i) {
    const Runnable& r = runnables()[i];
    const std::string number = std::to_string(r.number);
    const size_t name = lines[i].find(" " + r.name + " ") + 1;
    number_ends.insert(lines[i].rfind(" " + number + " ", name) + 1 + number.size());
    names.insert(name);
    classes.insert(lines[i].find(to_string(r.precision), name + r.name.size()));
    summaries.insert(lines[i].find(r.summary));
  }
  for (const auto* column : {&number_ends, &names, &classes, &summaries})
    EXPECT_EQ(column->size(), 1u) << parse({"--help"}).help;
  EXPECT_EQ(summaries.count(std::string::npos), 0u);
}

TEST(Cli, HelpNamesTheExitStatuses) {
  const std::vector<std::string> lines = section(parse({"--help"}).help, "exit status:");
  ASSERT_EQ(lines.size(), 4u);
  const std::pair<int, const char*> statuses[] = {{kExitOk, "passed"},
                                                  {kExitCheckFailed, "check failed"},
                                                  {kExitUsage, "bad usage"},
                                                  {kExitRuntimeError, "no usable GPU"}};
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].rfind("  " + std::to_string(statuses[i].first) + "  ", 0), 0u) << lines[i];
    EXPECT_NE(lines[i].find(statuses[i].second), std::string::npos) << lines[i];
  }
  EXPECT_EQ(std::vector<int>({kExitOk, kExitCheckFailed, kExitUsage, kExitRuntimeError}),
            std::vector<int>({0, 1, 2, 3}));
}

TEST(Cli, DefaultSizesAreValid) {
  ASSERT_FALSE(default_sizes().empty());
  for (int size : default_sizes()) {
    EXPECT_GE(size, 1);
    EXPECT_LE(size, kMaxDimension);
  }
}

}  // namespace
}  // namespace sgemm
