//===- VisionKernelsTest.cpp - the image ops' kernels vs plain references -===//
//
// Part of opscope. InstanceNormalization and LRN at every tier of the
// kernel table the CPU allows, on sizes whose rows end in vector tails (1,
// 3, 17, 773 elements), against double-precision references written from
// the ONNX spec.
//
//===----------------------------------------------------------------------===//

#include "Tiers.h"

#include "opscope/runtime/generic.h"

#include <gtest/gtest.h>

#include <cmath>
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

INSTANTIATE_TEST_SUITE_P(
    Tiers, VisionKernelsTest,
    ::testing::ValuesIn(opscope::rt::tiers::kernelLevels()),
    opscope::rt::tiers::levelParamName);
