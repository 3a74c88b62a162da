// sgemm_batched_bench: the batched suite. sgemm::gemm_strided_batched against
// cublasSgemmStridedBatched (FP32, the default math mode), in one process, in turn, on the same
// inputs, per case: the median time of each, the ratio (cuBLAS time / ours: above 1, ours is
// faster) and their geometric mean; and a check of each case: every sampled element of three
// problems (first, middle, last) within FP32's componentwise bound, gamma_{K+2} (|alpha| sum_k
// |a||b| + |beta| |c0|), of the FP64 sum, on full-precision uniform inputs in [-1, 1), or on
// another of the generator's distributions (--inputs: normal, heavy tails, wide exponents, scales
// along K; runner/inputs.h), each problem drawn apart.
//
//   sgemm_batched_bench [--case NAME] [--kernel NAME] [--choice] [--inputs D] [--block-ms T]
//                       [--rounds R]
//
// The suite (column-major, as cuBLAS; batch x (M x N x K)): 64x512^3, 8x2048^3, 1024x64^3,
// qk: 4096 x (1024 x 1024 x 64) with op T on B (32 heads * 128 sequences, Q K^T), and
// pv: 4096 x (1024 x 64 x 1024) (P V). The largest, qk, holds 18 GiB on the device (C: 16 GiB).
// --choice adds smaller cases of each kind, outside the suite's geometric mean, where the batched
// call's choice of kernel is made (library/batched.cu: kernel_for); --kernel times one kernel
// on every case instead of the call's own choice (library/batched_kernels.h).
// Timing: warm-up runs, then R rounds of a block of each in turn, ours then cuBLAS, a block at
// least T ms (docs/00_method.md's method, blocks in turn). Prints a table and one JSON line per
// case; exit status 1 when a check fails, 3 on a CUDA or cuBLAS error.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "batched_kernels.h"  // BatchedKernel, gemm_strided_batched_on
#include "device.h"           // DeviceBuffer, CUDA_CHECK
#include "input_fills.h"      // fill_inputs
#include "inputs.h"           // Inputs, parse_inputs
#include "sgemm/sgemm.h"

namespace {

using namespace sgemm;

struct Case {
  std::string name;
  int batch, M, N, K;
  cublasOperation_t opA, opB;
  bool suite = true;  // in the geometric mean; else one of --choice's cases
};

const std::vector<Case> kCases = {
    {"64x512^3", 64, 512, 512, 512, CUBLAS_OP_N, CUBLAS_OP_N},
    {"8x2048^3", 8, 2048, 2048, 2048, CUBLAS_OP_N, CUBLAS_OP_N},
    {"1024x64^3", 1024, 64, 64, 64, CUBLAS_OP_N, CUBLAS_OP_N},
    {"qk_4096x1024x1024x64", 4096, 1024, 1024, 64, CUBLAS_OP_N, CUBLAS_OP_T},
    {"pv_4096x1024x64x1024", 4096, 1024, 64, 1024, CUBLAS_OP_N, CUBLAS_OP_N},
    // --choice: between the suite's kinds, where one kernel's lead passes to another.
    {"4096x32^3", 4096, 32, 32, 32, CUBLAS_OP_N, CUBLAS_OP_N, false},
    {"512x128^3", 512, 128, 128, 128, CUBLAS_OP_N, CUBLAS_OP_N, false},
    {"128x256^3", 128, 256, 256, 256, CUBLAS_OP_N, CUBLAS_OP_N, false},
    {"qk_1024x256x256x64", 1024, 256, 256, 64, CUBLAS_OP_N, CUBLAS_OP_T, false},
    {"pv_1024x256x64x256", 1024, 256, 64, 256, CUBLAS_OP_N, CUBLAS_OP_N, false},
    {"pv_512x2048x128x2048", 512, 2048, 128, 2048, CUBLAS_OP_N, CUBLAS_OP_N, false},
    // Problems whose tiles fill the GPU: one launch for the batch, or the one call per problem.
    {"4x3072^3", 4, 3072, 3072, 3072, CUBLAS_OP_N, CUBLAS_OP_N, false},
    {"2x4096^3", 2, 4096, 4096, 4096, CUBLAS_OP_N, CUBLAS_OP_N, false},
    {"2x8192^3", 2, 8192, 8192, 8192, CUBLAS_OP_N, CUBLAS_OP_N, false},
};

void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cublasGetStatusString(s));
}

// Median milliseconds per run of `run`, blocks in turn with `other`'s (R rounds).
struct Timer {
  cudaStream_t stream;
  double block_ms;
  // One block: runs until block_ms of GPU time or 1000 runs; per-run ms (first run not counted).
  double block(const std::function<void()>& run) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    run();  // not counted
    int runs = 0;
    float ms = 0;
    CUDA_CHECK(cudaEventRecord(start, stream));
    for (int chunk = 1; runs < 1000; chunk *= 2) {
      for (int i = 0; i < chunk && runs < 1000; ++i, ++runs) run();
      CUDA_CHECK(cudaEventRecord(stop, stream));
      CUDA_CHECK(cudaEventSynchronize(stop));
      CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (ms >= block_ms) break;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms / runs;
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::vector<float> to_host(const float* p, size_t count) {
  std::vector<float> h(count);
  CUDA_CHECK(cudaMemcpy(h.data(), p, count * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  std::string only;
  BatchedKernel kernel = BatchedKernel::automatic;
  bool choice = false;
  Inputs inputs;
  double block_ms = 100;
  int rounds = 3;
  auto usage = [](const std::string& why) {
    std::fprintf(stderr, "sgemm_batched_bench: %s (--help lists the flags)\n", why.c_str());
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool hasValue = i + 1 < argc;
    if (a == "--help" || a == "-h") {
      std::printf(
          "sgemm_batched_bench: sgemm::gemm_strided_batched against cublasSgemmStridedBatched\n"
          "(FP32, default math mode), timed in turn in one process, with a check of each case\n"
          "against FP64 within FP32's componentwise bound.\n\n"
          "usage: sgemm_batched_bench [--case NAME] [--kernel NAME] [--choice] [--inputs D]\n"
          "                           [--block-ms T] [--rounds R]\n"
          "  --case NAME    run one case only:");
      for (const Case& c : kCases) std::printf(" %s", c.name.c_str());
      std::printf(
          "\n  --kernel NAME  one kernel on every case, not the call's choice: automatic (the\n"
          "                 default), rung15_batch, rung15_split_a, rung19_tiles, rung17_ffma,\n"
          "                 ffma_tiles\n"
          "  --choice       the suite and smaller cases of each kind (outside the geometric\n"
          "                 mean), where the call's choice of kernel is made\n"
          "  --inputs D     what fills A and B (default uniform): %s\n"
          "  --block-ms T   a timed block lasts at least T ms of GPU time (default 100)\n"
          "  --rounds R     blocks of each in turn (default 3)\n\n"
          "exit status:\n  0  every check passed\n  1  a check failed\n  2  bad usage\n"
          "  3  no usable GPU, or a CUDA or cuBLAS error\n",
          inputs_help().c_str());
      return 0;
    } else if (a == "--case" && hasValue) {
      only = argv[++i];
      if (std::none_of(kCases.begin(), kCases.end(), [&](const Case& c) { return c.name == only; }))
        return usage("no case '" + only + "'");
    } else if (a == "--kernel" && hasValue) {
      if (!batched_kernel_named(argv[++i], &kernel))
        return usage(std::string("no kernel '") + argv[i] + "'");
    } else if (a == "--choice") {
      choice = true;
    } else if (a == "--inputs" && hasValue) {
      const std::optional<Inputs> parsed = parse_inputs(argv[++i]);
      if (!parsed) return usage(inputs_error(argv[i]));
      inputs = *parsed;
    } else if (a == "--block-ms" && hasValue) {
      char* end = nullptr;
      block_ms = std::strtod(argv[++i], &end);
      if (*end != '\0' || !(block_ms >= 0)) return usage("--block-ms wants a number >= 0");
    } else if (a == "--rounds" && hasValue) {
      char* end = nullptr;
      rounds = static_cast<int>(std::strtol(argv[++i], &end, 10));
      if (*end != '\0' || rounds < 1) return usage("--rounds wants a whole number >= 1");
    } else {
      return usage("unknown argument '" + a + "'");
    }
  }
  int failures = 0;
  try {
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    cublas_check(cublasCreate(&handle), "cublasCreate");
    cublas_check(cublasSetStream(handle, stream), "cublasSetStream");  // default math mode: FP32
    Timer timer{stream, block_ms};
    std::printf("GPU: %s (%d SMs), kernel: %s, inputs: %s\n%-22s %10s %10s %10s %10s %8s  %s\n",
                prop.name, prop.multiProcessorCount, to_string(kernel), inputs.name().c_str(),
                "case", "ours ms", "cuBLAS ms", "ours TF/s", "cuBLAS TF/s", "ratio", "check");
    double logSum = 0;
    int counted = 0;
    for (const Case& c : kCases) {
      if (only.empty() ? !c.suite && !choice : only != c.name) continue;
      // Column-major, tight: op(A) M x K, A stored M x K (N) or K x M (T); B likewise; C M x N.
      const bool ta = c.opA == CUBLAS_OP_T, tb = c.opB == CUBLAS_OP_T;
      const int lda = ta ? c.K : c.M, ldb = tb ? c.N : c.K, ldc = c.M;
      const long long sA = static_cast<long long>(lda) * (ta ? c.M : c.K);
      const long long sB = static_cast<long long>(ldb) * (tb ? c.K : c.N);
      const long long sC = static_cast<long long>(ldc) * c.N;
      DeviceBuffer A(sA * c.batch), B(sB * c.batch), C(sC * c.batch);
      // Each problem's operands drawn apart (seeds by problem), as the runner fills one problem.
      Problem problem;
      problem.shape = {c.M,
                       c.N,
                       c.K,
                       lda,
                       ldb,
                       ldc,
                       {Layout::col_major, ta ? Op::T : Op::N, tb ? Op::T : Op::N}};
      problem.inputs = inputs;
      for (int z = 0; z < c.batch; ++z)
        fill_inputs(problem, A.get() + z * sA, B.get() + z * sB, 11 + 2ull * z, 12 + 2ull * z, 0.f,
                    stream);
      CUDA_CHECK(cudaGetLastError());
      const float alpha = 1.f, beta = 0.f;
      std::string why;
      auto ours = [&] {
        const Status s = gemm_strided_batched_on(
            kernel, Layout::col_major, ta ? Op::T : Op::N, tb ? Op::T : Op::N, c.M, c.N, c.K, alpha,
            A.get(), lda, sA, B.get(), ldb, sB, beta, C.get(), ldc, sC, c.batch, stream, &why);
        if (s != Status::ok) throw std::runtime_error(c.name + ": " + why);
      };
      auto theirs = [&] {
        cublas_check(
            ::cublasSgemmStridedBatched(handle, c.opA, c.opB, c.M, c.N, c.K, &alpha, A.get(), lda,
                                        sA, B.get(), ldb, sB, &beta, C.get(), ldc, sC, c.batch),
            "cublasSgemmStridedBatched");
      };
      // The check first, on our C: three problems, 4096 sampled elements each (all where fewer).
      CUDA_CHECK(cudaMemsetAsync(C.get(), 0xff, sC * c.batch * sizeof(float), stream));  // NaN
      if (kernel != BatchedKernel::automatic) {  // a kernel named may not take this case
        const Status s = gemm_strided_batched_on(
            kernel, Layout::col_major, ta ? Op::T : Op::N, tb ? Op::T : Op::N, c.M, c.N, c.K, alpha,
            A.get(), lda, sA, B.get(), ldb, sB, beta, C.get(), ldc, sC, c.batch, stream, &why);
        if (s != Status::ok) {
          std::printf("%-22s not run: %s\n", c.name.c_str(), why.c_str());
          continue;
        }
      }
      ours();
      CUDA_CHECK(cudaStreamSynchronize(stream));
      const double u = std::ldexp(1.0, -24), n = c.K + 2, gamma = n * u / (1 - n * u);
      double worst = 0;  // largest |error| / bound
      for (int i : {0, c.batch / 2, c.batch - 1}) {
        const std::vector<float> a = to_host(A.get() + i * sA, sA),
                                 b = to_host(B.get() + i * sB, sB),
                                 got = to_host(C.get() + i * sC, sC);
        std::mt19937 gen(i);
        const long long elements = static_cast<long long>(c.M) * c.N;
        for (long long s = 0; s < std::min<long long>(elements, 4096); ++s) {
          const long long e = elements <= 4096 ? s : static_cast<long long>(gen() % elements);
          const int r = static_cast<int>(e % c.M), col = static_cast<int>(e / c.M);
          double sum = 0, mag = 0;
          for (int k = 0; k < c.K; ++k) {
            const double x =
                ta ? a[static_cast<size_t>(r) * lda + k] : a[static_cast<size_t>(k) * lda + r];
            const double y =
                tb ? b[static_cast<size_t>(k) * ldb + col] : b[static_cast<size_t>(col) * ldb + k];
            sum += x * y, mag += std::fabs(x * y);
          }
          const double err = std::fabs(got[static_cast<size_t>(col) * ldc + r] - sum);
          worst = std::max(worst, std::isnan(err) ? INFINITY : err / (gamma * mag));
        }
      }
      const bool pass = worst <= 1;
      failures += !pass;
      // Warm-up, then rounds of blocks in turn.
      for (int w = 0; w < 2; ++w) ours(), theirs();
      std::vector<double> oursMs, theirsMs;
      for (int r = 0; r < rounds; ++r) {
        oursMs.push_back(timer.block(ours));
        theirsMs.push_back(timer.block(theirs));
      }
      const double o = median(oursMs), t = median(theirsMs);
      const double flops = 2.0 * c.batch * c.M * c.N * static_cast<double>(c.K);
      const double ratio = t / o;
      if (c.suite) logSum += std::log(ratio), ++counted;
      char check[96];
      std::snprintf(check, sizeof check, "%s (worst error %.3g of the bound)",
                    pass ? "PASS" : "FAIL", worst);
      std::printf("%-22s %10.4f %10.4f %10.1f %10.1f %8.3f  %s\n", c.name.c_str(), o, t,
                  flops / o / 1e9, flops / t / 1e9, ratio, check);
      std::printf(
          "{\"case\": \"%s\", \"suite\": %s, \"kernel\": \"%s\", \"inputs\": \"%s\", "
          "\"batch\": %d, \"M\": %d, \"N\": %d, \"K\": %d, \"ours_ms\": %.6f, \"cublas_ms\": %.6f, "
          "\"ratio\": %.4f, \"check\": \"%s\", \"worst_of_bound\": %.4g}\n",
          c.name.c_str(), c.suite ? "true" : "false", to_string(kernel), inputs.name().c_str(),
          c.batch, c.M, c.N, c.K, o, t, ratio, pass ? "pass" : "fail", worst);
      std::fflush(stdout);
    }
    if (counted > 0)
      std::printf("geometric mean of cuBLAS time / ours over %d suite cases: %.3f\n", counted,
                  std::exp(logSum / counted));
    cublasDestroy(handle);
    CUDA_CHECK(cudaStreamDestroy(stream));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgemm_batched_bench: %s\n", e.what());
    return 3;
  }
  return failures ? 1 : 0;
}
