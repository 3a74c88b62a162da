// Rung 16's bit-level arithmetic, which no rung teaches: the moduli (kModuli) and the constants
// of the Chinese remainder theorem for those in use (Crt); with_modulus (the l-th modulus as a
// compile-time constant, so that x % p compiles to a multiply-high and a multiply-subtract),
// bits_of (a float's bits, on the host too), scale_to_integer (x 2^s rounded, from the bits),
// residue_byte (v mod p_l as a signed byte, one multiply-high), reduce_mod (the tensor cores'
// sums mod p_l), and the reconstruction's exact FP64 from bits (power_of_two, byte_to_double:
// no conversion instructions, no range checks). Rung 16 (kernels/16_ozaki_int8.cu) includes it
// at its top, as do the other ozaki_*.cuh; its code is in namespace sgemm::ozaki.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace sgemm::ozaki {

// ---- The moduli.

constexpr int kMaxModuli = 8;  // the scaled integers then stay below 2^32 (sqrt(P / 2) < 2^32)
constexpr int kMinModuli = 4;
constexpr int kModuli[kMaxModuli] = {256, 255, 253, 251, 247, 241, 239, 233};

// The moduli in use (computed on the host, exactly, in the rung's crt_of): the CRT weights w_l =
// (P/p_l) ((P/p_l)^-1 mod p_l) < P < 2^64 and P itself, each cut into a high part (low
// kSplitBits bits cleared) and a low part: doubles whose sums and products with residues
// (< 2^8) and quotients (< 2^11) FP64 holds exactly.
constexpr int kSplitBits = 22;
struct Crt {
  int count;
  double weightHi[kMaxModuli], weightLo[kMaxModuli];
  double P_hi, P_lo, inverseP;
  double T;  // the scale's target: every row gets ||2^s a|| <= 2^T (see Stats::scale)
};

// The scaled integers stay below 2^kScaledBits in magnitude (Crt::T keeps them there: up to 7
// moduli it is below 2^27.4 anyway), so that the residue arithmetic stays in 31 bits.
constexpr int kScaledBits = 29;

// ---- From the bits.

// Calls f(std::integral_constant<int, p_l>{}): the modulus as a compile-time constant, so that
// x % p compiles to a multiply-high and a multiply-subtract.
template <class F>
__device__ __forceinline__ void with_modulus(int l, F&& f) {
  switch (l) {
    case 0:
      f(std::integral_constant<int, kModuli[0]>{});
      break;
    case 1:
      f(std::integral_constant<int, kModuli[1]>{});
      break;
    case 2:
      f(std::integral_constant<int, kModuli[2]>{});
      break;
    case 3:
      f(std::integral_constant<int, kModuli[3]>{});
      break;
    case 4:
      f(std::integral_constant<int, kModuli[4]>{});
      break;
    case 5:
      f(std::integral_constant<int, kModuli[5]>{});
      break;
    case 6:
      f(std::integral_constant<int, kModuli[6]>{});
      break;
    default:
      f(std::integral_constant<int, kModuli[7]>{});
      break;
  }
}

// A float's bits, on the host too (the residue helpers are tested there:
// experiments/rung16_prepass/equivalence.cu).
__host__ __device__ __forceinline__ uint32_t bits_of(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  return bits;
}

// x 2^s rounded to the nearest integer (ties away from zero), from the bits: no float multiply
// (it would overflow, underflow or flush) and no branch. |x| 2^s = m 2^shift; a right shift
// rounds (the half added first), a left one is exact. Inf and NaN give 0 (never certified).
struct Scaled {
  int value;  // |value| < 2^kScaledBits
  uint32_t magnitude;
  bool inexact;  // bits were rounded away: x 2^s is not an integer
};
__host__ __device__ __forceinline__ Scaled scale_to_integer(float x, int s) {
  const uint32_t bits = bits_of(x);
  const int biased = bits >> 23 & 0xff;
  const uint32_t m = (bits & 0x7fffff) | (biased ? 0x800000u : 0u);  // x = m 2^(e - 23)
  const int shift = (biased ? biased - 150 : -149) + s;
  const int right = min(max(-shift, 0), 31), left = min(max(shift, 0), 31);
  const bool finite = biased != 0xff;
  // m < 2^24: with right >= 25 the sum stays below 2^right and the result is 0, as it must.
  const uint32_t u = finite ? (m + ((1u << right) >> 1)) >> right << left : 0u;
  const bool inexact = finite && (m & ((1u << right) - 1)) != 0;
  const int value = bits >> 31 ? -static_cast<int>(u) : static_cast<int>(u);
  return {value, u, inexact};
}

// The residue of v (|v| < 2^kScaledBits) mod P, as a signed byte: what the INT8 wgmma reads.
// P = 256: the low byte of the two's complement. An odd P: the centred residue, (n mod P) -
// (P - 1) / 2 from n = v + kShift (positive, below 2^31, = v + (P - 1) / 2 mod P), the
// quotient from one multiply-high: kMagic = ceil(2^39 / P) gives floor(n kMagic / 2^39) =
// floor(n / P) exactly for every n < 2^31 (the excess stays below 2^-8 <= 1 / P).
template <int P>
struct Residue {
  static constexpr uint32_t kHalf = (P - 1) / 2;
  static constexpr uint32_t kShift = P * ((1u << kScaledBits) / P + 1) + kHalf;
  static constexpr uint32_t kMagic = static_cast<uint32_t>((uint64_t{1} << 39) / P + 1);
  static_assert(P == 256 || P % 2 == 1, "the moduli: 256 and odd numbers below it");
  static_assert(uint64_t{kShift} + (1u << kScaledBits) < (uint64_t{1} << 31), "n < 2^31");
};
template <int P>
__host__ __device__ __forceinline__ uint32_t residue_byte(int v) {
  if constexpr (P == 256) {
    return static_cast<uint32_t>(v) & 0xff;
  } else {
    using R = Residue<P>;
    const uint32_t n = static_cast<uint32_t>(v) + R::kShift;
    const uint32_t quotient = static_cast<uint32_t>(uint64_t{n} * R::kMagic >> 39);
    return (n - quotient * P - R::kHalf) & 0xff;
  }
}

// acc mod P, in [0, P), in place. |acc| < 2^31 - 2^14 (K 2^14 at most, K <= kChunkDepth, the
// rung's, or a residue plus a chunk); adding a multiple of P near 2^31 makes it an unsigned in
// (0, 2^32).
template <int P, int kCount>
__device__ __forceinline__ void reduce_mod(int (&acc)[kCount]) {
  constexpr uint32_t kOffset = P * ((0x80000000u + P - 1) / P);
#pragma unroll
  for (int e = 0; e < kCount; ++e)
    acc[e] = static_cast<int>((static_cast<uint32_t>(acc[e]) + kOffset) % P);
}

// 2^e for |e| <= 1022, from the bits: exact, as ldexp is, without its range checks. A scale is
// within [-150 - 27, 128 + 27] (FP32's range and the target T), so e = -(s_i + t_j) is too.
__device__ __forceinline__ double power_of_two(int e) {
  return __longlong_as_double(static_cast<long long>(1023 + e) << 52);
}
// A residue byte as a double: 2^52 + r from the bits, less 2^52 (exact). One FP64 add, where a
// conversion instruction runs at a quarter of its rate: 7 of them an element bound the kernel.
__device__ __forceinline__ double byte_to_double(uint32_t word, int q) {
  constexpr double kTwo52 = 0x1p52;
  return __hiloint2double(0x43300000, word >> (8 * q) & 0xff) - kTwo52;
}

}  // namespace sgemm::ozaki
