//===- DenseTest.cpp - oneDNN inner product vs a plain reference ----------===//
//
// Part of opscope. Odd sizes (1, 3, 17 rows; K and N not multiples of the
// vector width) and every post-op, including a sum that aliases the output.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/dense.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace opscope::rt;

namespace {
std::vector<float> randomVector(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

double applyPostOp(PostOp p, double v, double sum) {
  switch (p) {
  case PostOp::Relu:
    return v > 0 ? v : 0;
  case PostOp::GeluErf:
    return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
  case PostOp::GeluTanh:
    return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  case PostOp::Sigmoid:
    return 1 / (1 + std::exp(-v));
  case PostOp::Tanh:
    return std::tanh(v);
  case PostOp::HardSwish:
    return v * std::min(1.0, std::max(0.0, v / 6 + 0.5));
  case PostOp::Sum:
    return v + sum;
  }
  return v;
}

void check(int64_t m, int64_t k, int64_t n, bool bias,
           std::vector<PostOp> postOps, bool sumInPlace) {
  auto x = randomVector(m * k, 1), w = randomVector(n * k, 2),
       b = randomVector(n, 3), r = randomVector(m * n, 4);
  InnerProduct ip(m, k, n, w.data(), bias ? b.data() : nullptr, postOps);
  // The weights were copied at construction: clobbering them must not matter.
  std::vector<float> wCopy = w;
  std::fill(w.begin(), w.end(), 0.0f);
  std::vector<float> y(m * n, 0.0f);
  if (sumInPlace)
    y = r;
  ip.run(x.data(), y.data(), sumInPlace ? y.data() : r.data());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = bias ? b[j] : 0.0;
      for (int64_t l = 0; l < k; ++l)
        acc += double(x[i * k + l]) * wCopy[j * k + l];
      for (PostOp p : postOps)
        acc = applyPostOp(p, acc, r[i * n + j]);
      ASSERT_NEAR(y[i * n + j], acc, 1e-4 + 1e-4 * std::fabs(acc))
          << "m=" << m << " k=" << k << " n=" << n << " at " << i << "," << j;
    }
}
} // namespace

TEST(InnerProduct, PlainAndBias) {
  for (int64_t m : {1, 3, 17})
    for (auto [k, n] : {std::pair<int64_t, int64_t>{5, 7}, {33, 64}, {768, 19}}) {
      check(m, k, n, false, {}, false);
      check(m, k, n, true, {}, false);
    }
}

TEST(InnerProduct, PostOps) {
  for (PostOp p : {PostOp::Relu, PostOp::GeluErf, PostOp::GeluTanh,
                   PostOp::Sigmoid, PostOp::Tanh, PostOp::HardSwish})
    check(3, 33, 17, true, {p}, false);
}

TEST(InnerProduct, ResidualSum) {
  check(17, 64, 33, true, {PostOp::Sum}, false);
  check(17, 64, 33, true, {PostOp::Sum}, /*sumInPlace=*/true);
  // The conv-style order: sum, then the activation.
  check(3, 33, 17, true, {PostOp::Sum, PostOp::Relu}, false);
  check(3, 33, 17, true, {PostOp::GeluErf, PostOp::Sum}, false);
}

TEST(InnerProduct, ReportsImplementation) {
  auto w = randomVector(16 * 16, 5);
  InnerProduct ip(4, 16, 16, w.data(), nullptr, {});
  EXPECT_FALSE(ip.implementation().empty());
}
