// C = beta * C, for alpha == 0 (scale_c.h).
#include "scale_c.h"

namespace sgemm {
namespace {

__global__ void scale_c(int M, int N, float beta, float* C, int ldc) {
  const long long count = static_cast<long long>(M) * N;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float* c = C + (i / N) * ldc + i % N;
    *c = beta == 0.f ? 0.f : beta * *c;
  }
}

}  // namespace

cudaError_t launch_scale_c(int M, int N, float beta, float* C, int ldc, cudaStream_t stream) {
  const long long blocks = (static_cast<long long>(M) * N + 255) / 256;
  scale_c<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(M, N, beta, C,
                                                                                    ldc);
  return cudaGetLastError();
}

}  // namespace sgemm
