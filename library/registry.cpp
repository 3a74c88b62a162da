// The registry (registry.h): the rungs (kernels/ladder.inc) and what runs when one cannot
// (kernels/fallbacks.inc).
#include "registry.h"

#include <functional>
#include <string>

#include "launchers.h"  // every rung's launcher, one signature

namespace sgemm {
namespace {

// A launcher as RungInfo::launch holds it (a Launcher: its answer's error).
template <runtime::LaunchAnswer (*launcher)(const Gemm&, cudaStream_t)>
cudaError_t error_only(const Gemm& gemm, cudaStream_t stream) {
  return launcher(gemm, stream).error();
}

using Answerer = runtime::LaunchAnswer (*)(const Gemm& gemm, cudaStream_t stream);

// In rungs() order.
constexpr Answerer kAnswerers[] = {
#define RUNG(number, name, parent, precision, summary) &sgemm::name::launch,
#include "ladder.inc"
#undef RUNG
};

}  // namespace

const std::vector<RungInfo>& rungs() {
  static const std::vector<RungInfo> table = {
#define RUNG(number, name, parent, precision, summary) \
  {number, #name, summary, Precision::precision, &error_only<&sgemm::name::launch>},
#include "ladder.inc"
#undef RUNG
  };
  return table;
}

const RungInfo* find_rung(int number) {
  for (const RungInfo& r : rungs())
    if (r.number == number) return &r;
  return nullptr;
}

// Never null: RungId and rungs() are built from the same list.
const RungInfo& rung_info(RungId id) { return *find_rung(rung_number(id)); }

const std::vector<FallbackInfo>& fallbacks() {
  static const std::vector<FallbackInfo> table = {
#define FALLBACK(rung, reason, instead, when) \
  {&rung_info(RungId::rung), FallbackReason::reason, &rung_info(RungId::instead), when},
#include "fallbacks.inc"
#undef FALLBACK
  };
  return table;
}

runtime::LaunchAnswer runtime::answer(const RungInfo& rung, const Gemm& problem,
                                      cudaStream_t stream) {
  const std::vector<RungInfo>& all = rungs();
  const std::less<const RungInfo*> before;
  if (before(&rung, all.data()) || !before(&rung, all.data() + all.size()))
    return rung.launch(problem, stream);  // not the registry's own: no typed answer known
  return kAnswerers[&rung - all.data()](problem, stream);
}

const RungInfo* fallback_for(const RungInfo& rung, FallbackReason reason) {
  for (const FallbackInfo& f : fallbacks())
    if (f.rung == &rung && f.reason == reason) return f.instead;
  return nullptr;
}

const char* to_string(Precision precision) {
  return precision == Precision::tf32 ? "tf32" : "fp32";
}

const char* to_string(FallbackReason reason) {
  switch (reason) {
    case FallbackReason::workspace_short:
      return "workspace_short";
    case FallbackReason::shape_unsuitable:
      return "shape_unsuitable";
    case FallbackReason::gpu_unsupported:
      return "gpu_unsupported";
  }
  return "unknown reason";
}

}  // namespace sgemm
