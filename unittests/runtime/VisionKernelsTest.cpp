//===- VisionKernelsTest.cpp - the image ops' kernels vs plain references -===//
//
// Part of opscope. InstanceNormalization and the other image ops
// (generic.h) at every tier of the kernel table the CPU allows, on sizes
// whose rows end in vector tails (1, 3, 17, 773 elements), against
// double-precision references written from the ONNX spec.
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

INSTANTIATE_TEST_SUITE_P(
    Tiers, VisionKernelsTest,
    ::testing::ValuesIn(opscope::rt::tiers::kernelLevels()),
    opscope::rt::tiers::levelParamName);
