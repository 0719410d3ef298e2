//===- HalfTest.cpp - f16 and bf16 conversions, the cast kernel's side --===//
//
// halfToFloat (kinds.h) and floatToHalf (half.h) against the compiler's _Float16
// (correctly rounded, ties to even) over every half, the midpoints between
// neighbouring halves (ties), the overflow and underflow edges and random
// floats; rt::cast with f16 on one side (an fp16 model's graph inputs and
// outputs) against them, over more than one of its chunks. floatToBfloat's
// ties and edges, every bf16 round trip, and the cast kernel's bf16 side.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/generic.h"
#include "opscope/runtime/half.h"
#include "opscope/runtime/kinds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace opscope::rt;

namespace {

uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

#ifdef __FLT16_MAX__
float reference(uint16_t h) {
  _Float16 x;
  std::memcpy(&x, &h, 2);
  return static_cast<float>(x);
}
uint16_t reference(float f) {
  _Float16 x = static_cast<_Float16>(f);
  uint16_t h;
  std::memcpy(&h, &x, 2);
  return h;
}
#endif

} // namespace

TEST(Half, EveryHalfWidensExactlyAndNarrowsBack) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = halfToFloat(static_cast<uint16_t>(h));
    bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
    if (nan) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << h;
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(f)))) << std::hex << h;
      continue;
    }
#ifdef __FLT16_MAX__
    EXPECT_EQ(bitsOf(f), bitsOf(reference(static_cast<uint16_t>(h))))
        << std::hex << h;
#endif
    EXPECT_EQ(floatToHalf(f), h) << std::hex << h;
  }
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfToFloat(0xfc00), -std::numeric_limits<float>::infinity());
}

TEST(Half, NarrowingRoundsToNearestEven) {
  // Ties and the edges, independent of _Float16.
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65519.99f), 0x7bff);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00); // the tie rounds to even: inf
  EXPECT_EQ(floatToHalf(-1e9f), 0xfc00);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000); // tie to even 0
  EXPECT_EQ(floatToHalf(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002); // 1.5 ulp: to 2
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00); // tie: even
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(3.0f, -11)), 0x3c02); // tie: even
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
#ifdef __FLT16_MAX__
  // Midpoints between neighbouring halves and just either side of them.
  for (uint32_t h = 0; h < 0x7bff; ++h) {
    float lo = halfToFloat(static_cast<uint16_t>(h));
    float hi = halfToFloat(static_cast<uint16_t>(h + 1));
    float mid = lo + (hi - lo) / 2; // exact in float
    for (float f : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)})
      for (float s : {f, -f})
        ASSERT_EQ(floatToHalf(s), reference(s)) << s;
  }
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 1000000; ++i) {
    uint32_t b = bits(rng);
    float f;
    std::memcpy(&f, &b, 4);
    if (std::isnan(f))
      continue;
    ASSERT_EQ(floatToHalf(f), reference(f)) << std::hex << b;
  }
#else
  GTEST_SKIP() << "no _Float16 to compare with";
#endif
}

TEST(Half, CastKernelF16Side) {
  // Over two of the kernel's 1024-element chunks and a remainder.
  const int64_t n = 2500;
  std::vector<uint16_t> h(n);
  for (int64_t i = 0; i < n; ++i)
    h[i] = static_cast<uint16_t>((i * 37) & 0x7bff) | (i % 3 ? 0 : 0x8000);
  std::vector<float> f(n);
  cast(DType::F16, h.data(), DType::F32, f.data(), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(bitsOf(f[i]), bitsOf(halfToFloat(h[i]))) << i;
  std::vector<double> d(n);
  cast(DType::F16, h.data(), DType::F64, d.data(), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(d[i], static_cast<double>(halfToFloat(h[i]))) << i;

  std::vector<float> g(n);
  for (int64_t i = 0; i < n; ++i)
    g[i] = (i - 1250) * 0.3337f;
  std::vector<uint16_t> back(n);
  cast(DType::F32, g.data(), DType::F16, back.data(), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(back[i], floatToHalf(g[i])) << i;
  std::vector<int32_t> ints(n);
  for (int64_t i = 0; i < n; ++i)
    ints[i] = static_cast<int32_t>(i * 31 - 40000);
  cast(DType::I32, ints.data(), DType::F16, back.data(), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(back[i], floatToHalf(static_cast<float>(ints[i]))) << i;
  std::vector<int32_t> trunc(n);
  cast(DType::F16, h.data(), DType::I32, trunc.data(), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(trunc[i], static_cast<int32_t>(halfToFloat(h[i]))) << i;
}

TEST(Bfloat, NarrowingRoundsToNearestEven) {
  // The bf16 neighbours of 1.0 are 1.0 (0x3f80) and 1.0078125 (0x3f81): a
  // float just below their midpoint (0x3f807fff) rounds down, the midpoint
  // (0x3f808000) to the even one (down), one above it up; the midpoint
  // between 0x3f81 and 0x3f82 (0x3f818000) rounds up to the even 0x3f82.
  auto bf = [](uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return floatToBfloat(f);
  };
  EXPECT_EQ(bf(0x3f807fffu), 0x3f80);
  EXPECT_EQ(bf(0x3f808000u), 0x3f80);
  EXPECT_EQ(bf(0x3f808001u), 0x3f81);
  EXPECT_EQ(bf(0x3f818000u), 0x3f82);
  // The largest finite floats round to infinity; infinity and zero keep
  // their sign; NaN stays a (quiet) NaN.
  EXPECT_EQ(bf(0x7f7fffffu), 0x7f80);
  EXPECT_EQ(bf(0xff800000u), 0xff80);
  EXPECT_EQ(bf(0x80000000u), 0x8000);
  EXPECT_TRUE(std::isnan(bfloatToFloat(bf(0x7fc00001u))));
  EXPECT_TRUE(std::isnan(bfloatToFloat(bf(0x7f800001u))));
  // Every bf16 widens exactly (its bits are the float's top half) and
  // narrows back to itself.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float f = bfloatToFloat(static_cast<uint16_t>(b));
    ASSERT_EQ(bitsOf(f), b << 16);
    if (!std::isnan(f)) {
      ASSERT_EQ(floatToBfloat(f), b);
    }
  }
}

TEST(Bfloat, CastKernelBf16Side) {
  // A bf16 graph input or output: through f32, over two of the kernel's
  // 1024-element chunks and a remainder, from and to f32, f64, i64 and f16.
  const int64_t n = 2500;
  std::vector<float> g(n);
  for (int64_t i = 0; i < n; ++i)
    g[i] = (i - 1250) * 0.3337f;
  std::vector<uint16_t> b(n), h(n);
  cast(DType::F32, g.data(), DType::BF16, b.data(), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(b[i], floatToBfloat(g[i])) << i;
  std::vector<float> f(n);
  cast(DType::BF16, b.data(), DType::F32, f.data(), n);
  std::vector<double> d(n);
  cast(DType::BF16, b.data(), DType::F64, d.data(), n);
  std::vector<int64_t> q(n);
  cast(DType::BF16, b.data(), DType::I64, q.data(), n);
  cast(DType::BF16, b.data(), DType::F16, h.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    float exact = bfloatToFloat(b[i]);
    ASSERT_EQ(bitsOf(f[i]), bitsOf(exact)) << i;
    ASSERT_EQ(d[i], static_cast<double>(exact)) << i;
    ASSERT_EQ(q[i], static_cast<int64_t>(exact)) << i;
    ASSERT_EQ(h[i], floatToHalf(exact)) << i;
  }
  std::vector<int64_t> ints(n);
  for (int64_t i = 0; i < n; ++i)
    ints[i] = i * 100003 - 125000000;
  cast(DType::I64, ints.data(), DType::BF16, b.data(), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(b[i], floatToBfloat(static_cast<float>(ints[i]))) << i;
}
