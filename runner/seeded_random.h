// The project's one pseudo-random generator: splitmix64, written out here so that a seed
// gives the same numbers with every compiler and standard library (std::uniform_int_distribution
// is implementation-defined), on the host and, for the input fill, on the GPU.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define SGEMM_HOST_DEVICE __host__ __device__
#else
#define SGEMM_HOST_DEVICE
#endif

namespace sgemm {

// A well-spread 64-bit hash: the splitmix64 finalizer of x + the golden-ratio increment.
SGEMM_HOST_DEVICE inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A seeded stream of numbers on the host, e.g. the shapes of a random test sweep.
class SeededRandom {
 public:
  explicit SeededRandom(uint64_t seed) : state_(seed) {}
  uint64_t next() { return splitmix64(state_++); }
  // A whole number in [lo, hi]; the modulo's bias (below 2^-32 for small ranges) is harmless.
  int uniform_int(int lo, int hi) {
    const uint64_t span = static_cast<uint64_t>(static_cast<int64_t>(hi) - lo) + 1;
    return static_cast<int>(lo + static_cast<int64_t>(next() % span));
  }

 private:
  uint64_t state_;
};

}  // namespace sgemm
