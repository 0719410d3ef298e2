//===- half.h - f32 to and from binary16 and bfloat16 -----------*- C++ -*-===//
//
// Part of opscope. floatToHalf, the way back from halfToFloat (kinds.h),
// halvesToFloats over an array, and the same for bfloat16: an fp16 model
// computes in f32; the importer widens its f16 tensors and the runtime's
// cast kernel converts its f16 and bf16 graph inputs and outputs. The sparse
// formats' bf16 weights round with floatToBfloat too. Header-only.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_HALF_H
#define OPSCOPE_RUNTIME_HALF_H

#include "opscope/runtime/kinds.h"

#include <cstdint>
#include <cstring>

namespace opscope::rt {

/// A float as the nearest IEEE half (binary16), ties to even: beyond the
/// largest half (65504) it is infinity, NaN stays a quiet NaN. An fp16
/// model's f16 graph outputs (the runtime's cast kernel).
inline uint16_t floatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u) // NaN: quiet, keeping the payload's top bits
    return sign | 0x7e00u | static_cast<uint16_t>((abs >> 13) & 0x3ffu);
  if (abs >= 0x477ff000u) // rounds to >= 65520: infinity
    return sign | 0x7c00u;
  if (abs < 0x38800000u) { // below 2^-14: subnormal half (or zero)
    if (abs < 0x33000000u) // below 2^-25: rounds to zero
      return sign;
    uint32_t exp = abs >> 23;
    uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - exp; // 14..24 for the half's 2^-24 unit
    uint32_t q = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1)))
      ++q;
    return sign | static_cast<uint16_t>(q);
  }
  // Normal: rebias and round the 13 dropped bits to nearest even (a carry
  // into the exponent is the correct next binade).
  uint32_t h = ((abs >> 13) - (112u << 10));
  uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
    ++h;
  return sign | static_cast<uint16_t>(h);
}

/// n halves (IEEE binary16 bit patterns, maybe unaligned) as floats, exactly.
inline void halvesToFloats(const void *halves, float *out, int64_t n) {
  const char *src = static_cast<const char *>(halves);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, src + 2 * i, 2);
    out[i] = halfToFloat(h);
  }
}

/// Whether `t` is a 16-bit float type (f16 or bf16): one the runtime holds
/// only at a cast's side, converting through f32.
inline bool isHalfFloat(DType t) { return t == DType::F16 || t == DType::BF16; }

/// A float rounded to bfloat16, nearest even (NaN stays a quiet NaN): bf16
/// weights (sparse formats, --precision bf16) and bf16 graph outputs.
inline uint16_t floatToBfloat(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

/// A bfloat16 as the float it is exactly.
inline float bfloatToFloat(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// n bfloat16s (bit patterns, maybe unaligned) as floats, exactly.
inline void bfloatsToFloats(const void *bfloats, float *out, int64_t n) {
  const char *src = static_cast<const char *>(bfloats);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t b;
    std::memcpy(&b, src + 2 * i, 2);
    out[i] = bfloatToFloat(b);
  }
}

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_HALF_H
