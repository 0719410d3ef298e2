//===- WhatIfTest.cpp - the what-if's perf-ratio lookup -------------------===//
//
// Part of opscope. perfRatioAt (whatif.h): measured points, linear
// interpolation between the two around a target, no extrapolation, points
// in any order; kernelPrecision. The projection itself is checked end to
// end on golden traces (test/Tools/opscope-analyze/whatif.test).
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/whatif.h"

#include <gtest/gtest.h>

using namespace opscope::analysis;
using opscope::tuning::Entry;

namespace {
Entry entry(std::vector<std::pair<double, double>> points) {
  Entry e;
  e.n = 768, e.k = 768, e.m = 128, e.denseMs = 2.0;
  for (auto [s, ms] : points)
    e.sparse.push_back({s, ms, 2.0 / ms, 2.0 / ms});
  return e;
}
} // namespace

TEST(WhatIf, MeasuredRatioIsUsedAsIs) {
  std::string basis;
  auto r =
      perfRatioAt(entry({{0.7, 1.0}, {0.8, 0.5}, {0.9, 0.25}}), 0.8, basis);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(*r, 4.0);
  EXPECT_EQ(basis, "measured at 80%");
}

TEST(WhatIf, InterpolatesLinearlyInTheRatios) {
  // Ratios 2 at 70% and 4 at 80%: 3 at 75%, 2.5 at 72.5% (not the ratio of
  // interpolated latencies, 2 / 0.75 = 2.67 at 75%).
  std::string basis;
  Entry e = entry({{0.7, 1.0}, {0.8, 0.5}, {0.9, 0.25}});
  auto r = perfRatioAt(e, 0.75, basis);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(*r, 3.0);
  EXPECT_EQ(basis, "interpolated 70%-80%");
  r = perfRatioAt(e, 0.725, basis);
  ASSERT_TRUE(r);
  EXPECT_NEAR(*r, 2.5, 1e-12);
  r = perfRatioAt(e, 0.85, basis);
  ASSERT_TRUE(r);
  EXPECT_NEAR(*r, 6.0, 1e-12);
  EXPECT_EQ(basis, "interpolated 80%-90%");
}

TEST(WhatIf, NeverExtrapolates) {
  std::string basis = "unchanged";
  Entry e = entry({{0.7, 1.0}, {0.9, 0.25}});
  EXPECT_FALSE(perfRatioAt(e, 0.69, basis));
  EXPECT_FALSE(perfRatioAt(e, 0.95, basis));
  EXPECT_EQ(basis, "unchanged");
  EXPECT_FALSE(perfRatioAt(entry({}), 0.8, basis));
  // One point: only that ratio.
  Entry one = entry({{0.8, 0.5}});
  EXPECT_TRUE(perfRatioAt(one, 0.8, basis));
  EXPECT_FALSE(perfRatioAt(one, 0.81, basis));
}

TEST(WhatIf, PointsInAnyOrder) {
  std::string basis;
  auto r =
      perfRatioAt(entry({{0.9, 0.25}, {0.7, 1.0}, {0.8, 0.5}}), 0.75, basis);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(*r, 3.0);
}

TEST(WhatIf, PrecisionFromKernelName) {
  EXPECT_EQ(kernelPrecision("onednn:brgemm:avx512_core"), "fp32");
  EXPECT_EQ(kernelPrecision("onednn:brgemm:avx512_core_bf16:bf16"), "bf16");
  EXPECT_EQ(kernelPrecision("opscope:sparse_1x4:avx512_bf16:bf16"), "bf16");
  EXPECT_EQ(kernelPrecision("opscope:sparse_1x4:avx512:f32"), "fp32");
  EXPECT_EQ(kernelPrecision("opscope:sparse_1x4:avx512_vnni:s8"), "int8");
  EXPECT_EQ(kernelPrecision("onednn:brgemm:avx512_core_vnni:int8"), "int8");
}
