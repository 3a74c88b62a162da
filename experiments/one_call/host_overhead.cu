// Where a small problem's time goes: per call, the host's own time in the launcher (no sync;
// the queue kept short), the GPU's time per run back to back between two events (no L2 flush),
// and the bench's timing (L2 flushed, events around each run: Harness::time_in_turn). When the
// host's time per call exceeds the GPU's, the bench's events wait for the host. The one call,
// gemm(), is timed as a user calls it, with the pointer checks and without; and one tensor
// map's encoding alone.
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Iinclude -Ilibrary -Ikernels \
//        -Irunner experiments/one_call/host_overhead.cu <build>/libsgemm_harness.a \
//        <build>/libsgemm_ladder.a -lcublas -ldl -o host_overhead && ./host_overhead
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "entries.h"  // rung 15's launch_config
#include "harness.h"
#include "registry.h"  // rung_info(): a rung by its typed handle
#include "report.h"
#include "runtime/tensor_map.h"  // make_tensor_map, timed alone
#include "sgemm/sgemm.h"

#define CHECK(x)                                          \
  do {                                                    \
    const cudaError_t e = (x);                            \
    if (e != cudaSuccess) {                               \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e)); \
      std::exit(1);                                       \
    }                                                     \
  } while (0)

int main() {
  using namespace sgemm;
  Harness h(0);
  std::printf("GPU: %s\n", describe(h.gpu()).c_str());
  std::vector<std::string> names = {"cublas",          "rung 15 prepass/1", "rung 15 prepass/4",
                                    "rung 15 fused/8", "rung 17",           "rung 16",
                                    "gemm()",          "gemm() vouched"};
  // The one call as a user makes it (arguments checked, rung 18's choice, the chain), with the
  // pointer checks and without (sgemm::set_pointer_checks: a framework vouches for its arrays).
  auto one_call = [](PointerChecks checks) {
    return [checks](const Gemm& g, cudaStream_t s) {
      set_pointer_checks(checks);
      const Status status = gemm(Layout::row_major, Op::N, Op::N, g.M, g.N, g.K, g.alpha, g.A,
                                 g.lda, g.B, g.ldb, g.beta, g.C, g.ldc, s);
      set_pointer_checks(PointerChecks::cuda);
      if (status != Status::ok) {
        std::printf("gemm(): %s\n", to_string(status));
        std::exit(1);
      }
    };
  };
  std::vector<Kernel> kernels = {
      h.kernel(kCublasRung),
      launched([](const Gemm& g,
                  cudaStream_t s) { return every_shape_3xtf32::launch_config(1, 1, g, s); },
               names[1]),
      launched([](const Gemm& g,
                  cudaStream_t s) { return every_shape_3xtf32::launch_config(1, 4, g, s); },
               names[2]),
      launched([](const Gemm& g,
                  cudaStream_t s) { return every_shape_3xtf32::launch_config(0, 8, g, s); },
               names[3]),
      launched(rung_info(RungId::cluster_splitk).launch, names[4]),
      launched(rung_info(RungId::ozaki_int8).launch, names[5]),
      one_call(PointerChecks::cuda),
      one_call(PointerChecks::caller_vouches)};
  cudaStream_t stream = h.stream();
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int n : {128, 512, 1000, 1024}) {
    float *A, *B, *C;
    CHECK(cudaMalloc(&A, sizeof(float) * n * n));
    CHECK(cudaMalloc(&B, sizeof(float) * n * n));
    CHECK(cudaMalloc(&C, sizeof(float) * n * n));
    CHECK(cudaMemset(A, 0, sizeof(float) * n * n));
    CHECK(cudaMemset(B, 0, sizeof(float) * n * n));
    const Gemm g{n, n, n, 1.f, A, n, B, n, 0.f, C, n};
    const Problem p{Shape{n, n, n}};
    TimingOptions t;
    t.block_ms = 60;
    const std::vector<Timing> bench = h.time_in_turn(kernels, p, t);
    for (size_t i = 0; i < kernels.size(); ++i) {
      constexpr int kRuns = 400, kQueue = 20;  // at most kQueue calls ahead of the GPU
      for (int w = 0; w < 20; ++w) kernels[i](g, stream);
      CHECK(cudaStreamSynchronize(stream));
      double hostUs = 0;
      for (int r = 0; r < kRuns; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        kernels[i](g, stream);
        hostUs += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                      .count();
        if (r % kQueue == kQueue - 1) CHECK(cudaStreamSynchronize(stream));
      }
      CHECK(cudaEventRecord(start, stream));
      for (int r = 0; r < kRuns; ++r) kernels[i](g, stream);
      CHECK(cudaEventRecord(stop, stream));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      std::printf("%5d^3 %-18s host %7.2f us/call   back-to-back %7.2f us/run   bench %7.2f us\n",
                  n, names[i].c_str(), hostUs / kRuns, 1e3 * ms / kRuns, 1e3 * bench[i].median_ms);
    }
    // One tensor map encoded (rung 15's pre-pass path encodes three a call, rung 16's twice two
    // and rung 15's for each of its four calls of rung 15): host time alone, no GPU work.
    {
      constexpr int kRuns = 10000;
      CUtensorMap map;
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < kRuns; ++r)
        CHECK(runtime::make_tensor_map(&map, A, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, n, n, n, 128, 32,
                                       CU_TENSOR_MAP_SWIZZLE_128B));
      const double us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      std::printf("%5d^3 %-18s host %7.3f us/call\n", n, "make_tensor_map", us / kRuns);
    }
    CHECK(cudaFree(A));
    CHECK(cudaFree(B));
    CHECK(cudaFree(C));
  }
  return 0;
}
