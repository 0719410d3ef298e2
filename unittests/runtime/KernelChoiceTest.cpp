//===- KernelChoiceTest.cpp - dense or sparse, from the tuning database ---===//
//
// Part of opscope. tuning::choose and tuning::perfRatioAt (tuning.h): the
// one kernel choice the compiler, the what-if and opscope-profile share.
// The entries are the ones of issue 56, measured on a Zen 5 core with
// `opscope-tune dense.so --sparsity 0.8 --precision fp32`, where the old
// compiler rule ("the highest measured ratio at or below the weight's")
// kept 36 of 37 pruned DistilBERT products dense.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/tuning.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace opscope::tuning;

namespace {
Entry entry(int64_t n, int64_t k, int64_t m, double denseMs,
            std::vector<std::pair<double, double>> points, int threads = 1,
            const char *block = "1x4") {
  Entry e;
  e.n = n, e.k = k, e.m = m, e.denseMs = denseMs, e.threads = threads;
  e.block = block;
  e.denseImpl = "brgemm:avx512_core";
  e.sparseImpl = "opscope:sparse_1x4:avx512:f32";
  for (auto [s, ms] : points)
    e.sparse.push_back({s, ms, denseMs / ms, denseMs / ms});
  return e;
}

/// issue 56's database: two DistilBERT shapes at M 128, one thread,
/// measured at 80% only.
Database issueDatabase() {
  Database db;
  db.entries.push_back(entry(768, 768, 128, 0.777, {{0.8, 0.309}}));
  db.entries.push_back(entry(3072, 768, 128, 2.930, {{0.8, 1.190}}));
  return db;
}

/// The block sparsity opscope-prune leaves: round(ratio x blocks) of the
/// N x K / 4 blocks of 1x4 zeroed.
double pruned(int64_t n, int64_t k, double ratio) {
  double blocks = static_cast<double>(n * k / 4);
  return std::round(ratio * blocks) / blocks;
}

Query query(int64_t n, int64_t k, int64_t m, double sparsity) {
  Query q;
  q.n = n, q.k = k, q.m = m, q.sparsity = sparsity;
  return q;
}
} // namespace

TEST(KernelChoice, PrunedWeightsReadTheirMeasuredRatio) {
  // 3072x768 pruned to 80% keeps 471859 of 589824 blocks zero: 0.79999966,
  // under the 0.8 that opscope-tune measured. The old rule found no ratio
  // at or below it and kept the op dense; half a block is the same ratio.
  Database db = issueDatabase();
  double s = pruned(3072, 768, 0.8);
  ASSERT_LT(s, 0.8);
  Choice c = choose(&db, query(3072, 768, 128, s));
  EXPECT_TRUE(c.sparse);
  EXPECT_EQ(c.basis, Choice::Basis::Measured);
  ASSERT_TRUE(c.perfRatio);
  EXPECT_NEAR(*c.perfRatio, 2.930 / 1.190, 1e-12);
  EXPECT_EQ(c.entry, &db.entries[1]);
  EXPECT_TRUE(c.misses.empty());
  EXPECT_EQ(c.reason, "tuned: sparse 1.190 ms < dense 2.930 ms (measured at "
                      "80%; entry 3072x768 M=128 fp32 1x4, 1 thread)");
  // 768x768 lands just above: 0.80000136.
  c = choose(&db, query(768, 768, 128, pruned(768, 768, 0.8)));
  EXPECT_TRUE(c.sparse);
  EXPECT_EQ(c.basis, Choice::Basis::Measured);
  // Two blocks away is another ratio (here below the only point, where
  // sparse won: no bound, the threshold decides and says so).
  c = choose(&db, query(3072, 768, 128, 0.8 - 2.0 / (3072 * 768 / 4)));
  EXPECT_EQ(c.basis, Choice::Basis::Threshold);
  EXPECT_TRUE(c.sparse); // 0.79999 >= the threshold 0.7
  EXPECT_NE(c.reason.find("threshold 0.7 (79.9997% is outside the measured "
                          "80%, where sparse won"),
            std::string::npos)
      << c.reason;
}

TEST(KernelChoice, DenseWhereDenseIsFaster) {
  Database db;
  db.entries.push_back(entry(768, 768, 128, 0.5, {{0.8, 0.6}}));
  Choice c = choose(&db, query(768, 768, 128, 0.8));
  EXPECT_FALSE(c.sparse);
  EXPECT_TRUE(c.tuned());
  EXPECT_EQ(c.reason, "tuned: dense 0.500 ms <= sparse 0.600 ms (measured at "
                      "80%; entry 768x768 M=128 fp32 1x4, 1 thread)");
}

TEST(KernelChoice, InterpolatesBetweenMeasuredRatios) {
  // Ratios 2 at 70% and 4 at 80%: 3 at 75% (linear in the ratios, as the
  // what-if projects), so sparse at 2.0 / 3 ms.
  Database db;
  db.entries.push_back(
      entry(768, 768, 128, 2.0, {{0.7, 1.0}, {0.8, 0.5}, {0.9, 0.25}}));
  Choice c = choose(&db, query(768, 768, 128, 0.75));
  EXPECT_TRUE(c.sparse);
  EXPECT_EQ(c.basis, Choice::Basis::Interpolated);
  ASSERT_TRUE(c.perfRatio);
  EXPECT_DOUBLE_EQ(*c.perfRatio, 3.0);
  EXPECT_NEAR(c.sparseMs, 2.0 / 3.0, 1e-12);
  EXPECT_EQ(c.basisText, "interpolated 70%-80%");
  // Dense won at 70% and sparse at 80%: 72% interpolates to dense.
  db.entries[0] = entry(768, 768, 128, 1.0, {{0.7, 1.5}, {0.8, 0.5}});
  // ratio 0.667 at 70%, 2 at 80%: 0.933 at 72%.
  c = choose(&db, query(768, 768, 128, 0.72));
  EXPECT_FALSE(c.sparse);
  EXPECT_NEAR(*c.perfRatio, 2.0 / 3.0 + 0.2 * (2.0 - 2.0 / 3.0), 1e-12);
}

TEST(KernelChoice, BoundsBeyondTheMeasuredRatios) {
  Database db;
  db.entries.push_back(entry(768, 768, 128, 1.0, {{0.7, 0.8}, {0.9, 0.4}}));
  // Sparser than the highest point, where sparse won: sparse (only faster).
  Choice c = choose(&db, query(768, 768, 128, 0.95));
  EXPECT_TRUE(c.sparse);
  EXPECT_EQ(c.basis, Choice::Basis::BoundAbove);
  EXPECT_FALSE(c.perfRatio); // no figure is made up
  EXPECT_EQ(c.basisText, "at 90%, the highest measured: 95% is only faster");
  // Below the lowest, where sparse won: nothing bounds it; the threshold
  // decides (60% < 0.7: dense), and says so.
  c = choose(&db, query(768, 768, 128, 0.6));
  EXPECT_FALSE(c.sparse);
  EXPECT_EQ(c.basis, Choice::Basis::Threshold);
  EXPECT_EQ(c.entry, &db.entries[0]);
  EXPECT_NE(c.reason.find("threshold 0.7 (60% is outside the measured "
                          "70%-90%, where sparse won; entry 768x768"),
            std::string::npos)
      << c.reason;
  // Less sparse than the lowest point, where dense won: dense (only
  // slower).
  db.entries[0] = entry(768, 768, 128, 1.0, {{0.7, 1.2}, {0.9, 0.4}});
  c = choose(&db, query(768, 768, 128, 0.5));
  EXPECT_FALSE(c.sparse);
  EXPECT_EQ(c.basis, Choice::Basis::BoundBelow);
  EXPECT_DOUBLE_EQ(c.sparseMs, 1.2);
}

TEST(KernelChoice, AnotherThreadCountTakesTheNearestAndSaysSo) {
  Database db = issueDatabase();
  Query q = query(768, 768, 128, 0.8);
  q.threads = 2;
  Choice c = choose(&db, q);
  EXPECT_TRUE(c.sparse);
  EXPECT_EQ(c.entry, &db.entries[0]);
  ASSERT_EQ(c.misses.size(), 1u);
  EXPECT_EQ(c.misses[0], "2 threads not measured: the nearest, 1 (measured 1)");
  EXPECT_NE(c.reason.find("; 2 threads not measured"), std::string::npos);
  // A measured thread count is preferred over a nearer M.
  db.entries.push_back(entry(768, 768, 64, 0.4, {{0.8, 0.5}}, /*threads=*/2));
  c = choose(&db, q);
  EXPECT_FALSE(c.sparse);
  EXPECT_EQ(c.entry, &db.entries.back());
  ASSERT_EQ(c.misses.size(), 1u);
  EXPECT_EQ(c.misses[0],
            "M 128 not measured: the nearest, M 64 (measured 64, 128)");
}

TEST(KernelChoice, AnMBetweenMeasuredOnesTakesTheNearest) {
  Database db;
  db.entries.push_back(entry(768, 768, 64, 0.4, {{0.8, 0.2}}));
  db.entries.push_back(entry(768, 768, 256, 1.6, {{0.8, 2.0}}));
  // 100 is nearer 64 than 256 (by ratio: 1.56 against 2.56).
  Choice c = choose(&db, query(768, 768, 100, 0.8));
  EXPECT_TRUE(c.sparse);
  EXPECT_EQ(c.entry, &db.entries[0]);
  ASSERT_EQ(c.misses.size(), 1u);
  EXPECT_EQ(c.misses[0],
            "M 100 not measured: the nearest, M 64 (measured 64, 256)");
  c = choose(&db, query(768, 768, 200, 0.8));
  EXPECT_FALSE(c.sparse);
  EXPECT_EQ(c.entry, &db.entries[1]);
}

TEST(KernelChoice, NoEntryFallsToTheThresholdNeverSilentlyToDense) {
  Database db = issueDatabase();
  Choice c = choose(&db, query(768, 3072, 128, 0.8));
  EXPECT_TRUE(c.sparse);
  EXPECT_FALSE(c.tuned());
  EXPECT_EQ(c.entry, nullptr);
  EXPECT_EQ(c.reason, "threshold 0.7 (no entry for 768x3072 fp32 at any M or "
                      "thread count)");
  // Another precision is another problem.
  Query q = query(768, 768, 128, 0.8);
  q.precision = "int8";
  EXPECT_FALSE(choose(&db, q).tuned());
  // The threshold's own rule: below it dense; scalar sparse kernels dense.
  EXPECT_FALSE(choose(&db, query(768, 3072, 128, 0.6)).sparse);
  q = query(768, 3072, 128, 0.8);
  q.scalarSparse = true;
  c = choose(&db, q);
  EXPECT_FALSE(c.sparse);
  EXPECT_NE(c.reason.find("kept dense: scalar sparse kernels on this tier"),
            std::string::npos);
  // No database at all: the threshold, without a reason beyond it.
  c = choose(nullptr, query(768, 768, 128, 0.8));
  EXPECT_TRUE(c.sparse);
  EXPECT_EQ(c.reason, "threshold 0.7");
}

TEST(KernelChoice, FourByFourWeightsFallBackToTheOneByFourEntry) {
  Database db = issueDatabase();
  Query q = query(768, 768, 128, 0.8);
  q.block = "4x4";
  Choice c = choose(&db, q);
  EXPECT_TRUE(c.sparse);
  EXPECT_EQ(c.entry, &db.entries[0]);
  ASSERT_EQ(c.misses.size(), 1u);
  EXPECT_EQ(c.misses[0], "no 4x4 entry: the 1x4 kernel's, an upper bound");
  db.entries.push_back(
      entry(768, 768, 128, 0.777, {{0.8, 0.9}}, 1, /*block=*/"4x4"));
  c = choose(&db, q);
  EXPECT_FALSE(c.sparse);
  EXPECT_EQ(c.entry, &db.entries.back());
  EXPECT_TRUE(c.misses.empty());
}

TEST(KernelChoice, PerfRatioAt) {
  Entry e = entry(768, 768, 128, 2.0, {{0.7, 1.0}, {0.8, 0.5}, {0.9, 0.25}});
  std::string basis;
  auto r = perfRatioAt(e, 0.8, basis);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(*r, 4.0);
  EXPECT_EQ(basis, "measured at 80%");
  r = perfRatioAt(e, 0.725, basis);
  ASSERT_TRUE(r);
  EXPECT_NEAR(*r, 2.5, 1e-12);
  r = perfRatioAt(e, 0.85, basis);
  ASSERT_TRUE(r);
  EXPECT_NEAR(*r, 6.0, 1e-12);
  EXPECT_EQ(basis, "interpolated 80%-90%");
  // Never extrapolated.
  basis = "unchanged";
  EXPECT_FALSE(perfRatioAt(e, 0.69, basis));
  EXPECT_FALSE(perfRatioAt(e, 0.95, basis));
  EXPECT_EQ(basis, "unchanged");
  EXPECT_FALSE(perfRatioAt(entry(8, 8, 4, 1.0, {}), 0.8, basis));
  // Points in any order.
  r = perfRatioAt(entry(8, 8, 4, 2.0, {{0.9, 0.25}, {0.7, 1.0}, {0.8, 0.5}}),
                  0.75, basis);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(*r, 3.0);
  // The tolerance: the nearest point within it.
  Entry one = entry(8, 8, 4, 1.0, {{0.8, 0.5}});
  EXPECT_FALSE(perfRatioAt(one, 0.81, basis));
  EXPECT_TRUE(perfRatioAt(one, 0.81, basis, sameSparsity(8, 8)));
  EXPECT_DOUBLE_EQ(sameSparsity(8, 8), 0.5 / 16 + 1e-9);
}

TEST(KernelChoice, UnsteadyMeasurementsAreNamed) {
  // Issue 56's avx2-capped database: 3072x768 at 80% slower than at 70%.
  Entry bad = entry(3072, 768, 128, 5.859,
                    {{0.7, 3.296}, {0.8, 5.801}, {0.9, 1.369}});
  EXPECT_EQ(unsteadiness(bad), "the sparse kernel measured slower at 80% "
                               "(5.801 ms) than at 70% (3.296 ms)");
  // Falling latencies, and a rise within the slack, are steady.
  EXPECT_EQ(unsteadiness(entry(768, 768, 128, 2.0,
                               {{0.7, 1.0}, {0.8, 0.5}, {0.9, 0.25}})),
            "");
  EXPECT_EQ(unsteadiness(entry(768, 768, 128, 2.0, {{0.7, 1.0}, {0.8, 1.05}})),
            "");
  EXPECT_NE(unsteadiness(entry(768, 768, 128, 2.0, {{0.7, 1.0}, {0.8, 1.05}}),
                         0.01),
            "");
  // Points in any order; one point cannot be unsteady.
  EXPECT_NE(unsteadiness(entry(8, 8, 4, 1.0, {{0.9, 2.0}, {0.7, 1.0}})), "");
  EXPECT_EQ(unsteadiness(entry(8, 8, 4, 1.0, {{0.8, 0.5}})), "");
}
