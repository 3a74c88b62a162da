// A launch's answer as the caller's Status and its sentence (status.cpp).
#pragma once

#include <string>

#include "runtime/launch_answer.h"
#include "sgemm/sgemm.h"

namespace sgemm {

// The Status of the answer of the chain from `first`, which ended at `last`, and its sentence.
Status status_of(const runtime::LaunchAnswer& answer, const RungInfo& first, const RungInfo& last,
                 std::string* why);

}  // namespace sgemm
