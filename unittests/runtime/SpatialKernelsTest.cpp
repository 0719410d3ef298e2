//===- SpatialKernelsTest.cpp - resize, pooling, pad against references ---===//
//
// The spatial kernels of generic.h (split from GenericTest.cpp): planned
// and general resizes, max pooling NCHW and channels-last, and pad, each
// against an index-by-index reference, at every tier of the kernel table
// where the kernel has tiers.
//
//===----------------------------------------------------------------------===//

#include "Tiers.h"

#include "opscope/runtime/generic.h"
#include "opscope/runtime/kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace opscope;
using namespace opscope::rt;

namespace {
/// Pad element by element: every output index maps, dimension by
/// dimension, to an input index (constant: none outside; edge: clamped;
/// reflect: mirrored without repeating the edge).
template <typename T>
std::vector<T> padReference(PadMode mode, const std::vector<T> &x,
                            const Shape &xs, const std::vector<int64_t> &pads,
                            T value, const Shape &ys) {
  size_t rank = xs.size();
  std::vector<T> y(numElements(ys));
  Shape idx(rank, 0);
  for (size_t i = 0; i < y.size(); ++i) {
    int64_t off = 0;
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      int64_t s = idx[d] - pads[d], len = xs[d];
      if (s < 0 || s >= len) {
        if (mode == PadMode::Constant || len == 0) {
          inside = false;
          break;
        }
        if (mode == PadMode::Edge) {
          s = s < 0 ? 0 : len - 1;
        } else {
          int64_t period = std::max<int64_t>(2 * (len - 1), 1);
          s = ((s % period) + period) % period;
          if (s >= len)
            s = period - s;
        }
      }
      off = off * len + s;
    }
    y[i] = inside ? x[off] : value;
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < ys[d])
        break;
      idx[d] = 0;
    }
  }
  return y;
}
} // namespace

/// Every mode, growing and cropping pads (negative ones cut), pads wider
/// than the dimension (reflect and edge repeat), an inner dimension cut
/// away entirely, ranks 1 to 4 and 1-, 2- and 4-byte elements.
TEST(GenericPad, RowsMatchElementReference) {
  std::mt19937 rng(7);
  struct Case {
    Shape xs;
    std::vector<int64_t> pads;
  };
  std::vector<Case> cases = {
      {{5}, {2, 3}},
      {{5}, {-1, -2}},
      {{4}, {7, 6}},
      {{3, 4}, {1, 0, 2, 1}},
      {{3, 4}, {-1, 5, 0, -3}},
      {{2, 3, 5, 6}, {0, 1, 2, 3, 0, 2, 1, 4}},
      {{2, 3, 5, 6}, {1, 0, -2, -1, 0, 1, 3, -2}},
      {{1, 2, 3, 3}, {0, 0, 4, 4, 0, 0, 4, 4}},
      {{2, 2, 2, 4}, {0, 0, 0, -6, 0, 0, 0, 3}},
  };
  for (PadMode mode : {PadMode::Constant, PadMode::Edge, PadMode::Reflect}) {
    for (const Case &c : cases) {
      size_t rank = c.xs.size();
      Shape ys(rank);
      bool empty = false;
      for (size_t d = 0; d < rank; ++d) {
        ys[d] = c.xs[d] + c.pads[d] + c.pads[d + rank];
        empty |= ys[d] <= 0;
      }
      if (empty)
        continue;
      // Edge and reflect need a source element along every padded axis.
      if (mode != PadMode::Constant &&
          std::any_of(c.pads.begin(), c.pads.end(),
                      [](int64_t p) { return p < 0; }))
        continue;
      SCOPED_TRACE(std::string(kindName(mode)) + " rank " +
                   std::to_string(rank));
      std::vector<float> xf(numElements(c.xs));
      for (float &v : xf)
        v = float(rng() % 1000) - 500.0f;
      std::vector<float> yf(numElements(ys), -1.0f);
      pad(mode, DType::F32, xf.data(), c.xs, c.pads, 2.5, yf.data(), ys);
      EXPECT_EQ(yf, padReference<float>(mode, xf, c.xs, c.pads, 2.5f, ys));
      std::vector<uint8_t> xb(xf.size());
      for (uint8_t &v : xb)
        v = uint8_t(rng());
      std::vector<uint8_t> yb(yf.size());
      pad(mode, DType::U8, xb.data(), c.xs, c.pads, 9, yb.data(), ys);
      EXPECT_EQ(yb, padReference<uint8_t>(mode, xb, c.xs, c.pads, 9, ys));
      std::vector<uint16_t> xh(xf.size());
      for (uint16_t &v : xh)
        v = uint16_t(rng());
      std::vector<uint16_t> yh(yf.size());
      pad(mode, DType::U16, xh.data(), c.xs, c.pads, 300, yh.data(), ys);
      EXPECT_EQ(yh, padReference<uint16_t>(mode, xh, c.xs, c.pads, 300, ys));
    }
  }
}

TEST(GenericResize, NearestAndLinear) {
  std::vector<float> x = {1, 2, 3, 4};
  std::vector<float> y(8);
  ResizeParams p;
  p.mode = ResizeMode::Nearest;
  p.transform = CoordinateTransform::Asymmetric;
  p.nearest = NearestMode::Floor;
  resize(p, x.data(), {4}, y.data(), {8});
  EXPECT_EQ(y, (std::vector<float>{1, 1, 2, 2, 3, 3, 4, 4}));
  p.mode = ResizeMode::Linear;
  p.transform = CoordinateTransform::AlignCorners;
  std::vector<float> z(7);
  resize(p, x.data(), {4}, z.data(), {7});
  EXPECT_EQ(z, (std::vector<float>{1, 1.5, 2, 2.5, 3, 3.5, 4}));
  p.transform = CoordinateTransform::HalfPixel;
  resize(p, x.data(), {4}, y.data(), {8});
  // half_pixel: x_in = (i + 0.5) / 2 - 0.5, clamped to the edges
  EXPECT_FLOAT_EQ(y[0], 1.0f);
  EXPECT_FLOAT_EQ(y[1], 1.25f);
  EXPECT_FLOAT_EQ(y[2], 1.75f);
  EXPECT_FLOAT_EQ(y[7], 4.0f);
}

// The planned 2-D resize (nearest/linear over the last two dimensions)
// against the general separable one, up- and downsampling, odd sizes,
// several coordinate transforms, with an infinity that nearest must copy
// without turning it into NaN.
/// The planned resize's passes come from the kernel table: every tier
/// gives the reference tier's bits (no FMA contraction in the rows), over
/// widths and channel counts that leave vector tails, nearest and linear.
TEST(GenericResize, TiersMatchReferenceBitForBit) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  struct Config {
    ResizeMode mode;
    Shape in, out;
  };
  const Config configs[] = {
      {ResizeMode::Linear, {1, 19, 13, 37}, {1, 19, 26, 101}},
      {ResizeMode::Linear, {2, 5, 40, 33}, {2, 5, 17, 15}},
      {ResizeMode::Nearest, {1, 23, 9, 21}, {1, 23, 18, 42}},
      // The AVX-512 tap gathering's window (16 outputs within 32 source
      // elements): an FPN's 2x upsampling, an exact 2x downsampling (the
      // window's edge), a row end cutting the window, and a 3x one.
      {ResizeMode::Linear, {1, 3, 8, 64}, {1, 3, 16, 128}},
      {ResizeMode::Linear, {1, 2, 10, 64}, {1, 2, 5, 32}},
      {ResizeMode::Linear, {1, 2, 7, 21}, {1, 2, 14, 42}},
      {ResizeMode::Linear, {1, 1, 5, 50}, {1, 1, 15, 150}},
      // The AVX2 tier's window (8 outputs within 8 source elements): a
      // downsampling to 57/64, whose blocks lie at and past its edge.
      {ResizeMode::Linear, {1, 2, 6, 64}, {1, 2, 6, 57}},
  };
  for (const Config &cfg : configs) {
    ResizeParams p;
    p.mode = cfg.mode;
    p.transform = CoordinateTransform::HalfPixel;
    auto plan = planResize2D(p, cfg.in, cfg.out);
    ASSERT_TRUE(plan.has_value());
    std::vector<float> x(numElements(cfg.in));
    for (float &v : x)
      v = dist(rng);
    std::vector<float> ref, refH;
    opscope::rt::tiers::forEachTier([&](IsaLevel level) {
      std::vector<float> y(numElements(cfg.out)), yh(y.size());
      resize2D(*plan, x.data(), y.data());
      resize2DNhwc(*plan, cfg.in[1], x.data(), yh.data());
      if (level == IsaLevel::Sse41) {
        ref = y, refH = yh;
        return;
      }
      ASSERT_EQ(ref.size(), y.size());
      EXPECT_EQ(0, std::memcmp(ref.data(), y.data(), y.size() * 4));
      EXPECT_EQ(0, std::memcmp(refH.data(), yh.data(), yh.size() * 4));
    });
  }
}

/// Channels-last 2-D max pooling (the kernel below AVX-512 runs for
/// osc-conv-layout's pooled chains): against a plain loop over the window,
/// with uneven pads, strides, dilations, a ceil-mode overhang (the last
/// window reaches past the end pad), 19 channels (vector tails), batch 2,
/// and the same bits at every tier.
TEST(GenericMaxPool, NhwcMatchesWindowLoopAtEveryTier) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  struct Config {
    Shape in, kernel, strides, pads, dilations;
  };
  const Config configs[] = {
      {{2, 19, 11, 10}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}},
      {{1, 32, 9, 13}, {2, 3}, {2, 1}, {0, 1, 1, 0}, {2, 1}},
      {{1, 8, 7, 7}, {3, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}},
      // Blocks of 32 channels in registers, then a tail of 13 (AVX2: 8 + 5)
      // or of 31 (AVX-512 rows: 16 + 15).
      {{2, 77, 6, 5}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}},
      {{1, 63, 5, 5}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}},
      // Runs of inside columns (their windows advanced by the stride): a
      // dilation along the row, stride 1 and 3, uneven pads.
      {{1, 16, 6, 17}, {2, 3}, {1, 2}, {1, 0, 0, 2}, {1, 2}},
      {{2, 9, 4, 12}, {1, 2}, {1, 1}, {0, 0, 0, 0}, {1, 1}},
      {{1, 40, 5, 20}, {3, 2}, {2, 3}, {1, 2, 1, 1}, {1, 1}},
  };
  for (const Config &cfg : configs) {
    const int64_t N = cfg.in[0], C = cfg.in[1], H = cfg.in[2], W = cfg.in[3];
    Shape out = {N, C, 0, 0};
    for (int d = 0; d < 2; ++d) {
      int64_t span = (cfg.kernel[d] - 1) * cfg.dilations[d] + 1;
      int64_t padded = cfg.in[2 + d] + cfg.pads[d] + cfg.pads[2 + d] - span;
      out[2 + d] = (padded + cfg.strides[d] - 1) / cfg.strides[d] + 1; // ceil
    }
    // NaNs and zeros of both signs among the values: the rule below
    // decides which one a window keeps, bit for bit.
    std::vector<float> x(N * C * H * W);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = i % 37 == 5   ? std::nanf("")
             : i % 41 == 3 ? 0.0f
             : i % 43 == 7 ? -0.0f
                           : dist(rng);
    // Channels-last input; the expected output from the window loop, by
    // maxPixelNhwc's rule: the first pixel inside, then v > m ? v : m.
    std::vector<float> want(N * out[2] * out[3] * C);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t oy = 0; oy < out[2]; ++oy)
        for (int64_t ox = 0; ox < out[3]; ++ox)
          for (int64_t c = 0; c < C; ++c) {
            float m = std::numeric_limits<float>::lowest();
            bool first = true;
            for (int64_t ky = 0; ky < cfg.kernel[0]; ++ky)
              for (int64_t kx = 0; kx < cfg.kernel[1]; ++kx) {
                int64_t sy = oy * cfg.strides[0] - cfg.pads[0] +
                             ky * cfg.dilations[0];
                int64_t sx = ox * cfg.strides[1] - cfg.pads[1] +
                             kx * cfg.dilations[1];
                if (sy < 0 || sy >= H || sx < 0 || sx >= W)
                  continue;
                float v = x[((n * H + sy) * W + sx) * C + c];
                m = first || v > m ? v : m;
                first = false;
              }
            want[((n * out[2] + oy) * out[3] + ox) * C + c] = m;
          }
    opscope::rt::tiers::forEachTier([&](IsaLevel) {
      std::vector<float> y(want.size(), 99.0f);
      maxPool2DNhwc(x.data(), cfg.in, out, cfg.kernel, cfg.strides, cfg.pads,
                    cfg.dilations, y.data());
      EXPECT_EQ(0, std::memcmp(want.data(), y.data(), y.size() * 4));
    });
  }
}

TEST(GenericResize, Planned2DMatchesGeneral) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  struct Config {
    ResizeMode mode;
    CoordinateTransform t;
    Shape in, out;
  };
  const Config configs[] = {
      {ResizeMode::Nearest, CoordinateTransform::Asymmetric, {2, 3, 5, 7}, {2, 3, 10, 14}},
      {ResizeMode::Nearest, CoordinateTransform::HalfPixel, {1, 2, 9, 6}, {1, 2, 4, 13}},
      {ResizeMode::Linear, CoordinateTransform::HalfPixel, {2, 3, 5, 7}, {2, 3, 20, 28}},
      {ResizeMode::Linear, CoordinateTransform::AlignCorners, {1, 4, 7, 3}, {1, 4, 5, 8}},
      {ResizeMode::Linear, CoordinateTransform::PytorchHalfPixel, {3, 8, 1}, {3, 17, 1}},
  };
  for (const Config &cfg : configs) {
    ResizeParams p;
    p.mode = cfg.mode;
    p.transform = cfg.t;
    p.nearest = NearestMode::Floor;
    std::vector<float> x(numElements(cfg.in));
    for (float &v : x)
      v = dist(rng);
    if (cfg.mode == ResizeMode::Nearest)
      x[3] = std::numeric_limits<float>::infinity();
    std::vector<float> want(numElements(cfg.out)), got(want.size(), -1.0f);
    resize(p, x.data(), cfg.in, want.data(), cfg.out);
    auto plan = planResize2D(p, cfg.in, cfg.out);
    ASSERT_TRUE(plan.has_value());
    resize2D(*plan, x.data(), got.data());
    for (size_t i = 0; i < want.size(); ++i) {
      if (std::isinf(want[i])) {
        EXPECT_EQ(got[i], want[i]) << i;
        continue;
      }
      ASSERT_NEAR(got[i], want[i], 1e-5f) << "element " << i;
    }
    if (cfg.in.size() != 4)
      continue;
    // The channels-last form (osc-conv-layout): the same values, each
    // buffer in NHWC order.
    auto toNhwc = [](const std::vector<float> &v, const Shape &s) {
      std::vector<float> t(v.size());
      transpose(v.data(), s, {0, 2, 3, 1}, t.data(), sizeof(float));
      return t;
    };
    std::vector<float> xh = toNhwc(x, cfg.in), gotH(want.size(), -1.0f);
    resize2DNhwc(*plan, cfg.in[1], xh.data(), gotH.data());
    std::vector<float> wantH = toNhwc(want, cfg.out);
    for (size_t i = 0; i < wantH.size(); ++i) {
      if (std::isinf(wantH[i])) {
        EXPECT_EQ(gotH[i], wantH[i]) << i;
        continue;
      }
      ASSERT_NEAR(gotH[i], wantH[i], 1e-5f) << "nhwc element " << i;
    }
  }
  // Cubic, or a resized leading dimension, need the general resize.
  ResizeParams cubic;
  cubic.mode = ResizeMode::Cubic;
  EXPECT_FALSE(planResize2D(cubic, {1, 1, 4, 4}, {1, 1, 8, 8}).has_value());
  ResizeParams nearest;
  EXPECT_FALSE(planResize2D(nearest, {1, 2, 4, 4}, {1, 4, 8, 8}).has_value());
}

// Plain-layout max pooling (where oneDNN has only its scalar kernel) against
// the window loop: ceil-mode windows past the edge, pads, dilation, strides.
TEST(GenericMaxPool, NchwMatchesWindowLoop) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  struct Config {
    Shape in, kernel, strides, pads, dilations;
  };
  const Config configs[] = {
      {{1, 3, 9, 11}, {2, 2}, {2, 2}, {0, 0, 1, 1}, {1, 1}}, // ceil_mode
      {{2, 5, 8, 8}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}},
      {{1, 4, 10, 7}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}},
      {{1, 2, 12, 13}, {3, 2}, {1, 3}, {1, 0, 2, 1}, {2, 1}},
  };
  for (const Config &cfg : configs) {
    const int64_t N = cfg.in[0], C = cfg.in[1], H = cfg.in[2], W = cfg.in[3];
    Shape out = {N, C, 0, 0};
    for (int d = 0; d < 2; ++d) {
      int64_t span = (cfg.kernel[d] - 1) * cfg.dilations[d] + 1;
      int64_t padded = cfg.in[2 + d] + cfg.pads[d] + cfg.pads[2 + d] - span;
      out[2 + d] = padded / cfg.strides[d] + 1;
    }
    std::vector<float> x(N * C * H * W);
    for (float &v : x)
      v = dist(rng);
    std::vector<float> want(N * C * out[2] * out[3]);
    for (int64_t p = 0; p < N * C; ++p)
      for (int64_t oy = 0; oy < out[2]; ++oy)
        for (int64_t ox = 0; ox < out[3]; ++ox) {
          float m = std::numeric_limits<float>::lowest();
          for (int64_t ky = 0; ky < cfg.kernel[0]; ++ky)
            for (int64_t kx = 0; kx < cfg.kernel[1]; ++kx) {
              int64_t sy = oy * cfg.strides[0] - cfg.pads[0] + ky * cfg.dilations[0];
              int64_t sx = ox * cfg.strides[1] - cfg.pads[1] + kx * cfg.dilations[1];
              if (sy >= 0 && sy < H && sx >= 0 && sx < W)
                m = std::max(m, x[(p * H + sy) * W + sx]);
            }
          want[(p * out[2] + oy) * out[3] + ox] = m;
        }
    std::vector<float> got(want.size(), 123.0f);
    maxPool2DNchw(x.data(), cfg.in, out, cfg.kernel, cfg.strides, cfg.pads,
                  cfg.dilations, got.data());
    EXPECT_EQ(got, want) << "input " << H << "x" << W;
  }
}

// Bilinear 2-D resizing in ONNX Runtime's arithmetic (its UpsampleBilinear):
// float coordinates, ((wx0 wy0) x00 + (wx1 wy0) x01) + (wx0 wy1) x10 +
// (wx1 wy1) x11 with every product rounded; bit for bit, so that a
// quantization step after it rounds the same way (issue 53). At every
// tier: the vector tiers blend blocks of 8 columns from windows of the
// source rows (Resize2DPlan::colWindows), whole, at a row's end (a masked
// load) and where the taps do not fit one (downsampling past 8:7).
TEST(GenericResize, BilinearMatchesOnnxRuntimeBitForBit) {
 opscope::rt::tiers::forEachTier([&](IsaLevel) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  const Shape shapes[][2] = {{{1, 3, 5, 7}, {1, 3, 10, 14}},
                             {{2, 2, 9, 6}, {2, 2, 13, 11}},
                             {{1, 1, 8, 8}, {1, 1, 3, 5}},
                             {{1, 2, 6, 37}, {1, 2, 12, 74}},
                             {{1, 1, 4, 40}, {1, 1, 4, 33}},
                             {{1, 1, 3, 64}, {1, 1, 5, 61}}};
  bool windowed = false, unwindowed = false;
  for (CoordinateTransform t :
       {CoordinateTransform::HalfPixel, CoordinateTransform::Asymmetric}) {
    for (const auto &s : shapes) {
      const Shape &xs = s[0], &ys = s[1];
      const int64_t ih = xs[2], iw = xs[3], oh = ys[2], ow = ys[3];
      ResizeParams p;
      p.mode = ResizeMode::Linear;
      p.transform = t;
      auto plan = planResize2D(p, xs, ys);
      ASSERT_TRUE(plan && plan->ortOrder);
      ASSERT_EQ(int64_t(plan->colWindows.size()),
                ys[3] / Resize2DPlan::kWindowCols * Resize2DPlan::kWindowInts);
      for (size_t b = 0; b < plan->colWindows.size();
           b += Resize2DPlan::kWindowInts)
        (plan->colWindows[b] < 0 ? unwindowed : windowed) = true;
      std::vector<float> x(numElements(xs)), got(numElements(ys));
      for (float &v : x)
        v = dist(rng);
      resize2D(*plan, x.data(), got.data());
      auto taps = [&](int64_t o, int64_t in, int64_t out, int64_t &i1,
                      int64_t &i2, float &w1, float &w2) {
        float scale = float(out) / float(in), fo = float(o);
        float c = t == CoordinateTransform::HalfPixel
                      ? (fo + 0.5f) / scale - 0.5f
                      : fo / scale;
        c = std::max(0.0f, std::min(c, float(in - 1)));
        i1 = std::min<int64_t>(static_cast<int64_t>(c), in - 1);
        i2 = std::min<int64_t>(i1 + 1, in - 1);
        w1 = std::fabs(c - float(i2)), w2 = std::fabs(c - float(i1));
        if (i1 == i2)
          w1 = w2 = 0.5f;
      };
      for (int64_t pl = 0; pl < xs[0] * xs[1]; ++pl)
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox) {
            int64_t y1, y2, x1, x2;
            float dy2, dy1, dx2, dx1; // ONNX Runtime's names
            taps(oy, ih, oh, y1, y2, dy2, dy1);
            taps(ox, iw, ow, x1, x2, dx2, dx1);
            const float *xp = x.data() + pl * ih * iw;
            volatile float a = dx2 * dy2, b = dx1 * dy2, c = dx2 * dy1,
                           d = dx1 * dy1;
            volatile float t0 = a * xp[y1 * iw + x1], t1 = b * xp[y1 * iw + x2],
                           t2 = c * xp[y2 * iw + x1], t3 = d * xp[y2 * iw + x2];
            volatile float sum01 = t0 + t1;
            volatile float sum012 = sum01 + t2;
            float want = sum012 + t3;
            ASSERT_EQ(got[(pl * oh + oy) * ow + ox], want)
                << "plane " << pl << " at " << oy << "," << ox << " of "
                << iw << " -> " << ow;
          }
    }
  }
  EXPECT_TRUE(windowed && unwindowed);
 });
}
