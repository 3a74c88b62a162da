// Rungs as typed handles, generated from the one list (kernels/ladder.inc): code names a rung as
// RungId::ozaki_int8, never by a string, so that a rung renamed or dropped from the list is a
// compile error where it is used. Internal to the library, its kernels and its tests (not
// installed: it reads ladder.inc); the public API (sgemm.h) takes rung numbers.
#pragma once

#include <optional>
#include <string_view>

#include "sgemm/sgemm.h"  // Precision

namespace sgemm {

// RungId::naive = 1, RungId::coalesced = 2, ...: the value is the rung's number.
enum class RungId : int {
#define RUNG(number, name, parent, precision, summary) name = number,
#include "ladder.inc"
#undef RUNG
};

constexpr int rung_number(RungId id) { return static_cast<int>(id); }

// The rung's name as ladder.inc spells it (for messages and tables, never to find a rung).
constexpr const char* rung_name(RungId id) {
  switch (id) {
#define RUNG(number, name, parent, precision, summary) \
  case RungId::name:                                   \
    return #name;
#include "ladder.inc"
#undef RUNG
  }
  return "";
}

// The handle of a name from outside the code (a user's argument, a generated table's column),
// through the list; nullopt when no rung has that name.
constexpr std::optional<RungId> rung_id(std::string_view name) {
#define RUNG(number, rung, parent, precision, summary) \
  if (name == #rung) return RungId::rung;
#include "ladder.inc"
#undef RUNG
  return std::nullopt;
}

// The rung's precision class, as ladder.inc gives it.
constexpr Precision rung_precision(RungId id) {
  switch (id) {
#define RUNG(number, name, parent, precision, summary) \
  case RungId::name:                                   \
    return Precision::precision;
#include "ladder.inc"
#undef RUNG
  }
  return Precision::fp32;
}

}  // namespace sgemm
