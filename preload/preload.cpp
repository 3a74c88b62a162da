// libsgemm_preload.so (README.md): cuBLAS's FP32 GEMM entry points, defined here so that a
// program run with LD_PRELOAD calls these first. A call that is an FP32 GEMM the ladder's one
// call can answer (sgemm::gemm, gemm_strided_batched, gemm_batched) runs there; every other call
// goes, untouched, to the program's own cuBLAS, whose functions are looked up once, at the first
// call of each (dlsym RTLD_NEXT: the next definition after this library, the program's).
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cublas_status.h"      // cublas_status_of: sgemm::Status as cuBLAS's status
#include "options.h"            // the switches and the log
#include "runtime/workspace.h"  // the library's workspace pool: W for device scalars
#include "scalars.h"            // alpha and beta read on the device
#include "sgemm/sgemm.h"

#define SGEMM_EXPORT extern "C" __attribute__((visibility("default")))

// options.cpp names and judges cuBLAS's enum values without cuBLAS's headers: the same values.
static_assert(CUBLAS_COMPUTE_32F == 68 && CUBLAS_COMPUTE_32F_PEDANTIC == 69 &&
              CUBLAS_COMPUTE_32F_FAST_TF32 == 77 && CUBLAS_COMPUTE_32F_FAST_16F == 74);
static_assert(CUBLAS_DEFAULT_MATH == 0 && CUBLAS_PEDANTIC_MATH == 2 &&
              CUBLAS_TF32_TENSOR_OP_MATH == 3 &&
              CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION == 16);
static_assert(CUDA_R_32F == 0 && CUDA_R_16F == 2 && CUDA_R_16BF == 14);

namespace sgemm::preload {
namespace {

// ---- The real cuBLAS.

// The path of the loaded libcublas.so.N: for a cuBLAS that the program opened without
// RTLD_GLOBAL (a Python extension's dependency), which RTLD_NEXT does not search.
int find_cublas(struct dl_phdr_info* info, size_t, void* data) {
  const char* name = info->dlpi_name;
  if (name == nullptr || *name == '\0') return 0;
  const char* base = std::strrchr(name, '/');
  base = base ? base + 1 : name;
  if (std::strncmp(base, "libcublas.so", 12) != 0) return 0;  // not libcublasLt.so
  *static_cast<std::string*>(data) = name;
  return 1;
}

void* find_real(const char* name) {
  if (void* f = dlsym(RTLD_NEXT, name)) return f;
  std::string path;
  dl_iterate_phdr(find_cublas, &path);
  if (path.empty()) return nullptr;
  void* library = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);  // kept open: it is in use
  return library ? dlsym(library, name) : nullptr;
}

// The real cuBLAS's function `name`, of type `type`, looked up once (a function-local static:
// thread-safe).
#define SGEMM_REAL_AS(name, type)                                                     \
  ([] {                                                                               \
    static const auto f = reinterpret_cast<type>(::sgemm::preload::find_real(#name)); \
    return f;                                                                         \
  }())
#define SGEMM_REAL(name) SGEMM_REAL_AS(name, decltype(&::name))

// ---- The switches and the log.

bool enabled() {
  static const bool on = preload_enabled(std::getenv("SGEMM_PRELOAD"));
  return on;
}

bool logging() {
  static const bool on = log_enabled(std::getenv("SGEMM_PRELOAD_LOG"));
  return on;
}

void log(const char* entry, const char* verb, const std::string& reason) {
  if (!logging()) return;
  static Once once;
  if (!once.first(entry, std::string(verb) + reason)) return;
  std::fprintf(stderr, "%s\n", log_line(entry, verb, reason).c_str());
}

// ---- One call, whatever its entry point: m, n, k and the leading dimensions as cuBLAS got them
// (64-bit for the _64 forms), the operands strided (batch 1: one problem) or as arrays.
struct Call {
  const char* entry;
  cublasHandle_t handle;
  cublasOperation_t transa, transb;
  long long m, n, k;
  const float* alpha;
  const float* A;
  long long lda, stride_a;
  const float* B;
  long long ldb, stride_b;
  const float* beta;
  float* C;
  long long ldc, stride_c;
  long long batch;
  bool batched;                 // a batched entry point
  const float* const* a_array;  // the pointer-array forms: A, B, C are null
  const float* const* b_array;
  float* const* c_array;
};

bool op_of(cublasOperation_t trans, Op* op) {
  if (trans == CUBLAS_OP_N) return *op = Op::N, true;
  if (trans == CUBLAS_OP_T || trans == CUBLAS_OP_C) return *op = Op::T, true;  // real data
  return false;
}

// The product in the library, alpha and beta on the host.
Status run(const Call& c, Op opA, Op opB, float alpha, float beta, float* C, long long ldc,
           long long stride_c, float* const* c_array, cudaStream_t stream, std::string* why) {
  const int m = static_cast<int>(c.m), n = static_cast<int>(c.n), k = static_cast<int>(c.k);
  const int lda = static_cast<int>(c.lda), ldb = static_cast<int>(c.ldb);
  const int ldc32 = static_cast<int>(ldc), batch = static_cast<int>(c.batch);
  if (c.a_array)
    return gemm_batched(Layout::col_major, opA, opB, m, n, k, alpha, c.a_array, lda, c.b_array, ldb,
                        beta, c_array, ldc32, batch, stream, why);
  if (c.batched)
    return gemm_strided_batched(Layout::col_major, opA, opB, m, n, k, alpha, c.A, lda, c.stride_a,
                                c.B, ldb, c.stride_b, beta, C, ldc32, stride_c, batch, stream, why);
  return gemm(Layout::col_major, opA, opB, m, n, k, alpha, c.A, lda, c.B, ldb, beta, C, ldc32,
              stream, why);
}

// Alpha and beta in device memory: the product with alpha = 1, beta = 0 into W (the library's
// workspace pool, stream-ordered), then C = alpha W + beta C on the device (scalars.h). No host
// synchronisation. Status::no_workspace when the pool cannot hold W.
Status run_device_scalars(const Call& c, Op opA, Op opB, cudaStream_t stream, std::string* why) {
  const long long mn = c.m * c.n;
  runtime::Workspace<float> w(static_cast<size_t>(mn * c.batch), stream);
  runtime::Workspace<float*> pointers(c.a_array ? static_cast<size_t>(c.batch) : 0, stream);
  if (w.error() != cudaSuccess || pointers.error() != cudaSuccess) {
    const cudaError_t err = w.error() != cudaSuccess ? w.error() : pointers.error();
    if (err != cudaErrorMemoryAllocation) cudaGetLastError();
    *why = "no workspace for the product of device-pointer-mode scalars";
    return err == cudaErrorMemoryAllocation ? Status::no_workspace : Status::cuda_error;
  }
  const int batch = static_cast<int>(c.batch);
  if (c.a_array) {
    const cudaError_t err = launch_fill_pointers(w.get(), mn, batch, pointers.get(), stream);
    if (err != cudaSuccess) {
      *why = std::string("pointer array: ") + cudaGetErrorString(err);
      return Status::cuda_error;
    }
  }
  const Status s = run(c, opA, opB, 1.f, 0.f, w.get(), c.m, mn, pointers.get(), stream, why);
  if (s != Status::ok) return s;
  const cudaError_t err =
      launch_apply_scalars(static_cast<int>(c.m), static_cast<int>(c.n), batch, c.alpha, c.beta,
                           w.get(), c.C, c.ldc, c.stride_c, c.c_array, stream);
  if (err != cudaSuccess) {
    *why = std::string("alpha and beta on the device: ") + cudaGetErrorString(err);
    return Status::cuda_error;
  }
  return Status::ok;
}

// Answers the call in the library and sets *status, or returns false: the caller forwards it
// to cuBLAS, which then answers it as it would unhooked (errors included).
bool take(const Call& c, cublasStatus_t* status) {
  auto forward = [&](const std::string& reason) {
    log(c.entry, "forwarded", reason);
    return false;
  };
  if (!enabled()) return forward("switched off by SGEMM_PRELOAD");
  if (c.handle == nullptr) return forward("null handle");
  Op opA = Op::N, opB = Op::N;
  if (!op_of(c.transa, &opA) || !op_of(c.transb, &opB)) return forward("transa or transb");
  if (c.m < 1 || c.n < 1 || c.k < 1)
    return forward("m, n or k below 1: cuBLAS's quick return or its error");
  if (c.batch < 1) return forward("batchCount below 1");
  if (c.m > kMaxDimension || c.n > kMaxDimension || c.k > kMaxDimension)
    return forward("m, n or k over the library's limit " + std::to_string(kMaxDimension));
  if (c.lda > INT_MAX || c.ldb > INT_MAX || c.ldc > INT_MAX || c.batch > INT_MAX)
    return forward("a leading dimension or batchCount over INT_MAX");
  if (c.alpha == nullptr || c.beta == nullptr) return forward("alpha or beta null");

  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  cublasPointerMode_t pointers = CUBLAS_POINTER_MODE_HOST;
  cudaStream_t stream = nullptr;
  const auto get_math = SGEMM_REAL(cublasGetMathMode);
  const auto get_pointers = SGEMM_REAL(cublasGetPointerMode_v2);
  const auto get_stream = SGEMM_REAL(cublasGetStream_v2);
  if (!get_math || !get_pointers || !get_stream) return forward("cuBLAS's getters not found");
  if (get_math(c.handle, &math) != CUBLAS_STATUS_SUCCESS ||
      get_pointers(c.handle, &pointers) != CUBLAS_STATUS_SUCCESS ||
      get_stream(c.handle, &stream) != CUBLAS_STATUS_SUCCESS)
    return forward("the handle's modes cannot be read");
  if (!math_mode_takes(math)) return forward("math mode " + math_mode_name(math));

  std::string why;
  Status s = Status::ok;
  const bool device_scalars = pointers == CUBLAS_POINTER_MODE_DEVICE;
  if (device_scalars)
    s = run_device_scalars(c, opA, opB, stream, &why);
  else
    s = run(c, opA, opB, *c.alpha, *c.beta, c.C, c.ldc, c.stride_c, c.c_array, stream, &why);
  if (s == Status::ok) {
    log(c.entry, "taken", device_scalars ? "alpha and beta in device memory" : "");
    *status = CUBLAS_STATUS_SUCCESS;
    return true;
  }
  // A launch that failed may have written part of C: answered here, not computed again.
  if (s == Status::cuda_error) {
    log(c.entry, "failed", std::string(to_string(s)) + ": " + why);
    *status = cublas_status_of(s, c.m, c.n, c.k);
    return true;
  }
  // The library queued nothing that touches C: cuBLAS answers (pointers it cannot check, sizes
  // over its index math, a short workspace, an argument cuBLAS rejects in its own words).
  return forward(std::string("the library answered ") + to_string(s));
}

Call single(const char* entry, cublasHandle_t handle, cublasOperation_t transa,
            cublasOperation_t transb, long long m, long long n, long long k, const float* alpha,
            const float* A, long long lda, const float* B, long long ldb, const float* beta,
            float* C, long long ldc) {
  return Call{entry, handle, transa, transb, m,   n, k, alpha, A,       lda,     0,      B,
              ldb,   0,      beta,   C,      ldc, 0, 1, false, nullptr, nullptr, nullptr};
}

Call strided(const char* entry, cublasHandle_t handle, cublasOperation_t transa,
             cublasOperation_t transb, long long m, long long n, long long k, const float* alpha,
             const float* A, long long lda, long long stride_a, const float* B, long long ldb,
             long long stride_b, const float* beta, float* C, long long ldc, long long stride_c,
             long long batch) {
  return Call{entry, handle,   transa,   transb, m,       n,        k,      alpha,
              A,     lda,      stride_a, B,      ldb,     stride_b, beta,   C,
              ldc,   stride_c, batch,    true,   nullptr, nullptr,  nullptr};
}

Call arrays(const char* entry, cublasHandle_t handle, cublasOperation_t transa,
            cublasOperation_t transb, long long m, long long n, long long k, const float* alpha,
            const float* const* A, long long lda, const float* const* B, long long ldb,
            const float* beta, float* const* C, long long ldc, long long batch) {
  return Call{entry, handle, transa, transb,  m,   n, k,     alpha, nullptr, lda, 0, nullptr,
              ldb,   0,      beta,   nullptr, ldc, 0, batch, true,  A,       B,   C};
}

// The Ex forms: FP32 data and FP32 arithmetic only (options.h: compute_type_takes), whatever
// the algo (an algorithm hint; cuBLAS 11 and later deprecate the _TENSOR_OP ones, and CuPy
// passes CUBLAS_GEMM_DEFAULT_TENSOR_OP for FP32 on compute capability 8.0 and later).
// Returns the reason to forward, or "".
std::string ex_reason(cudaDataType a, cudaDataType b, cudaDataType c, int compute_type) {
  if (a != CUDA_R_32F || b != CUDA_R_32F || c != CUDA_R_32F)
    return "data types " + data_type_name(a) + ", " + data_type_name(b) + ", " + data_type_name(c);
  if (compute_type >= 0 && !compute_type_takes(compute_type))
    return "compute type " + compute_type_name(compute_type);
  return "";
}

bool take_ex(const Call& c, const std::string& reason, cublasStatus_t* status) {
  if (!reason.empty()) {
    log(c.entry, "forwarded", reason);
    return false;
  }
  return take(c, status);
}

}  // namespace
}  // namespace sgemm::preload

using sgemm::preload::arrays;
using sgemm::preload::ex_reason;
using sgemm::preload::single;
using sgemm::preload::strided;
using sgemm::preload::take;
using sgemm::preload::take_ex;

// The real function's answer, or CUBLAS_STATUS_NOT_INITIALIZED where the program has no cuBLAS
// with that function (it cannot have called this one then).
#define SGEMM_FORWARD_AS(name, type, ...)                            \
  do {                                                               \
    const auto real = SGEMM_REAL_AS(name, type);                     \
    return real ? real(__VA_ARGS__) : CUBLAS_STATUS_NOT_INITIALIZED; \
  } while (0)
#define SGEMM_FORWARD(name, ...) SGEMM_FORWARD_AS(name, decltype(&::name), __VA_ARGS__)

// cublas_api.h overloads these three in C++ (a cudaDataType compute type): the C functions'
// types, which the program calls.
using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                  int, const void*, const void*, cudaDataType, int, const void*,
                                  cudaDataType, int, const void*, void*, cudaDataType, int,
                                  cublasComputeType_t, cublasGemmAlgo_t);
using GemmStridedBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t,
                                                cublasOperation_t, int, int, int, const void*,
                                                const void*, cudaDataType, int, long long,
                                                const void*, cudaDataType, int, long long,
                                                const void*, void*, cudaDataType, int, long long,
                                                int, cublasComputeType_t, cublasGemmAlgo_t);
using GemmBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                         int, int, const void*, const void* const*, cudaDataType,
                                         int, const void* const*, cudaDataType, int, const void*,
                                         void* const*, cudaDataType, int, int, cublasComputeType_t,
                                         cublasGemmAlgo_t);

// ---- cublasSgemm (cublas_v2.h's macro for cublasSgemm_v2) and its 64-bit form.

SGEMM_EXPORT cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                                           cublasOperation_t transb, int m, int n, int k,
                                           const float* alpha, const float* A, int lda,
                                           const float* B, int ldb, const float* beta, float* C,
                                           int ldc) {
  cublasStatus_t status;
  if (take(single("cublasSgemm_v2", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                  ldc),
           &status))
    return status;
  SGEMM_FORWARD(cublasSgemm_v2, handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                ldc);
}

SGEMM_EXPORT cublasStatus_t cublasSgemm_v2_64(cublasHandle_t handle, cublasOperation_t transa,
                                              cublasOperation_t transb, int64_t m, int64_t n,
                                              int64_t k, const float* alpha, const float* A,
                                              int64_t lda, const float* B, int64_t ldb,
                                              const float* beta, float* C, int64_t ldc) {
  cublasStatus_t status;
  if (take(single("cublasSgemm_v2_64", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta,
                  C, ldc),
           &status))
    return status;
  SGEMM_FORWARD(cublasSgemm_v2_64, handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                ldc);
}

// ---- cublasSgemmEx: FP32 arithmetic; taken where A, B and C are FP32.

SGEMM_EXPORT cublasStatus_t cublasSgemmEx(cublasHandle_t handle, cublasOperation_t transa,
                                          cublasOperation_t transb, int m, int n, int k,
                                          const float* alpha, const void* A, cudaDataType Atype,
                                          int lda, const void* B, cudaDataType Btype, int ldb,
                                          const float* beta, void* C, cudaDataType Ctype, int ldc) {
  cublasStatus_t status;
  if (take_ex(single("cublasSgemmEx", handle, transa, transb, m, n, k, alpha,
                     static_cast<const float*>(A), lda, static_cast<const float*>(B), ldb, beta,
                     static_cast<float*>(C), ldc),
              ex_reason(Atype, Btype, Ctype, -1), &status))
    return status;
  SGEMM_FORWARD(cublasSgemmEx, handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb,
                beta, C, Ctype, ldc);
}

SGEMM_EXPORT cublasStatus_t cublasSgemmEx_64(cublasHandle_t handle, cublasOperation_t transa,
                                             cublasOperation_t transb, int64_t m, int64_t n,
                                             int64_t k, const float* alpha, const void* A,
                                             cudaDataType Atype, int64_t lda, const void* B,
                                             cudaDataType Btype, int64_t ldb, const float* beta,
                                             void* C, cudaDataType Ctype, int64_t ldc) {
  cublasStatus_t status;
  if (take_ex(single("cublasSgemmEx_64", handle, transa, transb, m, n, k, alpha,
                     static_cast<const float*>(A), lda, static_cast<const float*>(B), ldb, beta,
                     static_cast<float*>(C), ldc),
              ex_reason(Atype, Btype, Ctype, -1), &status))
    return status;
  SGEMM_FORWARD(cublasSgemmEx_64, handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype,
                ldb, beta, C, Ctype, ldc);
}

// ---- cublasGemmEx: taken for FP32 data with CUBLAS_COMPUTE_32F or _32F_PEDANTIC.

SGEMM_EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const void* alpha, const void* A, cudaDataType Atype,
                                         int lda, const void* B, cudaDataType Btype, int ldb,
                                         const void* beta, void* C, cudaDataType Ctype, int ldc,
                                         cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  cublasStatus_t status;
  if (take_ex(
          single("cublasGemmEx", handle, transa, transb, m, n, k, static_cast<const float*>(alpha),
                 static_cast<const float*>(A), lda, static_cast<const float*>(B), ldb,
                 static_cast<const float*>(beta), static_cast<float*>(C), ldc),
          ex_reason(Atype, Btype, Ctype, computeType), &status))
    return status;
  SGEMM_FORWARD_AS(cublasGemmEx, GemmEx, handle, transa, transb, m, n, k, alpha, A, Atype, lda, B,
                   Btype, ldb, beta, C, Ctype, ldc, computeType, algo);
}

SGEMM_EXPORT cublasStatus_t cublasGemmEx_64(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m, int64_t n,
    int64_t k, const void* alpha, const void* A, cudaDataType Atype, int64_t lda, const void* B,
    cudaDataType Btype, int64_t ldb, const void* beta, void* C, cudaDataType Ctype, int64_t ldc,
    cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  cublasStatus_t status;
  if (take_ex(single("cublasGemmEx_64", handle, transa, transb, m, n, k,
                     static_cast<const float*>(alpha), static_cast<const float*>(A), lda,
                     static_cast<const float*>(B), ldb, static_cast<const float*>(beta),
                     static_cast<float*>(C), ldc),
              ex_reason(Atype, Btype, Ctype, computeType), &status))
    return status;
  SGEMM_FORWARD(cublasGemmEx_64, handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype,
                ldb, beta, C, Ctype, ldc, computeType, algo);
}

// ---- Strided batches.

SGEMM_EXPORT cublasStatus_t cublasSgemmStridedBatched(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const float* alpha, const float* A, int lda, long long int strideA, const float* B, int ldb,
    long long int strideB, const float* beta, float* C, int ldc, long long int strideC,
    int batchCount) {
  cublasStatus_t status;
  if (take(strided("cublasSgemmStridedBatched", handle, transa, transb, m, n, k, alpha, A, lda,
                   strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount),
           &status))
    return status;
  SGEMM_FORWARD(cublasSgemmStridedBatched, handle, transa, transb, m, n, k, alpha, A, lda, strideA,
                B, ldb, strideB, beta, C, ldc, strideC, batchCount);
}

SGEMM_EXPORT cublasStatus_t cublasSgemmStridedBatched_64(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m, int64_t n,
    int64_t k, const float* alpha, const float* A, int64_t lda, long long int strideA,
    const float* B, int64_t ldb, long long int strideB, const float* beta, float* C, int64_t ldc,
    long long int strideC, int64_t batchCount) {
  cublasStatus_t status;
  if (take(strided("cublasSgemmStridedBatched_64", handle, transa, transb, m, n, k, alpha, A, lda,
                   strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount),
           &status))
    return status;
  SGEMM_FORWARD(cublasSgemmStridedBatched_64, handle, transa, transb, m, n, k, alpha, A, lda,
                strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount);
}

SGEMM_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void* alpha, const void* A, cudaDataType Atype, int lda, long long int strideA,
    const void* B, cudaDataType Btype, int ldb, long long int strideB, const void* beta, void* C,
    cudaDataType Ctype, int ldc, long long int strideC, int batchCount,
    cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  cublasStatus_t status;
  if (take_ex(strided("cublasGemmStridedBatchedEx", handle, transa, transb, m, n, k,
                      static_cast<const float*>(alpha), static_cast<const float*>(A), lda, strideA,
                      static_cast<const float*>(B), ldb, strideB, static_cast<const float*>(beta),
                      static_cast<float*>(C), ldc, strideC, batchCount),
              ex_reason(Atype, Btype, Ctype, computeType), &status))
    return status;
  SGEMM_FORWARD_AS(cublasGemmStridedBatchedEx, GemmStridedBatchedEx, handle, transa, transb, m, n,
                   k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc,
                   strideC, batchCount, computeType, algo);
}

SGEMM_EXPORT cublasStatus_t cublasGemmStridedBatchedEx_64(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m, int64_t n,
    int64_t k, const void* alpha, const void* A, cudaDataType Atype, int64_t lda,
    long long int strideA, const void* B, cudaDataType Btype, int64_t ldb, long long int strideB,
    const void* beta, void* C, cudaDataType Ctype, int64_t ldc, long long int strideC,
    int64_t batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  cublasStatus_t status;
  if (take_ex(strided("cublasGemmStridedBatchedEx_64", handle, transa, transb, m, n, k,
                      static_cast<const float*>(alpha), static_cast<const float*>(A), lda, strideA,
                      static_cast<const float*>(B), ldb, strideB, static_cast<const float*>(beta),
                      static_cast<float*>(C), ldc, strideC, batchCount),
              ex_reason(Atype, Btype, Ctype, computeType), &status))
    return status;
  SGEMM_FORWARD(cublasGemmStridedBatchedEx_64, handle, transa, transb, m, n, k, alpha, A, Atype,
                lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc, strideC, batchCount,
                computeType, algo);
}

// ---- Batches of pointer arrays (the arrays in device memory).

SGEMM_EXPORT cublasStatus_t cublasSgemmBatched(cublasHandle_t handle, cublasOperation_t transa,
                                               cublasOperation_t transb, int m, int n, int k,
                                               const float* alpha, const float* const Aarray[],
                                               int lda, const float* const Barray[], int ldb,
                                               const float* beta, float* const Carray[], int ldc,
                                               int batchCount) {
  cublasStatus_t status;
  if (take(arrays("cublasSgemmBatched", handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray,
                  ldb, beta, Carray, ldc, batchCount),
           &status))
    return status;
  SGEMM_FORWARD(cublasSgemmBatched, handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray,
                ldb, beta, Carray, ldc, batchCount);
}

SGEMM_EXPORT cublasStatus_t cublasSgemmBatched_64(cublasHandle_t handle, cublasOperation_t transa,
                                                  cublasOperation_t transb, int64_t m, int64_t n,
                                                  int64_t k, const float* alpha,
                                                  const float* const Aarray[], int64_t lda,
                                                  const float* const Barray[], int64_t ldb,
                                                  const float* beta, float* const Carray[],
                                                  int64_t ldc, int64_t batchCount) {
  cublasStatus_t status;
  if (take(arrays("cublasSgemmBatched_64", handle, transa, transb, m, n, k, alpha, Aarray, lda,
                  Barray, ldb, beta, Carray, ldc, batchCount),
           &status))
    return status;
  SGEMM_FORWARD(cublasSgemmBatched_64, handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray,
                ldb, beta, Carray, ldc, batchCount);
}

SGEMM_EXPORT cublasStatus_t
cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                    int m, int n, int k, const void* alpha, const void* const Aarray[],
                    cudaDataType Atype, int lda, const void* const Barray[], cudaDataType Btype,
                    int ldb, const void* beta, void* const Carray[], cudaDataType Ctype, int ldc,
                    int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  cublasStatus_t status;
  if (take_ex(
          arrays("cublasGemmBatchedEx", handle, transa, transb, m, n, k,
                 static_cast<const float*>(alpha), reinterpret_cast<const float* const*>(Aarray),
                 lda, reinterpret_cast<const float* const*>(Barray), ldb,
                 static_cast<const float*>(beta), reinterpret_cast<float* const*>(Carray), ldc,
                 batchCount),
          ex_reason(Atype, Btype, Ctype, computeType), &status))
    return status;
  SGEMM_FORWARD_AS(cublasGemmBatchedEx, GemmBatchedEx, handle, transa, transb, m, n, k, alpha,
                   Aarray, Atype, lda, Barray, Btype, ldb, beta, Carray, Ctype, ldc, batchCount,
                   computeType, algo);
}

SGEMM_EXPORT cublasStatus_t cublasGemmBatchedEx_64(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m, int64_t n,
    int64_t k, const void* alpha, const void* const Aarray[], cudaDataType Atype, int64_t lda,
    const void* const Barray[], cudaDataType Btype, int64_t ldb, const void* beta,
    void* const Carray[], cudaDataType Ctype, int64_t ldc, int64_t batchCount,
    cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  cublasStatus_t status;
  if (take_ex(
          arrays("cublasGemmBatchedEx_64", handle, transa, transb, m, n, k,
                 static_cast<const float*>(alpha), reinterpret_cast<const float* const*>(Aarray),
                 lda, reinterpret_cast<const float* const*>(Barray), ldb,
                 static_cast<const float*>(beta), reinterpret_cast<float* const*>(Carray), ldc,
                 batchCount),
          ex_reason(Atype, Btype, Ctype, computeType), &status))
    return status;
  SGEMM_FORWARD(cublasGemmBatchedEx_64, handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda,
                Barray, Btype, ldb, beta, Carray, Ctype, ldc, batchCount, computeType, algo);
}
