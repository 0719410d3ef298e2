//===- RecommendTest.cpp - opscope-profile's recommendation ---------------===//
//
// Part of opscope. The greedy per-layer choice of tools/opscope-profile on
// synthetic profiles whose answer checks by hand: the most ms per unit of
// sensitivity first, never past the budget, a layer moving to any higher
// measured ratio.
//
//===----------------------------------------------------------------------===//

#include "Profile.h"

#include <gtest/gtest.h>

using namespace opscope::profile;

namespace {
Layer layer(const std::string &name, double dense,
            std::vector<std::pair<double, double>> msAndLoss) {
  Layer l;
  l.name = name;
  l.denseMs = dense;
  double s = 0.5;
  for (auto [ms, loss] : msAndLoss) {
    l.projectedMs[s] = ms;
    l.loss[s].relL2 = loss;
    s += 0.2;
  }
  return l;
}

Profile synthetic() {
  Profile p;
  p.sparsities = {0.5, 0.7};
  p.modelMs = 10.0;
  // a: 4 ms -> 2 (loss 0.01) -> 1 (loss 0.05); b: 4 -> 3 (0.001) -> 2.5
  // (0.1); c: 2 ms, slower sparse (no gain).
  p.layers = {layer("a", 4, {{2, 0.01}, {1, 0.05}}),
              layer("b", 4, {{3, 0.001}, {2.5, 0.1}}),
              layer("c", 2, {{2.5, 0.0001}, {2.2, 0.0002}})};
  return p;
}
} // namespace

TEST(Recommend, SpendsTheBudgetOnTheBestRatiosFirst) {
  Profile p = synthetic();
  // Gains per unit: b->0.5: 1/0.001 = 1000; a->0.5: 2/0.01 = 200; then
  // a->0.7: 1/0.04 = 25, b->0.7: 0.5/0.099 = 5. c never gains.
  Recommendation r = recommend(p, 0.015);
  ASSERT_EQ(r.sparsity.size(), 2u);
  EXPECT_DOUBLE_EQ(r.sparsity.at("a"), 0.5);
  EXPECT_DOUBLE_EQ(r.sparsity.at("b"), 0.5);
  EXPECT_NEAR(r.deviation, 0.011, 1e-12);
  EXPECT_NEAR(r.projectedMs, 10.0 - 2 - 1, 1e-12);
  EXPECT_FALSE(r.sparsity.count("c"));

  r = recommend(p, 0.06); // a to 0.7 (total 0.051), b's next step too dear
  EXPECT_DOUBLE_EQ(r.sparsity.at("a"), 0.7);
  EXPECT_DOUBLE_EQ(r.sparsity.at("b"), 0.5);
  EXPECT_NEAR(r.deviation, 0.051, 1e-12);
  EXPECT_NEAR(r.projectedMs, 10.0 - 3 - 1, 1e-12);
}

TEST(Recommend, NeverExceedsTheBudget) {
  Profile p = synthetic();
  for (double budget : {1e-9, 0.0005, 0.001, 0.0105, 0.05, 0.2, 10.0}) {
    Recommendation r = recommend(p, budget);
    EXPECT_LE(r.deviation, budget + 1e-12) << budget;
    EXPECT_LE(r.projectedMs, p.modelMs.value()) << budget;
  }
  EXPECT_TRUE(recommend(p, 1e-9).sparsity.empty());
  // Everything that gains, with room to spare.
  Recommendation all = recommend(p, 10.0);
  EXPECT_DOUBLE_EQ(all.sparsity.at("a"), 0.7);
  EXPECT_DOUBLE_EQ(all.sparsity.at("b"), 0.7);
  EXPECT_FALSE(all.sparsity.count("c"));
}

/// A layer whose middle ratio is slower than dense and whose highest is
/// faster (measured on DistilBERT on a CPU whose sparse kernels lose at
/// 0.7): the recommendation jumps to 0.9 instead of stopping before 0.7.
TEST(Recommend, SkipsASlowerRatioToReachAFasterOne) {
  Profile p;
  p.sparsities = {0.7, 0.8, 0.9};
  p.modelMs = 10.0;
  Layer q;
  q.name = "query";
  q.denseMs = 2.37;
  q.projectedMs = {{0.7, 2.6}, {0.8, 2.4}, {0.9, 2.02}};
  q.loss[0.7].relL2 = 0.003;
  q.loss[0.8].relL2 = 0.005;
  q.loss[0.9].relL2 = 0.0077;
  p.layers = {q};
  Recommendation r = recommend(p, 0.5);
  ASSERT_EQ(r.sparsity.size(), 1u);
  EXPECT_DOUBLE_EQ(r.sparsity.at("query"), 0.9);
  EXPECT_NEAR(r.projectedMs, 10.0 - (2.37 - 2.02), 1e-12);
  EXPECT_NEAR(r.deviation, 0.0077, 1e-12);
  // A budget under 0.9's sensitivity leaves it dense: 0.7 and 0.8 are no
  // faster than dense.
  EXPECT_TRUE(recommend(p, 0.007).sparsity.empty());
}
