//===- MovementThreadsTest.cpp - copies by rows, and over threads ---------===//
//
// Part of opscope. Strided copies with short contiguous runs (one
// fixed-size move a run) and the memory-bound kernels' split over the
// threads in force (runtime/lib/kernels/Parallel.h) against index
// arithmetic and the one-thread results.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/dense.h"
#include "opscope/runtime/generic.h"
#include "opscope/runtime/kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

using namespace opscope::rt;

/// Permutes that keep a short contiguous run innermost (a depth-to-space to
/// one channel moves pairs of floats) copy it as one fixed-size move: runs
/// of 4 to 16 bytes and longer ones, in 4- and 2-byte elements, against the
/// index arithmetic. x: [2, 3, run] -> y: [3, 2, run] (perm 1, 0, 2: the
/// run is the only dimension contiguous on both sides).
TEST(GenericDataMovement, ShortContiguousRunsMatchIndexing) {
  for (int64_t run : {1, 2, 3, 4, 5, 8}) {
    for (size_t es : {size_t(4), size_t(2)}) {
      Shape s = {2, 3, run};
      int64_t n = numElements(s);
      std::vector<uint32_t> x32(n), y32(n, 0);
      std::vector<uint16_t> x16(n), y16(n, 0);
      for (int64_t i = 0; i < n; ++i) {
        x32[i] = 0x10000u + uint32_t(i);
        x16[i] = uint16_t(7 + i);
      }
      void *yp = es == 4 ? static_cast<void *>(y32.data()) : y16.data();
      const void *xp = es == 4 ? static_cast<const void *>(x32.data())
                               : x16.data();
      StridedWalk w = transposeWalk(s, {1, 0, 2});
      if (run > 1) { // (a run of 1 is dropped: a plain element transpose)
        ASSERT_EQ(w.dims.back(), run) << "the run must stay a dimension";
      }
      transpose(xp, s, {1, 0, 2}, yp, es);
      for (int64_t i = 0; i < n; ++i) {
        // y[o0][o1][o2] = x[o1][o0][o2], y of shape [3, 2, run].
        int64_t o0 = i / (2 * run), o1 = i / run % 2, o2 = i % run;
        int64_t src = (o1 * 3 + o0) * run + o2;
        if (es == 4)
          ASSERT_EQ(y32[i], x32[src]) << "run " << run << " at " << i;
        else
          ASSERT_EQ(y16[i], x16[src]) << "run " << run << " at " << i;
      }
    }
  }
}

/// The memory-bound kernels split their outer loop over the threads in
/// force above a size (Parallel.h): with four threads, a transpose with a
/// short run, a slice with a non-zero start, a concat, a channels-last
/// max pool, a unary and a channels-last resize above those sizes give the
/// one-thread results; so
/// do the row kernels (layer norm, softmax with a mask whose row groups a
/// thread's range of rows crosses).
TEST(GenericDataMovement, ThreadSplitsMatchOneThread) {
  auto both = [](auto f) {
    setDenseThreads(1);
    auto one = f();
    setDenseThreads(4);
    auto four = f();
    setDenseThreads(1);
    return std::make_pair(one, four);
  };
  // Transpose [512, 3, 2] -> [3, 512, 2] (pairs: the fixed-size move).
  {
    Shape s = {3, 512, 128};
    std::vector<float> x(numElements(s));
    std::iota(x.begin(), x.end(), 0.0f);
    auto [one, four] = both([&] {
      std::vector<float> y(x.size());
      transpose(x.data(), s, {1, 0, 2}, y.data(), sizeof(float));
      return y;
    });
    EXPECT_EQ(one, four);
    EXPECT_EQ(one[128], x[512 * 128]); // y[0][1][0] = x[1][0][0]
    Shape p = {2048, 64, 2};
    std::vector<float> xp(numElements(p));
    std::iota(xp.begin(), xp.end(), 0.0f);
    auto [pone, pfour] = both([&] {
      std::vector<float> y(xp.size());
      transpose(xp.data(), p, {1, 0, 2}, y.data(), sizeof(float));
      return y;
    });
    EXPECT_EQ(pone, pfour);
    EXPECT_EQ(pone[2], xp[128]); // y[0][1][0] = x[1][0][0]
    // Attention's head split: [128 tokens, 12 heads, 64] -> [12, 128, 64]
    // (96K elements: split over the threads from 64K).
    Shape h = {128, 12, 64};
    std::vector<float> xh(numElements(h));
    std::iota(xh.begin(), xh.end(), 0.0f);
    auto [hone, hfour] = both([&] {
      std::vector<float> y(xh.size());
      transpose(xh.data(), h, {1, 0, 2}, y.data(), sizeof(float));
      return y;
    });
    EXPECT_EQ(hone, hfour);
    EXPECT_EQ(hfour[(11 * 128 + 127) * 64 + 63], xh[(127 * 12 + 11) * 64 + 63]);
    EXPECT_EQ(hfour[(5 * 128 + 3) * 64], xh[(3 * 12 + 5) * 64]);
  }
  // Slice rows 5.. and columns 3..259 of a 600 x 300 matrix.
  {
    Shape s = {600, 300};
    std::vector<float> x(numElements(s));
    std::iota(x.begin(), x.end(), 0.0f);
    auto [one, four] = both([&] {
      std::vector<float> y(595 * 256);
      slice(x.data(), s, {5, 3}, {595, 256}, {1, 1}, y.data(), sizeof(float));
      return y;
    });
    EXPECT_EQ(one, four);
    EXPECT_EQ(one[0], x[5 * 300 + 3]);
    EXPECT_EQ(one[595 * 256 - 1], x[599 * 300 + 258]);
  }
  // Concat of two NHWC maps along channels, 64 x 64 pixels of 64 + 32.
  {
    Shape a = {1, 64, 64, 64}, b = {1, 64, 64, 32};
    std::vector<float> xa(numElements(a)), xb(numElements(b));
    std::iota(xa.begin(), xa.end(), 0.0f);
    std::iota(xb.begin(), xb.end(), -1e6f);
    auto [one, four] = both([&] {
      std::vector<float> y(xa.size() + xb.size());
      concat({xa.data(), xb.data()}, {a, b}, 3, y.data(), sizeof(float));
      return y;
    });
    EXPECT_EQ(one, four);
    EXPECT_EQ(one[96 * 4095 + 64], xb[32 * 4095]);
  }
  // Channels-last max pooling, 3x3 stride 2 pad 1, over two images of
  // 33 x 29 pixels of 24 channels (rows of the two images in one range).
  {
    Shape in = {2, 24, 33, 29}, out = {2, 24, 17, 15};
    std::vector<float> x(numElements(in));
    std::mt19937 rng(5);
    for (float &v : x)
      v = float(int(rng() % 2001) - 1000);
    auto [one, four] = both([&] {
      std::vector<float> y(numElements(out), 0.0f);
      maxPool2DNhwc(x.data(), in, out, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1},
                    y.data());
      return y;
    });
    EXPECT_EQ(one, four);
    // Image 1, output (16, 14), channel 5: input rows 31-32, columns 27-28.
    float want = std::numeric_limits<float>::lowest();
    for (int64_t iy = 31; iy <= 32; ++iy)
      for (int64_t ix = 27; ix <= 28; ++ix)
        want = std::max(want, x[((33 + iy) * 29 + ix) * 24 + 5]);
    EXPECT_EQ(four[((17 + 16) * 15 + 14) * 24 + 5], want);
  }
  // Clip over 300K elements.
  {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-9.0f, 9.0f);
    std::vector<float> x(300001);
    for (float &v : x)
      v = dist(rng);
    auto [one, four] = both([&] {
      std::vector<float> y(x.size());
      unary(UnaryKind::Clip, DType::F32, x.data(), y.data(), x.size(), 0, 6);
      return y;
    });
    EXPECT_EQ(one, four);
    for (size_t i = 0; i < x.size(); i += 997)
      ASSERT_EQ(one[i], std::min(6.0f, std::max(0.0f, x[i])));
  }
  // Layer norm and softmax over 700 rows of 257: ranges of rows per thread.
  // The softmax's mask has a row per 9 rows (a range starts inside a group
  // and crosses several ends), or none.
  {
    const int64_t rows = 700, cols = 257, group = 9;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    std::vector<float> x(rows * cols), mask((rows + group - 1) / group * cols),
        gamma(cols), beta(cols);
    for (auto *v : {&x, &mask, &gamma, &beta})
      for (float &e : *v)
        e = dist(rng);
    auto [one, four] = both([&] {
      std::vector<float> y(x.size());
      layerNorm(x.data(), gamma.data(), beta.data(), y.data(), rows, cols,
                1e-5f);
      return y;
    });
    EXPECT_EQ(one, four);
    for (const float *m : {static_cast<const float *>(nullptr),
                           static_cast<const float *>(mask.data())}) {
      auto [sone, sfour] = both([&] {
        std::vector<float> y(x.size());
        softmax(x.data(), m, group, y.data(), rows, cols, false);
        return y;
      });
      EXPECT_EQ(sone, sfour);
      // Row 100 (group 11) against its own mask row, in double.
      const float *in = x.data() + 100 * cols;
      double mx = -1e30, sum = 0;
      for (int64_t c = 0; c < cols; ++c)
        mx = std::max(mx, double(in[c]) + (m ? m[11 * cols + c] : 0.0));
      for (int64_t c = 0; c < cols; ++c)
        sum += std::exp(double(in[c]) + (m ? m[11 * cols + c] : 0.0) - mx);
      for (int64_t c = 0; c < cols; ++c)
        ASSERT_NEAR(sfour[100 * cols + c],
                    std::exp(double(in[c]) + (m ? m[11 * cols + c] : 0.0) -
                             mx) / sum,
                    1e-6)
            << c;
    }
  }
  // NCHW 2-D resizes of 8 planes (64 x 48 -> 128 x 96): bilinear in ONNX
  // Runtime's order and nearest; planes split over the threads, each range
  // with its own tap rows.
  for (ResizeMode mode : {ResizeMode::Linear, ResizeMode::Nearest}) {
    ResizeParams p;
    p.mode = mode;
    p.transform = CoordinateTransform::HalfPixel;
    Shape in = {2, 4, 64, 48}, out = {2, 4, 128, 96};
    auto plan = planResize2D(p, in, out);
    ASSERT_TRUE(plan);
    std::vector<float> x(numElements(in));
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
    for (float &v : x)
      v = dist(rng);
    auto [one, four] = both([&] {
      std::vector<float> y(numElements(out));
      resize2D(*plan, x.data(), y.data());
      return y;
    });
    EXPECT_EQ(one, four);
    EXPECT_EQ(one[0], x[0]); // corner: both taps on x[0] or weight 1
  }
  // Pad of a 4 x 300 x 300 map by 2 pixels (constant and reflect): rows
  // split over the threads.
  for (PadMode mode : {PadMode::Constant, PadMode::Reflect}) {
    Shape in = {1, 4, 300, 300}, out = {1, 4, 304, 304};
    std::vector<float> x(numElements(in));
    std::iota(x.begin(), x.end(), 0.0f);
    auto [one, four] = both([&] {
      std::vector<float> y(numElements(out));
      pad(mode, DType::F32, x.data(), in, {0, 0, 2, 2, 0, 0, 2, 2}, -1.0,
          y.data(), out);
      return y;
    });
    EXPECT_EQ(one, four);
    // y[0][0][2][2] = x[0][0][0][0]; the border is -1 or reflected.
    EXPECT_EQ(one[2 * 304 + 2], x[0]);
    EXPECT_EQ(one[0], mode == PadMode::Constant ? -1.0f : x[2 * 300 + 2]);
  }
}
