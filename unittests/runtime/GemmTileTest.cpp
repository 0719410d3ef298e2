//===- GemmTileTest.cpp - the packed GEMM tile's rate probe --------------===//
//
// Part of opscope. gemmTileGflops (dense.h), which bench-kernels'
// BM_GemmTileL1 reports: a rate wherever the tier in force has the packed
// f32 GEMM's tile, and 0 wherever it has none, at every tier.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/dense.h"

#include "Tiers.h"

#include <gtest/gtest.h>

using namespace opscope::rt;

namespace {
TEST(GemmTile, RateWhereTheTierHasTheTile) {
  tiers::forEachTier([&](IsaLevel) {
    const double gflops = gemmTileGflops(0.01);
    // innerProductOnOwnGemm(128): the tier has the tile (and
    // OPSCOPE_GEMM=onednn has not taken it away).
    if (innerProductOnOwnGemm(128)) {
      EXPECT_GT(gflops, 0.0);
      // Finite and below any core's f32 peak (32 lanes of FMA at 6 GHz).
      EXPECT_LT(gflops, 32 * 2 * 6.0);
    } else {
      EXPECT_EQ(gflops, 0.0);
    }
  });
}
} // namespace
