// Rung 16's integer helpers against the forms they replaced (branchy, 64-bit shifts, a modulo
// and two fix-ups a residue): the same scaled integer, inexact flag, magnitude byte and residue
// byte for every modulus, on the host, for floats of every class (zeros, subnormals, normals,
// Inf, NaN, both signs) at every scale that keeps the integers below 2^kScaledBits, and every
// residue of v in [-2^29, 2^29] on a stride plus the ends. No GPU needed:
//   nvcc -O2 -std=c++17 -DSGEMM_NO_SM90A -Ilibrary -Irunner -Ikernels \
//        experiments/rung16/equivalence.cu -o eq && ./eq
#include <cmath>
#include <cstdio>
#include <random>

#include "16_ozaki_int8.cu"

// Rung 16's launcher calls rung 15's; this program only runs the helpers on the host, so a
// stand-in lets it link without rung 15's file (and its sm_80 code).
cudaError_t sgemm::every_shape_3xtf32::launch_limited(const Gemm&, const int*, cudaStream_t) {
  return cudaErrorNotSupported;
}

namespace before {  // kernels/16_ozaki_int8.cu at 3835c46

struct Scaled {
  uint32_t magnitude;
  bool negative, inexact;
};
Scaled scale_to_integer(float x, int s) {
  const uint32_t bits = sgemm::ozaki_int8::bits_of(x);
  const int biased = bits >> 23 & 0xff;
  if (biased == 0xff) return {0, false, false};
  const uint32_t m = biased ? (bits & 0x7fffff) | 0x800000 : bits & 0x7fffff;
  const int shift = (biased ? biased - 150 : -149) + s;
  uint32_t u;
  bool inexact = false;
  if (shift >= 0) {
    u = static_cast<uint32_t>(static_cast<uint64_t>(m) << std::min(shift, 63));
  } else if (shift < -24) {
    u = 0;
    inexact = m != 0;
  } else {
    u = (m + (1u << (-shift - 1))) >> -shift;
    inexact = (m & ((1u << -shift) - 1)) != 0;
  }
  return {u, (bits >> 31) != 0, inexact};
}
uint32_t residue_byte(int P, Scaled v) {
  if (P == 256) return (v.negative ? 0u - v.magnitude : v.magnitude) & 0xff;
  int r = static_cast<int>(v.magnitude % P);
  if (v.negative && r) r = P - r;
  if (r > P / 2) r -= P;
  return static_cast<uint32_t>(r) & 0xff;
}
uint32_t magnitude_byte(float x, int e) {
  const uint32_t bits = sgemm::ozaki_int8::bits_of(x);
  const int biased = bits >> 23 & 0xff;
  if (biased == 0xff) return 0;
  const uint32_t m = biased ? (bits & 0x7fffff) | 0x800000 : bits & 0x7fffff;
  const int shift = (biased ? biased - 150 : -149) + e;
  if (m == 0 || shift <= -32) return 0;
  if (shift >= 8) return 127;
  const uint64_t v = shift >= 0 ? static_cast<uint64_t>(m) << shift : m >> -shift;
  return static_cast<uint32_t>(std::min(v, uint64_t{127}));
}

}  // namespace before

using namespace sgemm::ozaki_int8;

template <int P>
uint32_t residue_of(int v) {
  return residue_byte<P>(v);
}

uint32_t new_residue(int l, int v) {
  switch (l) {
    case 0:
      return residue_of<kModuli[0]>(v);
    case 1:
      return residue_of<kModuli[1]>(v);
    case 2:
      return residue_of<kModuli[2]>(v);
    case 3:
      return residue_of<kModuli[3]>(v);
    case 4:
      return residue_of<kModuli[4]>(v);
    case 5:
      return residue_of<kModuli[5]>(v);
    case 6:
      return residue_of<kModuli[6]>(v);
    default:
      return residue_of<kModuli[7]>(v);
  }
}

int main() {
  long long checked = 0, failures = 0;
  auto fail = [&](const char* what, float x, int s, long long a, long long b) {
    if (++failures <= 10)
      std::printf("MISMATCH %s x=%a s=%d before=%lld after=%lld\n", what, x, s, a, b);
  };
  std::mt19937 rng(12345);
  std::uniform_int_distribution<uint32_t> any;
  for (long long t = 0; t < 40000000; ++t) {
    uint32_t bits = any(rng);
    if (t % 7 == 0) bits &= 0x807fffffu;   // subnormals and zeros
    if (t % 11 == 0) bits |= 0x7f800000u;  // Inf and NaN
    if (t % 13 == 0) bits &= 0xffff0000u;  // few mantissa bits: exact and ties
    float x;
    std::memcpy(&x, &bits, 4);
    const int biased = bits >> 23 & 0xff;
    const int e = (biased ? biased - 127 : -127);
    // Scales that keep |x| 2^s below 2^kScaledBits, down to far below 1/2.
    const int s = std::min(kScaledBits - 1 - e, 200) - static_cast<int>(any(rng) % 64);
    const auto b = before::scale_to_integer(x, s);
    const Scaled a = scale_to_integer(x, s);
    ++checked;
    if (b.magnitude != a.magnitude) fail("magnitude", x, s, b.magnitude, a.magnitude);
    if (b.inexact != a.inexact) fail("inexact", x, s, b.inexact, a.inexact);
    const int value = b.negative ? -static_cast<int>(b.magnitude) : static_cast<int>(b.magnitude);
    if (value != a.value) fail("value", x, s, value, a.value);
    for (int l = 0; l < kMaxModuli; ++l)
      if (before::residue_byte(kModuli[l], b) != new_residue(l, a.value))
        fail("residue", x, s, before::residue_byte(kModuli[l], b), new_residue(l, a.value));
    const int me = static_cast<int>(any(rng) % 300) - 150;
    if (before::magnitude_byte(x, me) != magnitude_byte(x, me))
      fail("magnitude byte", x, me, before::magnitude_byte(x, me), magnitude_byte(x, me));
  }
  // Every residue on a stride over the whole range, and the ends.
  const int limit = 1 << kScaledBits;
  for (long long v = -limit + 1; v < limit;
       v += (v > -2000 && v < 2000) || limit - std::llabs(v) < 2000 ? 1 : 997) {
    const before::Scaled b{static_cast<uint32_t>(std::llabs(v)), v < 0, false};
    for (int l = 0; l < kMaxModuli; ++l)
      if (before::residue_byte(kModuli[l], b) != new_residue(l, static_cast<int>(v)))
        fail("residue range", 0.f, static_cast<int>(v), before::residue_byte(kModuli[l], b),
             new_residue(l, static_cast<int>(v)));
    ++checked;
  }
  for (int count = 4; count <= kMaxModuli; ++count)
    std::printf("%d moduli: T = %.3f (K = 8192)\n", count, crt_of(count, 8192).T);
  std::printf("%lld cases, %lld mismatches\n", checked, failures);
  return failures != 0;
}
