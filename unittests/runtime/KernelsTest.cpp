//===- KernelsTest.cpp - opscope's own kernels vs plain references --------===//
//
// Part of opscope. Each kernel runs at every tier of the kernel table the
// CPU allows (reference, AVX2, AVX-512 and its VNNI/BF16 levels) on sizes
// that exercise the vector tails (1, 3, 17, 773) and is compared with a
// double-precision reference.
//
//===----------------------------------------------------------------------===//

#include "Tiers.h"

#include "opscope/runtime/generic.h"
#include "opscope/runtime/kernels.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace opscope::rt;

namespace {
std::vector<float> randomVector(size_t n, float scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

class KernelsTest : public opscope::rt::tiers::TierTest {};

void expectNear(const std::vector<float> &got, const std::vector<double> &want,
                double rel, double abs) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], abs + rel * std::fabs(want[i])) << "at " << i;
}
} // namespace

TEST_P(KernelsTest, LayerNorm) {
  for (int64_t cols : {1, 3, 17, 773}) {
    int64_t rows = 5;
    auto x = randomVector(rows * cols, 3.0f, 1);
    for (float &v : x)
      v += 10.0f; // a large mean tests the two-pass variance
    auto g = randomVector(cols, 1.0f, 2), b = randomVector(cols, 1.0f, 3);
    std::vector<float> y(x.size());
    layerNorm(x.data(), g.data(), b.data(), y.data(), rows, cols, 1e-5f);
    std::vector<double> want(x.size());
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t c = 0; c < cols; ++c)
        mean += x[r * cols + c];
      mean /= cols;
      for (int64_t c = 0; c < cols; ++c)
        var += (x[r * cols + c] - mean) * (x[r * cols + c] - mean);
      var /= cols;
      for (int64_t c = 0; c < cols; ++c)
        want[r * cols + c] = (x[r * cols + c] - mean) / std::sqrt(var + 1e-5) * g[c] + b[c];
    }
    expectNear(y, want, 1e-4, 1e-4);
    // Without beta.
    layerNorm(x.data(), g.data(), nullptr, y.data(), rows, cols, 1e-5f);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        want[r * cols + c] -= b[c];
    expectNear(y, want, 1e-4, 1e-4);
  }
}

// The transposed layout (cols x rows) gives the transpose of the plain
// kernel's result, on token counts around the 16-wide vector.
TEST_P(KernelsTest, LayerNormTransposed) {
  for (int64_t rows : {1, 15, 16, 33, 128})
    for (int64_t cols : {1, 7, 768}) {
      auto x = randomVector(rows * cols, 3.0f, 4);
      for (float &v : x)
        v += 10.0f;
      auto g = randomVector(cols, 1.0f, 5), b = randomVector(cols, 1.0f, 6);
      std::vector<float> xt(x.size()), want(x.size()), yt(x.size());
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          xt[c * rows + r] = x[r * cols + c];
      const float *betas[] = {b.data(), nullptr};
      for (const float *beta : betas) {
        layerNorm(x.data(), g.data(), beta, want.data(), rows, cols, 1e-5f);
        layerNormTransposed(xt.data(), g.data(), beta, yt.data(), rows, cols,
                            1e-5f);
        std::vector<double> got(x.size()), ref(want.begin(), want.end());
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c)
            got[r * cols + c] = yt[c * rows + r];
        std::vector<float> gotF(got.begin(), got.end());
        expectNear(gotF, ref, 1e-4, 1e-4);
      }
    }
}

TEST_P(KernelsTest, SoftmaxWithBroadcastMask) {
  for (int64_t cols : {1, 3, 17, 773}) {
    int64_t batch = 2, group = 6, rows = batch * group;
    auto x = randomVector(rows * cols, 4.0f, 4);
    std::vector<float> mask(batch * cols, 0.0f);
    for (int64_t c = 0; c < cols; c += 3)
      mask[c] = -10000.0f; // batch 0 masks every third column
    if (cols > 1)
      mask[cols + cols - 1] = -INFINITY; // a fully -inf row is NaN, as in ORT
    for (bool log : {false, true}) {
      std::vector<float> y(x.size());
      softmax(x.data(), mask.data(), group, y.data(), rows, cols, log);
      std::vector<double> want(x.size());
      for (int64_t r = 0; r < rows; ++r) {
        const float *m = mask.data() + (r / group) * cols;
        double mx = -INFINITY, sum = 0;
        for (int64_t c = 0; c < cols; ++c)
          mx = std::max(mx, double(x[r * cols + c]) + m[c]);
        for (int64_t c = 0; c < cols; ++c)
          sum += std::exp(double(x[r * cols + c]) + m[c] - mx);
        for (int64_t c = 0; c < cols; ++c) {
          double v = double(x[r * cols + c]) + m[c] - mx;
          want[r * cols + c] = log ? v - std::log(sum) : std::exp(v) / sum;
        }
      }
      if (log) {
        // -inf stays -inf; compare the finite entries.
        for (size_t i = 0; i < y.size(); ++i)
          if (std::isinf(want[i]))
            ASSERT_TRUE(std::isinf(y[i]) && y[i] < 0) << i;
          else
            ASSERT_NEAR(y[i], want[i], 1e-4 + 1e-5 * std::fabs(want[i])) << i;
      } else {
        expectNear(y, want, 1e-5, 1e-7);
      }
    }
  }
}

/// Scores 87 to 104 below the row's maximum have subnormal probabilities
/// (e^-95 = 5.5e-42); both kernels give exactly 0 there instead (an Intel
/// core takes a microcode assist for every subnormal it computes or reads:
/// masked attention rows ran 6x slower), within the reference's tolerance.
TEST_P(KernelsTest, SoftmaxFlushesSubnormalProbabilities) {
  const int64_t cols = 37;
  auto x = randomVector(cols, 1.0f, 9);
  for (float &v : x)
    v = std::clamp(v, -2.0f, 2.0f);
  std::vector<float> mask(cols, 0.0f);
  x[3] = 4.0f; // the row's maximum
  for (int64_t c : {1, 5, 20, 36})
    x[c] = -95.0f; // e^-99: subnormal
  x[7] = -84.0f;   // e^-88: still subnormal
  x[9] = -76.0f;   // e^-80 / sum is normal: kept
  mask[30] = -10000.0f;
  std::vector<float> y(cols);
  softmax(x.data(), mask.data(), 1, y.data(), 1, cols, false);
  double mx = -INFINITY, sum = 0;
  for (int64_t c = 0; c < cols; ++c)
    mx = std::max(mx, double(x[c]) + mask[c]);
  for (int64_t c = 0; c < cols; ++c)
    sum += std::exp(double(x[c]) + mask[c] - mx);
  for (int64_t c = 0; c < cols; ++c) {
    double want = std::exp(double(x[c]) + mask[c] - mx) / sum;
    if (want < 1e-38) {
      EXPECT_EQ(y[c], 0.0f) << c;
    } else {
      EXPECT_NEAR(y[c], want, 1e-6 + 1e-5 * want) << c;
      EXPECT_NE(std::fpclassify(y[c]), FP_SUBNORMAL) << c;
    }
  }
  EXPECT_GT(y[9], 0.0f);
}

TEST_P(KernelsTest, SoftmaxRowsSumToOne) {
  auto x = randomVector(3 * 64, 20.0f, 5);
  std::vector<float> y(x.size());
  softmax(x.data(), nullptr, 1, y.data(), 3, 64, false);
  for (int r = 0; r < 3; ++r) {
    double sum = 0;
    for (int c = 0; c < 64; ++c)
      sum += y[r * 64 + c];
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
}

TEST_P(KernelsTest, Gelu) {
  for (int64_t n : {1, 3, 17, 773}) {
    auto x = randomVector(n, 3.0f, 6);
    x[0] = n > 1 ? -12.0f : 0.0f; // deep negative tail
    for (bool tanhForm : {false, true}) {
      std::vector<float> y(n);
      gelu(x.data(), y.data(), n, tanhForm);
      std::vector<double> want(n);
      for (int64_t i = 0; i < n; ++i) {
        double v = x[i];
        double inner = tanhForm
                           ? std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v))
                           : std::erf(v / std::sqrt(2.0));
        want[i] = 0.5 * v * (1.0 + inner);
      }
      expectNear(y, want, 2e-6, 2e-6);
    }
  }
}

// exp where 2^n leaves the normal range: overflow only past ln(FLT_MAX)
// (88.7228; the AVX2 form once gave inf from 88.38), subnormal results
// rounded as the scalar exp rounds them, 0 below about -103.97, and NaN.
// Each value alone (a one-lane tail) and in a whole vector of its copies
// beside an ordinary value, so that no other lane decides how the AVX2
// form scales it. Within 8 ulp (subnormal ulps included) of the double
// exp rounded to f32.
TEST_P(KernelsTest, ExpAtTheEdgesOfTheRange) {
  for (float v : {88.0f, 88.3f, 88.38f, 88.5f, 88.7f, 88.72f, 88.73f, 89.0f,
                  -87.3f, -87.7f, -95.0f, -103.9f, -110.0f, std::nanf("")}) {
    float want = static_cast<float>(std::exp(double(v)));
    std::vector<float> x(17, v), y(17);
    x[0] = 1.0f;
    transcendental(Transcendental::Exp, x.data() + 16, y.data() + 16, 1);
    transcendental(Transcendental::Exp, x.data(), y.data(), 16);
    for (int i = 1; i < 17; ++i) {
      if (std::isnan(want) || std::isinf(want)) {
        EXPECT_TRUE(std::isnan(want) ? std::isnan(y[i]) : y[i] == want)
            << "exp(" << v << ") = " << y[i] << " in lane " << i;
        continue;
      }
      int32_t a, b;
      std::memcpy(&a, &want, 4);
      std::memcpy(&b, &y[i], 4);
      EXPECT_LE(std::abs(a - b), 8) << "exp(" << v << ") = " << y[i]
                                    << ", want " << want << " in lane " << i;
    }
  }
}

// The erf form where 1 + erf cancels: x from -12 to 0 every 2e-5 (the
// negative tail, where the vector erf's absolute error is carried into
// GELU undiminished, and +-1 beyond 3.8325 must be exact), within
// fuzz-kernels' bound of 1e-6 + 1e-5 |y|. Eigen's earlier erf, clamped at
// 4 instead, fails it near x = -5.65.
TEST_P(KernelsTest, GeluErfNegativeTail) {
  std::vector<float> x;
  for (int i = -600000; i <= 0; ++i)
    x.push_back(i * 2e-5f);
  std::vector<float> y(x.size());
  gelu(x.data(), y.data(), int64_t(x.size()), false);
  std::vector<double> want(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    want[i] = 0.5 * x[i] * std::erfc(-double(x[i]) / std::sqrt(2.0));
  expectNear(y, want, 1e-5, 1e-6);
}

// Perms that are matrix transposes are recognised with their batch, rows
// and cols, and the blocked kernel equals the generic strided transpose on
// sizes around the 16 x 16 register block.
TEST_P(KernelsTest, MatrixTranspose) {
  int64_t batch, rows, cols;
  EXPECT_TRUE(asMatrixTranspose({128, 768}, {1, 0}, batch, rows, cols));
  EXPECT_EQ(std::vector<int64_t>({batch, rows, cols}),
            std::vector<int64_t>({1, 128, 768}));
  EXPECT_TRUE(asMatrixTranspose({2, 3, 4, 5}, {0, 2, 3, 1}, batch, rows, cols));
  EXPECT_EQ(std::vector<int64_t>({batch, rows, cols}),
            std::vector<int64_t>({2, 3, 20}));
  EXPECT_TRUE(asMatrixTranspose({2, 3, 4}, {2, 0, 1}, batch, rows, cols));
  EXPECT_EQ(std::vector<int64_t>({batch, rows, cols}),
            std::vector<int64_t>({1, 6, 4}));
  EXPECT_FALSE(asMatrixTranspose({1, 2, 3, 4}, {0, 2, 1, 3}, batch, rows, cols));
  EXPECT_FALSE(asMatrixTranspose({2, 3}, {0, 1}, batch, rows, cols));
  EXPECT_FALSE(asMatrixTranspose({2, 3, 4}, {1, 0}, batch, rows, cols));
  for (auto [b, r, c] : std::vector<std::array<int64_t, 3>>{
           {1, 128, 768}, {3, 17, 33}, {2, 16, 16}, {1, 1, 5}, {2, 31, 1}}) {
    auto x = randomVector(b * r * c, 1.0f, 7);
    std::vector<float> want(x.size()), got(x.size(), -1.0f);
    transpose(x.data(), {b, r, c}, {0, 2, 1}, want.data(), sizeof(float));
    transposeMatrices32(x.data(), b, r, c, got.data());
    EXPECT_EQ(got, want) << b << "x" << r << "x" << c;
  }
}

namespace {
/// bf16 round to nearest even (NaN: quiet, sign kept), by the definition.
uint16_t bf16Reference(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  if (std::isnan(v))
    return static_cast<uint16_t>((u | 0x00400000u) >> 16);
  u += 0x7fffu + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}
} // namespace

// The conversions bf16 chains use (roundToBf16 on AVX512-BF16, AVX-512BW or
// portable; bf16ToF32) on every tail length, and the special values.
TEST_P(KernelsTest, Bf16Conversions) {
  for (int64_t n : {1, 3, 16, 17, 773}) {
    auto x = randomVector(n, 3.0f, 9);
    x[0] = n > 1 ? INFINITY : NAN;
    if (n > 2) {
      x[1] = -0.0f;
      x[2] = std::nextafter(1.0f, 2.0f); // rounds to 1: below the half step
    }
    if (n > 16) {
      uint32_t half = 0x3F808000u; // exactly half way, even below: 1.0
      std::memcpy(&x[16], &half, 4);
      x[15] = -NAN;
      x[14] = 3.4e38f; // rounds to inf
    }
    std::vector<uint16_t> y(n);
    roundToBf16(x.data(), y.data(), n);
    std::vector<float> back(n), asF32(n);
    bf16ToF32(y.data(), back.data(), n);
    roundToBf16AsF32(x.data(), asF32.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(y[i], bf16Reference(x[i])) << "n=" << n << " at " << i;
      uint32_t b;
      std::memcpy(&b, &back[i], 4);
      ASSERT_EQ(b, uint32_t(y[i]) << 16) << "n=" << n << " at " << i;
      std::memcpy(&b, &asF32[i], 4);
      ASSERT_EQ(b, uint32_t(y[i]) << 16) << "n=" << n << " at " << i;
    }
  }
}

// bf16 outputs of softmax and layer norm (osc-bf16-chains): exactly the
// f32 kernel's result rounded, with the mask groups not aligned to the
// kernel's row blocks (a group of 6 rows of 773 columns: blocks of 5 rows;
// 40 rows of 64: blocks of 64 rows over groups of 10).
TEST_P(KernelsTest, Bf16OutputsAreRoundedF32) {
  for (auto [rows, cols, group] : {std::array<int64_t, 3>{12, 773, 6},
                                   {40, 64, 10},
                                   {3, 17, 3}}) {
    SCOPED_TRACE(::testing::Message() << rows << "x" << cols << " group " << group);
    auto x = randomVector(rows * cols, 4.0f, 12);
    auto mask = randomVector(rows / group * cols, 2.0f, 13);
    auto g = randomVector(cols, 1.0f, 14), b = randomVector(cols, 1.0f, 15);
    std::vector<float> y(x.size());
    std::vector<uint16_t> y16(x.size()), want(x.size());
    for (bool masked : {false, true}) {
      const float *m = masked ? mask.data() : nullptr;
      softmax(x.data(), m, group, y.data(), rows, cols, false);
      softmax(x.data(), m, group, y16.data(), rows, cols, false);
      roundToBf16(y.data(), want.data(), rows * cols);
      ASSERT_EQ(y16, want) << (masked ? "masked softmax" : "softmax");
    }
    layerNorm(x.data(), g.data(), b.data(), y.data(), rows, cols, 1e-5f);
    layerNorm(x.data(), g.data(), b.data(), y16.data(), rows, cols, 1e-5f);
    roundToBf16(y.data(), want.data(), rows * cols);
    ASSERT_EQ(y16, want) << "layer norm";
  }
}

/// avx2_vnni sits off the line of levels, as in oneDNN: in force only on a
/// CPU with AVX-VNNI and under its own cap or none, never under an AVX-512
/// cap (which holds no avx2_vnni bit); on any host.
TEST(IsaLevels, Avx2VnniOnlyUnderItsCapOrNone) {
  bool avx2 = hostIsaLevel() >= IsaLevel::Avx2;
  IsaLevel avx2Tier = avx2 ? IsaLevel::Avx2 : IsaLevel::Sse41;
  EXPECT_EQ(levelWithin(IsaLevel::Avx2Vnni),
            avx2 && hostCpu().avxVnni ? IsaLevel::Avx2Vnni : avx2Tier);
  for (IsaLevel cap : {IsaLevel::Avx512Core, IsaLevel::Avx512CoreVnni,
                       IsaLevel::Avx512CoreBf16, IsaLevel::Avx512CoreAmx}) {
    EXPECT_NE(levelWithin(cap), IsaLevel::Avx2Vnni) << isaLevelName(cap);
    // A level asked for under a cap is a cap too.
    EXPECT_EQ(levelWithin(IsaLevel::Avx2Vnni, cap), avx2Tier)
        << isaLevelName(cap);
  }
  EXPECT_EQ(levelWithin(IsaLevel::Avx2, IsaLevel::Avx2Vnni), avx2Tier);
  EXPECT_EQ(levelWithin(IsaLevel::All), hostIsaLevel());
}

/// int8 dot products are free of 16-bit saturation with AVX-VNNI and from
/// AVX-512 VNNI up, not at avx512_core, which oneDNN's cap keeps off
/// AVX-VNNI too; elsewhere int8 weights may have 7 bits.
TEST(Int8Weights, LimitFollowsTheTier) {
  for (IsaLevel l : {IsaLevel::Sse41, IsaLevel::Avx2, IsaLevel::Avx512Core})
    EXPECT_FALSE(hasVnni(l)) << isaLevelName(l);
  for (IsaLevel l : {IsaLevel::Avx2Vnni, IsaLevel::Avx512CoreVnni,
                     IsaLevel::Avx512CoreBf16, IsaLevel::Avx512CoreAmx})
    EXPECT_TRUE(hasVnni(l)) << isaLevelName(l);
  EXPECT_EQ(int8SaturationFree(), hasVnni(cpuTier()));
  EXPECT_EQ(int8WeightLimit(), int8SaturationFree() ? 127 : 64);
}

INSTANTIATE_TEST_SUITE_P(
    Tiers, KernelsTest,
    ::testing::ValuesIn(opscope::rt::tiers::kernelLevels()),
    opscope::rt::tiers::levelParamName);
