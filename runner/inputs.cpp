#include "inputs.h"

#include <cstdio>
#include <cstdlib>

namespace sgemm {

namespace {

struct Named {
  const char* name;
  Distribution distribution;
};
constexpr Named kNames[] = {{"uniform", Distribution::uniform},
                            {"grid", Distribution::grid},
                            {"normal", Distribution::normal},
                            {"big-column", Distribution::big_column},
                            {"big-rows", Distribution::big_rows}};
constexpr double kMaxPhi = 8;  // exp(8 randn) already spans most of FP32's exponents
constexpr double kMaxExponent = 60;

// Those with a parameter: "name=X", X in [0, max], whole when `whole`.
struct WithParameter {
  const char* name;
  Distribution distribution;
  double max;
  bool whole;
};
constexpr WithParameter kParameterized[] = {
    {"phi", Distribution::phi, kMaxPhi, false},
    {"span", Distribution::span, kMaxExponent, true},
    {"span-b", Distribution::span_b, kMaxExponent, true},
    {"exponents", Distribution::exponents, kMaxExponent, true},
    {"k-scales", Distribution::k_scales, kMaxExponent, true}};

}  // namespace

std::string Inputs::name() const {
  for (const WithParameter& n : kParameterized)
    if (n.distribution == distribution) {
      char text[48];
      std::snprintf(text, sizeof text, "%s=%g", n.name, parameter);
      return text;
    }
  for (const Named& n : kNames)
    if (n.distribution == distribution) return n.name;
  return "?";
}

std::optional<Inputs> parse_inputs(const std::string& text) {
  for (const Named& n : kNames)
    if (text == n.name) return Inputs{n.distribution, 0};
  for (const WithParameter& n : kParameterized) {
    const std::string prefix = std::string(n.name) + "=";
    if (text.rfind(prefix, 0) != 0 || text.size() == prefix.size()) continue;
    char* end = nullptr;
    const double x = std::strtod(text.c_str() + prefix.size(), &end);
    if (*end == '\0' && x >= 0 && x <= n.max && (!n.whole || x == static_cast<int>(x)))
      return Inputs{n.distribution, x};
  }
  return std::nullopt;
}

std::string inputs_error(const std::string& text) {
  if (parse_inputs(text)) return "";
  const size_t equals = text.find('=');
  const std::string name = text.substr(0, equals);
  for (const WithParameter& n : kParameterized) {
    if (name != n.name) continue;
    char range[64];  // "in 0..8", "a whole number in 0..60"
    std::snprintf(range, sizeof range, "%sin 0..%g", n.whole ? "a whole number " : "", n.max);
    if (equals == std::string::npos) return name + " takes a value: " + name + "=X, X " + range;
    return name + " must be " + range + ", not '" + text.substr(equals + 1) + "'";
  }
  for (const Named& n : kNames)
    if (name == n.name) return name + " takes no value, not '" + text + "'";
  std::string names;
  for (const Named& n : kNames) names += std::string(names.empty() ? "" : ", ") + n.name;
  for (const WithParameter& n : kParameterized) names += std::string(", ") + n.name + "=X";
  return "no distribution '" + text + "': the names are " + names + " (see --help)";
}

std::string inputs_help() {
  return "uniform (full precision, the default), grid (uniform on the 2^-23 grid), normal, "
         "phi=X ((rand - 0.5) exp(X randn), 0 <= X <= 8), big-column (a column of A times "
         "2^30), big-rows (half the rows of A hold one element times 2^30), span=S (column K/2 "
         "of A times 2^S, row K/2 of B zero), span-b=S (the transpose), exponents=E (+-[1, 2) "
         "2^e, e whole in [-E, E]), k-scales=S (uniform; column k of A times 2^e_k, row k of B "
         "times 2^-e_k, e_k whole in [-S, S])";
}

std::vector<Inputs> accuracy_inputs() {
  return {{Distribution::uniform, 0}, {Distribution::normal, 0}, {Distribution::phi, 1},
          {Distribution::phi, 2},     {Distribution::phi, 4},    {Distribution::big_column, 0}};
}

}  // namespace sgemm
