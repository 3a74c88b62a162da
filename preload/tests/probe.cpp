// A program written for cuBLAS: it links libcublas and nothing of the ladder, and is run with
// and without LD_PRELOAD=libsgemm_preload.so by tests/test_preload_cpu.py and
// tests/test_preload_gpu.py.
//   probe devices     How many GPUs the CUDA runtime sees ("devices N").
//   probe create      No GPU needed: cublasCreate's status, then calls with a null handle,
//                     which the preload library forwards (its log says why) and cuBLAS answers.
//   probe gpu DIR     Every entry point on odd shapes and all transposes, alpha and beta on the
//                     host and on the device, NaN where BLAS must not read, and calls that must
//                     be forwarded. One line per case: "case NAME status S ok|FAIL why"; each
//                     case's C goes to DIR/NAME.bin, for bitwise comparisons between runs.
#include <cublas_api.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

int create_probe() {
  cublasHandle_t handle = nullptr;
  const cublasStatus_t created = cublasCreate_v2(&handle);
  std::printf("cublasCreate %d\n", static_cast<int>(created));
  if (created == CUBLAS_STATUS_SUCCESS) cublasDestroy_v2(handle);
  const float one = 1.f, zero = 0.f;
  float* none = nullptr;
  // A null handle: forwarded, answered by cuBLAS.
  std::printf("cublasSgemm_v2 %d\n",
              static_cast<int>(cublasSgemm_v2(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one,
                                              none, 2, none, 2, &zero, none, 2)));
  // A reduced-precision compute type: forwarded before the handle is looked at.
  std::printf("cublasGemmEx %d\n", static_cast<int>(cublasGemmEx(
                                       nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, none,
                                       CUDA_R_32F, 2, none, CUDA_R_32F, 2, &zero, none, CUDA_R_32F,
                                       2, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT)));
  return 0;
}

// ---- The GPU cases.

const char* out_dir = nullptr;
int failures = 0;
cublasHandle_t handle = nullptr;

template <typename T>
T* device_copy(const std::vector<T>& host) {
  T* p = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&p), host.size() * sizeof(T) + 16);
  cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return p;
}

template <typename T>
std::vector<T> host_copy(const T* p, size_t count) {
  std::vector<T> host(count);
  cudaDeviceSynchronize();
  cudaMemcpy(host.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost);
  return host;
}

// One problem set: `batch` column-major problems C_i = alpha op(A_i) op(B_i) + beta C_i, each
// matrix with a padded leading dimension, stored one after another (strides).
struct Problem {
  int m, n, k;
  cublasOperation_t ta, tb;
  int batch = 1;
  float alpha = 1.5f, beta = -0.5f;
  bool nan_a = false, nan_c = false;  // NaN in A (alpha == 0) or in C (beta == 0)
  int a_rows() const { return ta == CUBLAS_OP_N ? m : k; }
  int a_cols() const { return ta == CUBLAS_OP_N ? k : m; }
  int b_rows() const { return tb == CUBLAS_OP_N ? k : n; }
  int b_cols() const { return tb == CUBLAS_OP_N ? n : k; }
  int lda() const { return a_rows() + 3; }
  int ldb() const { return b_rows() + 1; }
  int ldc() const { return m + 2; }
  long long stride_a() const { return static_cast<long long>(lda()) * a_cols() + 5; }
  long long stride_b() const { return static_cast<long long>(ldb()) * b_cols() + 7; }
  long long stride_c() const { return static_cast<long long>(ldc()) * n + 3; }
};

struct Data {
  Problem p;
  std::vector<float> a, b, c;  // host
  float *da, *db, *dc;         // device
  const float **a_array, **b_array;
  float** c_array;
};

Data make(const Problem& p, unsigned seed) {
  Data d{p, {}, {}, {}, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  d.a.resize(p.stride_a() * p.batch);
  d.b.resize(p.stride_b() * p.batch);
  d.c.resize(p.stride_c() * p.batch);
  for (auto& x : d.a) x = p.nan_a ? std::numeric_limits<float>::quiet_NaN() : dist(gen);
  for (auto& x : d.b) x = dist(gen);
  for (auto& x : d.c) x = p.nan_c ? std::numeric_limits<float>::quiet_NaN() : dist(gen);
  d.da = device_copy(d.a), d.db = device_copy(d.b), d.dc = device_copy(d.c);
  std::vector<const float*> as, bs;
  std::vector<float*> cs;
  for (int i = 0; i < p.batch; ++i) {
    as.push_back(d.da + i * p.stride_a());
    bs.push_back(d.db + i * p.stride_b());
    cs.push_back(d.dc + i * p.stride_c());
  }
  d.a_array = device_copy(as), d.b_array = device_copy(bs), d.c_array = device_copy(cs);
  return d;
}

void release(Data& d) {
  cudaFree(d.da), cudaFree(d.db), cudaFree(d.dc);
  cudaFree(d.a_array), cudaFree(d.b_array), cudaFree(d.c_array);
}

// Checks C against float64 on the host: |c - c64| <= gamma_{k+2} (|alpha| |A| |B| + |beta| |C|)
// (FP32's componentwise bound, two roundings more for alpha and beta), and BLAS's rules: alpha
// == 0 reads neither A nor B, beta == 0 does not read C. Writes C to out_dir/name.bin.
void finish(const char* name, cublasStatus_t status, const Data& d, bool check) {
  const Problem& p = d.p;
  const std::vector<float> got = host_copy(d.dc, d.c.size());
  const std::string path = std::string(out_dir) + "/" + name + ".bin";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(got.data(), sizeof(float), got.size(), f);
    std::fclose(f);
  }
  std::string why;
  if (status != CUBLAS_STATUS_SUCCESS) why = "status " + std::to_string(status);
  const double u = std::ldexp(1.0, -24), gamma = (p.k + 2) * u / (1 - (p.k + 2) * u);
  double worst = 0;
  for (int i = 0; check && why.empty() && i < p.batch; ++i)
    for (int col = 0; col < p.n; ++col)
      for (int row = 0; row < p.m; ++row) {
        double sum = 0, bound = 0;
        if (p.alpha != 0.f)
          for (int l = 0; l < p.k; ++l) {
            const size_t ai =
                i * p.stride_a() + (p.ta == CUBLAS_OP_N ? row + l * p.lda() : l + row * p.lda());
            const size_t bi =
                i * p.stride_b() + (p.tb == CUBLAS_OP_N ? l + col * p.ldb() : col + l * p.ldb());
            sum += static_cast<double>(d.a[ai]) * d.b[bi];
            bound += std::fabs(static_cast<double>(d.a[ai]) * d.b[bi]);
          }
        const size_t ci = i * p.stride_c() + row + static_cast<size_t>(col) * p.ldc();
        double want = p.alpha * sum, scale = std::fabs(p.alpha) * bound;
        if (p.beta != 0.f) want += p.beta * static_cast<double>(d.c[ci]);
        if (p.beta != 0.f) scale += std::fabs(p.beta * static_cast<double>(d.c[ci]));
        const double error = std::fabs(got[ci] - want);
        if (!(error <= gamma * scale + 1e-30)) {  // NaN fails too
          why = "C(" + std::to_string(row) + "," + std::to_string(col) + ") of problem " +
                std::to_string(i) + " = " + std::to_string(got[ci]) + ", want " +
                std::to_string(want) + " (bound " + std::to_string(gamma * scale) + ")";
          row = p.m, col = p.n;
        }
        if (scale > 0) worst = std::fmax(worst, error / (gamma * scale));
      }
  const bool ok = why.empty();
  if (!ok && check) ++failures;
  std::printf("case %s status %d %s%s\n", name, static_cast<int>(status),
              !check ? "dump"
              : ok   ? "ok"
                     : "FAIL ",
              ok ? "" : why.c_str());
  if (check && ok) std::printf("  error / bound %.3g\n", worst);
}

// Scalars on the device for CUBLAS_POINTER_MODE_DEVICE.
struct DeviceScalars {
  float* p = nullptr;
  DeviceScalars(float alpha, float beta) {
    const float host[2] = {alpha, beta};
    cudaMalloc(reinterpret_cast<void**>(&p), sizeof(host));
    cudaMemcpy(p, host, sizeof(host), cudaMemcpyHostToDevice);
  }
  ~DeviceScalars() { cudaFree(p); }
};

const cublasOperation_t N = CUBLAS_OP_N, T = CUBLAS_OP_T;

void sgemm_case(const char* name, Problem p, bool device_scalars = false, bool wide = false) {
  Data d = make(p, 1);
  DeviceScalars s(p.alpha, p.beta);
  const float* alpha = device_scalars ? s.p : &p.alpha;
  const float* beta = device_scalars ? s.p + 1 : &p.beta;
  cublasSetPointerMode_v2(handle,
                          device_scalars ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST);
  const cublasStatus_t status =
      wide ? cublasSgemm_v2_64(handle, p.ta, p.tb, p.m, p.n, p.k, alpha, d.da, p.lda(), d.db,
                               p.ldb(), beta, d.dc, p.ldc())
           : cublasSgemm_v2(handle, p.ta, p.tb, p.m, p.n, p.k, alpha, d.da, p.lda(), d.db, p.ldb(),
                            beta, d.dc, p.ldc());
  cublasSetPointerMode_v2(handle, CUBLAS_POINTER_MODE_HOST);
  finish(name, status, d, true);
  release(d);
}

void gemm_ex_case(const char* name, Problem p, cublasComputeType_t compute, bool check,
                  bool wide = false) {
  Data d = make(p, 2);
  const cublasStatus_t status =
      wide ? cublasGemmEx_64(handle, p.ta, p.tb, p.m, p.n, p.k, &p.alpha, d.da, CUDA_R_32F, p.lda(),
                             d.db, CUDA_R_32F, p.ldb(), &p.beta, d.dc, CUDA_R_32F, p.ldc(), compute,
                             CUBLAS_GEMM_DEFAULT_TENSOR_OP)
           : cublasGemmEx(handle, p.ta, p.tb, p.m, p.n, p.k, &p.alpha, d.da, CUDA_R_32F, p.lda(),
                          d.db, CUDA_R_32F, p.ldb(), &p.beta, d.dc, CUDA_R_32F, p.ldc(), compute,
                          CUBLAS_GEMM_DEFAULT);
  finish(name, status, d, check);
  release(d);
}

void sgemm_ex_case(const char* name, Problem p, bool wide) {
  Data d = make(p, 3);
  const cublasStatus_t status =
      wide
          ? cublasSgemmEx_64(handle, p.ta, p.tb, p.m, p.n, p.k, &p.alpha, d.da, CUDA_R_32F, p.lda(),
                             d.db, CUDA_R_32F, p.ldb(), &p.beta, d.dc, CUDA_R_32F, p.ldc())
          : cublasSgemmEx(handle, p.ta, p.tb, p.m, p.n, p.k, &p.alpha, d.da, CUDA_R_32F, p.lda(),
                          d.db, CUDA_R_32F, p.ldb(), &p.beta, d.dc, CUDA_R_32F, p.ldc());
  finish(name, status, d, true);
  release(d);
}

// Half-precision A and B, FP32 C: not FP32 data, forwarded.
void half_case(const char* name, Problem p) {
  Data d = make(p, 4);
  std::vector<__half> ah(d.a.size()), bh(d.b.size());
  for (size_t i = 0; i < ah.size(); ++i) ah[i] = __float2half(d.a[i]);
  for (size_t i = 0; i < bh.size(); ++i) bh[i] = __float2half(d.b[i]);
  __half *dah = device_copy(ah), *dbh = device_copy(bh);
  const cublasStatus_t status = cublasGemmEx(
      handle, p.ta, p.tb, p.m, p.n, p.k, &p.alpha, dah, CUDA_R_16F, p.lda(), dbh, CUDA_R_16F,
      p.ldb(), &p.beta, d.dc, CUDA_R_32F, p.ldc(), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  finish(name, status, d, false);
  cudaFree(dah), cudaFree(dbh);
  release(d);
}

enum class Form { sgemm, sgemm64, ex, ex64 };

void strided_case(const char* name, Problem p, Form form, bool device_scalars = false,
                  bool share_a = false) {
  Data d = make(p, 5);
  DeviceScalars s(p.alpha, p.beta);
  const float* alpha = device_scalars ? s.p : &p.alpha;
  const float* beta = device_scalars ? s.p + 1 : &p.beta;
  const long long sa = share_a ? 0 : p.stride_a();
  if (share_a)  // every problem reads A_0: the reference too
    for (int i = 1; i < p.batch; ++i)
      std::memcpy(&d.a[i * p.stride_a()], d.a.data(), p.stride_a() * sizeof(float));
  cublasSetPointerMode_v2(handle,
                          device_scalars ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST);
  cublasStatus_t status = CUBLAS_STATUS_INTERNAL_ERROR;
  switch (form) {
    case Form::sgemm:
      status = cublasSgemmStridedBatched(handle, p.ta, p.tb, p.m, p.n, p.k, alpha, d.da, p.lda(),
                                         sa, d.db, p.ldb(), p.stride_b(), beta, d.dc, p.ldc(),
                                         p.stride_c(), p.batch);
      break;
    case Form::sgemm64:
      status = cublasSgemmStridedBatched_64(handle, p.ta, p.tb, p.m, p.n, p.k, alpha, d.da, p.lda(),
                                            sa, d.db, p.ldb(), p.stride_b(), beta, d.dc, p.ldc(),
                                            p.stride_c(), p.batch);
      break;
    case Form::ex:
      status = cublasGemmStridedBatchedEx(
          handle, p.ta, p.tb, p.m, p.n, p.k, alpha, d.da, CUDA_R_32F, p.lda(), sa, d.db, CUDA_R_32F,
          p.ldb(), p.stride_b(), beta, d.dc, CUDA_R_32F, p.ldc(), p.stride_c(), p.batch,
          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      break;
    case Form::ex64:
      status = cublasGemmStridedBatchedEx_64(
          handle, p.ta, p.tb, p.m, p.n, p.k, alpha, d.da, CUDA_R_32F, p.lda(), sa, d.db, CUDA_R_32F,
          p.ldb(), p.stride_b(), beta, d.dc, CUDA_R_32F, p.ldc(), p.stride_c(), p.batch,
          CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_GEMM_DEFAULT);
      break;
  }
  cublasSetPointerMode_v2(handle, CUBLAS_POINTER_MODE_HOST);
  finish(name, status, d, true);
  release(d);
}

void arrays_case(const char* name, Problem p, Form form, bool device_scalars = false) {
  Data d = make(p, 6);
  DeviceScalars s(p.alpha, p.beta);
  const float* alpha = device_scalars ? s.p : &p.alpha;
  const float* beta = device_scalars ? s.p + 1 : &p.beta;
  cublasSetPointerMode_v2(handle,
                          device_scalars ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST);
  cublasStatus_t status = CUBLAS_STATUS_INTERNAL_ERROR;
  const void* const* av = reinterpret_cast<const void* const*>(d.a_array);
  const void* const* bv = reinterpret_cast<const void* const*>(d.b_array);
  void* const* cv = reinterpret_cast<void* const*>(d.c_array);
  switch (form) {
    case Form::sgemm:
      status = cublasSgemmBatched(handle, p.ta, p.tb, p.m, p.n, p.k, alpha, d.a_array, p.lda(),
                                  d.b_array, p.ldb(), beta, d.c_array, p.ldc(), p.batch);
      break;
    case Form::sgemm64:
      status = cublasSgemmBatched_64(handle, p.ta, p.tb, p.m, p.n, p.k, alpha, d.a_array, p.lda(),
                                     d.b_array, p.ldb(), beta, d.c_array, p.ldc(), p.batch);
      break;
    case Form::ex:
      status = cublasGemmBatchedEx(handle, p.ta, p.tb, p.m, p.n, p.k, alpha, av, CUDA_R_32F,
                                   p.lda(), bv, CUDA_R_32F, p.ldb(), beta, cv, CUDA_R_32F, p.ldc(),
                                   p.batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      break;
    case Form::ex64:
      status = cublasGemmBatchedEx_64(handle, p.ta, p.tb, p.m, p.n, p.k, alpha, av, CUDA_R_32F,
                                      p.lda(), bv, CUDA_R_32F, p.ldb(), beta, cv, CUDA_R_32F,
                                      p.ldc(), p.batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      break;
  }
  cublasSetPointerMode_v2(handle, CUBLAS_POINTER_MODE_HOST);
  finish(name, status, d, true);
  release(d);
}

int gpu_probe() {
  if (cublasCreate_v2(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::printf("FAIL cublasCreate\n");
    return 1;
  }
  const int m = 131, n = 77, k = 293;
  // Taken: every op pair, odd shapes, padded leading dimensions, host scalars.
  sgemm_case("sgemm_NN", {m, n, k, N, N});
  sgemm_case("sgemm_NT", {m, n, k, N, T});
  sgemm_case("sgemm_TN", {m, n, k, T, N});
  sgemm_case("sgemm_TT", {m, n, k, T, T});
  sgemm_case("sgemm_C", {m, n, k, CUBLAS_OP_C, CUBLAS_OP_C});
  sgemm_case("sgemm64_TN", {n, m, k, T, N}, false, true);
  Problem zero{m, n, k, N, T};
  zero.alpha = 0.f, zero.beta = 0.f, zero.nan_a = true, zero.nan_c = true;
  sgemm_case("sgemm_alpha0_beta0_nan", zero);
  Problem beta0{m, n, k, T, N};
  beta0.beta = 0.f, beta0.nan_c = true;
  sgemm_case("sgemm_beta0_nan_c", beta0);
  Problem alpha0{m, n, k, N, N};
  alpha0.alpha = 0.f, alpha0.nan_a = true;
  sgemm_case("sgemm_alpha0_nan_a", alpha0);
  // Alpha and beta in device memory.
  sgemm_case("sgemm_device_NT", {m, n, k, N, T}, true);
  sgemm_case("sgemm_device_alpha0_beta0_nan", zero, true);
  sgemm_case("sgemm_device_beta0_nan_c", beta0, true);
  sgemm_case("sgemm_device_alpha0_nan_a", alpha0, true);
  sgemm_case("sgemm64_device_TT", {m, n, k, T, T}, true, true);
  // The Ex forms with FP32 data and FP32 arithmetic.
  gemm_ex_case("gemmex_32f_NT", {m, n, k, N, T}, CUBLAS_COMPUTE_32F, true);
  gemm_ex_case("gemmex_32f_pedantic_TN", {m, n, k, T, N}, CUBLAS_COMPUTE_32F_PEDANTIC, true);
  gemm_ex_case("gemmex64_32f_TT", {m, n, k, T, T}, CUBLAS_COMPUTE_32F, true, true);
  sgemm_ex_case("sgemmex_NN", {m, n, k, N, N}, false);
  sgemm_ex_case("sgemmex64_TN", {m, n, k, T, N}, true);
  // Batches.
  Problem batch{m, n, k, T, N};
  batch.batch = 3;
  strided_case("strided_TN", batch, Form::sgemm);
  strided_case("strided64_TN", batch, Form::sgemm64);
  strided_case("strided_ex_TN", batch, Form::ex);
  strided_case("strided_ex64_TN", batch, Form::ex64);
  strided_case("strided_shared_a_TN", batch, Form::sgemm, false, true);
  strided_case("strided_device_TN", batch, Form::sgemm, true);
  Problem nt = batch;
  nt.ta = N, nt.tb = T;
  arrays_case("batched_NT", nt, Form::sgemm);
  arrays_case("batched64_NT", nt, Form::sgemm64);
  arrays_case("batched_ex_NT", nt, Form::ex);
  arrays_case("batched_ex64_NT", nt, Form::ex64);
  arrays_case("batched_device_NT", nt, Form::sgemm, true);
  // Forwarded: compared bitwise with the run without the preload library.
  gemm_ex_case("forwarded_gemmex_fast_tf32", {m, n, k, N, N}, CUBLAS_COMPUTE_32F_FAST_TF32, false);
  half_case("forwarded_gemmex_half", {m, n, k, N, T});
  cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH);
  {
    Data d = make({m, n, k, T, N}, 7);
    const float alpha = 1.f, beta = 0.f;
    const cublasStatus_t status = cublasSgemm_v2(handle, T, N, m, n, k, &alpha, d.da, d.p.lda(),
                                                 d.db, d.p.ldb(), &beta, d.dc, d.p.ldc());
    finish("forwarded_sgemm_tf32_math", status, d, false);
    release(d);
  }
  cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
  {  // cuBLAS's own answers: m == 0 (quick return), lda too small (its error)
    Data d = make({m, n, k, N, N}, 8);
    const float alpha = 1.f, beta = 0.f;
    const cublasStatus_t empty = cublasSgemm_v2(handle, N, N, 0, n, k, &alpha, d.da, d.p.lda(),
                                                d.db, d.p.ldb(), &beta, d.dc, d.p.ldc());
    finish("forwarded_sgemm_m0", empty, d, false);
    const cublasStatus_t bad = cublasSgemm_v2(handle, N, N, m, n, k, &alpha, d.da, m - 1, d.db,
                                              d.p.ldb(), &beta, d.dc, d.p.ldc());
    finish("forwarded_sgemm_bad_lda", bad, d, false);
    release(d);
  }
  cublasDestroy_v2(handle);
  const cudaError_t err = cudaDeviceSynchronize();
  std::printf("cuda %s\nfailures %d\n", cudaGetErrorString(err), failures);
  return failures == 0 && err == cudaSuccess ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "create") == 0) return create_probe();
  if (argc >= 2 && std::strcmp(argv[1], "devices") == 0) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    std::printf("devices %d\n", count);
    return 0;
  }
  if (argc >= 3 && std::strcmp(argv[1], "gpu") == 0) {
    out_dir = argv[2];
    return gpu_probe();
  }
  std::fprintf(stderr, "usage: %s devices | create | gpu DIR\n", argv[0]);
  return 2;
}
