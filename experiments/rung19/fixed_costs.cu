// Where a small problem's microseconds go. The bench times each run with L2 flushed first
// (a memset of twice its size), so the kernel's code and its operands both start in device
// memory. Here every subject is timed four ways, events around the run as the bench:
//   flushed    as the bench: flush, then the run
//   code warm  flush, the same subject on a second set of operands, then the run: code (and
//              the SMs' instruction caches) warm, this run's operands cold
//   data warm  flush, a kernel that reads this run's A, B and C, then the run: operands in L2,
//              code cold
//   warm       no flush; a 30 us wait on the GPU first, so that the run is queued before the
//              start event as it is behind the flush (without it, the host's launch is timed)
// beside two floors: an empty kernel (one block) and an empty launch of 64 blocks in clusters
// of 8 (rung 17's launch at 128^3); and a kernel that only reads A and B and writes C.
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Ilibrary -Ikernels -Irunner \
//        -Iinclude experiments/rung19/fixed_costs.cu <build>/libsgemm_harness.a \
//        <build>/libsgemm_ladder.a -lcublas -ldl -o fixed_costs && ./fixed_costs [runs]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "harness.h"
#include "registry.h"  // rung_info(): a rung by its typed handle
#include "report.h"    // describe()
#include "rung_id.h"

namespace {

using namespace sgemm;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

__global__ void empty_kernel() {}

__global__ void wait_ns(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(start));
  do asm volatile("mov.u64 %0, %globaltimer;" : "=l"(now));
  while (now - start < ns);
}

// A, B and C read (float4 where aligned: every size here is), C written: the operands' trip
// from device memory and back with no arithmetic.
__global__ void touch(const float4* A, const float4* B, float4* C, int a4, int b4, int c4) {
  const int stride = gridDim.x * blockDim.x;
  float4 s = make_float4(0, 0, 0, 0);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < a4 || i < b4; i += stride) {
    if (i < a4) s.x += A[i].x;
    if (i < b4) s.y += B[i].y;
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < c4; i += stride)
    C[i] = make_float4(s.x, s.y, C[i].z, C[i].w);
}

using Run = std::function<void(const Gemm&, cudaStream_t)>;

struct Operands {
  float *A = nullptr, *B = nullptr, *C = nullptr;
  Gemm g{};
};

Operands make_operands(int n, std::mt19937& rng) {
  Operands o;
  const size_t count = static_cast<size_t>(n) * n;
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> host(count);
  for (float** p : {&o.A, &o.B, &o.C}) {
    check(cudaMalloc(p, count * sizeof(float)), "cudaMalloc");
    for (float& x : host) x = u(rng);
    check(cudaMemcpy(*p, host.data(), count * sizeof(float), cudaMemcpyHostToDevice), "copy");
  }
  o.g = Gemm{n, n, n, 1.f, o.A, n, o.B, n, 0.f, o.C, n};  // the bench's alpha, beta
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 200;
  Harness h(0);
  std::printf("GPU: %s; %d runs a cell, the median in us\n", describe(h.gpu()).c_str(), runs);
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  int l2 = 0;
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), "L2 size");
  void* scratch = nullptr;
  const size_t scratch_bytes = 2 * static_cast<size_t>(l2);
  check(cudaMalloc(&scratch, scratch_bytes), "cudaMalloc");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");

  auto empty_cluster = [](const Gemm&, cudaStream_t s) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(64);
    config.blockDim = dim3(128);
    config.stream = s;
    cudaLaunchAttribute cluster = {};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = 8;
    cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
    check(cudaLaunchKernelEx(&config, empty_kernel), "empty cluster launch");
  };
  auto touch_run = [](const Gemm& g, cudaStream_t s) {
    const int a4 = g.M * g.K / 4, b4 = g.K * g.N / 4, c4 = g.M * g.N / 4;
    touch<<<132, 256, 0, s>>>(reinterpret_cast<const float4*>(g.A),
                              reinterpret_cast<const float4*>(g.B), reinterpret_cast<float4*>(g.C),
                              a4, b4, c4);
    check(cudaGetLastError(), "touch");
  };
  auto rung = [](RungId id) {
    const Launcher launch = rung_info(id).launch;
    return Run([launch](const Gemm& g, cudaStream_t s) { check(launch(g, s), "rung launch"); });
  };
  const Kernel cublas = h.kernel(kCublasRung), cublas_tf32 = h.kernel(kCublasTf32Rung);
  const std::vector<std::pair<std::string, Run>> subjects = {
      {"empty", [](const Gemm&, cudaStream_t s) { empty_kernel<<<1, 32, 0, s>>>(); }},
      {"empty_cluster", empty_cluster},
      {"touch", touch_run},
      {"cublas", [&](const Gemm& g, cudaStream_t s) { cublas(g, s); }},
      {"cublas_tf32", [&](const Gemm& g, cudaStream_t s) { cublas_tf32(g, s); }},
      {"rung17", rung(RungId::cluster_splitk)},
      {"rung19", rung(RungId::cluster_3xtf32)},
      {"rung15", rung(RungId::every_shape_3xtf32)},
  };
  const char* modes[] = {"flushed", "code_warm", "data_warm", "warm"};
  std::mt19937 rng(7);
  std::printf("%-6s %-14s %9s %9s %9s %9s\n", "n", "subject", modes[0], modes[1], modes[2],
              modes[3]);
  for (int n : {128, 256, 512}) {
    Operands timed = make_operands(n, rng), other = make_operands(n, rng);
    for (const auto& [name, run] : subjects) {
      for (int w = 0; w < 3; ++w) run(timed.g, stream), run(other.g, stream);
      std::printf("%-6d %-14s", n, name.c_str());
      for (int mode = 0; mode < 4; ++mode) {
        std::vector<double> us;
        for (int r = 0; r < runs; ++r) {
          if (mode != 3) check(cudaMemsetAsync(scratch, 0, scratch_bytes, stream), "flush");
          if (mode == 3) wait_ns<<<1, 1, 0, stream>>>(30000);
          if (mode == 1) run(other.g, stream);
          if (mode == 2) touch_run(timed.g, stream);
          check(cudaEventRecord(start, stream), "record");
          run(timed.g, stream);
          check(cudaEventRecord(stop, stream), "record");
          check(cudaEventSynchronize(stop), "sync");
          float ms = 0;
          check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
          us.push_back(1e3 * ms);
        }
        std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
        std::printf(" %9.2f", us[us.size() / 2]);
      }
      std::printf("\n");
      std::fflush(stdout);
    }
    for (Operands* o : {&timed, &other})
      for (float* p : {o->A, o->B, o->C}) check(cudaFree(p), "cudaFree");
  }
  return 0;
}
