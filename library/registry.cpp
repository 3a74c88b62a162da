// The registry: the rungs (kernels/ladder.inc) and what runs when one cannot
// (kernels/fallbacks.inc), as the library, the front doors and the tests read them.
#include <cstdio>
#include <string>

#include "rung_id.h"
#include "sgemm.h"

// Each kernel file defines sgemm::<name>::launch, a Launcher.
#define RUNG(number, name, precision, summary)               \
  namespace sgemm::name {                                    \
  cudaError_t launch(const Gemm& gemm, cudaStream_t stream); \
  }
#include "ladder.inc"
#undef RUNG

namespace sgemm {

const std::vector<RungInfo>& rungs() {
  static const std::vector<RungInfo> table = {
#define RUNG(number, name, precision, summary) \
  {number, #name, summary, Precision::precision, &sgemm::name::launch},
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

namespace {

// The rung whose launcher this is: a name in fallbacks.inc that is no rung does not compile.
const RungInfo* rung_of(Launcher launch) {
  for (const RungInfo& r : rungs())
    if (r.launch == launch) return &r;
  return nullptr;
}

std::string numbered(const RungInfo& rung, const char* dir, const char* ext) {
  char text[128];
  std::snprintf(text, sizeof text, "%s/%02d_%s.%s", dir, rung.number, rung.name, ext);
  return text;
}

}  // namespace

const std::vector<FallbackInfo>& fallbacks() {
  static const std::vector<FallbackInfo> table = {
#define FALLBACK(rung, reason, instead, when) \
  {rung_of(&sgemm::rung::launch), FallbackReason::reason, rung_of(&sgemm::instead::launch), when},
#include "fallbacks.inc"
#undef FALLBACK
  };
  return table;
}

const RungInfo* fallback_for(const RungInfo& rung, FallbackReason reason) {
  for (const FallbackInfo& f : fallbacks())
    if (f.rung == &rung && f.reason == reason) return f.instead;
  return nullptr;
}

std::string kernel_file(const RungInfo& rung) { return numbered(rung, "kernels", "cu"); }
std::string doc_file(const RungInfo& rung) { return numbered(rung, "docs", "md"); }

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
