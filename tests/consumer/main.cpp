// A user's program of the ladder library (tests/consumer): it lists the rungs and checks that
// a bad call gets a status and a sentence instead of a launch, through sgemm::launch, the one
// call sgemm::gemm and the cuBLAS-style sgemm::cublasSgemm (sgemm::cublas_compat). No GPU is
// needed.
#include <cstdio>
#include <string>

#include "sgemm/sgemm.h"
#include "sgemm/sgemm_cublas.h"

int main() {
  for (const sgemm::RungInfo& rung : sgemm::rungs()) {
    std::printf("rung %d %s: %s\n", rung.number, rung.name, rung.summary);
  }
  std::string why;
  const sgemm::Status status = sgemm::launch(/*rung*/ 1, /*M*/ 0, 8, 8, 1.f, nullptr, 8, nullptr, 8,
                                             0.f, nullptr, 8, /*stream*/ nullptr, &why);
  std::printf("launch with M = 0: %s: %s\n", sgemm::to_string(status), why.c_str());
  if (sgemm::rungs().empty() || status != sgemm::Status::bad_size || why.empty()) {
    std::fprintf(stderr, "consumer: expected rungs and Status::bad_size with a message\n");
    return 1;
  }
  // The one call, column-major A^T B with lda too small for A (K x M stored by columns: K).
  const sgemm::Status one =
      sgemm::gemm(sgemm::Layout::col_major, sgemm::Op::T, sgemm::Op::N, 8, 8, 8, 1.f, nullptr, 7,
                  nullptr, 8, 0.f, nullptr, 8, nullptr, &why);
  std::printf("gemm with lda = 7: %s: %s\n", sgemm::to_string(one), why.c_str());
  if (one != sgemm::Status::bad_leading_dim || why.find("lda") == std::string::npos) {
    std::fprintf(stderr, "consumer: expected Status::bad_leading_dim naming lda\n");
    return 1;
  }
  const float scalar = 1.f;
  const cublasStatus_t wrapped =
      sgemm::cublasSgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &scalar, nullptr, 8, nullptr,
                         8, &scalar, nullptr, 8);
  std::printf("cublasSgemm without a handle: %d: %s\n", static_cast<int>(wrapped),
              sgemm::last_why().c_str());
  if (wrapped != CUBLAS_STATUS_NOT_INITIALIZED) {
    std::fprintf(stderr, "consumer: expected CUBLAS_STATUS_NOT_INITIALIZED\n");
    return 1;
  }
  return 0;
}
