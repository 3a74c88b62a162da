// The batched forms (sgemm.h: gemm_strided_batched, gemm_batched; sgemm_cublas.h: their cuBLAS
// signatures): every element within FP32's componentwise bound of an FP64 sum computed here, on
// the host, for both forms, both layouts, all four ops, odd shapes, padded leading dimensions and
// strides, shared operands (stride 0), and each rule of library/batched.cu (the stacked problem,
// the loop of large problems, the fused 3xTF32 and FFMA batched kernels, batches past a grid's
// 65535); BLAS's alpha == 0 and beta == 0, Inf and NaN where cuBLAS puts them, the statuses of a
// bad batch or stride, and a CUDA graph that replays a batched call.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "batched_kernels.h"  // gemm_strided_batched_on: each kernel by name
#include "gpu_support.h"
#include "sgemm/sgemm.h"
#include "sgemm/sgemm_cublas.h"

namespace sgemm::testing {
namespace {

#define CUBLAS_OK(call) ASSERT_EQ((call), CUBLAS_STATUS_SUCCESS)

// One batched problem, on the host and the device: problem i's matrices at i * stride (elements)
// from the start of each buffer (a negative stride is not tested here: cuBLAS takes them too).
struct Case {
  Layout layout = Layout::row_major;
  Op opA = Op::N, opB = Op::N;
  int M = 1, N = 1, K = 1, batch = 1;
  int padA = 0, padB = 0, padC = 0;  // added to each leading dimension
  bool shareA = false, shareB = false;
  long long gapC = 0;    // elements between one C and the next, beyond its extent
  bool aligned = false;  // leading dimensions and strides of A, B and C whole 16 bytes (TMA's maps)
  float alpha = 1.f, beta = 0.f;

  Extent a() const { return stored_extent(layout, opA, M, K); }
  Extent b() const { return stored_extent(layout, opB, K, N); }
  Extent c() const { return stored_extent(layout, Op::N, M, N); }
  int lda() const { return static_cast<int>(whole16(a().length + padA)); }
  int ldb() const { return static_cast<int>(whole16(b().length + padB)); }
  int ldc() const { return static_cast<int>(whole16(c().length + padC)); }
  long long sizeA() const { return static_cast<long long>(a().lines) * lda(); }
  long long sizeB() const { return static_cast<long long>(b().lines) * ldb(); }
  long long sizeC() const { return static_cast<long long>(c().lines) * ldc(); }
  long long farStrides = 0;  // a batch of one: strides past all memory, which BLAS accepts there
  long long strideA() const {
    return shareA ? 0 : farStrides ? farStrides : aligned ? whole16(sizeA() + 4) : sizeA() + 3;
  }
  long long strideB() const {
    return shareB ? 0 : farStrides ? farStrides : aligned ? whole16(sizeB() + 4) : sizeB() + 1;
  }
  long long whole16(long long n) const { return aligned ? (n + 3) / 4 * 4 : n; }
  long long strideC() const { return whole16(sizeC() + gapC); }
  std::string str() const {
    return std::string(to_string(layout)) + " " + to_string(opA) + to_string(opB) + " " +
           std::to_string(batch) + " x " + std::to_string(M) + "x" + std::to_string(N) + "x" +
           std::to_string(K);
  }
  // op(X)(r, c) of problem i in its buffer.
  long long at(bool isA, int i, int r, int col) const {
    const Op op = isA ? opA : opB;
    const int ld = isA ? lda() : ldb();
    const long long base = i * (isA ? strideA() : strideB());
    const bool rowMajorView = (op == Op::N) == (layout == Layout::row_major);
    return base + (rowMajorView ? static_cast<long long>(r) * ld + col
                                : static_cast<long long>(col) * ld + r);
  }
  long long atC(int i, int r, int col) const {
    return i * strideC() + (layout == Layout::row_major ? static_cast<long long>(r) * ldc() + col
                                                        : static_cast<long long>(col) * ldc() + r);
  }
};

template <typename T>
struct Device {
  T* p = nullptr;
  size_t n = 0;
  explicit Device(size_t count) : n(count) {
    CUDA_CHECK(cudaMalloc(&p, std::max<size_t>(count, 1) * sizeof(T)));
  }
  Device(const std::vector<T>& host) : Device(host.size()) { put(host); }
  ~Device() { cudaFree(p); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  void put(const std::vector<T>& host) { upload(p, host.data(), host.size() * sizeof(T)); }
  std::vector<T> get() const {
    std::vector<T> host(n);
    CUDA_CHECK(cudaMemcpy(host.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
};

std::vector<float> uniform(size_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(count);
  for (float& x : v) x = u(gen);
  return v;
}

// Host operands and C0 of a case, and each buffer's size for `batch` problems.
struct Operands {
  std::vector<float> A, B, C0;
  explicit Operands(const Case& c)
      : A(uniform(c.sizeA() + (c.batch - 1) * c.strideA(), 1)),
        B(uniform(c.sizeB() + (c.batch - 1) * c.strideB(), 2)),
        C0(uniform(c.sizeC() + (c.batch - 1) * c.strideC(), 3)) {}
};

// Every element of every problem within gamma_{K+2} * (|alpha| sum |a||b| + |beta| |c0|) of the
// FP64 result (the sum's K roundings and the epilogue's two); elements outside the problems
// (padding, gaps) untouched. alpha == 0 reads neither A nor B, beta == 0 not C0.
void expect_within_bound(const Case& c, const Operands& in, const std::vector<float>& got) {
  const double u = std::ldexp(1.0, -24), n = c.K + 2;
  const double gamma = n * u / (1 - n * u);
  std::vector<bool> inside(got.size(), false);
  long long bad = 0;
  for (int i = 0; i < c.batch; ++i)
    for (int r = 0; r < c.M; ++r)
      for (int col = 0; col < c.N; ++col) {
        double sum = 0, mag = 0;
        if (c.alpha != 0.f)
          for (int k = 0; k < c.K; ++k) {
            const double a = in.A[c.at(true, i, r, k)], b = in.B[c.at(false, i, k, col)];
            sum += a * b, mag += std::fabs(a * b);
          }
        const long long e = c.atC(i, r, col);
        inside[e] = true;
        const double c0 = c.beta == 0.f ? 0.0 : in.C0[e];
        const double want = c.alpha * sum + c.beta * c0;
        const double bound = gamma * (std::fabs(c.alpha) * mag + std::fabs(c.beta * c0));
        if (!(std::fabs(got[e] - want) <= bound) && bad++ < 5)
          ADD_FAILURE() << c.str() << ": problem " << i << " (" << r << ", " << col
                        << ") = " << got[e] << ", FP64 " << want << ", bound " << bound;
      }
  for (size_t e = 0; e < got.size(); ++e)
    if (!inside[e] && !(got[e] == in.C0[e]) && bad++ < 5)
      ADD_FAILURE() << c.str() << ": element " << e << " outside every C was written";
  EXPECT_EQ(bad, 0) << c.str();
}

// The strided form on a case (on one kernel, where one is named); what C holds after it.
std::vector<float> run_strided(const Case& c, const Operands& in, Status* status = nullptr,
                               cudaStream_t stream = nullptr,
                               BatchedKernel kernel = BatchedKernel::automatic) {
  Device<float> A(in.A), B(in.B), C(in.C0);
  std::string why;
  const Status s = gemm_strided_batched_on(
      kernel, c.layout, c.opA, c.opB, c.M, c.N, c.K, c.alpha, A.p, c.lda(), c.strideA(), B.p,
      c.ldb(), c.strideB(), c.beta, C.p, c.ldc(), c.strideC(), c.batch, stream, &why);
  if (status) *status = s;
  EXPECT_EQ(s, Status::ok) << c.str() << " on " << to_string(kernel) << ": " << why;
  CUDA_CHECK(cudaDeviceSynchronize());
  return C.get();
}

// The pointer-array form, its arrays in reverse order of the problems' addresses (problem i's
// matrices at i * stride, its pointers at entry i, the arrays' entries written last to first).
std::vector<float> run_arrays(const Case& c, const Operands& in, cudaStream_t stream = nullptr) {
  Device<float> A(in.A), B(in.B), C(in.C0);
  std::vector<const float*> a(c.batch), b(c.batch);
  std::vector<float*> cs(c.batch);
  for (int i = c.batch - 1; i >= 0; --i) {
    a[i] = A.p + i * c.strideA(), b[i] = B.p + i * c.strideB(), cs[i] = C.p + i * c.strideC();
  }
  Device<const float*> dA(a), dB(b);
  Device<float*> dC(cs);
  std::string why;
  const Status s = gemm_batched(c.layout, c.opA, c.opB, c.M, c.N, c.K, c.alpha, dA.p, c.lda(), dB.p,
                                c.ldb(), c.beta, dC.p, c.ldc(), c.batch, stream, &why);
  EXPECT_EQ(s, Status::ok) << c.str() << ": " << why;
  CUDA_CHECK(cudaDeviceSynchronize());
  return C.get();
}

class BatchedTest : public GpuTest {};

TEST_F(BatchedTest, EveryLayoutOpAndOddShapeWithinTheBound) {
  struct Size {
    int M, N, K, batch;
  };
  for (const Size& z : {Size{1, 1, 1, 3}, Size{3, 5, 7, 4}, Size{129, 65, 33, 3}})
    for (Layout layout : {Layout::row_major, Layout::col_major})
      for (Op opA : {Op::N, Op::T})
        for (Op opB : {Op::N, Op::T}) {
          Case c;
          c.layout = layout, c.opA = opA, c.opB = opB;
          c.M = z.M, c.N = z.N, c.K = z.K, c.batch = z.batch;
          c.padA = 3, c.padB = 1, c.padC = 2, c.gapC = 5;
          c.alpha = 1.5f, c.beta = -0.5f;
          const Operands in(c);
          expect_within_bound(c, in, run_strided(c, in));
          expect_within_bound(c, in, run_arrays(c, in));
        }
}

TEST_F(BatchedTest, LargeOddShapeWithinTheBound) {  // rung 15's batched pre-pass path, tails
  for (Layout layout : {Layout::row_major, Layout::col_major})
    for (Op op : {Op::N, Op::T}) {
      Case c;
      c.layout = layout, c.opA = op, c.opB = op;
      c.M = 257, c.N = 511, c.K = 1025, c.batch = 2;
      c.padA = 1, c.padC = 3, c.beta = 0.25f;
      const Operands in(c);
      expect_within_bound(c, in, run_strided(c, in));
      expect_within_bound(c, in, run_arrays(c, in));
    }
}

TEST_F(BatchedTest, SharedOperandsStrideZero) {
  for (Layout layout : {Layout::row_major, Layout::col_major})
    for (int shared = 1; shared <= 3; ++shared) {
      Case c;
      c.layout = layout, c.opA = Op::T, c.opB = Op::N;
      c.M = 70, c.N = 130, c.K = 40, c.batch = 5;
      c.shareA = shared & 1, c.shareB = shared & 2;
      const Operands in(c);
      expect_within_bound(c, in, run_strided(c, in));
    }
}

// Each rule of library/batched.cu: the stacked problem (row-major, A's problems contiguous, B
// shared, C contiguous, and its column-major mirror), the loop of problems that fill the GPU
// several times, the FFMA kernel (K < 16, small problems), a batch longer than one grid's 65535.
TEST_F(BatchedTest, EveryRuleWithinTheBound) {
  std::vector<Case> cases;
  Case stacked;
  stacked.M = 100, stacked.N = 96, stacked.K = 48, stacked.batch = 6, stacked.shareB = true;
  cases.push_back(stacked);  // strideA = M * lda + 3: not stacked
  Case large;                // 31 x 31 tiles: past rule 3's six waves of 132 SMs
  large.M = 3850, large.N = 3842, large.K = 20, large.batch = 2, large.opB = Op::T;
  cases.push_back(large);
  Case shortK;
  shortK.M = 200, shortK.N = 300, shortK.K = 9, shortK.batch = 3, shortK.layout = Layout::col_major;
  cases.push_back(shortK);
  Case small;
  small.M = small.N = small.K = 64, small.batch = 37, small.opA = Op::T;
  cases.push_back(small);
  Case many;
  many.M = 2, many.N = 3, many.K = 2, many.batch = 65537 + 11, many.beta = 2.f;
  cases.push_back(many);
  for (const Case& c : cases) {
    const Operands in(c);
    expect_within_bound(c, in, run_strided(c, in));
    expect_within_bound(c, in, run_arrays(c, in));
  }
  // The stacked form itself: contiguous A and C, B shared (its strides set by hand).
  for (Layout layout : {Layout::row_major, Layout::col_major}) {
    const int M = 96, N = 80, K = 64, batch = 7;
    Case c;
    c.layout = layout, c.M = M, c.N = N, c.K = K, c.batch = 1;
    c.opA = Op::N, c.opB = Op::N;
    // One problem of batch * M rows (row-major) or batch * N columns (column-major, whose view
    // stacks op(B)^T's rows): the same memory as the batch.
    Case all = c;
    if (layout == Layout::row_major)
      all.M = batch * M;
    else
      all.N = batch * N;
    const Operands in(all);
    Device<float> A(in.A), B(in.B), C(in.C0);
    const bool row = layout == Layout::row_major;
    std::string why;
    const Status s = gemm_strided_batched(
        layout, Op::N, Op::N, M, N, K, 1.f, A.p, c.lda(), row ? static_cast<long long>(M) * K : 0,
        B.p, c.ldb(), row ? 0 : static_cast<long long>(N) * K, 0.f, C.p, c.ldc(),
        row ? static_cast<long long>(M) * N : static_cast<long long>(N) * M, batch, nullptr, &why);
    ASSERT_EQ(s, Status::ok) << why;
    CUDA_CHECK(cudaDeviceSynchronize());
    all.alpha = 1.f, all.beta = 0.f;
    expect_within_bound(all, in, C.get());
  }
}

TEST_F(BatchedTest, AlphaZeroReadsNeitherAnorB) {
  for (float beta : {0.f, 3.f}) {
    Case c;
    c.M = 33, c.N = 17, c.K = 20, c.batch = 4, c.alpha = 0.f, c.beta = beta, c.gapC = 2;
    c.layout = Layout::col_major, c.opA = Op::T;
    Operands in(c);
    for (float& a : in.A) a = kNaN;
    for (float& b : in.B) b = INFINITY;
    expect_within_bound(c, in, run_strided(c, in));
    expect_within_bound(c, in, run_arrays(c, in));
  }
}

TEST_F(BatchedTest, BetaZeroDoesNotReadC) {
  for (int K : {8, 64}) {  // rung 17's FFMA (K < 16), then the FFMA tiles
    Case c;
    c.M = 128, c.N = 128, c.K = K, c.batch = 3, c.beta = 0.f;
    Operands in(c);
    for (int i = 0; i < c.batch; ++i)
      for (int r = 0; r < c.M; ++r)
        for (int col = 0; col < c.N; ++col) in.C0[c.atC(i, r, col)] = kNaN;
    expect_within_bound(c, in, run_strided(c, in));
    expect_within_bound(c, in, run_arrays(c, in));
  }
}

// Inf, NaN and values near FLT_MAX in every problem's A, B and C0 (a column-major N, T case of at
// least 32 x 32 x 12).
void plant_specials(const Case& c, Operands& in) {
  for (int i = 0; i < c.batch; ++i) {
    in.A[c.at(true, i, 1 + i, 2)] = INFINITY;
    in.A[c.at(true, i, 5, 0)] = -INFINITY;
    in.A[c.at(true, i, 7, 3)] = kNaN;
    in.B[c.at(false, i, 4, 9 + i)] = INFINITY;
    in.B[c.at(false, i, 2, 11)] = kNaN;
    in.C0[c.atC(i, 20, 21)] = INFINITY;
    in.C0[c.atC(i, 22, 23)] = kNaN;
    in.A[c.at(true, i, 30, 1)] = 3e38f;  // big, finite: products may overflow to Inf
    in.B[c.at(false, i, 1, 30)] = 3e38f;
    // Within 2^-12 of FLT_MAX, where TF32 rounding overflows (a batch's split flags such rows)
    in.A[c.at(true, i, 31, 6)] = FLT_MAX;
    in.B[c.at(false, i, 8, 31)] = -FLT_MAX;
  }
}

// What cublasSgemmStridedBatched leaves in C for a column-major case, alpha = beta = 1.
std::vector<float> cublas_strided(cublasHandle_t handle, const Case& c, const Operands& in) {
  EXPECT_EQ(c.layout, Layout::col_major) << "cuBLAS's layout";
  Device<float> A(in.A), B(in.B), C(in.C0);
  const float one = 1.f;
  const auto op = [](Op o) { return o == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; };
  EXPECT_EQ(::cublasSgemmStridedBatched(handle, op(c.opA), op(c.opB), c.M, c.N, c.K, &one, A.p,
                                        c.lda(), c.strideA(), B.p, c.ldb(), c.strideB(), &one, C.p,
                                        c.ldc(), c.strideC(), c.batch),
            CUBLAS_STATUS_SUCCESS);
  CUDA_CHECK(cudaDeviceSynchronize());
  return C.get();
}

// NaN where cuBLAS has NaN, the same Inf where it has Inf, no NaN elsewhere.
void expect_specials_as_cublas(const Case& c, const std::vector<float>& want,
                               const std::vector<float>& got) {
  long long bad = 0;
  for (size_t e = 0; e < want.size(); ++e) {
    const float g = got[e], w = want[e];
    const bool same = std::isnan(w) ? std::isnan(g) : std::isinf(w) ? g == w : !std::isnan(g);
    if (!same && bad++ < 5)
      ADD_FAILURE() << c.str() << ": element " << e << " = " << g << ", cuBLAS " << w;
  }
  EXPECT_EQ(bad, 0) << c.str();
}

// Inf and NaN in A, B and C0: NaN where cublasSgemmStridedBatched has NaN, and the same Inf.
TEST_F(BatchedTest, InfAndNaNAsCublas) {
  cublasHandle_t handle;
  CUBLAS_OK(cublasCreate(&handle));
  struct Size {
    int m, n, k;
  };
  // Rung 17's FFMA (K < 16), the FFMA tiles, rung 15's split batch (from 256^3 a problem: its
  // maps of the caller's operands where the strides are of whole 16 bytes, else its pre-pass
  // path). Each kernel by name: EveryKernelWithinTheBoundAndAsCublas.
  for (const Size& z : {Size{64, 64, 8}, Size{64, 64, 64}, Size{256, 256, 96}, Size{300, 260, 256},
                        Size{520, 300, 512}, Size{1024, 64, 320}})
    for (bool aligned : {false, true}) {
      Case c;
      c.layout = Layout::col_major, c.opA = Op::N, c.opB = aligned ? Op::N : Op::T;
      c.M = z.m, c.N = z.n, c.K = z.k, c.batch = 3, c.beta = 1.f, c.aligned = aligned;
      Operands in(c);
      plant_specials(c, in);
      const std::vector<float> want = cublas_strided(handle, c, in);
      expect_specials_as_cublas(c, want, run_strided(c, in));
      expect_specials_as_cublas(c, want, run_arrays(c, in));
    }
  cublasDestroy(handle);
}

// Each kernel the batched call chooses among, named, whatever the choice would be (the choice is
// measured, and moves): odd shapes, both layouts, transposes, padded leading dimensions and
// strides (the FFMA tiles' element-wise stores), tight ones (their float4 stores), ones of whole
// 16 bytes (rung15_split_a's maps of the caller's A or B, and its TMA stores of C), beta == 0
// over NaN, and Inf and NaN where cublasSgemmStridedBatched puts them (in problems of P V's shape
// too: narrow C, B read by the kernel; and of Q K^T's: C stored through TMA).
TEST_F(BatchedTest, EveryKernelWithinTheBoundAndAsCublas) {
  cublasHandle_t handle;
  CUBLAS_OK(cublasCreate(&handle));
  struct Size {
    int M, N, K, batch;
  };
  for (BatchedKernel kernel :
       {BatchedKernel::rung15_batch, BatchedKernel::rung15_split_a, BatchedKernel::rung19_tiles,
        BatchedKernel::rung17_ffma, BatchedKernel::ffma_tiles}) {
    SCOPED_TRACE(to_string(kernel));
    // (Up to 32 x 32, the FFMA tiles take four problems a block: 3 and 9 leave some idle.)
    for (const Size& z :
         {Size{3, 5, 16, 3}, Size{32, 32, 32, 9}, Size{17, 30, 50, 6}, Size{129, 65, 33, 2},
          Size{64, 64, 64, 5}, Size{200, 72, 100, 2}, Size{300, 40, 136, 2}, Size{197, 40, 64, 3}})
      for (Layout layout : {Layout::row_major, Layout::col_major})
        for (Op op : {Op::N, Op::T})
          for (bool aligned : {false, true}) {
            if (aligned && op == Op::T) continue;  // (a transposed operand is copied, aligned)
            Case c;
            c.layout = layout, c.opA = op, c.opB = op == Op::N ? Op::T : Op::N;
            c.M = z.M, c.N = z.N, c.K = z.K, c.batch = z.batch;
            c.alpha = 1.5f, c.beta = -0.5f, c.aligned = aligned;
            if (op == Op::N) c.padA = 3, c.padB = 1, c.padC = 2, c.gapC = 5;
            const Operands in(c);
            expect_within_bound(c, in, run_strided(c, in, nullptr, nullptr, kernel));
          }
    // Tiles and steps wholly inside, B and C 16-byte aligned: the FFMA tiles' kernel without
    // tests (its 32 tile with idle problems in its last block, its 64 tile over two rows of
    // tiles), beta != 0 read as a float4.
    for (const Size& z : {Size{32, 32, 32, 9}, Size{64, 64, 64, 5}, Size{128, 64, 48, 3}}) {
      Case whole;
      whole.M = z.M, whole.N = z.N, whole.K = z.K, whole.batch = z.batch, whole.aligned = true;
      whole.alpha = 1.5f, whole.beta = -0.5f;
      const Operands in(whole);
      expect_within_bound(whole, in, run_strided(whole, in, nullptr, nullptr, kernel));
    }
    Case nanC;  // beta == 0: C0's NaN not read
    nanC.M = 130, nanC.N = 68, nanC.K = 40, nanC.batch = 3;
    Operands in(nanC);
    for (float& x : in.C0) x = kNaN;
    // C is tight: no element outside the problems.
    expect_within_bound(nanC, in, run_strided(nanC, in, nullptr, nullptr, kernel));
    // A batch of one whose strides lie past all memory (only problem 0 is read): rung 15's map
    // of the batch is given one problem's extent, not the stride.
    for (bool transposedView : {false, true}) {
      Case one;
      one.layout = transposedView ? Layout::col_major : Layout::row_major;
      one.M = 260, one.N = 48, one.K = 64, one.aligned = true, one.farStrides = 1LL << 46;
      const Operands in1(one);
      expect_within_bound(one, in1, run_strided(one, in1, nullptr, nullptr, kernel));
    }
    // Values below 2^-114 (a row of A in even problems, a column of B in odd ones), whose small
    // TF32 part the tensor cores cannot hold: the 3xTF32 kernels' guard path sums them in FP32.
    // And a batch of 600 problems in one launch.
    for (const Size& z : {Size{70, 72, 40, 4}, Size{40, 70, 24, 600}}) {
      Case tiny;
      tiny.M = z.M, tiny.N = z.N, tiny.K = z.K, tiny.batch = z.batch, tiny.aligned = true;
      Operands tin(tiny);
      for (int i = 0; i < tiny.batch; ++i)
        for (int k = 0; k < tiny.K; ++k)
          (i % 2 ? tin.B[tiny.at(false, i, k, 5)] : tin.A[tiny.at(true, i, 3, k)]) *= 1e-36f;
      expect_within_bound(tiny, tin, run_strided(tiny, tin, nullptr, nullptr, kernel));
    }
    for (int shape : {0, 1, 2, 3}) {  // Inf, NaN and near-FLT_MAX operands against cuBLAS
      Case special;
      special.layout = Layout::col_major, special.opB = Op::T;
      special.M = 96, special.N = 80, special.K = 48, special.batch = 3, special.beta = 1.f;
      if (shape == 1)  // P V's shape: C narrow, the larger operand read through a map
        special.aligned = true, special.opB = Op::N, special.M = 200, special.N = 40;
      if (shape == 2)  // Q K^T's: the kernel splits B (its A, row-major) and TMA stores C
        special.aligned = true, special.opB = Op::N, special.M = 72, special.N = 100;
      if (shape == 3)  // 32 x 32: four problems a block of the FFMA tiles
        special.M = special.N = 32, special.K = 40, special.batch = 5;
      Operands sin(special);
      plant_specials(special, sin);
      expect_specials_as_cublas(special, cublas_strided(handle, special, sin),
                                run_strided(special, sin, nullptr, nullptr, kernel));
    }
  }
  // A 3xTF32 kernel named for K < 16 says why, and queues nothing.
  Case shortK;
  shortK.M = shortK.N = 32, shortK.K = 8, shortK.batch = 2;
  const Operands in(shortK);
  Device<float> A(in.A), B(in.B), C(in.C0);
  std::string why;
  EXPECT_EQ(
      gemm_strided_batched_on(BatchedKernel::rung15_batch, shortK.layout, shortK.opA, shortK.opB,
                              shortK.M, shortK.N, shortK.K, 1.f, A.p, shortK.lda(),
                              shortK.strideA(), B.p, shortK.ldb(), shortK.strideB(), 0.f, C.p,
                              shortK.ldc(), shortK.strideC(), shortK.batch, nullptr, &why),
      Status::bad_size);
  EXPECT_NE(why.find("K >= 16"), std::string::npos) << why;
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  cublasDestroy(handle);
}

TEST_F(BatchedTest, BatchZeroAndBadArguments) {
  std::string why;
  EXPECT_EQ(gemm_strided_batched(Layout::row_major, Op::N, Op::N, 4, 4, 4, 1.f, nullptr, 4, 16,
                                 nullptr, 4, 16, 0.f, nullptr, 4, 16, 0, nullptr, &why),
            Status::ok);
  EXPECT_EQ(gemm_batched(Layout::row_major, Op::N, Op::N, 4, 4, 4, 1.f, nullptr, 4, nullptr, 4, 0.f,
                         nullptr, 4, 0, nullptr, &why),
            Status::ok);
  Device<float> X(4096);
  Device<float*> P(std::vector<float*>(4, X.p));
  why.clear();
  EXPECT_EQ(gemm_strided_batched(Layout::row_major, Op::N, Op::N, 4, 4, 4, 1.f, X.p, 4, 16, X.p, 4,
                                 16, 0.f, X.p, 4, 16, -1, nullptr, &why),
            Status::bad_size);
  EXPECT_NE(why.find("batch"), std::string::npos) << why;
  why.clear();
  EXPECT_EQ(gemm_batched(Layout::row_major, Op::N, Op::N, 4, 4, 4, 1.f, P.p, 4, P.p, 4, 0.f, P.p, 4,
                         -3, nullptr, &why),
            Status::bad_size);
  EXPECT_FALSE(why.empty());
  // C's problems overlap: 4 x 4 with ldc 4 spans 16 elements; 15 apart overlaps, 16 does not,
  // and neither does a C shared by a batch of one.
  why.clear();
  EXPECT_EQ(gemm_strided_batched(Layout::row_major, Op::N, Op::N, 4, 4, 4, 1.f, X.p, 4, 16, X.p, 4,
                                 16, 0.f, X.p + 1024, 4, 15, 2, nullptr, &why),
            Status::bad_leading_dim);
  EXPECT_NE(why.find("strideC"), std::string::npos) << why;
  EXPECT_EQ(gemm_strided_batched(Layout::row_major, Op::N, Op::N, 4, 4, 4, 1.f, X.p, 4, 16, X.p, 4,
                                 0, 0.f, X.p + 1024, 4, 0, 2, nullptr, &why),
            Status::bad_leading_dim);
  EXPECT_EQ(gemm_strided_batched(Layout::row_major, Op::N, Op::N, 4, 4, 4, 1.f, X.p, 4, 16, X.p, 4,
                                 16, 0.f, X.p + 1024, 4, -16, 2, nullptr, &why),
            Status::ok)
      << why;
  EXPECT_EQ(gemm_strided_batched(Layout::row_major, Op::N, Op::N, 4, 4, 4, 1.f, X.p, 4, 16, X.p, 4,
                                 16, 0.f, X.p + 1024, 4, 0, 1, nullptr, &why),
            Status::ok)
      << why;
  // The other checks, as gemm's: a leading dimension, a null pointer, an array that is null.
  EXPECT_EQ(gemm_strided_batched(Layout::row_major, Op::N, Op::N, 4, 4, 4, 1.f, X.p, 3, 16, X.p, 4,
                                 16, 0.f, X.p + 1024, 4, 16, 2, nullptr, &why),
            Status::bad_leading_dim);
  EXPECT_EQ(gemm_strided_batched(Layout::row_major, Op::N, Op::N, 4, 4, 4, 1.f, nullptr, 4, 16, X.p,
                                 4, 16, 0.f, X.p + 1024, 4, 16, 2, nullptr, &why),
            Status::bad_pointer);
  EXPECT_EQ(gemm_batched(Layout::row_major, Op::N, Op::N, 4, 4, 4, 1.f, nullptr, 4, P.p, 4, 0.f,
                         P.p, 4, 2, nullptr, &why),
            Status::bad_pointer);
  EXPECT_NE(why.find("array"), std::string::npos) << why;
  CUDA_CHECK(cudaDeviceSynchronize());
  // The cuBLAS signatures: batchCount < 0 is CUBLAS_STATUS_INVALID_VALUE, 0 success.
  cublasHandle_t handle;
  CUBLAS_OK(cublasCreate(&handle));
  const float one = 1.f, zero = 0.f;
  EXPECT_EQ(sgemm::cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, X.p,
                                             4, 16, X.p, 4, 16, &zero, X.p + 1024, 4, 16, -1),
            CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(sgemm::cublasSgemmBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, nullptr, 4,
                                      nullptr, 4, &zero, nullptr, 4, 0),
            CUBLAS_STATUS_SUCCESS);
  cublasDestroy(handle);
}

// The cuBLAS signatures on the suite's attention-like shapes, smaller: QK^T (op T on B) and PV.
TEST_F(BatchedTest, CublasSignaturesWithinTheBound) {
  cublasHandle_t handle;
  CUBLAS_OK(cublasCreate(&handle));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  CUBLAS_OK(cublasSetStream(handle, stream));
  for (Op opB : {Op::T, Op::N}) {
    Case c;
    c.layout = Layout::col_major, c.opA = Op::N, c.opB = opB;
    c.M = 256, c.N = opB == Op::T ? 256 : 64, c.K = opB == Op::T ? 64 : 256, c.batch = 6;
    c.beta = 0.5f;
    const Operands in(c);
    Device<float> A(in.A), B(in.B), C(in.C0);
    const cublasOperation_t tb = opB == Op::T ? CUBLAS_OP_T : CUBLAS_OP_N;
    CUBLAS_OK(sgemm::cublasSgemmStridedBatched(handle, CUBLAS_OP_N, tb, c.M, c.N, c.K, &c.alpha,
                                               A.p, c.lda(), c.strideA(), B.p, c.ldb(), c.strideB(),
                                               &c.beta, C.p, c.ldc(), c.strideC(), c.batch))
        << sgemm::last_why();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    expect_within_bound(c, in, C.get());
    std::vector<const float*> a(c.batch), b(c.batch);
    std::vector<float*> cs(c.batch);
    for (int i = 0; i < c.batch; ++i)
      a[i] = A.p + i * c.strideA(), b[i] = B.p + i * c.strideB(), cs[i] = C.p + i * c.strideC();
    Device<const float*> dA(a), dB(b);
    Device<float*> dC(cs);
    C.put(in.C0);
    CUBLAS_OK(sgemm::cublasSgemmBatched(handle, CUBLAS_OP_N, tb, c.M, c.N, c.K, &c.alpha, dA.p,
                                        c.lda(), dB.p, c.ldb(), &c.beta, dC.p, c.ldc(), c.batch))
        << sgemm::last_why();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    expect_within_bound(c, in, C.get());
  }
  cublasDestroy(handle);
  CUDA_CHECK(cudaStreamDestroy(stream));
}

// Captured into a CUDA graph (no host sync, no host read of the arrays) and replayed twice; with
// beta == 0 each replay writes the same C. Both forms, with a transposed copy in the workspace.
TEST_F(BatchedTest, GraphCaptureAndReplay) {
  for (int form = 0; form < 2; ++form)
    for (int K : {8, 100}) {
      Case c;
      c.layout = Layout::col_major, c.opA = Op::T, c.opB = Op::N;
      c.M = 200, c.N = 200, c.K = K, c.batch = 5, c.beta = 0.f;  // K 8: FFMA; 100: fused
      const Operands in(c);
      Device<float> A(in.A), B(in.B), C(in.C0);
      std::vector<const float*> a(c.batch), b(c.batch);
      std::vector<float*> cs(c.batch);
      for (int i = 0; i < c.batch; ++i)
        a[i] = A.p + i * c.strideA(), b[i] = B.p + i * c.strideB(), cs[i] = C.p + i * c.strideC();
      Device<const float*> dA(a), dB(b);
      Device<float*> dC(cs);
      // One call outside the graph first: one-time setup (attributes, the pool) is done.
      cudaStream_t stream;
      CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      auto call = [&] {
        std::string why;
        const Status s =
            form == 0
                ? gemm_strided_batched(c.layout, c.opA, c.opB, c.M, c.N, c.K, c.alpha, A.p, c.lda(),
                                       c.strideA(), B.p, c.ldb(), c.strideB(), c.beta, C.p, c.ldc(),
                                       c.strideC(), c.batch, stream, &why)
                : gemm_batched(c.layout, c.opA, c.opB, c.M, c.N, c.K, c.alpha, dA.p, c.lda(), dB.p,
                               c.ldb(), c.beta, dC.p, c.ldc(), c.batch, stream, &why);
        EXPECT_EQ(s, Status::ok) << why;
      };
      call();
      CUDA_CHECK(cudaStreamSynchronize(stream));
      C.put(in.C0);
      cudaGraph_t graph;
      CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
      call();
      CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
      cudaGraphExec_t exec;
      CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
      for (int replay = 0; replay < 2; ++replay) {
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        expect_within_bound(c, in, C.get());
        C.put(in.C0);
      }
      CUDA_CHECK(cudaGraphExecDestroy(exec));
      CUDA_CHECK(cudaGraphDestroy(graph));
      CUDA_CHECK(cudaStreamDestroy(stream));
    }
}

}  // namespace
}  // namespace sgemm::testing
