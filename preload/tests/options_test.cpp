// The preload library's switches and log lines (options.h), on the host: no GPU, no cuBLAS.
#include "options.h"

#include <cstdio>
#include <string>

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    ++failures;
    std::printf("FAIL: %s\n", what);
  }
}

}  // namespace

int main() {
  using namespace sgemm::preload;
  // SGEMM_PRELOAD: on unless 0, off, false or no.
  expect(preload_enabled(nullptr), "unset SGEMM_PRELOAD is on");
  expect(preload_enabled(""), "empty SGEMM_PRELOAD is on");
  expect(preload_enabled("1"), "SGEMM_PRELOAD=1 is on");
  expect(preload_enabled("on"), "SGEMM_PRELOAD=on is on");
  expect(!preload_enabled("0"), "SGEMM_PRELOAD=0 is off");
  expect(!preload_enabled("off"), "SGEMM_PRELOAD=off is off");
  expect(!preload_enabled(" OFF "), "SGEMM_PRELOAD=' OFF ' is off");
  expect(!preload_enabled("False"), "SGEMM_PRELOAD=False is off");
  expect(!preload_enabled("no"), "SGEMM_PRELOAD=no is off");
  // SGEMM_PRELOAD_LOG: off unless 1, on, true or yes.
  expect(!log_enabled(nullptr), "unset SGEMM_PRELOAD_LOG is off");
  expect(!log_enabled(""), "empty SGEMM_PRELOAD_LOG is off");
  expect(!log_enabled("0"), "SGEMM_PRELOAD_LOG=0 is off");
  expect(!log_enabled("2"), "SGEMM_PRELOAD_LOG=2 is off");
  expect(log_enabled("1"), "SGEMM_PRELOAD_LOG=1 is on");
  expect(log_enabled("ON"), "SGEMM_PRELOAD_LOG=ON is on");
  expect(log_enabled(" yes\n"), "SGEMM_PRELOAD_LOG=' yes' is on");
  expect(log_enabled("true"), "SGEMM_PRELOAD_LOG=true is on");
  // The lines.
  expect(log_line("cublasGemmEx", "forwarded", "compute type " + compute_type_name(77)) ==
             "sgemm_preload: cublasGemmEx: forwarded (compute type CUBLAS_COMPUTE_32F_FAST_TF32)",
         "a forwarded line names the compute type");
  expect(log_line("cublasSgemm_v2", "taken", "") == "sgemm_preload: cublasSgemm_v2: taken",
         "a taken line has no parenthesis");
  expect(math_mode_name(3) == "CUBLAS_TF32_TENSOR_OP_MATH", "TF32 math mode's name");
  expect(math_mode_name(16) ==
             "CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION",
         "the reduction flag is named");
  expect(data_type_name(2) == "CUDA_R_16F" && data_type_name(99) == "99", "data type names");
  // Once per (entry point, decision).
  Once once;
  expect(once.first("cublasSgemm_v2", "taken"), "the first taken is logged");
  expect(!once.first("cublasSgemm_v2", "taken"), "the second is not");
  expect(once.first("cublasSgemm_v2", "forwarded math mode"), "another reason is");
  expect(once.first("cublasGemmEx", "taken"), "another entry point is");
  // What is taken: CUBLAS_DEFAULT_MATH and CUBLAS_PEDANTIC_MATH (with or without the reduction
  // flag); CUBLAS_COMPUTE_32F and CUBLAS_COMPUTE_32F_PEDANTIC.
  expect(math_mode_takes(0) && math_mode_takes(2) && math_mode_takes(16) && math_mode_takes(18),
         "default and pedantic math are taken");
  expect(!math_mode_takes(1) && !math_mode_takes(3) && !math_mode_takes(4) && !math_mode_takes(8) &&
             !math_mode_takes(19) && !math_mode_takes(32),
         "tensor-op, TF32, BF16x9, FP64-emulation and unknown math modes are forwarded");
  expect(compute_type_takes(68) && compute_type_takes(69), "COMPUTE_32F(_PEDANTIC) is taken");
  expect(!compute_type_takes(74) && !compute_type_takes(75) && !compute_type_takes(77) &&
             !compute_type_takes(78) && !compute_type_takes(70) && !compute_type_takes(64),
         "fast, emulated and other compute types are forwarded");
  std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "passed", failures);
  return failures ? 1 : 0;
}
