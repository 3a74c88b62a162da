// The preload library's switches and log (options.cpp): pure functions of the environment's
// strings and of cuBLAS's enum values, so that they are tested on the host
// (tests/options_test.cpp).
#pragma once

#include <mutex>
#include <set>
#include <string>

namespace sgemm::preload {

// SGEMM_PRELOAD: the library takes the calls it can answer unless the value is 0, off, false or
// no (any case, spaces around ignored); unset or anything else: on.
bool preload_enabled(const char* value);
// SGEMM_PRELOAD_LOG: a line to stderr per (entry point, decision) when the value is 1, on, true
// or yes (any case); unset or anything else: off.
bool log_enabled(const char* value);

// "sgemm_preload: cublasGemmEx: taken" or, with a reason, "sgemm_preload: cublasGemmEx:
// forwarded (compute type CUBLAS_COMPUTE_32F_FAST_TF32)". `verb` is "taken" or "forwarded".
std::string log_line(const std::string& entry, const std::string& verb, const std::string& reason);

// Remembers the (entry point, decision) pairs seen: first() is true once per pair. Thread-safe.
class Once {
 public:
  bool first(const std::string& entry, const std::string& decision);

 private:
  std::mutex mutex_;
  std::set<std::string> seen_;
};

// cuBLAS's names for its enum values, or the number ("compute type 99").
std::string compute_type_name(int compute_type);  // "CUBLAS_COMPUTE_32F_FAST_TF32"
std::string data_type_name(int data_type);        // "CUDA_R_16F"
std::string math_mode_name(int math_mode);        // "CUBLAS_TF32_TENSOR_OP_MATH"

// Whether a math mode lets the library answer: its low bits (the mode; the flag
// CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION above them concerns mixed-precision outputs
// only) CUBLAS_DEFAULT_MATH or CUBLAS_PEDANTIC_MATH. TF32, BF16x9 emulation and the old tensor-op
// mode are the caller's request for reduced or emulated FP32 arithmetic, and any other mode
// (FP64 emulation included) is left alone: cuBLAS answers those.
bool math_mode_takes(int math_mode);
// Whether a compute type is FP32 arithmetic that the library answers: CUBLAS_COMPUTE_32F and
// CUBLAS_COMPUTE_32F_PEDANTIC (no reduced precision, which the library's FP32 accuracy keeps).
bool compute_type_takes(int compute_type);

}  // namespace sgemm::preload
