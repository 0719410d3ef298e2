//===- RandomTest.cpp - Philox draws: determinism and distributions -------===//
//
// Part of opscope. The kernels of random.h: Philox4x32-10 against Random123's
// known-answer vectors, the same key giving the same values on any thread
// count, fresh keys giving new values, and the draws' moments and
// frequencies against their distributions. Every statistical check uses a
// fixed key, so it cannot flake: each bound is several standard errors wide
// for those draws, and a wrong distribution (a shifted mean, a halved
// variance, p read as 1 - p) fails it by far.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/dense.h"
#include "opscope/runtime/random.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace opscope::rt;

namespace {
template <typename T> double mean(const std::vector<T> &v) {
  double s = 0;
  for (T x : v)
    s += x;
  return s / v.size();
}
template <typename T> double variance(const std::vector<T> &v) {
  double m = mean(v), s = 0;
  for (T x : v)
    s += (x - m) * (x - m);
  return s / (v.size() - 1);
}
} // namespace

TEST(RandomPhilox, MatchesKnownAnswers) {
  // Random123's kat_vectors, philox4x32 with 10 rounds.
  auto z = philox4x32({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(z, (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c,
                                        0x9b00dbd8}));
  auto f = philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                      {0xffffffff, 0xffffffff});
  EXPECT_EQ(f, (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6,
                                        0x6d5451fd}));
  auto pi = philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                       {0xa4093822, 0x299f31d0});
  EXPECT_EQ(pi, (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420,
                                         0x24126ea1}));
}

TEST(RandomKeys, SeedGivesOneKeyFreshKeysDiffer) {
  EXPECT_EQ(seedKey(0.0), seedKey(0.0));
  EXPECT_EQ(seedKey(42.0), seedKey(42.0));
  EXPECT_NE(seedKey(0.0), seedKey(1.0));
  uint64_t a = freshKey(), b = freshKey();
  EXPECT_NE(a, b);
}

TEST(RandomUniform, SeededIsDeterministicOnAnyThreadCount) {
  // 100003 f32 values: 25001 blocks, split over threads above 8192 blocks,
  // with a tail block of three.
  for (DType t : {DType::F32, DType::F64}) {
    const int64_t n = 100003;
    const size_t bytes = n * dtypeSize(t);
    std::vector<uint8_t> a(bytes), b(bytes), c(bytes);
    setDenseThreads(1);
    randomUniform(t, a.data(), n, -2, 3, seedKey(7));
    randomUniform(t, b.data(), n, -2, 3, seedKey(7));
    setDenseThreads(4);
    randomUniform(t, c.data(), n, -2, 3, seedKey(7));
    setDenseThreads(1);
    EXPECT_EQ(a, b);
    EXPECT_EQ(a, c);
    // A prefix is the same draw: element i depends on i and the key only.
    std::vector<uint8_t> head(5 * dtypeSize(t));
    randomUniform(t, head.data(), 5, -2, 3, seedKey(7));
    EXPECT_TRUE(std::equal(head.begin(), head.end(), a.begin()));
  }
}

TEST(RandomUniform, FreshKeysDrawNewValues) {
  std::vector<float> a(64), b(64);
  randomUniform(DType::F32, a.data(), 64, 0, 1, freshKey());
  randomUniform(DType::F32, b.data(), 64, 0, 1, freshKey());
  EXPECT_NE(a, b);
  // A different seed, different values.
  randomUniform(DType::F32, a.data(), 64, 0, 1, seedKey(1));
  randomUniform(DType::F32, b.data(), 64, 0, 1, seedKey(2));
  EXPECT_NE(a, b);
}

TEST(RandomUniform, MomentsAndRange) {
  // U(low, high): mean (low + high) / 2, variance (high - low)^2 / 12. With
  // n = 200000 the standard error of the mean is 0.0032 for a width of 5;
  // the bounds are 5 of them, of the variance about 1%.
  const int64_t n = 200000;
  const double low = -2, high = 3;
  std::vector<float> f(n);
  randomUniform(DType::F32, f.data(), n, low, high, seedKey(11));
  std::vector<double> d(n);
  randomUniform(DType::F64, d.data(), n, low, high, seedKey(11));
  for (float x : f)
    ASSERT_TRUE(x >= low && x < high) << x;
  for (double x : d)
    ASSERT_TRUE(x >= low && x < high) << x;
  EXPECT_NEAR(mean(f), 0.5, 0.016);
  EXPECT_NEAR(mean(d), 0.5, 0.016);
  EXPECT_NEAR(variance(f), 25.0 / 12, 25.0 / 12 * 0.02);
  EXPECT_NEAR(variance(d), 25.0 / 12, 25.0 / 12 * 0.02);
  // Ten equal bins each hold a tenth (standard error 0.067% of n).
  std::vector<int64_t> bins(10);
  for (double x : d)
    ++bins[static_cast<int>((x - low) / (high - low) * 10)];
  for (int64_t b : bins)
    EXPECT_NEAR(b / double(n), 0.1, 0.004);
  // low == high gives low.
  randomUniform(DType::F32, f.data(), 8, 1.5, 1.5, seedKey(3));
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(f[i], 1.5f);
}

TEST(RandomNormal, Moments) {
  // N(1, 2^2): the mean's standard error is 2 / sqrt(n) = 0.0045; the
  // variance's about 4 sqrt(2 / n) = 0.013; kurtosis 3.
  const int64_t n = 200001;
  for (DType t : {DType::F32, DType::F64}) {
    std::vector<double> d(n);
    if (t == DType::F32) {
      std::vector<float> f(n);
      randomNormal(t, f.data(), n, 1, 2, seedKey(5));
      d.assign(f.begin(), f.end());
    } else {
      randomNormal(t, d.data(), n, 1, 2, seedKey(5));
    }
    EXPECT_NEAR(mean(d), 1.0, 0.025);
    EXPECT_NEAR(variance(d), 4.0, 0.07);
    double m4 = 0;
    int64_t within1 = 0;
    for (double x : d) {
      m4 += std::pow((x - 1) / 2, 4);
      within1 += std::fabs(x - 1) < 2;
    }
    EXPECT_NEAR(m4 / n, 3.0, 0.1);
    // 68.27% within one standard deviation.
    EXPECT_NEAR(within1 / double(n), 0.6827, 0.006);
  }
  std::vector<double> a(10), b(10);
  randomNormal(DType::F64, a.data(), 10, 0, 1, seedKey(5));
  randomNormal(DType::F64, b.data(), 10, 0, 1, seedKey(5));
  EXPECT_EQ(a, b);
}

TEST(RandomBernoulli, FrequencyFollowsP) {
  // 100000 draws at each p: the frequency's standard error is at most
  // 0.0016; the bound is 5 of them. p outside [0, 1] saturates.
  const int64_t per = 100000;
  const std::vector<double> ps = {0.0, 0.1, 0.5, 0.9, 1.0, -0.5, 1.5};
  std::vector<double> p;
  for (double q : ps)
    p.insert(p.end(), per, q);
  const int64_t n = p.size();
  std::vector<float> pf(p.begin(), p.end());
  for (DType pt : {DType::F32, DType::F64}) {
    std::vector<int64_t> y(n);
    const void *pp = pt == DType::F64 ? static_cast<const void *>(p.data())
                                      : static_cast<const void *>(pf.data());
    bernoulli(pt, pp, DType::I64, y.data(), n, seedKey(9));
    for (size_t k = 0; k < ps.size(); ++k) {
      int64_t ones = 0;
      for (int64_t i = k * per; i < int64_t(k + 1) * per; ++i) {
        ASSERT_TRUE(y[i] == 0 || y[i] == 1);
        ones += y[i];
      }
      double want = std::min(1.0, std::max(0.0, ps[k]));
      EXPECT_NEAR(ones / double(per), want, 0.008) << "p = " << ps[k];
    }
  }
}

TEST(RandomBernoulli, EveryResultTypeHoldsZeroOrOne) {
  std::vector<float> p = {0.0f, 1.0f, 0.0f, 1.0f, 1.0f};
  std::vector<double> f64(5);
  bernoulli(DType::F32, p.data(), DType::F64, f64.data(), 5, seedKey(1));
  EXPECT_EQ(f64, (std::vector<double>{0, 1, 0, 1, 1}));
  std::vector<uint8_t> b(5);
  bernoulli(DType::F32, p.data(), DType::I1, b.data(), 5, seedKey(1));
  EXPECT_EQ(b, (std::vector<uint8_t>{0, 1, 0, 1, 1}));
  std::vector<uint16_t> h(5);
  bernoulli(DType::F32, p.data(), DType::BF16, h.data(), 5, seedKey(1));
  EXPECT_EQ(h, (std::vector<uint16_t>{0, 0x3F80, 0, 0x3F80, 0x3F80}));
  std::vector<int32_t> i(5);
  bernoulli(DType::F32, p.data(), DType::I32, i.data(), 5, seedKey(1));
  EXPECT_EQ(i, (std::vector<int32_t>{0, 1, 0, 1, 1}));
  // Seeded: the same draws again; a fresh key, usually different ones.
  std::vector<float> half(256, 0.5f);
  std::vector<int32_t> a(256), c(256), d(256);
  bernoulli(DType::F32, half.data(), DType::I32, a.data(), 256, seedKey(4));
  bernoulli(DType::F32, half.data(), DType::I32, c.data(), 256, seedKey(4));
  bernoulli(DType::F32, half.data(), DType::I32, d.data(), 256, freshKey());
  EXPECT_EQ(a, c);
  EXPECT_NE(a, d); // equal with probability 2^-256
}
