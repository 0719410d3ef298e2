//===- VisionKernelsTest.cpp - the image ops' kernels vs plain references -===//
//
// Part of opscope. InstanceNormalization and LRN at every tier of the
// kernel table the CPU allows, on sizes whose rows end in vector tails (1,
// 3, 17, 773 elements), and GridSample, RoiAlign and MaxUnpool, against
// double-precision references written from the ONNX spec and its reference
// implementation.
//
//===----------------------------------------------------------------------===//

#include "Tiers.h"

#include "opscope/runtime/generic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <random>
#include <vector>

using namespace opscope::rt;

namespace {
std::vector<float> randomVector(size_t n, float mean, float scale,
                                unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(mean, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

class VisionKernelsTest : public opscope::rt::tiers::TierTest {};
} // namespace

TEST_P(VisionKernelsTest, InstanceNorm) {
  for (Shape shape : {Shape{1, 1, 1}, Shape{2, 3, 3}, Shape{1, 4, 17},
                      Shape{2, 3, 773}, Shape{2, 5, 7, 9}}) {
    int64_t n = numElements(shape), c = shape[1];
    int64_t inner = n / (shape[0] * c);
    // An offset mean, so that a kernel that skips centring loses digits.
    auto x = randomVector(n, 3.0f, 2.0f, 1);
    auto scale = randomVector(c, 1.0f, 0.5f, 2);
    auto bias = randomVector(c, 0.0f, 1.0f, 3);
    const float eps = 1e-5f;
    std::vector<float> y(n);
    instanceNorm(x.data(), shape, scale.data(), bias.data(), eps, y.data());
    for (int64_t r = 0; r < shape[0] * c; ++r) {
      const float *in = x.data() + r * inner;
      double mean = 0, var = 0;
      for (int64_t i = 0; i < inner; ++i)
        mean += in[i];
      mean /= inner;
      for (int64_t i = 0; i < inner; ++i)
        var += (in[i] - mean) * (in[i] - mean);
      var /= inner;
      for (int64_t i = 0; i < inner; ++i) {
        double want = (in[i] - mean) / std::sqrt(var + eps) * scale[r % c] +
                      bias[r % c];
        ASSERT_NEAR(y[r * inner + i], want, 1e-5 + 1e-4 * std::fabs(want))
            << "shape " << shape.size() << "-D, row " << r << ", element "
            << i << " of " << inner;
      }
    }
  }
}

TEST_P(VisionKernelsTest, Lrn) {
  struct Case {
    Shape shape;
    int64_t size;
    float alpha, beta, bias;
  };
  // beta 0.75 and 0.5 take the square-root forms, 0.6 pow; even and odd
  // sizes, windows wider than the channels, rows with vector tails.
  for (const Case &k : {Case{{1, 1, 1}, 1, 1e-4f, 0.75f, 1.0f},
                        Case{{2, 5, 17}, 3, 0.5f, 0.75f, 2.0f},
                        Case{{1, 7, 773}, 4, 0.02f, 0.5f, 1.0f},
                        Case{{2, 3, 3, 5}, 5, 0.1f, 0.6f, 1.5f},
                        Case{{1, 6, 9}, 2, 1.0f, 1.0f, 0.5f}}) {
    const Shape &shape = k.shape;
    int64_t n = numElements(shape), c = shape[1];
    int64_t inner = n / (shape[0] * c);
    auto x = randomVector(n, 0.0f, 2.0f, 4);
    std::vector<float> y(n);
    lrn(x.data(), shape, k.size, k.alpha, k.beta, k.bias, y.data());
    int64_t before = (k.size - 1) / 2, after = k.size - 1 - before;
    for (int64_t b = 0; b < shape[0]; ++b)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t i = 0; i < inner; ++i) {
          double sum = 0;
          for (int64_t j = std::max<int64_t>(0, ch - before);
               j <= std::min<int64_t>(c - 1, ch + after); ++j) {
            double v = x[(b * c + j) * inner + i];
            sum += v * v;
          }
          int64_t at = (b * c + ch) * inner + i;
          double want = x[at] / std::pow(k.bias + k.alpha / k.size * sum,
                                         static_cast<double>(k.beta));
          ASSERT_NEAR(y[at], want, 1e-6 + 1e-5 * std::fabs(want))
              << "size " << k.size << ", beta " << k.beta << ", sample " << b
              << ", channel " << ch << ", element " << i;
        }
  }
}

namespace {
/// ONNX's reference GridSample (onnx/reference/ops/op_grid_sample.py), 2-D,
/// in double: denormalise, round (nearest), fold or clamp the coordinate
/// (not for cubic, as PyTorch and ONNX Runtime), then read each tap through
/// the padding.
double refReflect(double x, double lo, double hi) {
  double range = hi - lo;
  if (range <= 0)
    return lo;
  if (x < lo) {
    double dx = lo - x;
    int64_t n = static_cast<int64_t>(dx / range);
    double r = dx - n * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    double dx = x - hi;
    int64_t n = static_cast<int64_t>(dx / range);
    double r = dx - n * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

double refGridSample(const std::vector<float> &img, int64_t h, int64_t w,
                     double gx, double gy, ResizeMode mode, PadMode pad,
                     bool align) {
  auto denorm = [&](double g, int64_t size) {
    return align ? (g + 1) / 2 * (size - 1) : ((g + 1) * size - 1) / 2;
  };
  double lo = align ? 0.0 : -0.5;
  double hiX = align ? w - 1.0 : w - 0.5, hiY = align ? h - 1.0 : h - 0.5;
  double x = denorm(gx, w), y = denorm(gy, h);
  if (mode == ResizeMode::Nearest) {
    x = std::nearbyint(x);
    y = std::nearbyint(y);
  }
  auto fix = [&](double v, int64_t size, double hi) {
    if (v >= lo && v <= hi)
      return v;
    if (pad == PadMode::Edge)
      return std::clamp(v, 0.0, size - 1.0);
    if (pad == PadMode::Reflect)
      return refReflect(v, lo, hi);
    return v;
  };
  // Cubic leaves the coordinate unpadded (PyTorch and ONNX Runtime).
  if (mode != ResizeMode::Cubic) {
    x = fix(x, w, hiX);
    y = fix(y, h, hiY);
  }
  auto pixel = [&](int64_t i, int64_t j) -> double {
    auto index = [&](int64_t k, int64_t size, double hi) -> int64_t {
      if (k >= 0 && k < size)
        return k;
      if (pad == PadMode::Constant)
        return -1;
      if (pad == PadMode::Edge)
        return std::clamp<int64_t>(k, 0, size - 1);
      return std::clamp<int64_t>(
          static_cast<int64_t>(refReflect(static_cast<double>(k), lo, hi)), 0,
          size - 1);
    };
    int64_t a = index(i, h, hiY), b = index(j, w, hiX);
    return a < 0 || b < 0 ? 0.0 : img[a * w + b];
  };
  if (mode == ResizeMode::Nearest)
    return pixel(static_cast<int64_t>(y), static_cast<int64_t>(x));
  int64_t y0 = static_cast<int64_t>(std::floor(y)),
          x0 = static_cast<int64_t>(std::floor(x));
  double ty = y - y0, tx = x - x0;
  if (mode == ResizeMode::Linear)
    return (1 - ty) * ((1 - tx) * pixel(y0, x0) + tx * pixel(y0, x0 + 1)) +
           ty * ((1 - tx) * pixel(y0 + 1, x0) + tx * pixel(y0 + 1, x0 + 1));
  auto cubic = [](double t, double c[4]) {
    const double a = -0.75;
    c[0] = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
    c[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
    c[2] = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1;
    c[3] = ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a;
  };
  double cy[4], cx[4], sum = 0;
  cubic(ty, cy);
  cubic(tx, cx);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      sum += cy[i] * cx[j] * pixel(y0 - 1 + i, x0 - 1 + j);
  return sum;
}
} // namespace

// Every mode, padding and alignment at grid points inside, on and well
// past the image's edges.
TEST(GridSample, MatchesOnnxReference) {
  const int64_t n = 2, c = 3, h = 5, w = 7, oh = 4, ow = 6;
  auto x = randomVector(n * c * h * w, 0.0f, 1.0f, 5);
  std::vector<float> grid(n * oh * ow * 2);
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> dist(-1.6f, 1.6f);
  for (float &g : grid)
    g = dist(rng);
  grid[0] = -1.0f; // exactly on the corners
  grid[1] = 1.0f;
  for (ResizeMode mode :
       {ResizeMode::Nearest, ResizeMode::Linear, ResizeMode::Cubic})
    for (PadMode pad : {PadMode::Constant, PadMode::Edge, PadMode::Reflect})
      for (bool align : {false, true}) {
        std::vector<float> y(n * c * oh * ow);
        gridSample(x.data(), {n, c, h, w}, grid.data(), {n, oh, ow, 2}, mode,
                   pad, align, y.data());
        for (int64_t b = 0; b < n; ++b)
          for (int64_t ch = 0; ch < c; ++ch) {
            std::vector<float> img(x.begin() + (b * c + ch) * h * w,
                                   x.begin() + (b * c + ch + 1) * h * w);
            for (int64_t p = 0; p < oh * ow; ++p) {
              const float *g = grid.data() + (b * oh * ow + p) * 2;
              double want =
                  refGridSample(img, h, w, g[0], g[1], mode, pad, align);
              ASSERT_NEAR(y[(b * c + ch) * oh * ow + p], want, 1e-4)
                  << "mode " << int(mode) << ", padding " << int(pad)
                  << ", align " << align << ", point " << p;
            }
          }
      }
}

// A volume: linear sampling is separable, so a 3-D grid point's value is
// the 2-D samples of its two neighbouring planes blended.
TEST(GridSample, VolumeBlendsPlanes) {
  const int64_t d = 3, h = 4, w = 5;
  auto x = randomVector(d * h * w, 0.0f, 1.0f, 7);
  // z = 0 maps to plane 1 (align_corners), y and x anywhere inside.
  std::vector<float> grid = {0.3f, -0.2f, 0.0f, -0.4f, 0.6f, 0.5f};
  std::vector<float> y(2);
  gridSample(x.data(), {1, 1, d, h, w}, grid.data(), {1, 1, 1, 2, 3},
             ResizeMode::Linear, PadMode::Constant, true, y.data());
  std::vector<float> plane1(x.begin() + h * w, x.begin() + 2 * h * w),
      plane2(x.begin() + 2 * h * w, x.end());
  EXPECT_NEAR(y[0], refGridSample(plane1, h, w, 0.3, -0.2, ResizeMode::Linear,
                                  PadMode::Constant, true),
              1e-5);
  // z = 0.5: halfway between planes 1 and 2.
  double want = 0.5 * refGridSample(plane1, h, w, -0.4, 0.6,
                                    ResizeMode::Linear, PadMode::Constant,
                                    true) +
                0.5 * refGridSample(plane2, h, w, -0.4, 0.6,
                                    ResizeMode::Linear, PadMode::Constant,
                                    true);
  EXPECT_NEAR(y[1], want, 1e-5);
}

// RoiAlign against its definition: each bin's average of bilinear samples
// at the centres of a ratio x ratio grid of sub-bins.
TEST(RoiAlign, AverageOfBilinearSamples) {
  const int64_t c = 2, h = 6, w = 5;
  auto x = randomVector(2 * c * h * w, 0.0f, 1.0f, 8);
  std::vector<float> rois = {0.5f, 1.0f, 3.5f, 4.2f, 1.0f, 0.0f, 4.0f, 5.0f};
  std::vector<int64_t> batch = {1, 0};
  const int64_t oh = 3, ow = 2, ratio = 2;
  for (bool half : {false, true}) {
    std::vector<float> y(2 * c * oh * ow);
    ASSERT_TRUE(roiAlign(x.data(), {2, c, h, w}, rois.data(), batch.data(), 2,
                         oh, ow, ratio, 1.0f, half, false, y.data()));
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t ch = 0; ch < c; ++ch) {
        const float *img = x.data() + (batch[r] * c + ch) * h * w;
        auto bilinear = [&](double yy, double xx) {
          if (yy < -1 || yy > h || xx < -1 || xx > w)
            return 0.0;
          yy = std::max(yy, 0.0);
          xx = std::max(xx, 0.0);
          int64_t y0 = std::min<int64_t>(static_cast<int64_t>(yy), h - 1),
                  x0 = std::min<int64_t>(static_cast<int64_t>(xx), w - 1);
          int64_t y1 = std::min<int64_t>(y0 + 1, h - 1),
                  x1 = std::min<int64_t>(x0 + 1, w - 1);
          if (y0 == h - 1)
            yy = y0;
          if (x0 == w - 1)
            xx = x0;
          double ly = yy - y0, lx = xx - x0;
          return (1 - ly) * ((1 - lx) * img[y0 * w + x0] + lx * img[y0 * w + x1]) +
                 ly * ((1 - lx) * img[y1 * w + x0] + lx * img[y1 * w + x1]);
        };
        double off = half ? 0.5 : 0.0;
        double x1 = rois[r * 4] - off, y1 = rois[r * 4 + 1] - off;
        double rw = rois[r * 4 + 2] - off - x1, rh = rois[r * 4 + 3] - off - y1;
        if (!half) {
          rw = std::max(rw, 1.0);
          rh = std::max(rh, 1.0);
        }
        for (int64_t py = 0; py < oh; ++py)
          for (int64_t px = 0; px < ow; ++px) {
            double sum = 0;
            for (int64_t iy = 0; iy < ratio; ++iy)
              for (int64_t ix = 0; ix < ratio; ++ix)
                sum += bilinear(y1 + (py + (iy + 0.5) / ratio) * rh / oh,
                                x1 + (px + (ix + 0.5) / ratio) * rw / ow);
            EXPECT_NEAR(y[((r * c + ch) * oh + py) * ow + px],
                        sum / (ratio * ratio), 1e-5)
                << "roi " << r << ", half_pixel " << half;
          }
      }
  }
  std::vector<int64_t> bad = {2, 0};
  std::vector<float> y(2 * c * oh * ow);
  EXPECT_FALSE(roiAlign(x.data(), {2, c, h, w}, rois.data(), bad.data(), 2, oh,
                        ow, ratio, 1.0f, true, false, y.data()));
}

TEST(MaxUnpool, ScattersAndZeroFills) {
  std::vector<float> x = {1, 2, 3, 4};
  std::vector<int64_t> idx = {0, 3, 9, 14};
  std::vector<float> y(16, 7.0f);
  ASSERT_TRUE(maxUnpool(x.data(), idx.data(), 4, y.data(), 16, sizeof(float)));
  for (int64_t i = 0; i < 16; ++i) {
    float want = i == 0 ? 1 : i == 3 ? 2 : i == 9 ? 3 : i == 14 ? 4 : 0;
    EXPECT_EQ(y[i], want) << i;
  }
  idx[2] = 16;
  EXPECT_FALSE(maxUnpool(x.data(), idx.data(), 4, y.data(), 16, sizeof(float)));
}

INSTANTIATE_TEST_SUITE_P(
    Tiers, VisionKernelsTest,
    ::testing::ValuesIn(opscope::rt::tiers::kernelLevels()),
    opscope::rt::tiers::levelParamName);

namespace {
/// MaxPool with indices by ONNX's definition, written apart from the
/// kernel: each output's window cells listed as multi-indices, the first
/// maximum kept, its flat index taken row major or column major over the
/// spatial dimensions of its image.
template <typename T>
void maxPoolReference(const std::vector<T> &x, const Shape &in,
                      const Shape &out, const Shape &k, const Shape &s,
                      const Shape &pads, const Shape &dil, bool columnMajor,
                      std::vector<T> &y, std::vector<int64_t> &idx) {
  size_t r = in.size() - 2;
  int64_t image = 1, outImage = 1;
  for (size_t d = 0; d < r; ++d)
    image *= in[2 + d], outImage *= out[2 + d];
  y.assign(in[0] * in[1] * outImage, T());
  idx.assign(y.size(), -2);
  for (int64_t p = 0; p < in[0] * in[1]; ++p)
    for (int64_t o = 0; o < outImage; ++o) {
      Shape oi(r);
      for (int64_t rest = o, d = r; d-- > 0;)
        oi[d] = rest % out[2 + d], rest /= out[2 + d];
      bool found = false;
      T best{};
      int64_t at = -1;
      int64_t cells = 1;
      for (size_t d = 0; d < r; ++d)
        cells *= k[d];
      for (int64_t c = 0; c < cells; ++c) {
        Shape ki(r), ii(r);
        for (int64_t rest = c, d = r; d-- > 0;)
          ki[d] = rest % k[d], rest /= k[d];
        bool inside = true;
        for (size_t d = 0; d < r; ++d) {
          ii[d] = oi[d] * s[d] - pads[d] + ki[d] * dil[d];
          inside &= ii[d] >= 0 && ii[d] < in[2 + d];
        }
        if (!inside)
          continue;
        int64_t rowMajor = 0, colMajor = 0, stride = 1;
        for (size_t d = 0; d < r; ++d)
          rowMajor = rowMajor * in[2 + d] + ii[d];
        for (size_t d = 0; d < r; ++d)
          colMajor += ii[d] * stride, stride *= in[2 + d];
        T v = x[p * image + rowMajor];
        if (!found || v > best) {
          found = true, best = v;
          at = columnMajor ? colMajor : rowMajor;
        }
      }
      y[p * outImage + o] = found ? best : std::numeric_limits<T>::lowest();
      idx[p * outImage + o] = found ? p * image + at : -1;
    }
}

struct PoolCase {
  Shape in, kernel, strides, pads, dilations, out;
};

template <typename T, DType D> void checkIndexedMaxPool(unsigned seed) {
  // 1-D to 3-D, padding, strides, dilations, and ceil-mode windows that run
  // past the end; values from a narrow range so that windows hold ties.
  const PoolCase cases[] = {
      {{2, 3, 17}, {3}, {2}, {1, 1}, {1}, {2, 3, 9}},
      {{1, 2, 5, 5}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, {1, 2, 3, 3}},
      {{1, 1, 7, 6}, {2, 3}, {1, 2}, {0, 1, 1, 0}, {2, 1}, {1, 1, 6, 3}},
      {{1, 3, 5, 5}, {2, 2}, {2, 2}, {0, 0, 1, 1}, {1, 1}, {1, 3, 3, 3}},
      {{1, 2, 3, 4, 5}, {2, 2, 3}, {1, 2, 2}, {0, 1, 1, 1, 0, 1}, {1, 1, 1},
       {1, 2, 3, 2, 3}}};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-4, 4);
  for (const PoolCase &c : cases)
    for (bool columnMajor : {false, true}) {
      std::vector<T> x(numElements(c.in));
      for (T &v : x)
        v = static_cast<T>(std::is_signed_v<T> ? dist(rng) : dist(rng) + 4);
      std::vector<T> want, got(numElements(c.out), T(7));
      std::vector<int64_t> wantIdx, gotIdx(got.size(), -9);
      maxPoolReference(x, c.in, c.out, c.kernel, c.strides, c.pads,
                       c.dilations, columnMajor, want, wantIdx);
      ASSERT_TRUE(indexedMaxPool(D, x.data(), c.in, c.out, c.kernel,
                                 c.strides, c.pads, c.dilations, columnMajor,
                                 got.data(), gotIdx.data()));
      EXPECT_EQ(got, want) << "rank " << c.in.size();
      EXPECT_EQ(gotIdx, wantIdx) << "rank " << c.in.size() << " column major "
                                 << columnMajor;
      // Without indices the values are the same.
      std::vector<T> plain(got.size());
      ASSERT_TRUE(indexedMaxPool(D, x.data(), c.in, c.out, c.kernel,
                                 c.strides, c.pads, c.dilations, columnMajor,
                                 plain.data(), nullptr));
      EXPECT_EQ(plain, want);
    }
}
} // namespace

TEST(IndexedMaxPool, MatchesDefinitionForEveryType) {
  checkIndexedMaxPool<float, DType::F32>(3);
  checkIndexedMaxPool<double, DType::F64>(4);
  checkIndexedMaxPool<int8_t, DType::I8>(5);
  checkIndexedMaxPool<uint8_t, DType::U8>(6);
}

TEST(IndexedMaxPool, RefusesOtherTypes) {
  int32_t x[4] = {}, y[1];
  EXPECT_FALSE(indexedMaxPool(DType::I32, x, {1, 1, 2, 2}, {1, 1, 1, 1},
                              {2, 2}, {1, 1}, {0, 0, 0, 0}, {1, 1}, false, y,
                              nullptr));
}

// tf_crop_and_resize and tf_half_pixel_for_nn against ONNX's formulas
// (onnx/backend/test/case/node/resize.py), sample by sample.
TEST(ResizeTensorFlowModes, CropAndResizeMatchesDefinition) {
  const Shape xs = {1, 2, 5, 6}, ys = {1, 2, 4, 7};
  std::vector<float> x = randomVector(numElements(xs), 0, 2, 12);
  ResizeParams p;
  p.mode = ResizeMode::Linear;
  p.transform = CoordinateTransform::TfCropAndResize;
  // Boxes partly outside the input along H and W.
  p.roi = {0, 0, 0.3f, -0.2f, 1, 1, 1.4f, 0.9f};
  p.extrapolationValue = -7.5f;
  std::vector<float> got(numElements(ys));
  resize(p, x.data(), xs, got.data(), ys);
  auto coord = [&](int64_t o, size_t d) {
    double s = p.roi[d], e = p.roi[4 + d];
    return s * (xs[d] - 1) + o * (e - s) * (xs[d] - 1) / (ys[d] - 1);
  };
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t oh = 0; oh < ys[2]; ++oh)
      for (int64_t ow = 0; ow < ys[3]; ++ow) {
        double h = coord(oh, 2), w = coord(ow, 3);
        float want = p.extrapolationValue;
        if (h >= 0 && h <= xs[2] - 1 && w >= 0 && w <= xs[3] - 1) {
          int64_t h0 = std::min<int64_t>(std::floor(h), xs[2] - 2),
                  w0 = std::min<int64_t>(std::floor(w), xs[3] - 2);
          double fh = h - h0, fw = w - w0;
          auto at = [&](int64_t i, int64_t j) {
            return double(x[(c * xs[2] + i) * xs[3] + j]);
          };
          want = static_cast<float>(
              (1 - fh) * ((1 - fw) * at(h0, w0) + fw * at(h0, w0 + 1)) +
              fh * ((1 - fw) * at(h0 + 1, w0) + fw * at(h0 + 1, w0 + 1)));
        }
        EXPECT_NEAR(got[(c * ys[2] + oh) * ys[3] + ow], want, 1e-5)
            << "channel " << c << " at " << oh << ", " << ow;
      }
}

TEST(ResizeTensorFlowModes, HalfPixelForNearestMatchesDefinition) {
  const Shape xs = {2, 3, 7, 9}, ys = {2, 3, 4, 13};
  // (N and C unchanged.)
  std::vector<float> x = randomVector(numElements(xs), 0, 2, 13);
  for (NearestMode m : {NearestMode::RoundPreferFloor, NearestMode::Floor,
                        NearestMode::Ceil}) {
    ResizeParams p;
    p.transform = CoordinateTransform::TfHalfPixelForNn;
    p.nearest = m;
    std::vector<float> got(numElements(ys));
    resize(p, x.data(), xs, got.data(), ys);
    // Every resized dimension maps (o + 0.5) / scale; the unchanged ones
    // are copied (as ONNX Runtime does).
    auto source = [&](int64_t o, size_t d) -> int64_t {
      if (xs[d] == ys[d])
        return o;
      double c = (o + 0.5) / (double(ys[d]) / xs[d]);
      double r = m == NearestMode::Floor  ? std::floor(c)
                 : m == NearestMode::Ceil ? std::ceil(c)
                 : c - std::floor(c) == 0.5 ? std::floor(c)
                                            : std::round(c);
      return std::clamp<int64_t>(static_cast<int64_t>(r), 0, xs[d] - 1);
    };
    for (int64_t i = 0; i < numElements(ys); ++i) {
      int64_t rest = i, src = 0;
      Shape o(4);
      for (size_t d = 4; d-- > 0;)
        o[d] = rest % ys[d], rest /= ys[d];
      for (size_t d = 0; d < 4; ++d)
        src = src * xs[d] + source(o[d], d);
      EXPECT_EQ(got[i], x[src]) << "output " << i << " nearest mode "
                                << static_cast<int>(m);
    }
  }
}
