// The argument checks of every call (arguments.cpp): sizes, leading dimensions by BLAS's rules,
// pointers and the stream's device, each failure with a sentence that names the argument.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "sgemm/sgemm.h"

namespace sgemm {

// Status::unknown_rung, and its sentence.
Status unknown_rung(int rung, std::string* why);

// The problem's sizes, leading dimensions and pointers, the pointers checked against the device
// of `stream`, which must be the current device too (a kernel launched into another device's
// stream fails). M, N, K are those of C = op(A) op(B); the leading dimensions follow BLAS's
// rules for `operation` (sgemm.h). Where the calling thread's set_pointer_checks is
// PointerChecks::caller_vouches, no pointer's memory nor the stream's device is asked of CUDA:
// null and alignment are still checked.
Status check_problem(const Operation& operation, const Gemm& g, cudaStream_t stream,
                     std::string* why);

}  // namespace sgemm
