// What fills A and B for a problem's inputs (inputs.h): each distribution as the device's
// fills (device.h), for the matrices as the problem's shape stores them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness.h"  // Problem

namespace sgemm {

// Fills A and B of `p` with its inputs, as its shape stores them.
void fill_inputs(const Problem& p, float* A, float* B, uint64_t seed_a, uint64_t seed_b,
                 float padding, cudaStream_t stream);

}  // namespace sgemm
