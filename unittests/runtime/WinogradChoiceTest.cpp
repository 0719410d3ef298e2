//===- WinogradChoiceTest.cpp - Winograd past the budget, and dilated ----===//
//
// Part of opscope. Dilated 3x3 convolutions as Winograd on sub-lattices
// against oneDNN's direct form, and where Auto takes it. Transformed weights past the cache budget (6 MiB) stream
// from memory once per block of tiles; Auto (WinogradConv::tileFor) still
// takes Winograd where the direct form's work is at least 24 FLOPs per
// byte streamed: the segmentation network's wide convolutions at 16x16 and
// up, not a ResNet's 512 -> 512 over 7x7. Each choice computes what the
// direct form does.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/dense.h"

#include "Tiers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace opscope::rt;

namespace {
ConvParams conv3x3(int64_t c, int64_t k, int64_t hw) {
  ConvParams p;
  p.input = {1, c, hw, hw};
  p.weight = {k, c, 3, 3};
  p.output = {1, k, hw, hw};
  p.strides = p.dilations = {1, 1};
  p.pads = {1, 1, 1, 1};
  p.inputNhwc = p.outputNhwc = true;
  return p;
}

std::vector<float> uniform(size_t n, float scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

bool f2x3Only() {
  const char *limit = std::getenv("OPSCOPE_WINOGRAD");
  return limit && std::string(limit) == "f2x3";
}
} // namespace

/// 512 -> 512: over 7x7 (6 and 14 FLOPs a streamed byte with 4x4 and 2x2
/// tiles) not Winograd; over 16x16 (32 with 4x4 tiles) Winograd, and
/// its outputs are the direct form's within Winograd's error. 1024 -> 256
/// over 64x64 (46) Winograd too.
TEST(WinogradChoice, StreamsWideWeightsWhereTheWorkPaysForIt) {
  if (std::getenv("OPSCOPE_WINOGRAD") && !f2x3Only())
    GTEST_SKIP() << "OPSCOPE_WINOGRAD is set";
  tiers::forEachTier([&](IsaLevel) {
    auto pick = [](const ConvParams &p) {
      std::vector<float> w(p.weight[0] * p.weight[1] * 9, 0.01f);
      Conv c(p, w.data(), nullptr, false);
      return c.ownKernel() ? c.implementation() : std::string("direct");
    };
    bool winograd = convWinogradPreferred();
    // Not Winograd over 7x7: im2col and the packed GEMM where the tier's
    // inner products run on it (GemmConv::pays), else the direct form.
    std::string small = pick(conv3x3(512, 512, 7));
    if (innerProductOnOwnGemm(49))
      EXPECT_EQ(small.rfind("im2col_gemm:", 0), 0u) << small;
    else
      EXPECT_EQ(small, "direct");
    std::string wide = pick(conv3x3(512, 512, 16));
    std::string deep = pick(conv3x3(1024, 256, 64));
    if (!winograd) {
      EXPECT_EQ(wide, "direct");
      EXPECT_EQ(deep, "direct");
      return;
    }
    // Under OPSCOPE_WINOGRAD=f2x3 the 2x2 tiles: 24 FLOPs a byte at 16x16
    // (at the threshold), 27 at 64x64.
    if (!f2x3Only()) {
      EXPECT_EQ(wide.rfind("winograd_f4x3:", 0), 0u) << wide;
    }
    EXPECT_EQ(deep.rfind(f2x3Only() ? "winograd_f2x3:" : "winograd_f4x3:", 0),
              0u)
        << deep;
  });
  // The 16x16 one's outputs against the direct form's, at the tier in
  // force: within 1e-5 of the sum of |x| |w| over a window (4608 products
  // of values up to 1 and 0.05: at most 230).
  ConvParams p = conv3x3(512, 512, 16);
  auto x = uniform(512 * 16 * 16, 1.0f, 3), w = uniform(512 * 512 * 9, 0.05f, 4),
       b = uniform(512, 0.1f, 5);
  std::vector<float> direct(x.size()), chosen(x.size());
  ConvParams d = p;
  d.algorithm = ConvAlgorithm::Direct;
  Conv(d, w.data(), b.data(), true)
      .run(x.data(), nullptr, nullptr, direct.data());
  Conv autoConv(p, w.data(), b.data(), true);
  autoConv.run(x.data(), nullptr, nullptr, chosen.data());
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_NEAR(chosen[i], direct[i], 1e-5 * 230) << i << " on "
                                                 << autoConv.implementation();
}

/// A dilated convolution as Winograd (each sub-lattice of the image an
/// undilated convolution of its own) computes what oneDNN's direct form
/// computes, at every tier with Winograd kernels: dilations 2 to 8, unequal
/// along the two axes, uneven pads, sub-lattices of unequal sizes (odd
/// sides), a batch, both tiles, both output layouts, with and without a
/// residual sum and ReLU. Within 1e-5 of the window's sum of |x| |w|.
TEST(WinogradDilated, MatchesDirect) {
  struct Shape {
    Dims input;
    int64_t outC;
    Dims dilations, pads; // pads: top, left, bottom, right
  };
  const Shape shapes[] = {
      {{1, 19, 13, 11}, 12, {2, 2}, {2, 2, 2, 2}},
      {{2, 8, 9, 14}, 24, {3, 2}, {3, 2, 3, 2}},
      {{1, 16, 16, 16}, 16, {4, 4}, {4, 4, 4, 4}},
      {{1, 8, 10, 10}, 8, {8, 8}, {8, 8, 8, 8}},
      {{1, 5, 12, 7}, 9, {2, 3}, {1, 3, 3, 3}},
  };
  unsigned seed = 900;
  tiers::forEachTier([&](IsaLevel) {
    if (!convWinogradPreferred())
      return;
    for (const Shape &s : shapes) {
      ConvParams p;
      p.input = s.input;
      p.weight = {s.outC, s.input[1], 3, 3};
      p.strides = {1, 1};
      p.dilations = s.dilations;
      p.pads = s.pads;
      p.output = {s.input[0], s.outC,
                  s.input[2] + s.pads[0] + s.pads[2] - 2 * s.dilations[0],
                  s.input[3] + s.pads[1] + s.pads[3] - 2 * s.dilations[1]};
      p.inputNhwc = true;
      size_t outN = p.output[0] * p.output[1] * p.output[2] * p.output[3];
      auto x = uniform(p.input[0] * p.input[1] * p.input[2] * p.input[3],
                       1.0f, ++seed),
           w = uniform(s.outC * s.input[1] * 9, 0.1f, ++seed),
           b = uniform(s.outC, 0.1f, ++seed), r = uniform(outN, 1.0f, ++seed);
      double tol = 1e-5 * (s.input[1] * 9 * 0.1 + 0.1) + 1e-6;
      for (bool outNhwc : {true, false})
        for (const auto &postOps : {std::vector<PostOp>{},
                                    std::vector<PostOp>{PostOp::Sum,
                                                        PostOp::Relu}}) {
          p.outputNhwc = outNhwc;
          p.postOps = postOps;
          ConvParams d = p;
          d.algorithm = ConvAlgorithm::Direct;
          std::vector<float> want(outN, -7.0f);
          Conv(d, w.data(), b.data(), true)
              .run(x.data(), nullptr, nullptr, want.data(), r.data());
          for (ConvAlgorithm form :
               {ConvAlgorithm::WinogradF2x3, ConvAlgorithm::WinogradF4x3}) {
            p.algorithm = form;
            Conv conv(p, w.data(), b.data(), true);
            ASSERT_TRUE(conv.ownKernel()) << conv.implementation();
            std::vector<float> got(outN, -7.0f);
            conv.run(x.data(), nullptr, nullptr, got.data(), r.data());
            for (size_t i = 0; i < outN; ++i)
              ASSERT_NEAR(got[i], want[i], tol)
                  << i << " on " << conv.implementation() << ", input "
                  << s.input[2] << "x" << s.input[3] << " dilations "
                  << s.dilations[0] << "x" << s.dilations[1]
                  << (outNhwc ? " NHWC" : " NCHW") << ", "
                  << postOps.size() << " post-ops";
          }
        }
    }
  });
}

/// Auto takes Winograd for the segmentation network's dilated 3x3
/// convolutions where the tier prefers it: 4x4 tiles where each
/// sub-lattice is at least 4x4 (32x32 at dilation 4: 8x8 ones), 2x2 where
/// it is smaller (16x16 at dilation 8: 2x2 ones).
TEST(WinogradDilated, AutoTakesItBySubLattice) {
  if (std::getenv("OPSCOPE_WINOGRAD"))
    GTEST_SKIP() << "OPSCOPE_WINOGRAD is set";
  tiers::forEachTier([&](IsaLevel) {
    auto pick = [](int64_t hw, int64_t dilation) {
      ConvParams p = conv3x3(64, 64, hw);
      p.dilations = {dilation, dilation};
      p.pads = {dilation, dilation, dilation, dilation};
      std::vector<float> w(64 * 64 * 9, 0.01f);
      Conv c(p, w.data(), nullptr, false);
      return c.ownKernel() ? c.implementation() : std::string("direct");
    };
    std::string at32 = pick(32, 4), at16 = pick(16, 8);
    if (!convWinogradPreferred()) {
      EXPECT_EQ(at32, "direct");
      EXPECT_EQ(at16, "direct");
      return;
    }
    EXPECT_EQ(at32.rfind("winograd_f4x3:", 0), 0u) << at32;
    EXPECT_EQ(at16.rfind("winograd_f2x3:", 0), 0u) << at16;
  });
}
