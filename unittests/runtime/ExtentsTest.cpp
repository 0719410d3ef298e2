//===- ExtentsTest.cpp - kernels with a run-time extent vs references -----===//
//
// NonZero and Compress (extents.h) against plain references that build the
// actual (unbounded) result element by element, on odd sizes, every axis,
// each element type class (floats with -0.0 and NaN, integers, bool), and
// conditions shorter and longer than the axis. The bound's padding must be
// zero.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/extents.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace opscope;
using namespace opscope::rt;

namespace {
int64_t count(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// Reference NonZero: the coordinates, one vector per non-zero element.
template <typename T>
std::vector<std::vector<int64_t>> nonZeroRef(const std::vector<T> &x,
                                             const Shape &shape) {
  std::vector<std::vector<int64_t>> cols;
  for (int64_t i = 0; i < count(shape); ++i) {
    if (!(x[i] != T(0)))
      continue;
    std::vector<int64_t> c(shape.size());
    int64_t rest = i;
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      c[d] = rest % shape[d];
      rest /= shape[d];
    }
    cols.push_back(c);
  }
  return cols;
}

template <typename T>
void checkNonZero(DType t, const std::vector<T> &x, const Shape &shape) {
  int64_t n = count(shape), rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> got(rank * n, -7);
  int64_t k = nonZero(t, x.data(), shape, got.data());
  auto want = nonZeroRef(x, shape);
  ASSERT_EQ(k, static_cast<int64_t>(want.size()));
  for (int64_t d = 0; d < rank; ++d)
    for (int64_t j = 0; j < n; ++j)
      EXPECT_EQ(got[d * n + j], j < k ? want[j][d] : 0)
          << "axis " << d << " column " << j;
}

TEST(Extents, NonZeroFloats) {
  for (Shape shape : {Shape{1}, Shape{3}, Shape{17}, Shape{2, 3}, Shape{3, 1, 5},
                      Shape{2, 3, 4, 1}}) {
    std::mt19937 rng(count(shape));
    std::uniform_int_distribution<int> d(-2, 2);
    std::vector<float> x(count(shape));
    for (float &v : x)
      v = static_cast<float>(d(rng)) * (d(rng) > 0 ? 1.f : 0.f);
    checkNonZero(DType::F32, x, shape);
  }
  // -0.0 is zero; NaN and denormals are not.
  std::vector<float> special{-0.0f, std::nanf(""), 0.0f,
                             std::numeric_limits<float>::denorm_min()};
  std::vector<int64_t> idx(4);
  EXPECT_EQ(nonZero(DType::F32, special.data(), {4}, idx.data()), 2);
  EXPECT_EQ(idx[0], 1);
  EXPECT_EQ(idx[1], 3);
  std::vector<double> dz{-0.0, 1.0};
  EXPECT_EQ(nonZero(DType::F64, dz.data(), {2}, idx.data()), 1);
}

TEST(Extents, NonZeroIntegersAndBool) {
  std::vector<int64_t> x{0, -1, 0, 0, 1LL << 40, 3, 0};
  checkNonZero(DType::I64, x, {7});
  std::vector<int32_t> y{0, 5, -3, 0, 0, 0};
  checkNonZero(DType::I32, y, {2, 3});
  std::vector<uint8_t> b{1, 0, 0, 1, 1, 0};
  checkNonZero(DType::I1, b, {3, 2});
  std::vector<int8_t> none(5, 0);
  checkNonZero(DType::I8, none, {5});
}

/// Reference Compress: the kept slices along axis (-1: flattened).
std::vector<float> compressRef(const std::vector<float> &x, const Shape &shape,
                               int64_t axis, const std::vector<uint8_t> &cond,
                               Shape &outShape) {
  std::vector<float> out;
  if (axis < 0) {
    for (size_t i = 0; i < x.size() && i < cond.size(); ++i)
      if (cond[i])
        out.push_back(x[i]);
    outShape = {static_cast<int64_t>(out.size())};
    return out;
  }
  int64_t outer = 1, inner = 1, len = shape[axis];
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  int64_t kept = 0;
  for (int64_t j = 0; j < len && j < static_cast<int64_t>(cond.size()); ++j)
    kept += cond[j] != 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < len && j < static_cast<int64_t>(cond.size()); ++j)
      if (cond[j])
        for (int64_t i = 0; i < inner; ++i)
          out.push_back(x[(o * len + j) * inner + i]);
  outShape = shape;
  outShape[axis] = kept;
  return out;
}

TEST(Extents, Compress) {
  for (Shape shape : {Shape{1}, Shape{17}, Shape{3, 5}, Shape{2, 3, 4}}) {
    for (int64_t axis = -1; axis < static_cast<int64_t>(shape.size());
         ++axis) {
      int64_t len = axis < 0 ? count(shape) : shape[axis];
      for (int64_t condLen : {len - 1, len, len + 2}) {
        if (condLen < 1)
          continue;
        std::mt19937 rng(condLen * 31 + axis);
        std::vector<uint8_t> cond(condLen);
        for (uint8_t &c : cond)
          c = rng() % 2;
        std::vector<float> x(count(shape));
        for (size_t i = 0; i < x.size(); ++i)
          x[i] = static_cast<float>(i) + 0.5f;
        Shape boundShape = axis < 0 ? Shape{std::min(len, condLen)} : shape;
        if (axis >= 0)
          boundShape[axis] = std::min(len, condLen);
        std::vector<float> y(count(boundShape), -7.f);
        int64_t k = compress(sizeof(float), x.data(), shape, axis, cond.data(),
                             condLen, y.data());
        Shape want;
        std::vector<float> ref = compressRef(x, shape, axis, cond, want);
        int64_t a = axis < 0 ? 0 : axis;
        ASSERT_EQ(k, want[a]) << "axis " << axis << " condLen " << condLen;
        // The bound's layout: per outer row, the kept slices, then zeros.
        int64_t outer = 1;
        for (int64_t d = 0; d < a; ++d)
          outer *= boundShape[d];
        int64_t slice = count(boundShape) / outer / boundShape[a];
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t j = 0; j < boundShape[a]; ++j)
            for (int64_t i = 0; i < slice; ++i) {
              float g = y[(o * boundShape[a] + j) * slice + i];
              float w = j < k ? ref[(o * k + j) * slice + i] : 0.f;
              EXPECT_EQ(g, w) << "axis " << axis << " row " << o << " slice "
                              << j << " element " << i;
            }
      }
    }
  }
}
} // namespace

namespace {
/// Reference Unique on slices along `axis` (-1: flattened): the distinct
/// slices by a linear search in order of first occurrence, sorted after if
/// asked, as vectors of the slice's elements.
struct UniqueRef {
  std::vector<std::vector<int64_t>> slices;
  std::vector<int64_t> indices, inverse, counts;
};

UniqueRef uniqueRef(const std::vector<int64_t> &x, const Shape &shape,
                    int64_t axis, bool sorted) {
  int64_t outer = 1, len = count(shape), inner = 1;
  if (axis >= 0) {
    len = shape[axis];
    for (int64_t d = 0; d < axis; ++d)
      outer *= shape[d];
    for (size_t d = axis + 1; d < shape.size(); ++d)
      inner *= shape[d];
  }
  auto slice = [&](int64_t j) {
    std::vector<int64_t> s;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        s.push_back(x[(o * len + j) * inner + i]);
    return s;
  };
  UniqueRef r;
  for (int64_t j = 0; j < len; ++j) {
    auto s = slice(j);
    size_t k = 0;
    while (k < r.slices.size() && r.slices[k] != s)
      ++k;
    if (k == r.slices.size()) {
      r.slices.push_back(s);
      r.indices.push_back(j);
      r.counts.push_back(0);
    }
    ++r.counts[k];
  }
  if (sorted) {
    std::vector<size_t> p(r.slices.size());
    for (size_t i = 0; i < p.size(); ++i)
      p[i] = i;
    std::sort(p.begin(), p.end(),
              [&](size_t a, size_t b) { return r.slices[a] < r.slices[b]; });
    UniqueRef s;
    for (size_t i : p) {
      s.slices.push_back(r.slices[i]);
      s.indices.push_back(r.indices[i]);
      s.counts.push_back(r.counts[i]);
    }
    r = s;
  }
  for (int64_t j = 0; j < len; ++j) {
    auto s = slice(j);
    for (size_t k = 0; k < r.slices.size(); ++k)
      if (r.slices[k] == s)
        r.inverse.push_back(static_cast<int64_t>(k));
  }
  return r;
}

TEST(Extents, Unique) {
  for (Shape shape : {Shape{1}, Shape{17}, Shape{4, 3}, Shape{3, 5, 2}}) {
    for (int64_t axis = -1; axis < static_cast<int64_t>(shape.size());
         ++axis) {
      for (bool sorted : {true, false}) {
        std::mt19937 rng(count(shape) + axis * 7 + sorted);
        std::vector<int64_t> x(count(shape));
        for (int64_t &v : x)
          v = static_cast<int64_t>(rng() % 3) - 1; // many repeats
        int64_t len = axis < 0 ? count(shape) : shape[axis];
        UniqueRef ref = uniqueRef(x, shape, axis, sorted);
        std::vector<int64_t> y(x.size(), -7), idx(len, -7), inv(len, -7),
            cnt(len, -7);
        int64_t u = unique(DType::I64, x.data(), shape, axis, sorted, y.data(),
                           idx.data(), inv.data(), cnt.data());
        ASSERT_EQ(u, static_cast<int64_t>(ref.slices.size()))
            << "axis " << axis << " sorted " << sorted;
        int64_t outer = 1, inner = 1;
        if (axis >= 0) {
          for (int64_t d = 0; d < axis; ++d)
            outer *= shape[d];
          inner = count(shape) / outer / len;
        }
        for (int64_t p = 0; p < len; ++p) {
          EXPECT_EQ(idx[p], p < u ? ref.indices[p] : 0);
          EXPECT_EQ(cnt[p], p < u ? ref.counts[p] : 0);
          EXPECT_EQ(inv[p], ref.inverse[p]);
          for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i)
              EXPECT_EQ(y[(o * len + p) * inner + i],
                        p < u ? ref.slices[p][o * inner + i] : 0)
                  << "axis " << axis << " slice " << p;
        }
      }
    }
  }
}

TEST(Extents, UniqueFloatsNaN) {
  float nan = std::nanf("");
  std::vector<float> x{2.f, nan, -1.f, 2.f, nan, -0.f};
  std::vector<float> y(6);
  std::vector<int64_t> idx(6), inv(6), cnt(6);
  int64_t u = unique(DType::F32, x.data(), {6}, -1, true, y.data(), idx.data(),
                     inv.data(), cnt.data());
  ASSERT_EQ(u, 4);
  EXPECT_EQ(y[0], -1.f);
  EXPECT_EQ(y[1], 0.f);
  EXPECT_EQ(y[2], 2.f);
  EXPECT_TRUE(std::isnan(y[3]));
  EXPECT_EQ(cnt[2], 2);
  EXPECT_EQ(cnt[3], 2);
  EXPECT_EQ(idx[3], 1);
  EXPECT_EQ(inv[4], 3);
}
} // namespace
