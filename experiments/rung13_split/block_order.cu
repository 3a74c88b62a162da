// Do a launch's blocks start in index order? The last-blocks flag pass (e28f63d) assumed that
// blocks past the last slice of K (the highest z) start after the product's. This launches rung
// 13's grid at 1024^3 on an H200 (64 x 1 x 9: 4 slices, then 5 layers), 128 threads and 109.5
// KiB of shared memory a block (two an SM, as rung 13's tile), where every "product" block
// (z < 4) stays a fixed time and every "pass" block (z >= 4) leaves at once; each block stamps
// the global timer at entry. Prints how many pass blocks started before the last product block
// did, and the spread of each group's starts.
//   nvcc -O3 -std=c++17 -gencode=arch=compute_80,code=compute_80 \
//        experiments/rung13_split/block_order.cu -o block_order && ./block_order
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void stamp(int productLayers, unsigned long long stayNs, unsigned long long* starts) {
  const unsigned long long t = global_ns();
  if (threadIdx.x == 0) starts[(blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x] = t;
  if (static_cast<int>(blockIdx.z) < productLayers)
    while (global_ns() - t < stayNs) {
    }
}

}  // namespace

int main() {
  const int tiles = 64, slices = 4, layers = 5, smem = 112128;  // 109.5 KiB
  const int blocks = tiles * (slices + layers);
  check(cudaFuncSetAttribute(stamp, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "smem");
  unsigned long long* starts;
  check(cudaMalloc(&starts, sizeof(unsigned long long) * blocks), "alloc");
  std::vector<unsigned long long> host(blocks);
  for (unsigned long long stay : {2000ull, 20000ull, 50000ull}) {
    int early = 0, runs = 20;
    double productSpread = 0, passSpread = 0;
    for (int r = 0; r < runs; ++r) {
      stamp<<<dim3(tiles, 1, slices + layers), 128, smem>>>(slices, stay, starts);
      check(cudaGetLastError(), "launch");
      check(cudaMemcpy(host.data(), starts, sizeof(unsigned long long) * blocks,
                       cudaMemcpyDeviceToHost),
            "copy");
      const auto product = host.begin() + tiles * slices;
      const unsigned long long first = *std::min_element(host.begin(), host.end());
      const unsigned long long lastProduct = *std::max_element(host.begin(), product);
      early += static_cast<int>(std::count_if(
          product, host.end(), [&](unsigned long long t) { return t < lastProduct; }));
      productSpread += (lastProduct - first) / 1e3;
      passSpread +=
          (*std::max_element(product, host.end()) - *std::min_element(product, host.end())) / 1e3;
    }
    std::printf(
        "product blocks stay %5.1f us: %.1f of %d pass blocks start before the last product "
        "block; product starts spread %.2f us, pass starts %.2f us (means of %d runs)\n",
        stay / 1e3, early / static_cast<double>(runs), tiles * layers, productSpread / runs,
        passSpread / runs, runs);
  }
  return 0;
}
