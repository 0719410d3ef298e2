//===- LinalgTest.cpp - einsum's and det's kernels vs plain references ----===//
//
// Part of opscope. Einsum's general form (generic.h) on the equations
// exported models use, written out as the loops they stand for: a batched
// matmul, a transpose, a row sum, a diagonal, a trace, an outer product, a
// three-input contraction and a broadcast, in f64, f32 and i64; Det against
// the cofactor expansion.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/generic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

using namespace opscope::rt;

namespace {
template <typename T> std::vector<T> values(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-4, 4);
  std::vector<T> v(n);
  for (T &x : v)
    x = static_cast<T>(dist(rng)) / T(2);
  return v;
}

template <typename T>
std::vector<T> run(DType t, const std::vector<std::vector<T>> &in,
                   const std::vector<Shape> &shapes, const Shape &labels,
                   const Shape &out) {
  std::vector<const void *> ptrs;
  for (auto &v : in)
    ptrs.push_back(v.data());
  std::vector<T> y(numElements(out), T(99));
  EXPECT_TRUE(einsum(t, ptrs, shapes, labels, out, y.data()));
  return y;
}
} // namespace

// "bij,bjk->bik" (b=0, i=1, j=2, k=3), odd sizes.
TEST(Einsum, BatchedMatMulF64) {
  const int64_t B = 3, I = 5, J = 7, K = 2;
  auto a = values<double>(B * I * J, 1), b = values<double>(B * J * K, 2);
  auto y = run<double>(DType::F64, {a, b}, {{B, I, J}, {B, J, K}},
                       {0, 1, 2, 0, 2, 3, 0, 1, 3}, {B, I, K});
  for (int64_t n = 0; n < B; ++n)
    for (int64_t i = 0; i < I; ++i)
      for (int64_t k = 0; k < K; ++k) {
        double want = 0;
        for (int64_t j = 0; j < J; ++j)
          want += a[(n * I + i) * J + j] * b[(n * J + j) * K + k];
        EXPECT_DOUBLE_EQ(y[(n * I + i) * K + k], want);
      }
}

// "ij->ji", "ij->i", "ii->i", "ii" (a trace), "i,j->ij".
TEST(Einsum, TransposeSumDiagonalTraceOuterF32) {
  const int64_t I = 4, J = 3;
  auto x = values<float>(I * J, 3);
  auto t = run<float>(DType::F32, {x}, {{I, J}}, {0, 1, 1, 0}, {J, I});
  auto s = run<float>(DType::F32, {x}, {{I, J}}, {0, 1, 0}, {I});
  for (int64_t i = 0; i < I; ++i) {
    float sum = 0;
    for (int64_t j = 0; j < J; ++j) {
      EXPECT_EQ(t[j * I + i], x[i * J + j]);
      sum += x[i * J + j];
    }
    EXPECT_FLOAT_EQ(s[i], sum);
  }
  auto sq = values<float>(I * I, 4);
  auto d = run<float>(DType::F32, {sq}, {{I, I}}, {0, 0, 0}, {I});
  auto tr = run<float>(DType::F32, {sq}, {{I, I}}, {0, 0}, {});
  float trace = 0;
  for (int64_t i = 0; i < I; ++i) {
    EXPECT_EQ(d[i], sq[i * I + i]);
    trace += sq[i * I + i];
  }
  EXPECT_FLOAT_EQ(tr[0], trace);
  auto u = values<float>(I, 5), v = values<float>(J, 6);
  auto o = run<float>(DType::F32, {u, v}, {{I}, {J}}, {0, 1, 0, 1}, {I, J});
  for (int64_t i = 0; i < I; ++i)
    for (int64_t j = 0; j < J; ++j)
      EXPECT_EQ(o[i * J + j], u[i] * v[j]);
}

// "ij,jk,k->i" in i64, and "...i,...i->..." with the ellipsis' dimension
// 1 in the first input and 4 in the second (broadcast).
TEST(Einsum, ThreeInputsAndBroadcastI64) {
  const int64_t I = 3, J = 4, K = 5;
  auto a = values<int64_t>(I * J, 7), b = values<int64_t>(J * K, 8),
       c = values<int64_t>(K, 9);
  auto y = run<int64_t>(DType::I64, {a, b, c}, {{I, J}, {J, K}, {K}},
                        {0, 1, 1, 2, 2, 0}, {I});
  for (int64_t i = 0; i < I; ++i) {
    int64_t want = 0;
    for (int64_t j = 0; j < J; ++j)
      for (int64_t k = 0; k < K; ++k)
        want += a[i * J + j] * b[j * K + k] * c[k];
    EXPECT_EQ(y[i], want);
  }
  auto p = values<int64_t>(3, 10), q = values<int64_t>(4 * 3, 11);
  auto r = run<int64_t>(DType::I64, {p, q}, {{1, 3}, {4, 3}}, {0, 1, 0, 1, 0},
                        {4});
  for (int64_t n = 0; n < 4; ++n) {
    int64_t want = 0;
    for (int64_t i = 0; i < 3; ++i)
      want += p[i] * q[n * 3 + i];
    EXPECT_EQ(r[n], want);
  }
}

TEST(Einsum, RefusesOtherTypes) {
  std::vector<uint8_t> x(4), y(4);
  std::vector<const void *> in{x.data()};
  EXPECT_FALSE(einsum(DType::U8, in, {{4}}, {0, 0}, {4}, y.data()));
}

// Det against the cofactor expansion, on 1x1 to 4x4 batches, a singular
// matrix and a row swap's sign; and the empty matrix's 1.
TEST(Det, MatchesCofactorExpansion) {
  std::function<double(const std::vector<double> &, int64_t)> cofactor =
      [&](const std::vector<double> &a, int64_t n) -> double {
    if (n == 0)
      return 1.0;
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      std::vector<double> minor;
      for (int64_t r = 1; r < n; ++r)
        for (int64_t c = 0; c < n; ++c)
          if (c != j)
            minor.push_back(a[r * n + c]);
      sum += (j % 2 ? -1.0 : 1.0) * a[j] * cofactor(minor, n - 1);
    }
    return sum;
  };
  for (int64_t n : {0, 1, 2, 3, 4}) {
    const int64_t batch = 3;
    auto x = values<double>(batch * n * n, 12 + n);
    if (n >= 2) {
      // The second matrix singular (two equal rows), the third's first
      // pivot zero (a swap needed).
      for (int64_t c = 0; c < n; ++c) {
        x[n * n + n + c] = x[n * n + c];
        x[2 * n * n + c * n] = c == 1 ? 2.0 : 0.0;
      }
    }
    std::vector<double> y(batch);
    ASSERT_TRUE(det(DType::F64, x.data(), {batch, n, n}, y.data()));
    std::vector<float> xf(x.begin(), x.end()), yf(batch);
    ASSERT_TRUE(det(DType::F32, xf.data(), {batch, n, n}, yf.data()));
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<double> m(x.begin() + b * n * n, x.begin() + (b + 1) * n * n);
      double want = cofactor(m, n);
      EXPECT_NEAR(y[b], want, 1e-12 * (1 + std::fabs(want)))
          << n << "x" << n << " matrix " << b;
      EXPECT_NEAR(yf[b], want, 1e-5 * (1 + std::fabs(want)))
          << n << "x" << n << " matrix " << b << " (f32)";
    }
  }
  std::vector<int32_t> xi(4), yi(1);
  EXPECT_FALSE(det(DType::I32, xi.data(), {2, 2}, yi.data()));
}
