#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "check.h"
#include "device.h"
#include "seeded_random.h"

namespace sgemm {

void check_cuda(cudaError_t err, const char* call, const char* file, int line) {
  if (err == cudaSuccess) return;
  char where[512];
  std::snprintf(where, sizeof where, "%s failed at %s:%d: %s (%s)", call, file, line,
                cudaGetErrorString(err), cudaGetErrorName(err));
  throw Error(where);
}

namespace {

std::string version_text(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

std::string no_gpu_reason(cudaError_t err) {
  const std::string detail =
      std::string(" (") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")";
  switch (err) {
    case cudaErrorNoDevice:
      return "no CUDA device: the driver sees no GPU" + detail;
    case cudaErrorInsufficientDriver: {
      int driver = 0, runtime = 0;
      cudaDriverGetVersion(&driver);  // 0 when no driver library could be loaded
      cudaRuntimeGetVersion(&runtime);
      if (driver == 0) return "no CUDA device: no NVIDIA driver is installed" + detail;
      return "the NVIDIA driver (CUDA " + version_text(driver) +
             ") is older than the CUDA runtime this program was built with (CUDA " +
             version_text(runtime) + "); update the driver" + detail;
    }
    case cudaErrorNotPermitted:
    case cudaErrorDevicesUnavailable:
      return "the GPU is busy or this process may not use it" + detail;
    default:
      return "CUDA could not start" + detail;
  }
}

int cuda_device_count(std::string* why) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    if (why) *why = no_gpu_reason(err);
    return 0;
  }
  if (count == 0 && why) *why = "no CUDA device: the CUDA runtime sees none";
  return count;
}

void select_device(int device) {
  std::string why;
  const int count = cuda_device_count(&why);
  if (count == 0) throw Error(why + "; this program needs an NVIDIA GPU to run kernels");
  if (device < 0 || device >= count)
    throw Error("there is no CUDA device " + std::to_string(device) + "; this machine has " +
                std::to_string(count) + " (devices 0 to " + std::to_string(count - 1) + ")");
  CUDA_CHECK(cudaSetDevice(device));
}

namespace {

// NVML is loaded at run time so the binary still starts (and says "no CUDA device") on a
// machine without the NVIDIA driver. Returns the current SM clock and the driver version.
struct NvmlFacts {
  int sm_clock_mhz = 0;
  std::string driver;
};

NvmlFacts read_nvml(int device) {
  NvmlFacts facts;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return facts;
  using Init = int (*)();
  using Handle = int (*)(unsigned, void**);
  using Clock = int (*)(void*, int, unsigned*);
  using Version = int (*)(char*, unsigned);
  auto init = reinterpret_cast<Init>(dlsym(lib, "nvmlInit_v2"));
  auto by_index = reinterpret_cast<Handle>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
  auto clock = reinterpret_cast<Clock>(dlsym(lib, "nvmlDeviceGetClockInfo"));
  auto version = reinterpret_cast<Version>(dlsym(lib, "nvmlSystemGetDriverVersion"));
  auto shutdown = reinterpret_cast<Init>(dlsym(lib, "nvmlShutdown"));
  if (init && by_index && clock && version && shutdown && init() == 0) {
    // NVML numbers devices in PCI order, CUDA by default fastest-first; with one GPU (our
    // lent machines) they agree. NVML_CLOCK_SM = 1.
    void* handle = nullptr;
    unsigned mhz = 0;
    if (by_index(static_cast<unsigned>(device), &handle) == 0 && clock(handle, 1, &mhz) == 0)
      facts.sm_clock_mhz = static_cast<int>(mhz);
    char text[96] = {};
    if (version(text, sizeof text) == 0) facts.driver = text;
    shutdown();
  }
  dlclose(lib);
  return facts;
}

}  // namespace

GpuInfo gpu_info(int device) {
  GpuInfo info;
  info.device = device;
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  info.name = prop.name;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = prop.l2CacheSize;
  info.memory_bytes = prop.totalGlobalMem;
  int khz = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  info.sm_clock_max_mhz = khz / 1000;
  int memoryKhz = 0, busBits = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&memoryKhz, cudaDevAttrMemoryClockRate, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&busBits, cudaDevAttrGlobalMemoryBusWidth, device));
  info.memory_bandwidth_gbs = 2.0 * memoryKhz * 1e3 * (busBits / 8) / 1e9;
  int runtime = 0, driver = 0;
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  info.cuda_runtime_version = version_text(runtime);
  info.cuda_driver_version = version_text(driver);
  const NvmlFacts nvml = read_nvml(device);
  info.sm_clock_current_mhz = nvml.sm_clock_mhz;
  info.driver_version = nvml.driver.empty() ? "unknown (no NVML)" : nvml.driver;
  return info;
}

size_t free_device_memory() {
  size_t free_bytes = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

DeviceBuffer::DeviceBuffer(size_t count) : count_(count) {
  CUDA_CHECK(cudaMalloc(&data_, count * sizeof(float)));
}

DeviceBuffer::~DeviceBuffer() {
  if (data_) cudaFree(data_);  // no throw from a destructor; a failure here is not actionable
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (data_) cudaFree(data_);
    data_ = std::exchange(other.data_, nullptr);
    count_ = std::exchange(other.count_, 0);
  }
  return *this;
}

namespace {

// A uniform double in [0, 1) from the 53 high bits of a hash.
__device__ double unit(uint64_t h) { return static_cast<double>(h >> 11) * 0x1p-53; }

// A standard normal from two hashes (Box-Muller), in FP64.
__device__ double normal_of(uint64_t h) {
  const uint64_t g = splitmix64(h);
  return sqrt(-2.0 * log1p(-unit(h))) * cospi(2.0 * unit(g));
}

__global__ void fill_matrix_kernel(float* m, int rows, int cols, int ld, Fill fill, uint64_t seed,
                                   float padding, float param) {
  const size_t count = static_cast<size_t>(rows) * ld;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    if (static_cast<int>(i % ld) >= cols) {
      m[i] = padding;
      continue;
    }
    const uint64_t h = splitmix64(seed * 0x100000001B3ull ^ i);  // a hash of the index
    if (fill == Fill::poison) {
      m[i] = NAN;
    } else if (fill == Fill::split_a || fill == Fill::split_b) {
      // The index along K: A's column and B's row, or the other one when the matrix is stored
      // transposed (param 1).
      const bool k_along_columns = (fill == Fill::split_a) == (param == 0.f);
      const size_t k = k_along_columns ? i % ld : i / ld;
      const bool twelve_bits = (k % 2 == 0) == (fill == Fill::split_a);
      m[i] = static_cast<float>(static_cast<int>(h % 3) - 1) * (twelve_bits ? 1.f + 0x1p-11f : 1.f);
    } else if (fill == Fill::whole_numbers) {
      m[i] = static_cast<float>(static_cast<int>(h % (2 * kExactInputMax + 1)) - kExactInputMax);
    } else if (fill ==
               Fill::wide_range) {  // 24 random bits -> e in [-10, 10); the lowest, the sign
      m[i] = copysignf(exp2f(static_cast<float>(h >> 40) * (20.0f / 16777216.0f) - 10.0f),
                       (h & 1) ? -1.0f : 1.0f);
    } else if (fill == Fill::grid) {  // 24 random bits -> [-1, 1) on the 2^-23 grid
      m[i] = static_cast<float>(h >> 40) * (2.0f / 16777216.0f) - 1.0f;
    } else if (fill == Fill::normal) {
      m[i] = static_cast<float>(normal_of(h));
    } else if (fill == Fill::phi) {
      const uint64_t g = splitmix64(h ^ 0x5851F42D4C957F2Dull);
      m[i] = static_cast<float>((unit(h) - 0.5) * exp(param * normal_of(g)));
    } else if (fill == Fill::exponents) {
      const int range = static_cast<int>(param);
      const int e = static_cast<int>(splitmix64(h) % (2 * range + 1)) - range;
      m[i] = copysignf(ldexpf(1.f + static_cast<float>(unit(h)), e), (h & 1) ? -1.f : 1.f);
    } else {  // uniform in [-1, 1) at full precision: 2u - 1 from 53 random bits, rounded once
      float x = static_cast<float>(2.0 * unit(h) - 1.0);
      const size_t row = i / ld, col = i % ld;
      const bool midColumn = col == static_cast<size_t>(cols / 2);
      const bool midRow = row == static_cast<size_t>(rows / 2);
      if (fill == Fill::big_column && midColumn) x *= 0x1p30f;
      if (fill == Fill::scaled_column && midColumn) x = ldexpf(x, static_cast<int>(param));
      if (fill == Fill::scaled_row && midRow) x = ldexpf(x, static_cast<int>(param));
      if ((fill == Fill::zero_column && midColumn) || (fill == Fill::zero_row && midRow)) x = 0.f;
      if (fill == Fill::k_scaled_columns || fill == Fill::k_scaled_rows) {
        const int range = static_cast<int>(fabsf(param));
        const uint64_t k = fill == Fill::k_scaled_columns ? col : row;
        const int e =
            static_cast<int>(splitmix64(k ^ 0x9E3779B97F4A7C15ull) % (2 * range + 1)) - range;
        x = ldexpf(x, param < 0.f ? -e : e);
      }
      if (fill == Fill::big_rows && (splitmix64(seed ^ row) & 1) &&
          col == splitmix64(seed + row) % static_cast<uint64_t>(cols))
        x *= 0x1p30f;
      m[i] = x;
    }
  }
}

__global__ void fill_value_kernel(float* m, size_t count, float value) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    m[i] = value;
}

__global__ void abs_kernel(const float* in, float* out, size_t count) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] = fabsf(in[i]);
}

__global__ void abs64_kernel(const double* in, double* out, size_t count) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] = fabs(in[i]);
}

__global__ void widen_kernel(const float* in, double* out, size_t count) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

// sums[0] += sum (c - c64)^2, sums[1] += sum c64^2, max_bits[0] = max |c - c64| / |c64| (as
// the bits of a non-negative double, which order like the numbers; NaN's bits order above
// all), max_bits[1] = max |c - c64| / (u magnitude) when magnitude is not null.
__device__ double worse(double a, double b) { return (b > a || isnan(b)) ? b : a; }

__global__ void error_kernel(const float* C, const double* C64, const double* magnitude, int M,
                             int N, int ldc, double* sums, unsigned long long* max_bits) {
  double diff2 = 0, ref2 = 0, worst = 0, worstUnits = 0;
  const size_t count = static_cast<size_t>(M) * N;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t at = (i / N) * ldc + i % N;
    const double c = C[at], r = C64[at], d = c - r;
    diff2 += d * d;
    ref2 += r * r;
    const double rel = r != 0 ? fabs(d) / fabs(r) : (c == 0 ? 0.0 : INFINITY);
    worst = worse(worst, rel);
    if (magnitude) {
      const double s = magnitude[at] * 0x1p-24;
      worstUnits = worse(worstUnits, s != 0 ? fabs(d) / s : (d == 0 ? 0.0 : INFINITY));
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    diff2 += __shfl_down_sync(0xffffffffu, diff2, offset);
    ref2 += __shfl_down_sync(0xffffffffu, ref2, offset);
    worst = worse(worst, __shfl_down_sync(0xffffffffu, worst, offset));
    worstUnits = worse(worstUnits, __shfl_down_sync(0xffffffffu, worstUnits, offset));
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&sums[0], diff2);
    atomicAdd(&sums[1], ref2);
    atomicMax(&max_bits[0], static_cast<unsigned long long>(__double_as_longlong(fabs(worst))));
    atomicMax(&max_bits[1],
              static_cast<unsigned long long>(__double_as_longlong(fabs(worstUnits))));
  }
}

dim3 grid_for(size_t count) {
  const size_t blocks = (count + 255) / 256;
  return dim3(static_cast<unsigned>(blocks < 65536 ? (blocks ? blocks : 1) : 65536));
}

}  // namespace

void fill_matrix(float* m, int rows, int cols, int ld, Fill fill, uint64_t seed, float padding,
                 cudaStream_t stream, float param) {
  const size_t count = static_cast<size_t>(rows) * ld;
  fill_matrix_kernel<<<grid_for(count), 256, 0, stream>>>(m, rows, cols, ld, fill, seed, padding,
                                                          param);
  CUDA_CHECK(cudaGetLastError());
}

void fill_value(float* m, size_t count, float value, cudaStream_t stream) {
  fill_value_kernel<<<grid_for(count), 256, 0, stream>>>(m, count, value);
  CUDA_CHECK(cudaGetLastError());
}

void abs_copy(const float* in, float* out, size_t count, cudaStream_t stream) {
  abs_kernel<<<grid_for(count), 256, 0, stream>>>(in, out, count);
  CUDA_CHECK(cudaGetLastError());
}

void abs_copy(const double* in, double* out, size_t count, cudaStream_t stream) {
  abs64_kernel<<<grid_for(count), 256, 0, stream>>>(in, out, count);
  CUDA_CHECK(cudaGetLastError());
}

void widen(const float* in, double* out, size_t count, cudaStream_t stream) {
  widen_kernel<<<grid_for(count), 256, 0, stream>>>(in, out, count);
  CUDA_CHECK(cudaGetLastError());
}

ErrorVsFp64 error_vs_fp64(const float* C, const double* C64, int M, int N, int ldc,
                          cudaStream_t stream, const double* magnitude) {
  struct Totals {
    double sums[2];
    unsigned long long max_bits[2];
  };
  Totals* totals = nullptr;
  CUDA_CHECK(cudaMallocAsync(&totals, sizeof(Totals), stream));
  CUDA_CHECK(cudaMemsetAsync(totals, 0, sizeof(Totals), stream));
  const size_t count = static_cast<size_t>(M) * N;
  const dim3 grid = grid_for(count).x < 1024 ? grid_for(count) : dim3(1024);
  error_kernel<<<grid, 256, 0, stream>>>(C, C64, magnitude, M, N, ldc, totals->sums,
                                         totals->max_bits);
  const cudaError_t launched = cudaGetLastError();
  Totals host{};
  if (launched == cudaSuccess)
    CUDA_CHECK(cudaMemcpyAsync(&host, totals, sizeof host, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaFreeAsync(totals, stream));
  CUDA_CHECK(launched);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  ErrorVsFp64 e;
  e.rel_frobenius = std::sqrt(host.sums[0]) / std::sqrt(host.sums[1]);
  std::memcpy(&e.max_rel, &host.max_bits[0], sizeof e.max_rel);
  std::memcpy(&e.max_componentwise, &host.max_bits[1], sizeof e.max_componentwise);
  return e;
}

L2Flusher::L2Flusher(int l2_bytes) : scratch_(2 * static_cast<size_t>(l2_bytes) / sizeof(float)) {}

void L2Flusher::flush(cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(scratch_.get(), 0, scratch_.size() * sizeof(float), stream));
}

}  // namespace sgemm
