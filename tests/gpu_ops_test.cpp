// BLAS's general form on the GPU: the one call sgemm::gemm, launch(rung, operation, ...) for
// every rung, and sgemm::cublasSgemm, each in both layouts with every op(A), op(B), against
// cuBLAS SGEMM, which takes the ops natively:
//   - the harness's checks (exact and random mode, the FP64 rule; docs/00_method.md) on odd
//     shapes, padded leading dimensions, pointers 4 bytes past 16-byte alignment, and alpha and
//     beta (beta == 0 with NaN in C, alpha == 0 with NaN in A and B);
//   - every FP32 semantics class (semantics_cases.h) answered as cuBLAS answers it;
//   - two runs bitwise equal; the cuBLAS-style wrapper bitwise equal to gemm(), and its statuses;
//   - the workspace: no_workspace (ALLOC_FAILED) when it cannot hold the transposed copies.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_support.h"
#include "operations.h"
#include "rung_id.h"
#include "semantics_cases.h"
#include "sgemm/sgemm.h"
#include "sgemm/sgemm_cublas.h"

namespace sgemm::testing {
namespace {

std::string test_name(const Operation& op) {
  return std::string(to_string(op.layout)) + "_" + to_string(op.a) + to_string(op.b);
}

// The problem with `op`, its leading dimensions the tight ones plus `pad`.
Problem with_operation(Problem p, const Operation& op, int pad = 0) {
  p.shape.op = op;
  if (pad) {
    p.shape.lda = p.shape.a_stored().length + pad;
    p.shape.ldb = p.shape.b_stored().length + pad;
    p.shape.ldc = p.shape.c_stored().length + pad;
  }
  return p;
}

// Odd shapes (1, 7, 33, 129, ...), K below and above the 3xTF32 rungs' 16, padded leading
// dimensions, and A, B, C 4 bytes (or 8, 12) past 16-byte alignment.
std::vector<Problem> shapes(const Operation& op) {
  Problem misaligned{{33, 7, 129}};
  misaligned.offset = {1, 2, 3};
  return {
      with_operation(Problem{{1, 1, 1}}, op),         with_operation(Problem{{7, 33, 129}}, op),
      with_operation(Problem{{129, 33, 7}}, op, 3),   with_operation(misaligned, op, 1),
      with_operation(Problem{{130, 67, 257}}, op, 5), with_operation(Problem{{256, 192, 64}}, op)};
}

// ---- The one call and every rung, checked by the harness against cuBLAS with the same ops.

// Every FP32 semantics class, answered as cuBLAS SGEMM answers it with the same ops, by
// `run` (the one call, or one rung through launch(rung, operation, ...)). With an operation
// other than row-major N, N a rung gets each class's data in the other role too (a column-major
// problem swaps A and B): tiny B times huge A, NaN payloads in the other operand.
// `problems`: the shapes each class runs on (default: a small one, and an odd one with padded
// leading dimensions and misaligned operands).
template <class Run>
void expect_semantics_as_cublas(Harness& harness, const Operation& op, Run run,
                                std::vector<Problem> problems = {}) {
  if (problems.empty())
    problems = {with_operation(Problem{{37, 45, 29}}, op),
                with_operation(Problem{{130, 67, 257}, 1.f, 0.f, {3, 2, 1}}, op, 3)};
  uint64_t seed = 1;
  for (const Case& c : cases()) {
    for (Problem p : problems) {
      SCOPED_TRACE(std::string(c.name) + " " + p.str());
      p.alpha = c.alpha, p.beta = c.beta;
      HostProblem in(p);
      SeededRandom random(seed++);
      c.fill(in, random);
      const Shape& s = p.shape;
      DeviceBuffer a(in.A.size() + p.offset.a), b(in.B.size() + p.offset.b),
          got_c(in.C0.size() + p.offset.c), ref_c(in.C0.size());
      float *A = a.get() + p.offset.a, *B = b.get() + p.offset.b, *C = got_c.get() + p.offset.c;
      upload(A, in.A.data(), in.A.size() * 4);
      upload(B, in.B.data(), in.B.size() * 4);
      upload(C, in.C0.data(), in.C0.size() * 4);
      upload(ref_c.get(), in.C0.data(), in.C0.size() * 4);
      std::string why;
      ASSERT_EQ(run(s, p, A, B, C, &why), Status::ok) << why;
      harness.cublas(Precision::fp32, op, gemm_of(p, A, B, ref_c.get()));
      CUDA_CHECK(cudaStreamSynchronize(harness.stream()));
      std::vector<float> got(in.C0.size()), expected(in.C0.size());
      CUDA_CHECK(cudaMemcpy(got.data(), C, got.size() * 4, cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(expected.data(), ref_c.get(), got.size() * 4, cudaMemcpyDeviceToHost));
      const std::vector<float> magnitude = magnitudes(in);
      const Reference reference =
          semantics_reference(p, Precision::fp32, expected.data(), magnitude.data());
      const Extent stored = s.c_stored();
      const Comparison result =
          compare(reference, stored.lines, stored.length, s.c_ld(), got.data(), kPaddingSentinel);
      EXPECT_TRUE(result.pass) << result.summary();
    }
  }
}

class OneCall : public ::testing::TestWithParam<Operation> {
 protected:
  void SetUp() override {
    SGEMM_SKIP_WITHOUT_GPU();
    harness_ = std::make_unique<Harness>(0);
    SGEMM_SKIP_UNSUPPORTED_RUNG(one_call_rung().number);
  }

  // This fixture's stream (not ::sync() of <unistd.h>, which a bare sync() would find).
  void sync() { CUDA_CHECK(cudaStreamSynchronize(harness_->stream())); }

  // gemm() as a harness Kernel: the operation comes with the problem.
  static Kernel one_call() {
    return [](const Operation& op, const Gemm& g, cudaStream_t stream) {
      std::string why;
      const Status s = gemm(op.layout, op.a, op.b, g.M, g.N, g.K, g.alpha, g.A, g.lda, g.B, g.ldb,
                            g.beta, g.C, g.ldc, stream, &why);
      if (s != Status::ok) throw Error("gemm: " + why);
    };
  }

  // Every shape, in exact and random mode, with (alpha, beta).
  void expect_checks_pass(float alpha, float beta) {
    uint64_t seed = 1;
    for (Problem p : shapes(GetParam())) {
      p.alpha = alpha, p.beta = beta;
      for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
        SCOPED_TRACE(p.str() + " " + to_string(mode));
        const CheckReport report =
            harness_->check(one_call(), p, mode, seed++, "gemm", Precision::fp32);
        EXPECT_TRUE(report.pass()) << report.summary();
      }
    }
  }

  std::unique_ptr<Harness> harness_;
};

// beta == 0: C starts as NaN and must not be read.
TEST_P(OneCall, MatchesCublas) { expect_checks_pass(1.f, 0.f); }
TEST_P(OneCall, AlphaAndBeta) { expect_checks_pass(-0.75f, 0.5f); }
// alpha == 0: A and B hold NaN and must not be read; C = beta C.
TEST_P(OneCall, AlphaZero) { expect_checks_pass(0.f, 0.5f); }
TEST_P(OneCall, AlphaZeroBetaZero) { expect_checks_pass(0.f, 0.f); }

TEST_P(OneCall, SemanticsAsCublas) {
  const Operation op = GetParam();
  expect_semantics_as_cublas(*harness_, op,
                             [&](const Shape& s, const Problem& p, const float* A, const float* B,
                                 float* C, std::string* why) {
                               return gemm(op.layout, op.a, op.b, s.M, s.N, s.K, p.alpha, A,
                                           s.a_ld(), B, s.b_ld(), p.beta, C, s.c_ld(),
                                           harness_->stream(), why);
                             });
}

// Two runs on the same inputs give the same bits (no atomics in any order that varies).
TEST_P(OneCall, BitwiseRepeatable) {
  const Operation op = GetParam();
  for (Problem p : {with_operation(Problem{{129, 33, 257}, 1.f, 0.f}, op, 1),
                    with_operation(Problem{{512, 384, 1024}, 0.5f, -1.f}, op)}) {
    SCOPED_TRACE(p.str());
    const Shape& s = p.shape;
    const Extent ea = s.a_stored(), eb = s.b_stored(), ec = s.c_stored();
    DeviceBuffer A(size_t(ea.lines) * s.a_ld()), B(size_t(eb.lines) * s.b_ld()),
        C0(size_t(ec.lines) * s.c_ld()), C1(C0.size()), C2(C0.size());
    fill_matrix(A.get(), ea.lines, ea.length, s.a_ld(), Fill::uniform, 5, 0.f, harness_->stream());
    fill_matrix(B.get(), eb.lines, eb.length, s.b_ld(), Fill::uniform, 6, 0.f, harness_->stream());
    fill_matrix(C0.get(), ec.lines, ec.length, s.c_ld(), Fill::uniform, 7, 0.f, harness_->stream());
    std::vector<std::vector<float>> results;
    for (DeviceBuffer* C : {&C1, &C2}) {
      CUDA_CHECK(cudaMemcpyAsync(C->get(), C0.get(), C0.size() * 4, cudaMemcpyDeviceToDevice,
                                 harness_->stream()));
      std::string why;
      ASSERT_EQ(gemm(op.layout, op.a, op.b, s.M, s.N, s.K, p.alpha, A.get(), s.a_ld(), B.get(),
                     s.b_ld(), p.beta, C->get(), s.c_ld(), harness_->stream(), &why),
                Status::ok)
          << why;
      sync();
      results.push_back(to_host(*C));
    }
    size_t differ = 0, first = results[0].size();
    for (size_t e = 0; e < results[0].size(); ++e)
      if (std::memcmp(&results[0][e], &results[1][e], 4) != 0) first = std::min(first, e), ++differ;
    EXPECT_EQ(differ, 0u) << "first at stored line " << first / s.c_ld() << ", element "
                          << first % s.c_ld() << " of " << s.c_stored().length << ": "
                          << (first < results[0].size() ? results[0][first] : 0.f) << " then "
                          << (first < results[1].size() ? results[1][first] : 0.f);
  }
}

// The workspace cannot hold the transposed copies: no_workspace, with a sentence, and nothing
// pending; the call runs again once the limit is restored.
TEST_P(OneCall, NoWorkspaceForTheCopies) {
  const Operation op = GetParam();
  const Problem p = with_operation(Problem{{64, 48, 80}}, op);
  const Shape& s = p.shape;
  // Column-major swaps A and B and flips neither: a copy is needed where an op is T.
  if (op.a == Op::N && op.b == Op::N) GTEST_SKIP() << op.str() << " needs no transposed copy";
  DeviceBuffer A(size_t(s.a_stored().lines) * s.a_ld()), B(size_t(s.b_stored().lines) * s.b_ld()),
      C(size_t(s.c_stored().lines) * s.c_ld());
  fill_value(A.get(), A.size(), 1.f, harness_->stream());
  fill_value(B.get(), B.size(), 1.f, harness_->stream());
  set_workspace_limit(1);  // one byte: no copy fits
  std::string why;
  const Status status = gemm(op.layout, op.a, op.b, s.M, s.N, s.K, 1.f, A.get(), s.a_ld(), B.get(),
                             s.b_ld(), 0.f, C.get(), s.c_ld(), harness_->stream(), &why);
  set_workspace_limit(0);
  EXPECT_EQ(status, Status::no_workspace) << why;
  EXPECT_NE(why.find("workspace"), std::string::npos) << why;
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(gemm(op.layout, op.a, op.b, s.M, s.N, s.K, 1.f, A.get(), s.a_ld(), B.get(), s.b_ld(),
                 0.f, C.get(), s.c_ld(), harness_->stream(), &why),
            Status::ok)
      << why;
  sync();
  const std::vector<float> c = to_host(C);
  for (int j = 0; j < s.N; ++j)  // every element is K: sums of K ones
    for (int i = 0; i < s.M; ++i)
      ASSERT_EQ(c[s.c_transposed() ? size_t(j) * s.c_ld() + i : size_t(i) * s.c_ld() + j],
                float(s.K));
}

INSTANTIATE_TEST_SUITE_P(Operations, OneCall, ::testing::ValuesIn(every_operation()),
                         [](const ::testing::TestParamInfo<Operation>& instance) {
                           return test_name(instance.param);
                         });

// ---- Every rung with a transposed operation: launch(rung, operation, ...) through the harness.

struct RungOperation {
  int rung;
  Operation op;
};

class RungOperations : public ::testing::TestWithParam<RungOperation> {
 protected:
  void SetUp() override {
    SGEMM_SKIP_WITHOUT_GPU();
    harness_ = std::make_unique<Harness>(0);
    SGEMM_SKIP_UNSUPPORTED_RUNG(GetParam().rung);
  }
  std::unique_ptr<Harness> harness_;
};

TEST_P(RungOperations, ChecksPass) {
  const Runnable& rung = require_runnable(GetParam().rung);
  uint64_t seed = 1;
  for (Problem p : {with_operation(Problem{{37, 45, 29}, -0.75f, 0.5f}, GetParam().op, 1),
                    with_operation(Problem{{130, 67, 257}, 1.f, 0.f, {1, 2, 3}}, GetParam().op)}) {
    for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
      SCOPED_TRACE(p.str() + " " + to_string(mode));
      const CheckReport report = harness_->check(rung, p, mode, seed++);
      EXPECT_TRUE(report.pass()) << report.summary();
    }
  }
}

// The same for every fp32 rung, in every operation: the classes with A's and B's roles swapped.
TEST_P(RungOperations, SemanticsAsCublas) {
  const RungInfo& rung = *find_rung(GetParam().rung);
  if (rung.precision != Precision::fp32) GTEST_SKIP() << "FP32's semantics: fp32 rungs";
  const Operation op = GetParam().op;
  expect_semantics_as_cublas(
      *harness_, op,
      [&](const Shape& s, const Problem& p, const float* A, const float* B, float* C,
          std::string* why) {
        return launch(rung, op,
                      Gemm{s.M, s.N, s.K, p.alpha, A, s.a_ld(), B, s.b_ld(), p.beta, C, s.c_ld()},
                      harness_->stream(), why);
      });
}

// Rung 13 in slices of K with A's and B's rows on 16 bytes (no packed copies: the problems
// above have them misaligned), the slices' flags from the flag pass: every class as cuBLAS.
// 130 x 68 is two tiles, K = 512 four slices on any GPU of 8 SMs or more.
TEST(Rung13Slices, SemanticsAsCublasOnAlignedOperands) {
  SGEMM_SKIP_WITHOUT_GPU();
  Harness harness(0);
  SGEMM_SKIP_UNSUPPORTED_RUNG(rung_number(RungId::mma_3xtf32));
  const RungInfo& rung = *find_rung(rung_number(RungId::mma_3xtf32));
  const Operation op{};
  expect_semantics_as_cublas(
      harness, op,
      [&](const Shape& s, const Problem& p, const float* A, const float* B, float* C,
          std::string* why) {
        return launch(rung, op,
                      Gemm{s.M, s.N, s.K, p.alpha, A, s.a_ld(), B, s.b_ld(), p.beta, C, s.c_ld()},
                      harness.stream(), why);
      },
      {Problem{{130, 68, 512}}});
}

std::vector<RungOperation> every_rung_operation() {
  std::vector<RungOperation> out;
  for (const RungInfo& r : rungs())
    for (const Operation& op : every_operation()) out.push_back({r.number, op});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Ladder, RungOperations, ::testing::ValuesIn(every_rung_operation()),
                         [](const ::testing::TestParamInfo<RungOperation>& instance) {
                           const int n = instance.param.rung;
                           return std::string(n < 10 ? "0" : "") + std::to_string(n) + "_" +
                                  find_rung(n)->name + "_" + test_name(instance.param.op);
                         });

// ---- sgemm::cublasSgemm: cuBLAS's arguments on gemm(), bit for bit, and cuBLAS's statuses.

class CublasWrapper : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    SGEMM_SKIP_UNSUPPORTED_RUNG(one_call_rung().number);
    ASSERT_EQ(cublasCreate(&handle_), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(cublasSetStream(handle_, harness_->stream()), CUBLAS_STATUS_SUCCESS);
  }
  void TearDown() override {
    if (handle_) {
      EXPECT_EQ(cublasDestroy(handle_), CUBLAS_STATUS_SUCCESS);
    }
  }

  // A column-major problem's device matrices: A and B uniform, C0 uniform; sizes for `op`.
  struct Matrices {
    Shape s;
    DeviceBuffer A, B, C0, C;
    Matrices(const Shape& shape, cudaStream_t stream)
        : s(shape),
          A(size_t(s.a_stored().lines) * s.a_ld()),
          B(size_t(s.b_stored().lines) * s.b_ld()),
          C0(size_t(s.c_stored().lines) * s.c_ld()),
          C(C0.size()) {
      fill_matrix(A.get(), s.a_stored().lines, s.a_stored().length, s.a_ld(), Fill::uniform, 21,
                  0.f, stream);
      fill_matrix(B.get(), s.b_stored().lines, s.b_stored().length, s.b_ld(), Fill::uniform, 22,
                  0.f, stream);
      fill_matrix(C0.get(), s.c_stored().lines, s.c_stored().length, s.c_ld(), Fill::uniform, 23,
                  0.f, stream);
    }
    void reset(cudaStream_t stream) {
      CUDA_CHECK(
          cudaMemcpyAsync(C.get(), C0.get(), C.size() * 4, cudaMemcpyDeviceToDevice, stream));
    }
  };

  static cublasOperation_t cublas_op(Op op) { return op == Op::T ? CUBLAS_OP_T : CUBLAS_OP_N; }

  cublasHandle_t handle_ = nullptr;
};

// gemm() and the wrapper on the same inputs: the same bits, for every op; CUBLAS_OP_C is T.
TEST_F(CublasWrapper, BitwiseEqualToGemm) {
  const float alpha = 0.75f, beta = -0.5f;
  for (Op a : {Op::N, Op::T})
    for (Op b : {Op::N, Op::T})
      for (bool conjugate : {false, true}) {
        Shape shape{129, 67, 301, 0, 0, 0, Operation{Layout::col_major, a, b}};
        shape.lda = shape.a_stored().length + 2;
        SCOPED_TRACE(shape.str() + (conjugate ? " (CUBLAS_OP_C for T)" : ""));
        Matrices m(shape, harness_->stream());
        const Shape& s = m.s;
        m.reset(harness_->stream());
        std::string why;
        ASSERT_EQ(gemm(Layout::col_major, a, b, s.M, s.N, s.K, alpha, m.A.get(), s.a_ld(),
                       m.B.get(), s.b_ld(), beta, m.C.get(), s.c_ld(), harness_->stream(), &why),
                  Status::ok)
            << why;
        sync();
        const std::vector<float> want = to_host(m.C);
        m.reset(harness_->stream());
        auto op_of = [&](Op op) { return op == Op::T && conjugate ? CUBLAS_OP_C : cublas_op(op); };
        ASSERT_EQ(sgemm::cublasSgemm(handle_, op_of(a), op_of(b), s.M, s.N, s.K, &alpha, m.A.get(),
                                     s.a_ld(), m.B.get(), s.b_ld(), &beta, m.C.get(), s.c_ld()),
                  CUBLAS_STATUS_SUCCESS)
            << last_why();
        sync();
        const std::vector<float> got = to_host(m.C);
        EXPECT_EQ(std::memcmp(want.data(), got.data(), want.size() * 4), 0);
      }
}

// alpha and beta in device memory (CUBLAS_POINTER_MODE_DEVICE): the same bits as on the host.
TEST_F(CublasWrapper, DevicePointerMode) {
  const float scalars[2] = {0.75f, -0.5f};
  DeviceBuffer on_device(2);
  upload(on_device.get(), scalars, sizeof scalars);
  Matrices m(Shape{65, 33, 47, 0, 0, 0, Operation{Layout::col_major, Op::T, Op::N}},
             harness_->stream());
  const Shape& s = m.s;
  m.reset(harness_->stream());
  ASSERT_EQ(
      sgemm::cublasSgemm(handle_, CUBLAS_OP_T, CUBLAS_OP_N, s.M, s.N, s.K, &scalars[0], m.A.get(),
                         s.a_ld(), m.B.get(), s.b_ld(), &scalars[1], m.C.get(), s.c_ld()),
      CUBLAS_STATUS_SUCCESS)
      << last_why();
  sync();
  const std::vector<float> host_mode = to_host(m.C);
  m.reset(harness_->stream());
  ASSERT_EQ(cublasSetPointerMode(handle_, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
  const cublasStatus_t status = sgemm::cublasSgemm(
      handle_, CUBLAS_OP_T, CUBLAS_OP_N, s.M, s.N, s.K, on_device.get(), m.A.get(), s.a_ld(),
      m.B.get(), s.b_ld(), on_device.get() + 1, m.C.get(), s.c_ld());
  ASSERT_EQ(cublasSetPointerMode(handle_, CUBLAS_POINTER_MODE_HOST), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(status, CUBLAS_STATUS_SUCCESS) << last_why();
  sync();
  const std::vector<float> device_mode = to_host(m.C);
  EXPECT_EQ(std::memcmp(host_mode.data(), device_mode.data(), host_mode.size() * 4), 0);
}

// BLAS's quick returns: m == 0 or n == 0 touches nothing; k == 0 gives C = beta C, as cuBLAS.
TEST_F(CublasWrapper, QuickReturns) {
  Matrices m(Shape{17, 9, 5, 0, 0, 0, Operation{Layout::col_major, Op::N, Op::N}},
             harness_->stream());
  const Shape& s = m.s;
  const float alpha = 1.f, beta = 0.5f;
  m.reset(harness_->stream());
  EXPECT_EQ(sgemm::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 0, s.N, s.K, &alpha, m.A.get(),
                               s.a_ld(), m.B.get(), s.b_ld(), &beta, m.C.get(), s.c_ld()),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(sgemm::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, s.M, 0, s.K, &alpha, m.A.get(),
                               s.a_ld(), m.B.get(), s.b_ld(), &beta, m.C.get(), s.c_ld()),
            CUBLAS_STATUS_SUCCESS);
  sync();
  EXPECT_EQ(to_host(m.C), to_host(m.C0));  // untouched
  // k == 0 beside cuBLAS's own answer.
  DeviceBuffer reference(m.C0.size());
  CUDA_CHECK(cudaMemcpy(reference.get(), m.C0.get(), m.C0.size() * 4, cudaMemcpyDeviceToDevice));
  ASSERT_EQ(::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, s.M, s.N, 0, &alpha, m.A.get(),
                          s.a_ld(), m.B.get(), s.b_ld(), &beta, reference.get(), s.c_ld()),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(sgemm::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, s.M, s.N, 0, &alpha, m.A.get(),
                               s.a_ld(), m.B.get(), s.b_ld(), &beta, m.C.get(), s.c_ld()),
            CUBLAS_STATUS_SUCCESS)
      << last_why();
  sync();
  const std::vector<float> got = to_host(m.C), want = to_host(reference);
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0);
}

// Bad arguments: cuBLAS's statuses, a sentence in last_why(), nothing launched or pending.
TEST_F(CublasWrapper, StatusesOnBadArguments) {
  // 16 x 16 matrices: every call below stays inside them, should one launch by mistake.
  Matrices m(Shape{16, 16, 16, 0, 0, 0, Operation{Layout::col_major, Op::N, Op::N}},
             harness_->stream());
  m.reset(harness_->stream());
  float* const A = m.A.get();
  float* const B = m.B.get();
  float* const C = m.C.get();
  const float one = 1.f;
  const auto bad_op = static_cast<cublasOperation_t>(42);
  std::vector<float> host(16 * 12);
  struct Expectation {
    const char* what;
    cublasStatus_t status, want;
  };
  const Expectation cases[] = {
      {"m < 0",
       sgemm::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, -1, 8, 12, &one, A, 16, B, 12, &one, C,
                          16),
       CUBLAS_STATUS_INVALID_VALUE},
      {"k < 0",
       sgemm::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 16, 8, -3, &one, A, 16, B, 12, &one, C,
                          16),
       CUBLAS_STATUS_INVALID_VALUE},
      {"bad transa",
       sgemm::cublasSgemm(handle_, bad_op, CUBLAS_OP_N, 16, 8, 12, &one, A, 16, B, 12, &one, C, 16),
       CUBLAS_STATUS_INVALID_VALUE},
      {"lda < m",
       sgemm::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 16, 8, 12, &one, A, 15, B, 12, &one, C,
                          16),
       CUBLAS_STATUS_INVALID_VALUE},
      {"lda < k (op T)",
       sgemm::cublasSgemm(handle_, CUBLAS_OP_T, CUBLAS_OP_N, 16, 8, 12, &one, A, 11, B, 12, &one, C,
                          16),
       CUBLAS_STATUS_INVALID_VALUE},
      {"ldb < k",
       sgemm::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 16, 8, 12, &one, A, 16, B, 11, &one, C,
                          16),
       CUBLAS_STATUS_INVALID_VALUE},
      {"ldc < m",
       sgemm::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 16, 8, 12, &one, A, 16, B, 12, &one, C,
                          15),
       CUBLAS_STATUS_INVALID_VALUE},
      {"null alpha",
       sgemm::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 16, 8, 12, nullptr, A, 16, B, 12, &one,
                          C, 16),
       CUBLAS_STATUS_INVALID_VALUE},
      {"null B",
       sgemm::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 16, 8, 12, &one, A, 16, nullptr, 12,
                          &one, C, 16),
       CUBLAS_STATUS_INVALID_VALUE},
      {"misaligned C",
       sgemm::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 16, 8, 12, &one, A, 16, B, 12, &one,
                          reinterpret_cast<float*>(reinterpret_cast<char*>(m.C0.get()) + 2), 16),
       CUBLAS_STATUS_INVALID_VALUE},
      {"host A",
       sgemm::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 16, 8, 12, &one, host.data(), 16, B,
                          12, &one, C, 16),
       CUBLAS_STATUS_INVALID_VALUE},
      {"m over the ladder's limit",
       sgemm::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, kMaxDimension + 1, 8, 12, &one, A,
                          kMaxDimension + 1, B, 12, &one, C, kMaxDimension + 1),
       CUBLAS_STATUS_NOT_SUPPORTED},
      {"a matrix over 2^31 elements",
       sgemm::cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 100000, 8, 100000, &one, A, 100000, B,
                          100000, &one, C, 100000),
       CUBLAS_STATUS_NOT_SUPPORTED},
  };
  for (const Expectation& e : cases) {
    EXPECT_EQ(e.status, e.want) << e.what;
  }
  EXPECT_EQ(sgemm::cublasSgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 16, 8, 12, &one, A, 16, B, 12,
                               &one, C, 16),
            CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_FALSE(last_why().empty());
  // The workspace cannot hold a transposed copy: ALLOC_FAILED.
  set_workspace_limit(1);
  const cublasStatus_t short_workspace = sgemm::cublasSgemm(handle_, CUBLAS_OP_T, CUBLAS_OP_N, 12,
                                                            8, 16, &one, A, 16, B, 16, &one, C, 12);
  set_workspace_limit(0);
  EXPECT_EQ(short_workspace, CUBLAS_STATUS_ALLOC_FAILED) << last_why();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  sync();
  EXPECT_EQ(to_host(m.C), to_host(m.C0)) << "a call that failed wrote C";
}

}  // namespace
}  // namespace sgemm::testing
