// BLAS's general form without a GPU: every argument rule of the one call (sgemm::gemm),
// check_arguments and launch(rung, operation, ...) in both layouts with every op(A), op(B);
// where each matrix lies (stored_extent, Shape); the one call's rung; sgemm::cublasSgemm without
// a handle; and what --layout and --ops do to the programs' problems and JSON. Every call here
// fails before a pointer is used or CUDA is asked, so dummy host pointers do.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli.h"
#include "operations.h"
#include "registry.h"  // rung_info(): a rung by its typed handle
#include "report.h"
#include "sgemm/sgemm.h"
#include "sgemm/sgemm_cublas.h"

namespace sgemm {
namespace {

using testing::every_operation;

alignas(16) float dummy[64];  // never read
const float* const A = dummy;
const float* const B = dummy + 16;
const float* const C = dummy + 32;

// BLAS's rules, written out once more: the leading dimension each matrix needs, and the name
// of the size it is.
struct Rule {
  int lda, ldb, ldc;
  std::string a_size, b_size, c_size;
};
Rule rule(const Operation& op, int M, int N, int K) {
  if (op.layout == Layout::row_major)
    return {op.a == Op::N ? K : M,     op.b == Op::N ? N : K,     N,
            op.a == Op::N ? "K" : "M", op.b == Op::N ? "N" : "K", "N"};
  return {op.a == Op::N ? M : K,     op.b == Op::N ? K : N,     M,
          op.a == Op::N ? "M" : "K", op.b == Op::N ? "K" : "N", "M"};
}

struct Args {
  int M, N, K, lda, ldb, ldc;
  const float *a = A, *b = B, *c = C;
};

// The status of the same arguments through each door: check_arguments(operation, ...), gemm()
// and launch(first rung, operation, ...); all three must agree, and each names `what`.
void expect_status(const Operation& op, const Args& x, Status status, const std::string& what) {
  SCOPED_TRACE(op.str() + " " + std::to_string(x.M) + "x" + std::to_string(x.N) + "x" +
               std::to_string(x.K) + " lda=" + std::to_string(x.lda) +
               " ldb=" + std::to_string(x.ldb) + " ldc=" + std::to_string(x.ldc));
  std::string why;
  EXPECT_EQ(check_arguments(op, x.M, x.N, x.K, x.a, x.lda, x.b, x.ldb, x.c, x.ldc, &why), status)
      << why;
  EXPECT_NE(why.find(what), std::string::npos) << "'" << why << "' should mention " << what;
  why.clear();
  float* c = const_cast<float*>(x.c);
  EXPECT_EQ(gemm(op.layout, op.a, op.b, x.M, x.N, x.K, 1.f, x.a, x.lda, x.b, x.ldb, 0.f, c, x.ldc,
                 nullptr, &why),
            status)
      << why;
  EXPECT_NE(why.find(what), std::string::npos) << "gemm: '" << why << "'";
  why.clear();
  EXPECT_EQ(launch(rungs().front(), op,
                   Gemm{x.M, x.N, x.K, 1.f, x.a, x.lda, x.b, x.ldb, 0.f, c, x.ldc}, nullptr, &why),
            status)
      << why;
  EXPECT_NE(why.find(what), std::string::npos) << "launch: '" << why << "'";
  // Without `why` the answer is the same.
  EXPECT_EQ(check_arguments(op, x.M, x.N, x.K, x.a, x.lda, x.b, x.ldb, x.c, x.ldc), status);
}

class Operations : public ::testing::TestWithParam<Operation> {};

// Each leading dimension one below BLAS's rule fails, naming it and the size it must cover;
// at the rule all three pass (the call then stops at the null C, after them).
TEST_P(Operations, LeadingDimensionRules) {
  const Operation op = GetParam();
  const int M = 5, N = 6, K = 7;  // distinct, so that a message's number says which size
  const Rule r = rule(op, M, N, K);
  const Args ok{M, N, K, r.lda, r.ldb, r.ldc, A, B, nullptr};
  expect_status(op, ok, Status::bad_pointer, "C is a null pointer");
  Args x = ok;
  x.lda = r.lda - 1;
  expect_status(op, x, Status::bad_leading_dim,
                "lda = " + std::to_string(r.lda - 1) + " is smaller than " + r.a_size + " = " +
                    std::to_string(r.lda));
  x = ok, x.ldb = r.ldb - 1;
  expect_status(op, x, Status::bad_leading_dim,
                "ldb = " + std::to_string(r.ldb - 1) + " is smaller than " + r.b_size + " = " +
                    std::to_string(r.ldb));
  x = ok, x.ldc = r.ldc - 1;
  expect_status(op, x, Status::bad_leading_dim,
                "ldc = " + std::to_string(r.ldc - 1) + " is smaller than " + r.c_size + " = " +
                    std::to_string(r.ldc));
  x = ok, x.lda = 0;
  expect_status(op, x, Status::bad_leading_dim, "lda = 0");
  x = ok, x.ldb = -1;
  expect_status(op, x, Status::bad_leading_dim, "ldb = -1");
  // Padded leading dimensions are fine.
  x = ok, x.lda += 9, x.ldb += 1, x.ldc += 3;
  expect_status(op, x, Status::bad_pointer, "C is a null pointer");
}

// Outside the rungs' own problem the sentence says the rule in words.
TEST_P(Operations, LeadingDimensionMessageSaysTheRule) {
  const Operation op = GetParam();
  const Rule r = rule(op, 5, 6, 7);
  std::string why;
  ASSERT_EQ(check_arguments(op, 5, 6, 7, A, r.lda - 1, B, r.ldb, C, r.ldc, &why),
            Status::bad_leading_dim);
  if (op.is_rungs_own()) {
    EXPECT_EQ(why, "lda = 6 is smaller than K = 7");  // as before the operations came
  } else {
    const std::string layout = op.layout == Layout::row_major ? "row-major" : "column-major";
    EXPECT_NE(why.find("(" + layout + " A with op " + to_string(op.a)), std::string::npos) << why;
    EXPECT_NE(why.find("lda >= " + r.a_size + ")"), std::string::npos) << why;
  }
}

TEST_P(Operations, BadSizes) {
  const Operation op = GetParam();
  const Rule r = rule(op, 8, 8, 8);
  const int big = kMaxDimension + 1;
  expect_status(op, {0, 8, 8, r.lda, r.ldb, r.ldc}, Status::bad_size, "M = 0");
  expect_status(op, {8, -2, 8, r.lda, r.ldb, r.ldc}, Status::bad_size, "N = -2");
  expect_status(op, {8, 8, 0, r.lda, r.ldb, r.ldc}, Status::bad_size, "K = 0");
  expect_status(op, {8, 8, big, big, big, big}, Status::bad_size, std::to_string(big));
  // Sizes first: with bad leading dimensions and null pointers too, the size is the answer.
  expect_status(op, {0, 8, 8, 0, 0, 0, nullptr, nullptr, nullptr}, Status::bad_size, "M");
}

// A matrix over 2^31 elements as stored, in every operation.
TEST_P(Operations, TooLarge) {
  const Operation op = GetParam();
  const int n = 100000;
  const Rule r = rule(op, n, 8, n);
  expect_status(op, {n, 8, n, r.lda, r.ldb, r.ldc}, Status::too_large, "32-bit");
  const Rule wide = rule(op, 8, 8, 8);
  expect_status(op, {8, 8, 8, wide.lda, wide.ldb, 1 << 30}, Status::too_large, "32-bit");
}

// Null and misaligned pointers, named; 4-byte aligned pointers that are not 16-byte aligned are
// fine (the call then stops at the null C).
TEST_P(Operations, Pointers) {
  const Operation op = GetParam();
  const Rule r = rule(op, 8, 8, 8);
  const Args ok{8, 8, 8, r.lda, r.ldb, r.ldc};
  Args x = ok;
  x.a = nullptr;
  expect_status(op, x, Status::bad_pointer, "A is a null pointer");
  x = ok, x.b = nullptr;
  expect_status(op, x, Status::bad_pointer, "B is a null pointer");
  x = ok, x.c = nullptr;
  expect_status(op, x, Status::bad_pointer, "C is a null pointer");
  const auto two_bytes_in = [](const float* p) {
    return reinterpret_cast<const float*>(reinterpret_cast<const char*>(p) + 2);
  };
  x = ok, x.a = two_bytes_in(A);
  expect_status(op, x, Status::bad_pointer, "A is not 4-byte aligned");
  x = ok, x.b = two_bytes_in(B);
  expect_status(op, x, Status::bad_pointer, "B is not 4-byte aligned");
  x = ok, x.c = two_bytes_in(C);
  expect_status(op, x, Status::bad_pointer, "C is not 4-byte aligned");
  x = ok, x.a = A + 1, x.b = B + 3, x.c = nullptr;
  expect_status(op, x, Status::bad_pointer, "C is a null pointer");
}

INSTANTIATE_TEST_SUITE_P(BothLayouts, Operations, ::testing::ValuesIn(every_operation()),
                         [](const ::testing::TestParamInfo<Operation>& instance) {
                           return std::string(to_string(instance.param.layout)) + "_" +
                                  to_string(instance.param.a) + to_string(instance.param.b);
                         });

// The transposed copy of an operand has its own 2^31 limit: row-major A^T stored K x M fits, its
// copy M x K (K rounded up to 4) does not. Column-major the same with A and B's roles swapped.
TEST(OperationCopies, TransposedCopyTooLarge) {
  std::string why;
  EXPECT_EQ(check_arguments(Operation{Layout::row_major, Op::T, Op::N}, 2000, 8, 1000000, A, 2000,
                            B, 8, C, 8, &why),
            Status::too_large);
  EXPECT_NE(why.find("transposed copy"), std::string::npos) << why;
  why.clear();
  EXPECT_EQ(check_arguments(Operation{Layout::col_major, Op::T, Op::N}, 1000000, 8, 2000, A, 2000,
                            B, 2000, C, 1000000, &why),
            Status::too_large);
  EXPECT_NE(why.find("transposed copy"), std::string::npos) << why;
  // Without a transpose there is no copy, and A itself is that large as stored.
  EXPECT_EQ(check_arguments(Operation{Layout::row_major, Op::N, Op::N}, 2000, 8, 1000000, A,
                            1000000, B, 8, nullptr, 8, &why),
            Status::too_large);  // A itself: 2000 rows of 10^6
  EXPECT_EQ(check_arguments(Operation{Layout::col_major, Op::N, Op::N}, 1000000, 8, 2000, A,
                            1000000, B, 2000, nullptr, 1000000, &why),
            Status::too_large);  // A itself: 2000 columns of 10^6
}

// The rungs' own problem is unchanged: the old check_arguments says what the new one says.
TEST(OperationCopies, RowMajorNNIsTheRungsOwn) {
  EXPECT_TRUE(Operation{}.is_rungs_own());
  for (const Operation& op : every_operation())
    EXPECT_EQ(op.is_rungs_own(), op.layout == Layout::row_major && op.a == Op::N && op.b == Op::N);
  std::string old_why, new_why;
  const int r = rungs().front().number;
  EXPECT_EQ(check_arguments(r, 8, 8, 8, A, 7, B, 8, C, 8, &old_why),
            check_arguments(Operation{}, 8, 8, 8, A, 7, B, 8, C, 8, &new_why));
  EXPECT_EQ(old_why, new_why);
}

TEST(OperationNames, ToString) {
  EXPECT_STREQ(to_string(Layout::row_major), "row");
  EXPECT_STREQ(to_string(Layout::col_major), "col");
  EXPECT_STREQ(to_string(Op::N), "N");
  EXPECT_STREQ(to_string(Op::T), "T");
  EXPECT_EQ(Operation{}.str(), "row NN");
  EXPECT_EQ((Operation{Layout::col_major, Op::T, Op::N}.str()), "col TN");
}

// Where each matrix lies: row-major N is as it is, column-major the transpose, T the other one.
TEST(OperationExtents, StoredExtent) {
  static_assert(stored_extent(Layout::row_major, Op::N, 3, 5).lines == 3);
  static_assert(stored_extent(Layout::row_major, Op::N, 3, 5).length == 5);
  static_assert(stored_extent(Layout::row_major, Op::T, 3, 5).lines == 5);
  static_assert(stored_extent(Layout::col_major, Op::N, 3, 5).lines == 5);
  static_assert(stored_extent(Layout::col_major, Op::T, 3, 5).lines == 3);
  static_assert(stored_extent(Layout::col_major, Op::T, 3, 5).length == 5);
  Shape s{7, 33, 129};
  EXPECT_EQ(s.a_ld(), 129);
  EXPECT_EQ(s.str(), "7x33x129");  // unchanged for the rungs' own problem
  s.op = Operation{Layout::col_major, Op::T, Op::N};
  // A is K x M by columns: ld >= K; B is K x N by columns: ld >= K; C M x N by columns: ld >= M.
  EXPECT_EQ(s.a_ld(), 129);
  EXPECT_EQ(s.b_ld(), 129);
  EXPECT_EQ(s.c_ld(), 7);
  EXPECT_EQ(s.a_stored().lines, 7);
  EXPECT_EQ(s.b_stored().lines, 33);
  EXPECT_EQ(s.c_stored().lines, 33);
  EXPECT_FALSE(s.a_transposed());  // (A^T)^T: K runs along the stored rows of length K
  EXPECT_TRUE(s.b_transposed());
  EXPECT_TRUE(s.c_transposed());
  EXPECT_EQ(s.str(), "7x33x129 col TN");
  s.ldc = 8;
  EXPECT_EQ(s.str(), "7x33x129 col TN lda=129 ldb=129 ldc=8");
}

// The one call runs the ladder's best FP32-accurate rung, rung 18.
TEST(OneCall, RungIsBest) {
  const RungInfo& r = one_call_rung();
  EXPECT_EQ(&r, &rung_info(RungId::best)) << r.name;
  EXPECT_EQ(r.precision, Precision::fp32);
  EXPECT_EQ(find_rung(r.number), &r);
}

// Without a handle the wrapper answers as cuBLAS does, before anything else.
TEST(CublasWrapper, NullHandle) {
  const float one = 1.f;
  EXPECT_EQ(sgemm::cublasSgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_T, 8, 8, 8, &one, A, 8, B, 8, &one,
                               const_cast<float*>(C), 8),
            CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_NE(last_why().find("handle"), std::string::npos) << last_why();
}

// ---- The programs' flags: --layout and --ops set every problem's operation; --pad pads the
// stored runs; bad values are bad usage naming the flag.

TEST(OperationFlags, DefaultIsRowMajorNN) {
  const ParseResult r = parse_args({"1", "--mnk", "7,33,129"});
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.options.run.shapes.size(), 1u);
  EXPECT_TRUE(r.options.run.shapes[0].op.is_rungs_own());
  EXPECT_TRUE(r.options.run.operation.is_rungs_own());
}

TEST(OperationFlags, LayoutAndOpsReachEveryShape) {
  const ParseResult r =
      parse_args({"1", "--layout", "col", "--ops", "TN", "--mnk", "7,33,129", "--sizes", "64"});
  ASSERT_FALSE(r.ok());  // --sizes and --mnk together are still an error
  const ParseResult p =
      parse_args({"1", "--layout", "col", "--ops", "TN", "--mnk", "7,33,129;5,6,7", "--pad", "3"});
  ASSERT_TRUE(p.ok()) << p.error;
  ASSERT_EQ(p.options.run.shapes.size(), 2u);
  const Operation want{Layout::col_major, Op::T, Op::N};
  for (const Shape& s : p.options.run.shapes) {
    EXPECT_EQ(s.op.str(), want.str());
    // col TN: A is K x M by columns (lda >= K), B K x N (ldb >= K), C M x N (ldc >= M); + 3.
    EXPECT_EQ(s.a_ld(), s.K + 3);
    EXPECT_EQ(s.b_ld(), s.K + 3);
    EXPECT_EQ(s.c_ld(), s.M + 3);
  }
  const ParseResult nt = parse_args({"1", "--ops", "NT", "--sizes", "16"});
  ASSERT_TRUE(nt.ok()) << nt.error;
  EXPECT_EQ(nt.options.run.shapes[0].op.str(), "row NT");
}

TEST(OperationFlags, BadValuesNameTheFlag) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"1", "--layout", "diagonal"},
        {"1", "--layout", "ROW"},
        {"1", "--ops", "NX"},
        {"1", "--ops", "N"},
        {"1", "--ops", "NNN"},
        {"1", "--ops", "tn"}}) {
    const ParseResult r = parse_args(args);
    EXPECT_FALSE(r.ok()) << args[2];
    EXPECT_NE(r.error.find(args[1]), std::string::npos) << r.error;
    EXPECT_NE(r.error.find(args[2]), std::string::npos) << r.error;
  }
}

TEST(OperationFlags, HelpListsThem) {
  const ParseResult r = parse_args({"--help"});
  EXPECT_NE(r.help.find("--layout"), std::string::npos);
  EXPECT_NE(r.help.find("--ops"), std::string::npos);
}

// The JSON records the operation of a row that is not the rungs' own, and nothing new otherwise.
TEST(OperationJson, RecordedWhenNotRowMajorNN) {
  Measurement plain;
  plain.rung = 1;
  plain.name = rung_name(RungId::naive);
  plain.problem = {{16, 16, 16}};
  Measurement col = plain;
  col.problem.shape.op = Operation{Layout::col_major, Op::N, Op::T};
  const std::string path = ::testing::TempDir() + "sgemm_api_ops_test.json";
  write_json(path, GpuInfo{}, {plain, col});
  std::ifstream in(path);
  const nlohmann::json rows = nlohmann::json::parse(in).at("results");
  EXPECT_FALSE(rows[0].contains("layout"));
  EXPECT_FALSE(rows[0].contains("ops"));
  EXPECT_EQ(rows[1].at("layout"), "col");
  EXPECT_EQ(rows[1].at("ops"), "NT");
  EXPECT_EQ(rows[1].at("lda"), 16);  // A 16 x 16 by columns
}

}  // namespace
}  // namespace sgemm
