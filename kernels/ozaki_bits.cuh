// Rung 16's bit-level helpers, which no rung teaches: with_modulus (the l-th modulus as a
// compile-time constant, so that x % p compiles to a multiply-high and a multiply-subtract),
// bits_of (a float's bits, on the host too), and the reconstruction's exact FP64 from bits
// (power_of_two, byte_to_double: no conversion instructions, no range checks). Rung 16
// (kernels/16_ozaki_int8.cu) includes it.
//
// Included inside the rung's namespace, after its moduli (kModuli, kMaxModuli), and in no other
// way: it has no include guard of its own (tests/planted_kernels.cu includes the rung twice, each
// time in a namespace of its own).

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
