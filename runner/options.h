// The flags that sgemm, sgemm_bench and sgemm_autotune share, defined once on CLI11, so that
// the same flag spells the same thing in every program. Parsing only, no CUDA: the flags are
// checked by CPU tests.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "check.h"
#include "inputs.h"
#include "timing.h"

namespace sgemm {

// What a run of problems is: shapes, scalars, checks, timing, device and output.
struct RunOptions {
  std::vector<Shape> shapes;  // from --sizes or --mnk (the program's defaults otherwise)
  float alpha = 1.f;
  float beta = 0.f;
  Operation operation;  // --layout, --ops: how A, B and C are stored and used (row NN)
  int pad = 0;          // leading dimensions = stored row (column) length + pad
  Inputs inputs;        // --inputs: what fills A and B
  ChecksToRun checks = ChecksToRun::both;
  TimingOptions timing;  // --warmup, --block-ms, --reps
  uint64_t seed = 1;
  int device = 0;
  std::string json_path;  // write the results here when set
};

// Registers the common flags on `app`, storing into `options` (whose values are the
// defaults --help shows): --sizes --mnk --alpha --beta --layout --ops --pad --check --warmup
// --reps --block-ms --seed --device --json. Bad values fail the parse with a message that names
// the flag, the value and what is allowed.
class CommonOptions {
 public:
  CommonOptions(CLI::App& app, RunOptions& options);

  // After a successful parse: fills options.shapes (from --sizes or --mnk, else `defaults`),
  // applies --pad, and checks that the requested check can run on every shape. Throws
  // CLI::ValidationError naming the problem; then, when every flag is good, OutputError when
  // the --json file cannot be written.
  void finish(const std::vector<Shape>& defaults) const;

  bool shapes_given() const { return !sizes_.empty() || !mnk_.empty(); }

 private:
  RunOptions& options_;
  std::vector<std::string> sizes_, mnk_;
  std::string checks_ = "both";
  std::string layout_ = "row", ops_ = "NN";
  CLI::Option* json_ = nullptr;  // --json, checked by finish() when given
};

// Parses `args` (without the program name) with `app`, running its callback (where a program
// calls CommonOptions::finish and checks its own rules). Returns "" when the program should
// run; otherwise the text to print: the help (with *is_help set) or one error sentence. With
// `status`, *status gets the exit status of that sentence: kExitUsage for a bad command line,
// kExitRuntimeError for an output file that cannot be written (OutputError).
std::string parse(CLI::App& app, std::vector<std::string> args, bool* is_help,
                  int* status = nullptr);

// A file the program is asked to write that cannot be written: a runtime error (exit status
// kExitRuntimeError), not bad usage, though found while parsing, before any GPU work.
struct OutputError : CLI::ParseError {
  explicit OutputError(std::string message);
};

// "" when a file can be written at `path`; otherwise why not ("cannot write 'x': No such file
// or directory"). Checked while parsing, so that a bad path fails before any GPU work. Leaves
// nothing behind: an existing file is opened for appending and not written; a new one is
// created and removed again.
std::string writable_error(const std::string& path);

// What the programs exit with; --help lists them (exit_status_help).
enum ExitStatus : int {
  kExitOk = 0,
  kExitCheckFailed = 1,   // a rung failed its check (sgemm_bench: or a benchmark hit an error)
  kExitUsage = 2,         // a bad command line: nothing ran
  kExitRuntimeError = 3,  // no usable GPU, a CUDA or cuBLAS error, a file that cannot be written
};

// The "exit status" lines of --help, with what status 1 and status 3 mean for the program.
std::string exit_status_help(const std::string& failed, const std::string& runtime_error);

// The runnables (the references, then the rungs) for --help, one line each, in columns:
// number, name, precision class, summary.
std::string runnables_help();

// Square problems n x n x n.
std::vector<Shape> square_shapes(const std::vector<int>& sizes);

// "a,b,,c" split at `sep` into {"a", "b", "", "c"}; a trailing separator gives a last "".
std::vector<std::string> split(const std::string& text, char sep);

}  // namespace sgemm
