// Alpha and beta read on the device (scalars.h).
#include "scalars.h"

namespace sgemm::preload {
namespace {

__global__ void apply_scalars(int m, int n, long long count, const float* alpha, const float* beta,
                              const float* W, float* C, long long ldc, long long stride_c,
                              float* const* c_array) {
  const float a = *alpha, b = *beta;
  const long long mn = static_cast<long long>(m) * n;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long problem = i / mn, within = i % mn;
    const long long row = within % m, col = within / m;
    float* c = (c_array ? c_array[problem] : C + problem * stride_c) + col * ldc + row;
    const float product = a == 0.f ? 0.f : a * W[i];
    *c = b == 0.f ? product : fmaf(b, *c, product);
  }
}

__global__ void fill_pointers(float* W, long long stride, int batch, float** pointers) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < batch; i += gridDim.x * blockDim.x)
    pointers[i] = W + i * stride;
}

unsigned blocks_for(long long count) {
  const long long blocks = (count + 255) / 256;
  return static_cast<unsigned>(blocks < 8192 ? blocks : 8192);
}

}  // namespace

cudaError_t launch_apply_scalars(int m, int n, int batch, const float* alpha, const float* beta,
                                 const float* W, float* C, long long ldc, long long stride_c,
                                 float* const* c_array, cudaStream_t stream) {
  const long long count = static_cast<long long>(m) * n * batch;
  apply_scalars<<<blocks_for(count), 256, 0, stream>>>(m, n, count, alpha, beta, W, C, ldc,
                                                       stride_c, c_array);
  return cudaGetLastError();
}

cudaError_t launch_fill_pointers(float* W, long long stride, int batch, float** pointers,
                                 cudaStream_t stream) {
  fill_pointers<<<blocks_for(batch), 256, 0, stream>>>(W, stride, batch, pointers);
  return cudaGetLastError();
}

}  // namespace sgemm::preload
