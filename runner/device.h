// Device side of the harness: checked CUDA calls, buffers, input fill, GPU facts, L2 flush.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace sgemm {

// Every harness failure is one of these; the CLI, bench and tests print what() and stop.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A rung that has no kernel for this GPU (Status::unsupported_gpu): the front doors report it
// as unsupported and go on with the other rungs; the GPU tests skip it with the reason.
struct UnsupportedGpu : Error {
  using Error::Error;
};

// Throws Error naming the call and the CUDA error unless `err` is cudaSuccess.
void check_cuda(cudaError_t err, const char* call, const char* file, int line);
#define CUDA_CHECK(call) ::sgemm::check_cuda((call), #call, __FILE__, __LINE__)

// Number of CUDA devices, or 0 (never throws: a machine without a GPU is not an error here).
// With 0, `why` gets a sentence that names the cause: no device, a driver older than the
// runtime, or another CUDA start-up error, with its name.
int cuda_device_count(std::string* why = nullptr);

// That sentence for a CUDA start-up error.
std::string no_gpu_reason(cudaError_t err);

// Makes `device` current after checking it exists; throws Error with a clear message.
void select_device(int device);

struct GpuInfo {
  int device = 0;
  std::string name;
  int sm_count = 0;
  int sm_clock_max_mhz = 0;      // the rated maximum SM clock
  int sm_clock_current_mhz = 0;  // from NVML when present, else 0 (unknown)
  int l2_bytes = 0;
  size_t memory_bytes = 0;
  double memory_bandwidth_gbs = 0;  // peak: two transfers per memory clock over the bus
  std::string driver_version;       // e.g. "580.159.04" from NVML, else the CUDA driver API version
  std::string cuda_runtime_version;  // e.g. "13.0"
  std::string cuda_driver_version;   // the newest CUDA the driver supports, e.g. "13.0"
};
GpuInfo gpu_info(int device);

// Memory the current device has free, in bytes.
size_t free_device_memory();

// A cudaMalloc'd array of floats; not copyable, freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* get() const { return data_; }
  size_t size() const { return count_; }

 private:
  float* data_ = nullptr;
  size_t count_ = 0;
};

enum class Fill {
  whole_numbers,  // uniform whole numbers in [-kExactInputMax, kExactInputMax]
  uniform,        // uniform reals in [-1, 1) at full precision (inputs.h)
  grid,           // uniform reals in [-1, 1) on the 2^-23 grid
  normal,         // standard normal
  phi,            // (rand - 0.5) exp(phi randn), phi the fill's parameter
  big_column,     // uniform, column cols / 2 times 2^30
  big_rows,       // uniform, every other row (by a hash) holds one element times 2^30
  scaled_column,  // uniform, column cols / 2 times 2^param
  scaled_row,     // uniform, row rows / 2 times 2^param
  zero_column,    // uniform, column cols / 2 zero
  zero_row,       // uniform, row rows / 2 zero
  exponents,      // +-[1, 2) 2^e, e a uniform whole number in [-param, param]
  // uniform, line k (a column, or a row) times 2^e_k, e_k a whole number in [-|param|, |param|]
  // from a hash of k alone, so that A's columns and B's rows draw the same e_k (param < 0:
  // 2^-e_k, the inverse scale)
  k_scaled_columns,
  k_scaled_rows,
  wide_range,  // +-2^e, e uniform in [-10, 10): magnitudes spanning 2^-10 .. 2^10
  poison,      // NaN: an output that must be written, or an input that must not be read
  // Exact mode's split inputs (check.h, ExactInputs::split): whole numbers w in [-1, 1], and
  // w (1 + 2^-11) where the index along K is even (A: K runs along the columns) or odd
  // (B: K runs along the rows), so that every product has one factor of 12 significant bits.
  // With param 1 the matrix is stored transposed: K runs along A's rows and B's columns.
  split_a,
  split_b,
};

// Fills a rows x cols matrix stored with leading dimension ld (ld >= cols) from a seeded
// hash of each index; the padding columns cols..ld-1 get `padding`. `param`: phi, or the
// exponent of the fills that scale.
void fill_matrix(float* m, int rows, int cols, int ld, Fill fill, uint64_t seed, float padding,
                 cudaStream_t stream, float param = 0.f);

// Sets every element of m[0 .. count) to `value` (NaN poisons an output).
void fill_value(float* m, size_t count, float value, cudaStream_t stream);

// out[i] = |in[i]| for the tolerance's magnitude term.
void abs_copy(const float* in, float* out, size_t count, cudaStream_t stream);

// out = in, widened to FP64, element by element (count elements, padding included).
void widen(const float* in, double* out, size_t count, cudaStream_t stream);

// How far an M x N result (leading dimension ldc) lies from an FP64 reference (same layout):
//   rel_frobenius = ||C - C64||_F / ||C64||_F
//   max_rel       = max over elements of |c - c64| / |c64| (an element with c64 == 0 counts
//                   0 if c is 0 too, else infinity)
//   max_componentwise = max over elements of |c - c64| / (u S), S = |alpha| sum_k |a||b| +
//                   |beta| |c0| in FP64 (`magnitude`, same layout; skipped when null), u =
//                   2^-24: FP32's bound is gamma_K S, about K u S
// NaN anywhere in C makes all three NaN.
struct ErrorVsFp64 {
  double rel_frobenius = 0, max_rel = 0, max_componentwise = 0;
};
ErrorVsFp64 error_vs_fp64(const float* C, const double* C64, int M, int N, int ldc,
                          cudaStream_t stream, const double* magnitude = nullptr);

// out[i] = |in[i]| in FP64, for the magnitude of the componentwise error.
void abs_copy(const double* in, double* out, size_t count, cudaStream_t stream);

// Evicts the L2 cache by writing a buffer twice its size, so each timed run starts cold.
class L2Flusher {
 public:
  explicit L2Flusher(int l2_bytes);
  void flush(cudaStream_t stream);

 private:
  DeviceBuffer scratch_;
};

}  // namespace sgemm
