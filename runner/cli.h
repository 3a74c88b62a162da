// The `sgemm` command line: parsing only, so it is tested without a GPU.
#pragma once

#include <string>
#include <vector>

#include "options.h"
#include "runnables.h"  // Runnable

namespace sgemm {

struct Options {
  std::vector<const Runnable*> rungs;  // what to run, in order, looked up once (cuBLAS too);
                                       // `all` puts every rung here
  bool all = false;                    // `sgemm all`: every rung, then a summary table
  bool accuracy = false;               // --accuracy: errors against FP64 too
  RunOptions run;                      // the flags every program shares
  bool list = false;
};

// The square sizes `sgemm N` runs when no size is given.
const std::vector<int>& default_sizes();

struct ParseResult {
  Options options;
  std::string error;  // one sentence naming the problem; empty on success
  int status = 0;     // with an error, the exit status: kExitUsage, or kExitRuntimeError when
                      // the --json file cannot be written
  std::string help;   // the --help text, when asked for
  bool ok() const { return error.empty(); }
};

// Parses argv[1..]. Never throws, never exits.
ParseResult parse_args(const std::vector<std::string>& args);

}  // namespace sgemm
