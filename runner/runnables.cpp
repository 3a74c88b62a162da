#include "runnables.h"

#include <cstdio>

#include "device.h"  // Error

namespace sgemm {

const std::vector<Runnable>& runnables() {
  static const std::vector<Runnable> table = [] {
    std::vector<Runnable> out = {
        {kCublasTf32Rung, "cublas_tf32",
         "the tf32 rungs' reference: cuBLAS with CUBLAS_COMPUTE_32F_FAST_TF32 (tensor cores)", true,
         Precision::tf32, nullptr},
        {kCublasRung, "cublas", "the reference: cuBLAS SGEMM in true FP32 (no TF32)", true,
         Precision::fp32, nullptr}};
    for (const RungInfo& r : rungs())
      out.push_back({r.number, r.name, r.summary, false, r.precision, &r});
    return out;
  }();
  return table;
}

const Runnable* find_runnable(int number) {
  for (const Runnable& r : runnables())
    if (r.number == number) return &r;
  return nullptr;
}

const Runnable* find_runnable(const std::string& text) {
  for (const Runnable& r : runnables())
    if (r.name == text) return &r;
  const size_t digits = text.find_first_not_of('-') == 1 ? 1 : 0;  // one leading minus
  if (text.size() <= digits || text.size() > 6 + digits ||
      text.find_first_not_of("0123456789", digits) != std::string::npos)
    return nullptr;
  return find_runnable(std::stoi(text));
}

const Runnable& reference_for(Precision precision) {
  return require_runnable(precision == Precision::tf32 ? kCublasTf32Rung : kCublasRung);
}

const Runnable& require_runnable(int number) {
  const Runnable* runnable = find_runnable(number);
  if (!runnable) throw Error("there is no rung " + std::to_string(number));
  return *runnable;
}

std::string Runnable::label() const { return std::to_string(number) + " " + name; }

std::string Runnable::id() const {
  if (reference) return name;
  char stem[96];
  std::snprintf(stem, sizeof stem, "rung:%02d_%s", number, name.c_str());
  return stem;
}

}  // namespace sgemm
