// What the tensor-core rungs and cuBLAS answer on single products at the edges of FP32:
// subnormal operands and products, values whose TF32 rounding overflows, Inf and NaN. Each
// case is a 1 x 1 x K problem; the table prints every answer's value and bits, so that a
// difference between a rung and cuBLAS can be traced to the operation that makes it.
//   nvcc -O2 -std=c++17 -Ilibrary -Irunner experiments/semantics/probe.cu
//   <build>/libsgemm_harness.a \
//        <build>/libsgemm_ladder.a -lcublas -ldl -o probe && ./probe
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "device.h"
#include "harness.h"
#include "report.h"
#include "sgemm/sgemm.h"

namespace {

using namespace sgemm;

float bits_to_float(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}
uint32_t float_bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}

struct Case {
  const char* what;
  std::vector<float> a, b;  // a row of A and a column of B, K long
};

}  // namespace

int main() {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float max = std::numeric_limits<float>::max();
  const std::vector<Case> cases = {
      {"subnormal a 2^-130 * 1", {0x1p-130f}, {1.f}},
      {"a 2^-120 (1+2^-20) * 1: small part 2^-140", {0x1p-120f * (1 + 0x1p-20f)}, {1.f}},
      {"2^-70 * 2^-70: subnormal product 2^-140", {0x1p-70f}, {0x1p-70f}},
      {"2^-63 (1+2^-15) * 2^-63: product at 2^-126", {0x1p-63f * (1 + 0x1p-15f)}, {0x1p-63f}},
      {"K=16: 16 x 2^-120 (1+2^-15) * 2^-6", std::vector<float>(16, 0x1p-120f * (1 + 0x1p-15f)),
       std::vector<float>(16, 0x1p-6f)},
      {"FLT_MAX * 2^-10", {max}, {0x1p-10f}},
      {"0x7f7ff000 (TF32 rounds to Inf) * 2^-10", {bits_to_float(0x7f7ff000u)}, {0x1p-10f}},
      {"0x7f7fefff * 2^-10", {bits_to_float(0x7f7fefffu)}, {0x1p-10f}},
      {"(1 + 2^-11) * 1", {1 + 0x1p-11f}, {1.f}},
      {"(1 + 2^-11) * (1 + 2^-11)", {1 + 0x1p-11f}, {1 + 0x1p-11f}},
      {"Inf * 1", {inf}, {1.f}},
      {"Inf * 0", {inf}, {0.f}},
      {"Inf * 0.99999994", {inf}, {0.99999994f}},
      {"Inf * -1.00000012", {inf}, {-1.00000012f}},
      {"NaN * 1", {nan}, {1.f}},
      {"[Inf, 1] . [1, -Inf]", {inf, 1.f}, {1.f, -inf}},
      {"NaN payload 0x7f800001 * 1", {bits_to_float(0x7f800001u)}, {1.f}},
  };
  Harness harness(0);
  std::printf("GPU: %s\n", describe(harness.gpu()).c_str());
  const int columns[] = {kCublasRung, kCublasTf32Rung, 12, 13, 14};
  std::printf("%-48s", "case");
  for (int c : columns) std::printf(" %26s", find_runnable(c)->name.c_str());
  std::printf("\n");
  for (const Case& c : cases) {
    const int K = static_cast<int>(c.a.size());
    DeviceBuffer A(K), B(K), C(1);
    CUDA_CHECK(cudaMemcpy(A.get(), c.a.data(), K * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(B.get(), c.b.data(), K * 4, cudaMemcpyHostToDevice));
    std::printf("%-48s", c.what);
    for (int column : columns) {
      fill_value(C.get(), 1, nan, harness.stream());
      harness.run(column, gemm_of(Problem{{1, 1, K}}, A.get(), B.get(), C.get()));
      CUDA_CHECK(cudaStreamSynchronize(harness.stream()));
      float got = 0;
      CUDA_CHECK(cudaMemcpy(&got, C.get(), 4, cudaMemcpyDeviceToHost));
      char text[64];
      std::snprintf(text, sizeof text, "%.8g (%08x)", got, float_bits(got));
      std::printf(" %26s", text);
    }
    std::printf("\n");
  }
  return 0;
}
