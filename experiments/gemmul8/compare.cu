// Rung 16 beside GEMMul8 3.0.5 (UCHINO-Yuki/GEMMul8, the reference implementation of the Ozaki
// scheme II on INT8 tensor cores): cuBLAS SGEMM, rungs 15 and 16, and GEMMul8's SGEMM emulation
// (gemmul8::gemm<float, Backend::INT8>) with 7 moduli in its accurate and its fast mode, timed in
// turn on the same inputs (Harness::time_in_turn) for every size and input distribution, then each
// one's error against the FP64 product at 2048^3. GEMMul8 is not part of the project: its headers
// and static library live in the git-ignored .gemmul8-305/ (GEMMul8 3.0.5 @ f9b626b3; only the
// objects that gemm<float> on INT8 and workSize need: gemm_i8_s_s_s, worksize_real_i8, the
// float/INT8/full-matrix instantiations of oz2's fast and accurate scaling, scaling_rowwise,
// extract, mod_hi2mid and undo_scaling, and block_size_trsm, each built as its Makefile does for
// GPU_ARCH=90 with nvcc 13.0 -std=c++20 -O3 -diag-suppress 177 -Iinclude -Isrc -DGPU_ARCH=90
// -Xcompiler -fPIC -gencode arch=compute_90,code=sm_90, plus --compress-mode=size; the commands
// are in .gemmul8-305/BUILD.txt). Built from the repository root, against the project's build-gpu/:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Irunner \
//        -I.gemmul8-305/include experiments/gemmul8/compare.cu build-gpu/libsgemm_harness.a \
//        build-gpu/libsgemm_ladder.a .gemmul8-305/lib/libgemmul8.a -lcublas -lcublasLt -ldl \
//        -o .gemmul8-305/compare
//   .gemmul8-305/compare [--json PATH] [--accuracy-size N] [sizes...]   (default 4096 8192)
// GEMMul8 records CUDA events between its phases and waits on the last one before it returns (it
// reports the phases' times), so every call ends in a host synchronization and its event timings
// include the launch gap after it: that is the library as shipped. (Until 2026-11-25 the
// committed data came from GEMMul8 v2.0.14, RIKEN-RCCS/GEMMul8 @ 71296f99.)
#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "gemmul8.hpp"
#include "harness.h"
#include "sgemm/sgemm.h"

namespace {

using namespace sgemm;

constexpr unsigned kModuli = 7;

// GEMMul8's own cuBLAS handle, the 32 MiB cuBLAS workspace that GEMMul8 asks its cuBLAS-handle
// callers to give that handle (cublasSetStream resets it to the default pool, so it is set again
// after every cublasSetStream), and GEMMul8's workspace, grown on demand and shared by both modes
// (one stream, calls in sequence).
struct Gemmul8State {
  static constexpr size_t kCublasWorkBytes = size_t(32) << 20;
  cublasHandle_t handle = nullptr;
  void* cublas_work = nullptr;
  void* work = nullptr;
  size_t bytes = 0;
  Gemmul8State() {
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) throw Error("cublasCreate failed");
  }
  ~Gemmul8State() {
    cudaFree(work);
    cudaFree(cublas_work);
    cublasDestroy(handle);
  }
};

// GEMMul8 is column-major, as cuBLAS: row-major C = A B is column-major C^T = B^T A^T, so it
// gets m = N, n = M and B before A. It honours alpha and beta (host scalars), but with beta == 0
// it reads C unless alpha is +1 or -1; every problem here has alpha = 1.
Kernel gemmul8_kernel(std::shared_ptr<Gemmul8State> st, bool fast) {
  return [st, fast](const Gemm& g, cudaStream_t stream) {
    if (g.K > (1 << 17)) throw Error("GEMMul8 takes K <= 2^17");
    const size_t need =
        gemmul8::workSize<gemmul8::Backend::INT8>(g.N, g.M, g.K, static_cast<int>(kModuli));
    if (need > st->bytes) {
      CUDA_CHECK(cudaDeviceSynchronize());
      CUDA_CHECK(cudaFree(st->work));
      st->work = nullptr;
      CUDA_CHECK(cudaMalloc(&st->work, need));
      st->bytes = need;
    }
    if (!st->cublas_work) CUDA_CHECK(cudaMalloc(&st->cublas_work, Gemmul8State::kCublasWorkBytes));
    if (cublasSetStream(st->handle, stream) != CUBLAS_STATUS_SUCCESS ||
        cublasSetWorkspace(st->handle, st->cublas_work, Gemmul8State::kCublasWorkBytes) !=
            CUBLAS_STATUS_SUCCESS)
      throw Error("cublasSetStream/cublasSetWorkspace failed");
    gemmul8::gemm<float, gemmul8::Backend::INT8>(
        st->handle, CUBLAS_OP_N, CUBLAS_OP_N, g.N, g.M, g.K, &g.alpha, g.B, g.ldb, g.A, g.lda,
        &g.beta, g.C, g.ldc, static_cast<int>(kModuli), fast, st->work);
    CUDA_CHECK(cudaGetLastError());
  };
}

}  // namespace

int main(int argc, char** argv) try {
  std::vector<int> sizes;
  std::string json_path = "gemmul8_compare.json";
  int accuracy_size = 2048;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json" && i + 1 < argc)
      json_path = argv[++i];
    else if (arg == "--accuracy-size" && i + 1 < argc)
      accuracy_size = std::atoi(argv[++i]);
    else
      sizes.push_back(std::atoi(argv[i]));
  }
  if (sizes.empty()) sizes = {4096, 8192};
  const std::vector<std::string> inputs = {"uniform", "normal", "phi=0",      "phi=0.5", "phi=1",
                                           "phi=2",   "phi=4",  "big-column", "big-rows"};
  const std::vector<std::string> names = {"cublas", "rung15", "rung16", "gemmul8_accu7",
                                          "gemmul8_fast7"};

  Harness h(0);
  auto st = std::make_shared<Gemmul8State>();
  const std::vector<Kernel> kernels = {h.kernel(kCublasRung), h.kernel(15), h.kernel(16),
                                       gemmul8_kernel(st, false), gemmul8_kernel(st, true)};
  auto problem_of = [](int n, const std::string& in) {
    Problem p{{n, n, n}};
    p.inputs = *parse_inputs(in);
    return p;
  };

  FILE* json = std::fopen(json_path.c_str(), "w");
  if (!json) throw Error("cannot write " + json_path);
  const GpuInfo& g = h.gpu();
  const std::string gpu = g.name + ", " + std::to_string(g.sm_count) + " SMs, max " +
                          std::to_string(g.sm_clock_max_mhz) + " MHz, driver " + g.driver_version;
  std::printf("GPU: %s\nGEMMul8 with %u moduli; TFLOP/s (x cuBLAS SGEMM)\n", gpu.c_str(), kModuli);
  std::fprintf(json, "{\"gpu\": \"%s\", \"moduli\": %u,\n \"timing\": [", gpu.c_str(), kModuli);
  std::printf("%-5s %-10s", "size", "inputs");
  for (const std::string& name : names) std::printf(" %17s", name.c_str());
  std::printf("\n");
  const char* sep = "";
  for (int n : sizes)
    for (const std::string& in : inputs) {
      const Problem p = problem_of(n, in);
      const std::vector<Timing> t = h.time_in_turn(kernels, p, TimingOptions{});
      std::printf("%-5d %-10s", n, in.c_str());
      std::fprintf(json, "%s\n  {\"size\": %d, \"inputs\": \"%s\", \"kernels\": {", sep, n,
                   in.c_str());
      sep = ",";
      for (size_t k = 0; k < t.size(); ++k) {
        const double tflops = t[k].gflops(p) / 1e3, ratio = t[0].median_ms / t[k].median_ms;
        std::printf(" %9.1f (%5.2fx)", tflops, ratio);
        std::fprintf(json,
                     "%s\"%s\": {\"median_ms\": %.5f, \"min_ms\": %.5f, \"max_ms\": %.5f, "
                     "\"reps\": %d, \"tflops\": %.3f, \"vs_cublas\": %.4f}",
                     k ? ", " : "", names[k].c_str(), t[k].median_ms, t[k].min_ms, t[k].max_ms,
                     t[k].reps, tflops, ratio);
      }
      std::printf("\n");
      std::fprintf(json, "}}");
      std::fflush(stdout);
    }

  std::printf("\nError vs FP64 at %d^3: max componentwise (u sum|a||b|) / rel. Frobenius\n",
              accuracy_size);
  std::printf("%-10s", "inputs");
  for (const std::string& name : names) std::printf(" %19s", name.c_str());
  std::printf("\n");
  std::fprintf(json, "\n ],\n \"accuracy_size\": %d,\n \"accuracy\": [", accuracy_size);
  sep = "";
  for (const std::string& in : inputs) {
    const std::vector<Accuracy> a = h.accuracy(kernels, problem_of(accuracy_size, in), 1);
    std::printf("%-10s", in.c_str());
    std::fprintf(json, "%s\n  {\"inputs\": \"%s\", \"kernels\": {", sep, in.c_str());
    sep = ",";
    for (size_t k = 0; k < a.size(); ++k) {
      std::printf(" %9.3g / %7.2g", a[k].max_componentwise, a[k].rel_frobenius);
      std::fprintf(json,
                   "%s\"%s\": {\"max_componentwise\": %.6g, \"max_rel\": %.6g, "
                   "\"rel_frobenius\": %.6g}",
                   k ? ", " : "", names[k].c_str(), a[k].max_componentwise, a[k].max_rel,
                   a[k].rel_frobenius);
    }
    std::printf("\n");
    std::fprintf(json, "}}");
  }
  std::fprintf(json, "\n ]\n}\n");
  std::fclose(json);
  std::printf("JSON: %s\n", json_path.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "compare: %s\n", e.what());
  return 1;
}
