//===- OscShapesTest.cpp - shape rules of osc ops -------------------------===//
//
// Part of opscope. Checks the shape arithmetic against hand-computed values of
// the PyTorch/ONNX formulas, including the corner cases (ceil mode dropping a
// window that starts in padding, dilation, output padding).
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscShapes.h"

#include <gtest/gtest.h>

using namespace opscope::osc;

TEST(OscShapes, BroadcastNumpyRules) {
  auto r = broadcastShapes({8, 1, 6, 1}, {7, 1, 5});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(std::vector<int64_t>(r->begin(), r->end()),
            (std::vector<int64_t>{8, 7, 6, 5}));
  auto scalar = broadcastShapes({}, {3, 4});
  ASSERT_TRUE(scalar.has_value());
  EXPECT_EQ(scalar->size(), 2u);
  EXPECT_FALSE(broadcastShapes({3}, {4}).has_value());
  EXPECT_FALSE(broadcastShapes({2, 3}, {3, 3}).has_value());
}

TEST(OscShapes, ConvWindow) {
  // ResNet stem: 224, k7, s2, p3 -> 112.
  EXPECT_EQ(windowOutputSize(224, 7, 2, 3, 3, 1), 112);
  // Dilation 2 of a 3x3 kernel spans 5.
  EXPECT_EQ(windowOutputSize(7, 3, 1, 0, 0, 2), 3);
  // Window larger than the padded input.
  EXPECT_LT(windowOutputSize(2, 5, 1, 0, 0, 1), 1);
  // Odd size with stride: floor.
  EXPECT_EQ(windowOutputSize(17, 3, 2, 0, 0, 1), 8);
}

TEST(OscShapes, PoolCeilMode) {
  // 5 with k2 s2: floor 2, ceil 3.
  EXPECT_EQ(windowOutputSize(5, 2, 2, 0, 0, 1, false), 2);
  EXPECT_EQ(windowOutputSize(5, 2, 2, 0, 0, 1, true), 3);
  // ceil would add a window starting in the end padding: dropped.
  // in=4, k=2, s=2, pad 0/1: room = 3, ceil(3/2)+1 = 3, but window 2 starts at
  // 4 >= in + padBegin = 4, so 2.
  EXPECT_EQ(windowOutputSize(4, 2, 2, 0, 1, 1, true), 2);
}

TEST(OscShapes, TransposedWindow) {
  EXPECT_EQ(transposedWindowOutputSize(16, 2, 2, 0, 0, 1, 0), 32);
  EXPECT_EQ(transposedWindowOutputSize(3, 3, 3, 0, 0, 1, 1), 10);
  EXPECT_EQ(transposedWindowOutputSize(5, 3, 2, 1, 1, 1, 1), 10);
}

TEST(OscShapes, MatmulShape) {
  std::string error;
  auto r = matmulShape({1, 12, 128, 64}, {1, 12, 128, 64}, false, true, error);
  ASSERT_TRUE(r.has_value()) << error;
  EXPECT_EQ(std::vector<int64_t>(r->begin(), r->end()),
            (std::vector<int64_t>{1, 12, 128, 128}));
  auto bcast = matmulShape({3, 1, 2, 4}, {5, 4, 6}, false, false, error);
  ASSERT_TRUE(bcast.has_value()) << error;
  EXPECT_EQ(std::vector<int64_t>(bcast->begin(), bcast->end()),
            (std::vector<int64_t>{3, 5, 2, 6}));
  EXPECT_FALSE(matmulShape({2, 3}, {4, 5}, false, false, error).has_value());
  EXPECT_NE(error.find("K=3"), std::string::npos);
  EXPECT_FALSE(matmulShape({3}, {3, 4}, false, false, error).has_value());
}

TEST(OscShapes, FormatShape) {
  EXPECT_EQ(formatShape({1, 128, 768}), "1x128x768");
  EXPECT_EQ(formatShape({}), "scalar");
  EXPECT_EQ(formatShape({0}), "0");
}
