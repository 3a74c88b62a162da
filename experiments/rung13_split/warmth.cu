// Where did the flag pass's last-blocks version (e28f63d) lose about 5 us at 1024^3? Its
// rung 13 file, taken from history, timed piece by piece on the compute-8.0 build through the
// JIT, L2 flushed before each run as the bench does, events around the piece alone (what runs
// before it, after the flush, is outside the events):
//   pass              the flag pass, operands cold
//   product           the product in slices, zeros for flags, operands cold
//   product|pass      the same product after the flag pass: operands as the pass leaves them
//   product|prefetch  the same product after the L2 prefetch kernel
//   product+last      the product with the pass as its last blocks, operands cold
//   sum|product       the slices' sum after the product
//   first             memset, pass, product, sum (the launch of 0a46f90)
//   last              memset, product with the pass as its last blocks, sum (e28f63d without
//                     its prefetch)
//   pass|product      the flag pass after the product: operands as the product leaves them
//   after             memset, product, pass, sum: the pass after the product, in stream order
// Build and run (the file from history beside the binary):
//   git show e28f63d:kernels/13_mma_3xtf32.cu > build-exp/r13_inlaunch.cu
//   nvcc -O3 -std=c++17 -gencode=arch=compute_80,code=compute_80 -Ikernels -Iinclude \
//        -Ibuild-exp experiments/rung13_split/warmth.cu <build>/libsgemm_ladder.a -ldl \
//        -o build-exp/warmth && build-exp/warmth [runs]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "entries.h"
#include "launchers.h"
#include "runtime/device.h"
#include "runtime/workspace.h"
#include "sgemm/sgemm.h"

// The last-blocks version of rung 13's file, its names moved into exp13::.
namespace exp13 {
namespace sgemm {
using namespace ::sgemm;
}
#include "r13_inlaunch.cu"
}  // namespace exp13

namespace r13 = exp13::sgemm::mma_3xtf32;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

// Rung 13's tile on an H200 (tile 0: 128 x 128, two blocks an SM), both operands aligned.
constexpr int BM = 128, BN = 128;
using T = r13::Tile<128, 128, 32, 64, 64, 3>;
constexpr auto kProduct = r13::sgemm_mma_3xtf32<128, 128, 32, 64, 64, 3, true, true>;

struct Problem {
  int M, N, K, sms, tiles, slices, kSlice, layers;
  float *A, *B, *C, *W;
  int* flags;  // (M + N + 1) flags, then as many zeros: the product's
  size_t flagCount() const { return static_cast<size_t>(M) + N + 1; }
};

Problem make_problem(int M, int N, int K) {
  Problem p{M, N, K};
  check(cudaDeviceGetAttribute(&p.sms, cudaDevAttrMultiProcessorCount, 0), "sms");
  const int slots = 2 * p.sms;
  p.tiles = (M + BM - 1) / BM * ((N + BN - 1) / BN);
  const int wanted = r13::slices_for(p.tiles, K, slots);
  const long long step = static_cast<long long>(wanted) * 32;
  p.kSlice = static_cast<int>((K + step - 1) / step * 32);
  p.slices = (K + p.kSlice - 1) / p.kSlice;
  p.layers = (slots + p.tiles - 1) / p.tiles;
  std::vector<float> host(static_cast<size_t>(std::max(M, N)) * K);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<float>((i * 2654435761u) % 2001) / 1000.f - 1.f;
  check(cudaMalloc(&p.A, sizeof(float) * M * K), "A");
  check(cudaMalloc(&p.B, sizeof(float) * K * N), "B");
  check(cudaMalloc(&p.C, sizeof(float) * M * N), "C");
  check(cudaMalloc(&p.W, sizeof(float) * p.slices * M * N), "W");
  check(cudaMalloc(&p.flags, sizeof(int) * 2 * p.flagCount()), "flags");
  check(cudaMemcpy(p.A, host.data(), sizeof(float) * M * K, cudaMemcpyHostToDevice), "A");
  check(cudaMemcpy(p.B, host.data(), sizeof(float) * K * N, cudaMemcpyHostToDevice), "B");
  check(cudaMemset(p.flags, 0, sizeof(int) * 2 * p.flagCount()), "flags");
  return p;
}

void pass(const Problem& p, cudaStream_t s) {
  check(
      r13::launch_flag_pass(p.M, p.N, p.K, p.A, p.K, p.B, p.N, p.flags, nullptr, nullptr, p.sms, s),
      "pass");
}
void product(const Problem& p, bool lastBlocks, cudaStream_t s) {
  const dim3 grid(p.tiles, 1, p.slices + (lastBlocks ? p.layers : 0));
  kProduct<<<grid, T::kThreads, T::kSharedBytes, s>>>(
      p.M, p.N, p.K, p.kSlice, 1.f, p.A, p.K, p.B, p.N, 0.f, p.W, p.N,
      static_cast<long long>(p.M) * p.N, p.flags + p.flagCount(), p.N % 2 == 0,
      lastBlocks ? p.flags : nullptr);
  check(cudaGetLastError(), "product");
}
void prefetch(const Problem& p, cudaStream_t s) {
  r13::prefetch_slices<<<r13::kPassBlocksPerSm * p.sms, 256, 0, s>>>(p.M, p.N, p.K, p.kSlice, p.A,
                                                                     p.K, p.B, p.N);
  check(cudaGetLastError(), "prefetch");
}
void sum(const Problem& p, cudaStream_t s) {
  check(r13::add_slices(p.M, p.N, p.K, p.slices, 1.f, p.W, 0.f, p.C, p.N, p.A, p.K, p.B, p.N,
                        p.flags, p.sms, s),
        "sum");
}
void zero_flags(const Problem& p, cudaStream_t s) {
  check(cudaMemsetAsync(p.flags, 0, sizeof(int) * 2 * p.flagCount(), s), "memset");
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 200;
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  check(
      cudaFuncSetAttribute(kProduct, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSharedBytes),
      "smem");
  int l2 = 0;
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), "L2");
  void* scratch;
  const size_t scratchBytes = 2 * static_cast<size_t>(l2);
  check(cudaMalloc(&scratch, scratchBytes), "scratch");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  using Step = std::function<void(const Problem&)>;
  struct Piece {
    const char* name;
    Step before, timed;
  };
  const Step none = [](const Problem&) {};
  const std::vector<Piece> pieces = {
      {"pass", none, [&](const Problem& p) { pass(p, s); }},
      {"product", none, [&](const Problem& p) { product(p, false, s); }},
      {"product|pass", [&](const Problem& p) { pass(p, s); },
       [&](const Problem& p) { product(p, false, s); }},
      {"product|prefetch", [&](const Problem& p) { prefetch(p, s); },
       [&](const Problem& p) { product(p, false, s); }},
      {"product+last", none, [&](const Problem& p) { product(p, true, s); }},
      {"sum|product", [&](const Problem& p) { product(p, false, s); },
       [&](const Problem& p) { sum(p, s); }},
      {"first", none,
       [&](const Problem& p) { zero_flags(p, s), pass(p, s), product(p, false, s), sum(p, s); }},
      {"last", none, [&](const Problem& p) { zero_flags(p, s), product(p, true, s), sum(p, s); }},
      {"pass|product", [&](const Problem& p) { product(p, false, s); },
       [&](const Problem& p) { pass(p, s); }},
      {"after", none,
       [&](const Problem& p) { zero_flags(p, s), product(p, false, s), pass(p, s), sum(p, s); }},
  };
  int device = 0;
  cudaDeviceProp prop;
  check(cudaGetDevice(&device), "device");
  check(cudaGetDeviceProperties(&prop, device), "properties");
  std::printf("GPU: %s; compute-8.0 PTX through the JIT; median us of %d runs, L2 flushed\n",
              prop.name, runs);
  std::printf("%-16s", "shape");
  for (const Piece& piece : pieces) std::printf(" %16s", piece.name);
  std::printf("\n");
  const int shapes[][3] = {{1000, 1000, 1000}, {1024, 1024, 1024}, {4096, 256, 4096}};
  for (const auto& shape : shapes) {
    Problem p = make_problem(shape[0], shape[1], shape[2]);
    char name[64];
    std::snprintf(name, sizeof name, "%dx%dx%d", p.M, p.N, p.K);
    std::printf("%-16s", name);
    for (const Piece& piece : pieces) {
      std::vector<double> us;
      for (int r = 0; r < runs + 3; ++r) {
        check(cudaMemsetAsync(scratch, 0, scratchBytes, s), "flush");
        piece.before(p);
        check(cudaEventRecord(start, s), "record");
        piece.timed(p);
        check(cudaEventRecord(stop, s), "record");
        check(cudaEventSynchronize(stop), "sync");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
        if (r >= 3) us.push_back(1e3 * ms);
      }
      std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
      std::printf(" %16.1f", us[us.size() / 2]);
      std::fflush(stdout);
    }
    std::printf("   (%d tiles, %d slices of %d, %d layers of last blocks)\n", p.tiles, p.slices,
                p.kSlice, p.layers);
    for (void* ptr : {static_cast<void*>(p.A), static_cast<void*>(p.B), static_cast<void*>(p.C),
                      static_cast<void*>(p.W), static_cast<void*>(p.flags)})
      check(cudaFree(ptr), "free");
  }
  return 0;
}
