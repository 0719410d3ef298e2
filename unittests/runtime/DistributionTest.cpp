//===- DistributionTest.cpp - per-op latency distributions ----------------===//
//
// Part of opscope. Exact nearest-rank percentiles for small sample counts;
// bounded memory and <= 0.25% relative error once the samples spill into the
// log-bucketed histogram.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/analysis.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

using opscope::analysis::Distribution;
using opscope::analysis::parseTimeUs;

TEST(Distribution, NearestRankWhileExact) {
  Distribution d;
  for (double v : {90.0, 110.0, 100.0})
    d.add(v);
  EXPECT_TRUE(d.exact());
  EXPECT_EQ(d.count(), 3);
  EXPECT_DOUBLE_EQ(d.mean(), 100.0);
  EXPECT_DOUBLE_EQ(d.percentile(50), 100.0);
  EXPECT_DOUBLE_EQ(d.percentile(99), 110.0);
  EXPECT_DOUBLE_EQ(d.percentile(0), 90.0);
  EXPECT_DOUBLE_EQ(d.min(), 90.0);
  EXPECT_DOUBLE_EQ(d.max(), 110.0);
}

TEST(Distribution, EmptyIsZero) {
  Distribution d;
  EXPECT_EQ(d.count(), 0);
  EXPECT_EQ(d.mean(), 0.0);
  EXPECT_EQ(d.percentile(50), 0.0);
}

TEST(Distribution, SpillsAndStaysAccurate) {
  std::mt19937 rng(42);
  std::lognormal_distribution<double> dist(3.0, 1.0);
  std::vector<double> all;
  Distribution d;
  for (int i = 0; i < 200000; ++i) {
    double v = dist(rng);
    all.push_back(v);
    d.add(v);
  }
  EXPECT_FALSE(d.exact());
  std::sort(all.begin(), all.end());
  for (double p : {1.0, 50.0, 90.0, 99.0, 99.9}) {
    size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * all.size()));
    double exact = all[rank - 1];
    EXPECT_NEAR(d.percentile(p), exact, exact * 0.0026) << "p" << p;
  }
  EXPECT_DOUBLE_EQ(d.max(), all.back());
}

TEST(Distribution, ZeroDurationsSurviveSpilling) {
  Distribution d;
  for (int i = 0; i < 10000; ++i)
    d.add(i % 2 ? 0.0 : 5.0);
  EXPECT_EQ(d.percentile(25), 0.0);
  EXPECT_NEAR(d.percentile(75), 5.0, 5.0 * 0.0026);
}

TEST(ParseTime, UnitsAndBareMilliseconds) {
  EXPECT_DOUBLE_EQ(*parseTimeUs("2ms"), 2000.0);
  EXPECT_DOUBLE_EQ(*parseTimeUs("150us"), 150.0);
  EXPECT_DOUBLE_EQ(*parseTimeUs("0.5s"), 500000.0);
  EXPECT_DOUBLE_EQ(*parseTimeUs("3"), 3000.0);
  EXPECT_DOUBLE_EQ(*parseTimeUs("250ns"), 0.25);
  EXPECT_FALSE(parseTimeUs("fast").has_value());
  EXPECT_FALSE(parseTimeUs("3parsecs").has_value());
  EXPECT_FALSE(parseTimeUs("-1ms").has_value());
}
