// The `sgemm` command line: parsing only, so it is tested without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "check.h"

namespace sgemm {

enum class ChecksToRun { both, exact, random, none };

struct Options {
  std::vector<int> rungs;  // rungs to run, in order (0 is cuBLAS alone)
  bool all = false;        // `sgemm all`: every rung, then a summary table
  std::vector<Shape> shapes;
  float alpha = 1.f;
  float beta = 0.f;
  int pad = 0;  // leading dimensions = row length + pad
  int warmup = 3;
  int reps = 30;
  double budget_ms = 2000;
  ChecksToRun checks = ChecksToRun::both;
  std::string json_path;  // write results here when set
  int device = 0;
  uint64_t seed = 1;
  bool list = false;
  bool help = false;
};

// The square sizes `sgemm N` runs when no size is given.
const std::vector<int>& default_sizes();

struct ParseResult {
  Options options;
  std::string error;  // empty on success; otherwise one sentence naming the problem
  bool ok() const { return error.empty(); }
};

// Parses argv[1..]. Never throws, never exits.
ParseResult parse_args(const std::vector<std::string>& args);

std::string usage();

// "a,b,,c" split at `sep` into {"a", "b", "", "c"}; a trailing separator gives a last "".
std::vector<std::string> split(const std::string& text, char sep);

}  // namespace sgemm
