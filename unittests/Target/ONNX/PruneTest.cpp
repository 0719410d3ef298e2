//===- PruneTest.cpp - block selection of opscope-prune -------------------===//
//
// Part of opscope. The block choice against a plain reference (sort every
// block by L1 norm) on odd sizes, both storage orientations and several
// block shapes; ties, NaN, already-zero blocks and -0.0; parsing RxC.
//
//===----------------------------------------------------------------------===//

#include "opscope/Target/ONNX/Prune.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace opscope::prune;

namespace {
/// Element (n, k) of a weight stored K x N (or N x K).
float &at(std::vector<float> &w, int64_t n, int64_t k, int64_t N, int64_t K,
          bool nk) {
  return w[nk ? n * K + k : k * N + n];
}

/// The reference: every block's L1 norm, sorted with its index; the first
/// round(ratio x blocks) are zeroed.
std::vector<bool> referenceZeroed(std::vector<float> w, int64_t N, int64_t K,
                                  bool nk, BlockShape b, double ratio) {
  int64_t gn = N / b.rows, gk = K / b.cols;
  std::vector<std::pair<double, int64_t>> scores;
  for (int64_t i = 0; i < gn * gk; ++i) {
    double s = 0;
    for (int64_t n = 0; n < b.rows; ++n)
      for (int64_t k = 0; k < b.cols; ++k)
        s += std::fabs(
            double(at(w, i / gk * b.rows + n, i % gk * b.cols + k, N, K, nk)));
    scores.push_back({std::isnan(s) ? HUGE_VAL : s, i});
  }
  std::sort(scores.begin(), scores.end());
  std::vector<bool> zeroed(gn * gk, false);
  int64_t target = std::llround(ratio * gn * gk);
  for (int64_t i = 0; i < target; ++i)
    zeroed[scores[i].second] = true;
  return zeroed;
}

void checkAgainstReference(int64_t N, int64_t K, bool nk, BlockShape b,
                           double ratio, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist;
  std::vector<float> w(N * K);
  for (float &v : w)
    v = dist(rng);
  std::vector<float> original = w;
  std::vector<bool> zeroed = referenceZeroed(w, N, K, nk, b, ratio);
  BlockCounts after = pruneBlocks({w.data(), N, K, nk}, b, ratio);
  int64_t gk = K / b.cols, blocks = N / b.rows * gk;
  ASSERT_EQ(after.blocks, blocks);
  EXPECT_EQ(after.zeroBlocks, std::llround(ratio * blocks));
  EXPECT_LE(std::fabs(after.ratio() - ratio), 1.0 / blocks);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      bool z = zeroed[n / b.rows * gk + k / b.cols];
      float got = at(w, n, k, N, K, nk);
      float want = z ? 0.0f : at(original, n, k, N, K, nk);
      ASSERT_EQ(std::memcmp(&got, &want, sizeof(float)), 0)
          << "N=" << N << " K=" << K << " nk=" << nk << " block " << b.str()
          << " ratio " << ratio << " at n=" << n << " k=" << k;
    }
}
} // namespace

TEST(Prune, MatchesReferenceOnOddSizes) {
  unsigned seed = 1;
  for (BlockShape b : {BlockShape{1, 4}, BlockShape{2, 4}, BlockShape{4, 1},
                       BlockShape{1, 16}, BlockShape{3, 2}, BlockShape{1, 1}})
    for (int64_t gn : {1, 3, 17})
      for (int64_t gk : {1, 2, 5})
        for (bool nk : {false, true})
          for (double ratio : {0.01, 0.5, 0.8, 0.9, 0.99})
            checkAgainstReference(gn * b.rows, gk * b.cols, nk, b, ratio,
                                  seed++);
}

TEST(Prune, AlreadyZeroBlocksCountAndKeepTheirBits) {
  // 1 x 8 weight stored K x N with N=1: two 1x4 blocks; the first is -0.0.
  std::vector<float> w = {-0.0f, -0.0f, 0.0f, -0.0f, 1, 2, 3, 4};
  BlockShape b{1, 4};
  EXPECT_EQ(countZeroBlocks({w.data(), 1, 8, false}, b).zeroBlocks, 1);
  BlockCounts c = pruneBlocks({w.data(), 1, 8, false}, b, 0.5);
  EXPECT_EQ(c.zeroBlocks, 1);
  EXPECT_TRUE(std::signbit(w[0]) && std::signbit(w[3]));
  EXPECT_EQ(w[4], 1.0f);
  // Sparser than asked: nothing more is zeroed.
  std::vector<float> sparse = {0, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5};
  c = pruneBlocks({sparse.data(), 1, 12, false}, b, 0.4);
  EXPECT_EQ(c.zeroBlocks, 2);
  EXPECT_EQ(sparse[8], 5.0f);
}

TEST(Prune, TiesGoInBlockOrderAndNaNBlocksStay) {
  // Four blocks of equal norm: ratio 0.5 zeroes the first two.
  std::vector<float> w(16, 1.0f);
  pruneBlocks({w.data(), 1, 16, false}, {1, 4}, 0.5);
  EXPECT_EQ(w[0], 0.0f);
  EXPECT_EQ(w[7], 0.0f);
  EXPECT_EQ(w[8], 1.0f);
  // A NaN block is never the smallest, however small its other elements.
  std::vector<float> n = {NAN, 0, 0, 0, 9, 9, 9, 9};
  pruneBlocks({n.data(), 1, 8, false}, {1, 4}, 0.5);
  EXPECT_TRUE(std::isnan(n[0]));
  EXPECT_EQ(n[4], 0.0f);
}

TEST(Prune, BlocksFollowTheReductionDimension) {
  // MatMul's B is K x N: a 1x4 block is a column run of 4 along K. With
  // K=4, N=2 the two blocks are the two columns.
  std::vector<float> kn = {1, 9, 1, 9, 1, 9, 1, 9};
  pruneBlocks({kn.data(), 2, 4, false}, {1, 4}, 0.5);
  EXPECT_EQ(kn, (std::vector<float>{0, 9, 0, 9, 0, 9, 0, 9}));
  // Gemm with transB=1 stores N x K: the blocks are the rows.
  std::vector<float> nk = {1, 1, 1, 1, 9, 9, 9, 9};
  pruneBlocks({nk.data(), 2, 4, true}, {1, 4}, 0.5);
  EXPECT_EQ(nk, (std::vector<float>{0, 0, 0, 0, 9, 9, 9, 9}));
}

TEST(Prune, CountsZeroBlocksAsTheCompilerMeasuresThem) {
  // The compiler measures N x K weights with the sparse format's measure();
  // pruning counts both layouts: on the same weights they agree.
  std::mt19937 rng(7);
  for (BlockShape b : {BlockShape{1, 4}, BlockShape{2, 4}, BlockShape{4, 1}})
    for (double ratio : {0.0, 0.5, 0.9}) {
      int64_t N = 6 * b.rows, K = 5 * b.cols;
      std::vector<float> nk(N * K);
      std::normal_distribution<float> dist;
      for (float &v : nk)
        v = dist(rng);
      if (ratio > 0)
        pruneBlocks({nk.data(), N, K, true}, b, ratio);
      std::vector<float> kn(N * K);
      for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k)
          kn[k * N + n] = nk[n * K + k];
      auto measured = opscope::rt::sparse::measure(nk.data(), N, K, b);
      EXPECT_EQ(countZeroBlocks({nk.data(), N, K, true}, b).zeroBlocks,
                measured.zeroBlocks);
      EXPECT_EQ(countZeroBlocks({kn.data(), N, K, false}, b).zeroBlocks,
                measured.zeroBlocks);
      EXPECT_EQ(countZeroBlocks({kn.data(), N, K, false}, b).blocks,
                measured.blocks);
    }
}

TEST(Prune, ParsesBlockShapes) {
  auto b = parseBlockShape("2x4");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->rows, 2);
  EXPECT_EQ(b->cols, 4);
  EXPECT_EQ(b->str(), "2x4");
  for (const char *bad : {"", "x", "1x", "x4", "0x4", "1x0", "1x4x2", "-1x4",
                          "1 x4", "1X4", "1x4 ", "9999999x1", "a"})
    EXPECT_FALSE(parseBlockShape(bad)) << bad;
}
