// The inputs a measurement multiplies: which distribution fills A and B. Timing and checks use
// what real programs pass, FP32 values at full precision by default; a rung whose speed or
// accuracy depends on the data is measured on each (docs/00_method.md, "Inputs"). Host code
// without CUDA, so that parsing is tested on machines without a GPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace sgemm {

enum class Distribution {
  uniform,     // uniform in [-1, 1) at full FP32 precision (every significand bit random)
  grid,        // uniform in [-1, 1) on the 2^-23 grid: 24-bit integers times 2^-23
  normal,      // standard normal (as torch.randn)
  phi,         // (rand - 0.5) exp(phi randn): GEMMul8's test inputs; phi widens the exponents
  big_column,  // uniform, one column of A (K / 2) times 2^30
  big_rows,    // uniform, half the rows of A hold one element times 2^30
  // Where FP32's componentwise bound is tightest (the checks; docs/00_method.md):
  span,       // span=S: uniform, column K/2 of A times 2^S, row K/2 of B zero
  span_b,     // span-b=S: uniform, row K/2 of B times 2^S, column K/2 of A zero
  exponents,  // exponents=E: +-[1, 2) 2^e, e a uniform whole number in [-E, E]
  // k-scales=S: uniform, column k of A times 2^e_k and row k of B times 2^-e_k, e_k a whole
  // number in [-S, S] drawn per k: the operands' scales vary along K, their products do not.
  k_scales,
};

struct Inputs {
  Distribution distribution = Distribution::uniform;
  double parameter = 0;      // phi, S or E (0 for the others)
  std::string name() const;  // as parse() reads it: "uniform", "phi=0.5", "big-rows"
  bool operator==(const Inputs& o) const {
    return distribution == o.distribution && parameter == o.parameter;
  }
};

// "uniform", "grid", "normal", "phi=X" (0 <= X <= 8), "big-column", "big-rows", "span=S",
// "span-b=S", "exponents=E", "k-scales=S" (whole, 0 to 60); nullopt otherwise.
std::optional<Inputs> parse_inputs(const std::string& text);

// "" when parse_inputs takes `text`; otherwise why not, in one short sentence: the range of a
// distribution's parameter ("phi must be in 0..8, not 9"), or the names when none matches.
std::string inputs_error(const std::string& text);

// The accepted names, for help texts: "uniform, grid, normal, phi=X (0..8), ...".
std::string inputs_help();

// The distributions the accuracy report covers, in order.
std::vector<Inputs> accuracy_inputs();

}  // namespace sgemm
