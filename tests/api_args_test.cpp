// sgemm::check_arguments on bad input, without a GPU: rung, sizes and leading dimensions are
// checked before the pointers are asked about, so dummy host pointers do here. And the batched
// kernels' names (library/batched_kernels.h), which the batched bench takes.
#include <gtest/gtest.h>

#include <string>

#include "batched_kernels.h"  // BatchedKernel, its names, gemm_strided_batched_on
#include "sgemm/sgemm.h"

namespace sgemm {
namespace {

float dummy[4];  // never read: these calls fail before any pointer is used
const float* const A = dummy;
const float* const B = dummy + 1;
const float* const C = dummy + 2;

struct Call {
  int rung, M, N, K, lda, ldb, ldc;
};

// Calls check_arguments and expects `status` with a reason that mentions `what`.
void expect_status(const Call& c, Status status, const std::string& what, const float* a = A,
                   const float* b = B, const float* cc = C) {
  SCOPED_TRACE("rung " + std::to_string(c.rung) + ", " + std::to_string(c.M) + "x" +
               std::to_string(c.N) + "x" + std::to_string(c.K) + " lda=" + std::to_string(c.lda) +
               " ldb=" + std::to_string(c.ldb) + " ldc=" + std::to_string(c.ldc));
  std::string why;
  EXPECT_EQ(check_arguments(c.rung, c.M, c.N, c.K, a, c.lda, b, c.ldb, cc, c.ldc, &why), status)
      << to_string(status) << " expected; why: " << why;
  EXPECT_NE(why.find(what), std::string::npos) << "'" << why << "' should mention " << what;
  // Without `why` the status is the same (the reason is optional).
  EXPECT_EQ(check_arguments(c.rung, c.M, c.N, c.K, a, c.lda, b, c.ldb, cc, c.ldc), status);
}

int first_rung() { return rungs().front().number; }
int last_rung() { return rungs().back().number; }

TEST(ApiArguments, UnknownRung) {
  const int past_end = last_rung() + 1;
  expect_status({past_end, 8, 8, 8, 8, 8, 8}, Status::unknown_rung, std::to_string(past_end));
  expect_status({0, 8, 8, 8, 8, 8, 8}, Status::unknown_rung, "0");  // cuBLAS is no rung
  expect_status({-3, 8, 8, 8, 8, 8, 8}, Status::unknown_rung, "-3");
}

TEST(ApiArguments, BadSizes) {
  const int r = last_rung(), big = kMaxDimension + 1;
  expect_status({r, 0, 8, 8, 8, 8, 8}, Status::bad_size, "M");
  expect_status({r, 8, 0, 8, 8, 8, 8}, Status::bad_size, "N");
  expect_status({r, 8, 8, 0, 8, 8, 8}, Status::bad_size, "K");
  expect_status({r, -5, 8, 8, 8, 8, 8}, Status::bad_size, "-5");
  expect_status({r, 8, 8, -1, 8, 8, 8}, Status::bad_size, "K");
  expect_status({r, big, 8, 8, 8, 8, 8}, Status::bad_size, std::to_string(big));
  expect_status({r, 8, big, 8, 8, big, big}, Status::bad_size, "N");
  expect_status({r, 8, 8, big, big, 8, 8}, Status::bad_size, "K");
}

TEST(ApiArguments, LeadingDimensionsTooSmall) {
  for (const RungInfo& rung : rungs()) {
    SCOPED_TRACE(rung.name);
    const int r = rung.number;
    expect_status({r, 16, 24, 32, 31, 24, 24}, Status::bad_leading_dim, "lda");
    expect_status({r, 16, 24, 32, 32, 23, 24}, Status::bad_leading_dim, "ldb");
    expect_status({r, 16, 24, 32, 32, 24, 23}, Status::bad_leading_dim, "ldc");
    expect_status({r, 16, 24, 32, 0, 24, 24}, Status::bad_leading_dim, "lda");
    expect_status({r, 16, 24, 32, -1, 24, 24}, Status::bad_leading_dim, "lda");
  }
}

TEST(ApiArguments, TooLargeForThirtyTwoBitOffsets) {
  // Every size is allowed on its own, but M x lda passes 2^31 elements.
  const int r = last_rung(), n = 100000;
  expect_status({r, n, 8, n, n, 8, 8}, Status::too_large, "32-bit");
  expect_status({r, 8, n, n, n, n, n}, Status::too_large, "32-bit");
  expect_status({r, 8, 8, 8, 8, 8, 1 << 30}, Status::too_large, "32-bit");
}

TEST(ApiArguments, NullPointer) {
  // A is checked first, so this needs no CUDA; null B and C are tested on the GPU, where A
  // can be real device memory.
  expect_status({first_rung(), 8, 8, 8, 8, 8, 8}, Status::bad_pointer, "A", nullptr, B, C);
}

TEST(ApiArguments, SizesAreCheckedBeforePointers) {
  std::string why;
  EXPECT_EQ(check_arguments(first_rung(), 0, 8, 8, nullptr, 8, nullptr, 8, nullptr, 8, &why),
            Status::bad_size)
      << why;
}

TEST(ApiArguments, LaunchRejectsTheSameArgumentsWithoutLaunching) {
  std::string why;
  EXPECT_EQ(launch(last_rung() + 1, 8, 8, 8, 1.f, A, 8, B, 8, 0.f, const_cast<float*>(C), 8,
                   nullptr, &why),
            Status::unknown_rung);
  EXPECT_EQ(
      launch(first_rung(), 8, 8, 8, 1.f, A, 7, B, 8, 0.f, const_cast<float*>(C), 8, nullptr, &why),
      Status::bad_leading_dim);
  EXPECT_NE(why.find("lda"), std::string::npos) << why;
  EXPECT_EQ(launch(first_rung(), 8, 8, 8, 1.f, nullptr, 8, B, 8, 0.f, nullptr, 8, nullptr, &why),
            Status::bad_pointer);
}

TEST(ApiArguments, StatusNamesAreDistinct) {
  const Status all[] = {
      Status::ok,          Status::unknown_rung, Status::bad_size,  Status::bad_leading_dim,
      Status::bad_pointer, Status::too_large,    Status::cuda_error};
  for (Status a : all) {
    EXPECT_STRNE(to_string(a), "");
    for (Status b : all) {
      if (a != b) {
        EXPECT_STRNE(to_string(a), to_string(b));
      }
    }
  }
}

TEST(BatchedKernels, NamesRoundTripAndAreDistinct) {
  for (BatchedKernel k : kBatchedKernels) {
    BatchedKernel back = BatchedKernel::automatic;
    ASSERT_TRUE(batched_kernel_named(to_string(k), &back)) << to_string(k);
    EXPECT_EQ(back, k) << to_string(k);
    for (BatchedKernel other : kBatchedKernels) {
      if (other != k) {
        EXPECT_STRNE(to_string(k), to_string(other));
      }
    }
  }
  BatchedKernel untouched = BatchedKernel::ffma_tiles;
  EXPECT_FALSE(batched_kernel_named("fused", &untouched));
  EXPECT_FALSE(batched_kernel_named("", &untouched));
  EXPECT_EQ(untouched, BatchedKernel::ffma_tiles);
}

// A 3xTF32 kernel named for K < 16 is refused before anything else is asked (no GPU here): three
// TF32 products would miss FP32's bound there.
TEST(BatchedKernels, ThreeTf32KernelsRefuseShortK) {
  for (BatchedKernel k :
       {BatchedKernel::rung15_batch, BatchedKernel::rung15_split_a, BatchedKernel::rung19_tiles}) {
    std::string why;
    EXPECT_EQ(
        gemm_strided_batched_on(k, Layout::row_major, Op::N, Op::N, 32, 32, 15, 1.f, A, 15, 0, B,
                                32, 0, 0.f, const_cast<float*>(C), 32, 1024, 2, nullptr, &why),
        Status::bad_size)
        << to_string(k);
    EXPECT_NE(why.find("K = 15"), std::string::npos) << why;
    EXPECT_NE(why.find(to_string(k)), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace sgemm
