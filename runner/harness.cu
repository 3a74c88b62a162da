#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "harness.h"
#include "sgemm/sgemm.h"

namespace sgemm {

namespace {

void check_cublas(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw Error(std::string(call) + " failed: " + cublasGetStatusString(status));
}
#define CUBLAS_CHECK(call) check_cublas((call), #call)

size_t elements(int rows, int ld) { return static_cast<size_t>(rows) * ld; }

// Copies after the work queued on `stream` (the harness's stream does not sync with others).
std::vector<float> to_host(const float* device, size_t count, cudaStream_t stream) {
  std::vector<float> host(count);
  CUDA_CHECK(
      cudaMemcpyAsync(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

// An FP64 result on the device, rounded once to FP32 on the host.
std::vector<float> narrow_to_host(const double* device, size_t count, cudaStream_t stream) {
  std::vector<double> wide(count);
  CUDA_CHECK(
      cudaMemcpyAsync(wide.data(), device, count * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return std::vector<float>(wide.begin(), wide.end());
}

// Device buffers reused across calls, grown when a larger problem arrives.
struct Slot {
  DeviceBuffer buffer;
  float* get(size_t count) {
    if (buffer.size() < count) {
      buffer = DeviceBuffer();  // free first, so the peak stays one copy
      buffer = DeviceBuffer(count);
    }
    return buffer.get();
  }
};

// The three matrices of a problem in the harness's buffers, each `offset` floats in.
struct Operands {
  float *A, *B, *C;
  size_t na, nb, nc;  // elements, padding included
};

Timing summarize(std::vector<double>& runs_ms) {
  std::sort(runs_ms.begin(), runs_ms.end());
  Timing t;
  const size_t n = runs_ms.size();
  t.reps = static_cast<int>(n);
  t.median_ms = n % 2 ? runs_ms[n / 2] : 0.5 * (runs_ms[n / 2 - 1] + runs_ms[n / 2]);
  t.min_ms = runs_ms.front();
  t.max_ms = runs_ms.back();
  return t;
}

}  // namespace

const std::vector<Runnable>& runnables() {
  static const std::vector<Runnable> table = [] {
    std::vector<Runnable> out = {
        {kCublasTf32Rung, "cublas_tf32",
         "the tf32 rungs' reference: cuBLAS with CUBLAS_COMPUTE_32F_FAST_TF32 (tensor cores)", true,
         Precision::tf32, nullptr},
        {kCublasRung, "cublas", "the reference: cuBLAS SGEMM in true FP32 (no TF32)", true,
         Precision::fp32, nullptr}};
    for (const RungInfo& r : rungs())
      out.push_back({r.number, r.name, r.summary, false, r.precision, &r});
    return out;
  }();
  return table;
}

const Runnable* find_runnable(int number) {
  for (const Runnable& r : runnables())
    if (r.number == number) return &r;
  return nullptr;
}

const Runnable* find_runnable(const std::string& text) {
  for (const Runnable& r : runnables())
    if (r.name == text) return &r;
  const size_t digits = text.find_first_not_of('-') == 1 ? 1 : 0;  // one leading minus
  if (text.size() <= digits || text.size() > 6 + digits ||
      text.find_first_not_of("0123456789", digits) != std::string::npos)
    return nullptr;
  return find_runnable(std::stoi(text));
}

const Runnable& reference_for(Precision precision) {
  return require_runnable(precision == Precision::tf32 ? kCublasTf32Rung : kCublasRung);
}

const Runnable& require_runnable(int number) {
  const Runnable* runnable = find_runnable(number);
  if (!runnable) throw Error("there is no rung " + std::to_string(number));
  return *runnable;
}

Gemm gemm_of(const Problem& p, const float* A, const float* B, float* C) {
  const Shape& s = p.shape;
  return {s.M, s.N, s.K, p.alpha, A, s.a_ld(), B, s.b_ld(), p.beta, C, s.c_ld()};
}

namespace {

// What fills A (or B) for these inputs: big-column and big-rows change A alone.
struct InputFill {
  Fill fill;
  float param;
};
InputFill input_fill(const Inputs& inputs, bool a) {
  const float x = static_cast<float>(inputs.parameter);
  switch (inputs.distribution) {
    case Distribution::grid:
      return {Fill::grid, 0.f};
    case Distribution::normal:
      return {Fill::normal, 0.f};
    case Distribution::phi:
      return {Fill::phi, x};
    case Distribution::exponents:
      return {Fill::exponents, x};
    case Distribution::span:  // A: M x K, its column K/2; B: K x N, its row K/2
      return a ? InputFill{Fill::scaled_column, x} : InputFill{Fill::zero_row, 0.f};
    case Distribution::span_b:
      return a ? InputFill{Fill::zero_column, 0.f} : InputFill{Fill::scaled_row, x};
    case Distribution::big_column:
      return {a ? Fill::big_column : Fill::uniform, 0.f};
    case Distribution::big_rows:
      return {a ? Fill::big_rows : Fill::uniform, 0.f};
    default:
      return {Fill::uniform, 0.f};
  }
}

// The same fill for a matrix stored transposed (Shape::a_transposed): a column of the matrix is
// a stored row, and a row a stored column. big_rows has no such counterpart: its rows by a hash
// fall along the stored rows, whichever index that is.
InputFill transposed(InputFill f) {
  switch (f.fill) {
    case Fill::big_column:  // a column times 2^30
      return {Fill::scaled_row, 30.f};
    case Fill::scaled_column:
      return {Fill::scaled_row, f.param};
    case Fill::scaled_row:
      return {Fill::scaled_column, f.param};
    case Fill::zero_column:
      return {Fill::zero_row, f.param};
    case Fill::zero_row:
      return {Fill::zero_column, f.param};
    default:
      return f;
  }
}

// Fills A and B of `p` with its inputs, as its shape stores them.
void fill_inputs(const Problem& p, float* A, float* B, uint64_t seed_a, uint64_t seed_b,
                 float padding, cudaStream_t stream) {
  const Shape& s = p.shape;
  InputFill fa = input_fill(p.inputs, true), fb = input_fill(p.inputs, false);
  if (s.a_transposed()) fa = transposed(fa);
  if (s.b_transposed()) fb = transposed(fb);
  const Extent a = s.a_stored(), b = s.b_stored();
  fill_matrix(A, a.lines, a.length, s.a_ld(), fa.fill, seed_a, padding, stream, fa.param);
  fill_matrix(B, b.lines, b.length, s.b_ld(), fb.fill, seed_b, padding, stream, fb.param);
}

}  // namespace

std::string Runnable::label() const { return std::to_string(number) + " " + name; }

std::string Runnable::id() const {
  if (reference) return name;
  char stem[96];
  std::snprintf(stem, sizeof stem, "rung:%02d_%s", number, name.c_str());
  return stem;
}

struct Harness::Impl {
  GpuInfo gpu;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  std::unique_ptr<L2Flusher> flusher;
  Slot a, b, c0, c, expected, abs_a, abs_b, magnitude;
  Slot a64, b64, c64, mag64;  // FP64 for the accuracy measurement (two floats per double)

  Operands operands(const Problem& p) {
    const Shape& s = p.shape;
    Operands o;
    o.na = elements(s.a_stored().lines, s.a_ld());
    o.nb = elements(s.b_stored().lines, s.b_ld());
    o.nc = elements(s.c_stored().lines, s.c_ld());
    o.A = a.get(o.na + p.offset.a) + p.offset.a;
    o.B = b.get(o.nb + p.offset.b) + p.offset.b;
    o.C = c.get(o.nc + p.offset.c) + p.offset.c;
    return o;
  }

  // alpha * A * B + beta * C0 in FP64 from the same FP32 inputs (cuBLAS DGEMM; C0 is not read
  // when beta == 0). cudaMalloc aligns a slot for doubles.
  const double* fp64_product(Harness& h, const Problem& p, const Operands& in, const float* C0) {
    auto doubles = [](Slot& slot, size_t count) {
      return reinterpret_cast<double*>(slot.get(2 * count));
    };
    double* A64 = doubles(a64, in.na);
    double* B64 = doubles(b64, in.nb);
    double* C64 = doubles(c64, in.nc);
    widen(in.A, A64, in.na, stream);
    widen(in.B, B64, in.nb, stream);
    widen(C0, C64, in.nc, stream);
    if (p.beta == 0.f) CUDA_CHECK(cudaMemsetAsync(C64, 0, in.nc * sizeof(double), stream));
    h.cublas_dgemm(p, A64, B64, C64);
    return C64;
  }

  // |alpha| |A| |B| + |beta| |C0| in FP64, after fp64_product (which left A and B widened in
  // a64 and b64, and C0's copy overwritten): the S of the componentwise error.
  const double* fp64_magnitude(Harness& h, const Problem& p, const Operands& in) {
    auto doubles = [](Slot& slot, size_t count) {
      return reinterpret_cast<double*>(slot.get(2 * count));
    };
    double* A64 = doubles(a64, in.na);
    double* B64 = doubles(b64, in.nb);
    double* mag = doubles(mag64, in.nc);
    abs_copy(A64, A64, in.na, stream);
    abs_copy(B64, B64, in.nb, stream);
    widen(c0.get(in.nc + p.offset.c) + p.offset.c, mag, in.nc, stream);
    abs_copy(mag, mag, in.nc, stream);
    Problem absolute = p;
    absolute.alpha = std::fabs(p.alpha), absolute.beta = std::fabs(p.beta);
    if (p.beta == 0.f) CUDA_CHECK(cudaMemsetAsync(mag, 0, in.nc * sizeof(double), stream));
    h.cublas_dgemm(absolute, A64, B64, mag);
    return mag;
  }
};

Harness::Harness(int device) : impl_(std::make_unique<Impl>()) {
  select_device(device);
  impl_->gpu = gpu_info(device);
  CUDA_CHECK(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreate(&impl_->start));
  CUDA_CHECK(cudaEventCreate(&impl_->stop));
  CUBLAS_CHECK(cublasCreate(&impl_->cublas));
  CUBLAS_CHECK(cublasSetStream(impl_->cublas, impl_->stream));
  // True FP32: the default math mode never uses TF32 tensor cores for cublasSgemm.
  CUBLAS_CHECK(cublasSetMathMode(impl_->cublas, CUBLAS_DEFAULT_MATH));
  impl_->flusher = std::make_unique<L2Flusher>(impl_->gpu.l2_bytes);
}

Harness::~Harness() {
  if (impl_->cublas) cublasDestroy(impl_->cublas);
  if (impl_->start) cudaEventDestroy(impl_->start);
  if (impl_->stop) cudaEventDestroy(impl_->stop);
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

const GpuInfo& Harness::gpu() const { return impl_->gpu; }
cudaStream_t Harness::stream() const { return impl_->stream; }

void Harness::require_memory(const Problem& problem, bool for_check) const {
  const Shape& s = problem.shape;
  const double a = elements(s.a_stored().lines, s.a_ld()),
               b = elements(s.b_stored().lines, s.b_ld()),
               c = elements(s.c_stored().lines, s.c_ld());
  // A check holds A, B, |A|, |B| and C four times (input, ours, cuBLAS's, magnitude), and A,
  // B and C in FP64 (two floats each) for the random mode's FP64 rule.
  const double floats = for_check ? 4 * (a + b) + 6 * c : a + b + c;
  const double need = floats * sizeof(float), have = static_cast<double>(free_device_memory());
  if (need > 0.9 * have) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "problem %s needs %.1f GiB of GPU memory but only %.1f GiB is free",
                  s.str().c_str(), need / (1 << 30), have / (1 << 30));
    throw Error(text);
  }
}

std::string Problem::str() const {
  char text[160];
  std::snprintf(text, sizeof text, " alpha=%g beta=%g", alpha, beta);
  std::string out = shape.str() + text;
  if (offset.a || offset.b || offset.c)
    out += " offsets=" + std::to_string(offset.a) + "," + std::to_string(offset.b) + "," +
           std::to_string(offset.c);
  if (!(inputs == Inputs{})) out += " inputs=" + inputs.name();
  return out;
}

namespace {

cublasOperation_t cublas_op(Op op) { return op == Op::T ? CUBLAS_OP_T : CUBLAS_OP_N; }

// A problem as cuBLAS's column-major call takes it. A row-major matrix is the column-major view
// of its transpose, so a row-major problem is asked as C^T = op(B)^T op(A)^T: the operands swap,
// with their ops, and so do the roles of M and N. Column-major goes as it is.
template <typename T>
struct ColumnMajorCall {
  cublasOperation_t transa, transb;
  int m, n, k;
  const T *A, *B;
  int lda, ldb;
};
template <typename T>
ColumnMajorCall<T> column_major(const Operation& op, int M, int N, int K, const T* A, int lda,
                                const T* B, int ldb) {
  if (op.layout == Layout::col_major)
    return {cublas_op(op.a), cublas_op(op.b), M, N, K, A, B, lda, ldb};
  return {cublas_op(op.b), cublas_op(op.a), N, M, K, B, A, ldb, lda};
}

}  // namespace

void Harness::cublas(Precision precision, const Gemm& g, cudaStream_t stream) {
  cublas(precision, Operation{}, g, stream);
}

void Harness::cublas(Precision precision, const Operation& op, const Gemm& g, cudaStream_t stream) {
  CUBLAS_CHECK(cublasSetStream(impl_->cublas, stream ? stream : impl_->stream));
  const ColumnMajorCall<float> c = column_major(op, g.M, g.N, g.K, g.A, g.lda, g.B, g.ldb);
  if (precision == Precision::fp32) {
    CUBLAS_CHECK(cublasSgemm(impl_->cublas, c.transa, c.transb, c.m, c.n, c.k, &g.alpha, c.A, c.lda,
                             c.B, c.ldb, &g.beta, g.C, g.ldc));
    return;
  }
  // FP32 in and out, products of inputs converted to TF32 on the tensor cores, FP32 sums.
  CUBLAS_CHECK(cublasGemmEx(impl_->cublas, c.transa, c.transb, c.m, c.n, c.k, &g.alpha, c.A,
                            CUDA_R_32F, c.lda, c.B, CUDA_R_32F, c.ldb, &g.beta, g.C, CUDA_R_32F,
                            g.ldc, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
}

void Harness::cublas_dgemm(const Problem& p, const double* A, const double* B, double* C) {
  const Shape& s = p.shape;
  const double alpha = p.alpha, beta = p.beta;
  const ColumnMajorCall<double> c = column_major(s.op, s.M, s.N, s.K, A, s.a_ld(), B, s.b_ld());
  CUBLAS_CHECK(cublasSetStream(impl_->cublas, impl_->stream));
  CUBLAS_CHECK(cublasDgemm(impl_->cublas, c.transa, c.transb, c.m, c.n, c.k, &alpha, c.A, c.lda,
                           c.B, c.ldb, &beta, C, s.c_ld()));
}

void Harness::run(int rung, const Gemm& problem) { kernel(rung)(problem, impl_->stream); }

Kernel Harness::kernel(int number) { return kernel(require_runnable(number)); }

Kernel Harness::kernel(const Runnable& runnable) {
  if (runnable.reference)
    return [this, precision = runnable.precision](const Operation& op, const Gemm& g,
                                                  cudaStream_t stream) {
      cublas(precision, op, g, stream);
    };
  return [rung = runnable.rung](const Operation& op, const Gemm& g, cudaStream_t stream) {
    std::string why;
    const Status status = launch(*rung, op, g, stream, &why);
    const std::string text = "rung " + std::to_string(rung->number) + ": " + why;
    if (status == Status::unsupported_gpu) throw UnsupportedGpu(text);
    if (status != Status::ok) throw Error(text);
  };
}

Kernel launched(LaunchFunction launch, std::string name) {
  return [launch = std::move(launch), name = std::move(name)](const Gemm& g, cudaStream_t stream) {
    const cudaError_t err = launch(g, stream);
    if (err == cudaSuccess) return;
    cudaGetLastError();  // reported here, once
    const std::string text = name + ": " + cudaGetErrorString(err);
    if (err == cudaErrorNoKernelImageForDevice) throw UnsupportedGpu(text);
    throw Error(text);
  };
}

CheckReport Harness::check(int rung, const Problem& p, CheckMode mode, uint64_t seed) {
  return check(require_runnable(rung), p, mode, seed);
}

CheckReport Harness::check(const Runnable& runnable, const Problem& p, CheckMode mode,
                           uint64_t seed) {
  return check(kernel(runnable), p, mode, seed, "rung" + std::to_string(runnable.number),
               runnable.precision);
}

Timing Harness::time(const Runnable& runnable, const Problem& p, const TimingOptions& options) {
  return time(kernel(runnable), p, options);
}

Timing Harness::time(const Kernel& kernel, const Problem& p, const TimingOptions& options) {
  return time_in_turn({kernel}, p, options).front();
}

Race Harness::time_against_reference(const Runnable& rung, const Problem& p,
                                     const TimingOptions& options) {
  return time_against_reference(kernel(rung), rung.precision, p, options);
}

Race Harness::time_against_reference(const Kernel& kernel, Precision precision, const Problem& p,
                                     const TimingOptions& options) {
  const Kernel reference = this->kernel(reference_for(precision));
  const std::vector<Timing> t = time_in_turn({reference, kernel}, p, options);
  return Race{t[1], t[0]};
}

std::string CheckReport::summary() const {
  std::string text = std::string(to_string(mode)) + " " + comparison.summary();
  if (!dump_path.empty()) text += " (inputs and results written to " + dump_path + ")";
  return text;
}

CheckReport Harness::check(const Kernel& kernel, const Problem& p, CheckMode mode, uint64_t seed,
                           const std::string& label, Precision precision) {
  require_memory(p, true);
  const Shape& s = p.shape;
  Impl& m = *impl_;
  const Operands in = m.operands(p);
  float* C0 = m.c0.get(in.nc + p.offset.c) + p.offset.c;
  float* reference = m.expected.get(in.nc + p.offset.c) + p.offset.c;
  // Exact mode: whole numbers, or for an fp32 rung at K <= kSplitInputMaxK inputs whose TF32
  // split is not trivial (check.h); C0 holds whole numbers either way.
  const ExactInputs exact = exact_inputs(precision, s.K);
  const bool split = mode == CheckMode::exact && exact == ExactInputs::split;
  const Fill fill = mode == CheckMode::exact ? Fill::whole_numbers : Fill::uniform;
  // BLAS reads A and B only when alpha != 0, and C only when beta != 0: the inputs it must
  // not read hold NaN, so a read shows in the result; so does an element never written.
  // Padding of A and B holds NaN too (a read past a row's end), C's a sentinel that must
  // survive (a write past a row's end).
  const bool poison_ab = p.alpha == 0.f;
  const Extent a = s.a_stored(), b = s.b_stored(), c = s.c_stored();
  if (mode == CheckMode::random && !poison_ab) {
    fill_inputs(p, in.A, in.B, seed * 3 + 0, seed * 3 + 1, NAN, m.stream);
  } else {
    // The split fills' parameter 1: the index along K is the stored row's (device.h).
    fill_matrix(in.A, a.lines, a.length, s.a_ld(),
                poison_ab ? Fill::poison
                : split   ? Fill::split_a
                          : fill,
                seed * 3 + 0, NAN, m.stream, s.a_transposed() ? 1.f : 0.f);
    fill_matrix(in.B, b.lines, b.length, s.b_ld(),
                poison_ab ? Fill::poison
                : split   ? Fill::split_b
                          : fill,
                seed * 3 + 1, NAN, m.stream, s.b_transposed() ? 1.f : 0.f);
  }
  const Fill c_fill = p.beta == 0.f ? Fill::poison : fill;
  fill_matrix(C0, c.lines, c.length, s.c_ld(), c_fill, seed * 3 + 2, kPaddingSentinel, m.stream);
  CUDA_CHECK(cudaMemcpyAsync(in.C, C0, in.nc * sizeof(float), cudaMemcpyDeviceToDevice, m.stream));

  kernel(s.op, gemm_of(p, in.A, in.B, in.C), m.stream);
  CUDA_CHECK(cudaGetLastError());

  Reference ref;
  ref.mode = mode;
  ref.precision = precision;
  ref.inputs = split ? ExactInputs::split : ExactInputs::whole;
  ref.K = s.K;
  ref.alpha = p.alpha;
  ref.beta = p.beta;
  std::vector<float> sum, c0, expected, magnitude;
  c0 = to_host(C0, in.nc, m.stream);
  ref.c0 = c0.data();
  // The reference's padding columns are never written: start it as C0, so that every
  // element copied back has been initialised.
  CUDA_CHECK(
      cudaMemcpyAsync(reference, C0, in.nc * sizeof(float), cudaMemcpyDeviceToDevice, m.stream));
  if (p.alpha != 0.f && mode == CheckMode::exact) {
    // The exact sum over k (whole numbers below 2^24); the epilogue is applied in FP64.
    cublas(Precision::fp32, s.op, gemm_of(Problem{s, 1.f, 0.f}, in.A, in.B, reference));
    sum = to_host(reference, in.nc, m.stream);
    ref.sum = sum.data();
  } else if (p.alpha != 0.f) {
    // fp32: the FP64 product of the same inputs, rounded once: on wide-range inputs cuBLAS
    // SGEMM's own error can reach the tolerance (docs/00_method.md). tf32: cuBLAS TF32.
    if (precision == Precision::fp32) {
      expected = narrow_to_host(m.fp64_product(*this, p, in, C0), in.nc, m.stream);
    } else {
      cublas(precision, s.op, gemm_of(p, in.A, in.B, reference));
      expected = to_host(reference, in.nc, m.stream);
    }
    ref.expected = expected.data();
    // |alpha| |A| |B| + |beta| |C0|, element by element: the scale of each result.
    float* abs_a = m.abs_a.get(in.na);
    float* abs_b = m.abs_b.get(in.nb);
    float* mag = m.magnitude.get(in.nc);
    abs_copy(in.A, abs_a, in.na, m.stream);
    abs_copy(in.B, abs_b, in.nb, m.stream);
    abs_copy(C0, mag, in.nc, m.stream);
    cublas(Precision::fp32, s.op,
           gemm_of(Problem{s, std::fabs(p.alpha), std::fabs(p.beta)}, abs_a, abs_b, mag));
    magnitude = to_host(mag, in.nc, m.stream);
    ref.magnitude = magnitude.data();
  }
  const std::vector<float> got = to_host(in.C, in.nc, m.stream);

  CheckReport report;
  report.mode = mode;
  // C as stored: for column-major, its transpose, element for element like the reference's.
  report.comparison = compare(ref, c.lines, c.length, s.c_ld(), got.data(), kPaddingSentinel);
  if (s.c_transposed())  // report C's own row and column
    for (Mismatch& x : report.comparison.first) std::swap(x.row, x.col);
  if (mode == CheckMode::random && p.alpha != 0.f) {
    // The second rule of random mode: the error against the FP64 product (check.h).
    const double* C64 = m.fp64_product(*this, p, in, C0);
    const ErrorVsFp64 e = error_vs_fp64(in.C, C64, c.lines, c.length, s.c_ld(), m.stream);
    apply_fp64_bound(report.comparison, e.rel_frobenius, s.K, precision);
  }
  if (!report.pass()) {
    char name[160];
    std::snprintf(name, sizeof name, "sgemm_failure_%s_%dx%dx%d_%s.txt", label.c_str(), s.M, s.N,
                  s.K, to_string(mode));
    report.dump_path =
        dump_failure(name, s, to_host(in.A, in.na, m.stream), to_host(in.B, in.nb, m.stream), c0,
                     got, expected_values(ref, c.lines, s.c_ld()));
  }
  return report;
}

std::vector<Accuracy> Harness::accuracy(const std::vector<Kernel>& kernels, const Problem& p,
                                        uint64_t seed) {
  require_memory(p, true);
  const Shape& s = p.shape;
  Impl& m = *impl_;
  const Operands in = m.operands(p);
  float* C0 = m.c0.get(in.nc + p.offset.c) + p.offset.c;
  const Extent c = s.c_stored();
  fill_inputs(p, in.A, in.B, seed * 3 + 0, seed * 3 + 1, 0.f, m.stream);
  fill_matrix(C0, c.lines, c.length, s.c_ld(), p.beta == 0.f ? Fill::poison : Fill::uniform,
              seed * 3 + 2, 0.f, m.stream);

  const double* C64 = m.fp64_product(*this, p, in, C0);
  const double* magnitude = m.fp64_magnitude(*this, p, in);
  std::vector<Accuracy> out;
  for (const Kernel& kernel : kernels) {
    CUDA_CHECK(
        cudaMemcpyAsync(in.C, C0, in.nc * sizeof(float), cudaMemcpyDeviceToDevice, m.stream));
    kernel(s.op, gemm_of(p, in.A, in.B, in.C), m.stream);
    out.push_back(error_vs_fp64(in.C, C64, c.lines, c.length, s.c_ld(), m.stream, magnitude));
  }
  return out;
}

std::vector<Timing> Harness::time_in_turn(const std::vector<Kernel>& kernels, const Problem& p,
                                          const TimingOptions& options) {
  require_memory(p, false);
  const Shape& s = p.shape;
  Impl& m = *impl_;
  const Operands in = m.operands(p);
  fill_inputs(p, in.A, in.B, kTimingSeedA, kTimingSeedB, 0.f, m.stream);
  const Extent c = s.c_stored();
  fill_matrix(in.C, c.lines, c.length, s.c_ld(), Fill::uniform, kTimingSeedC, 0.f, m.stream);
  const Gemm g = gemm_of(p, in.A, in.B, in.C);

  for (int i = 0; i < options.warmup; ++i)
    for (const Kernel& k : kernels) k(s.op, g, m.stream);
  CUDA_CHECK(cudaStreamSynchronize(m.stream));

  // One timed run: L2 flushed first, events around the run.
  auto once = [&](const Kernel& kernel) {
    if (options.flush_l2) m.flusher->flush(m.stream);
    CUDA_CHECK(cudaEventRecord(m.start, m.stream));
    kernel(s.op, g, m.stream);
    CUDA_CHECK(cudaEventRecord(m.stop, m.stream));
    CUDA_CHECK(cudaEventSynchronize(m.stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, m.start, m.stop));
    return static_cast<double>(ms);
  };
  // Blocks in turn: a block runs its kernel back to back until it holds block_ms of GPU time
  // (at least 2 runs, at most reps); its first run follows the other kernel's block and is not
  // counted, the rest are.
  std::vector<std::vector<double>> samples(kernels.size());
  const int most = std::max(2, options.reps);
  for (int round = 0; round < std::max(1, options.rounds); ++round)
    for (size_t i = 0; i < kernels.size(); ++i) {
      double spent = 0;
      for (int run = 0; run < most && (run < 2 || spent < options.block_ms); ++run) {
        const double ms = once(kernels[i]);
        spent += ms;
        if (run > 0) samples[i].push_back(ms);
      }
    }
  std::vector<Timing> timings;
  for (std::vector<double>& runs : samples) timings.push_back(summarize(runs));
  return timings;
}

}  // namespace sgemm
