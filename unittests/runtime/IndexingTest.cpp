//===- IndexingTest.cpp - indexing kernels against plain references -------===//
//
// Each kernel of indexing.h against a naive element-by-element reference
// on odd sizes (1, 3, 17, rows that are not a multiple of a vector), every
// axis, and the ONNX attributes; the kernels that read indices also get
// negative indices and an index out of range, which must be refused
// without writing outside the output.
//
//===----------------------------------------------------------------------===//

#include "Tiers.h"

#include "opscope/runtime/indexing.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

using namespace opscope;
using namespace opscope::rt;

namespace {
template <typename T>
std::vector<T> randomValues(int64_t n, unsigned seed, int lo = -9,
                            int hi = 9) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n);
  for (T &x : v)
    x = static_cast<T>(d(rng)) / T(1 + (std::is_floating_point_v<T> ? 3 : 0));
  return v;
}

int64_t count(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// Multi-index of linear index i in shape s.
Shape unravel(int64_t i, const Shape &s) {
  Shape idx(s.size());
  for (size_t d = s.size(); d-- > 0;) {
    idx[d] = i % s[d];
    i /= s[d];
  }
  return idx;
}

int64_t ravel(const Shape &idx, const Shape &s) {
  int64_t off = 0;
  for (size_t d = 0; d < s.size(); ++d)
    off = off * s[d] + idx[d];
  return off;
}

/// CumSum by its definition: for each output element, the sum over the
/// positions along the axis that it covers, in the order ONNX adds them.
template <typename T>
std::vector<T> cumSumReference(const std::vector<T> &x, const Shape &s,
                               int64_t axis, bool exclusive, bool reverse) {
  std::vector<T> y(x.size());
  for (int64_t i = 0; i < count(s); ++i) {
    Shape idx = unravel(i, s);
    int64_t j = idx[axis], len = s[axis];
    T sum = 0;
    if (!reverse) {
      for (int64_t k = 0; k < (exclusive ? j : j + 1); ++k) {
        idx[axis] = k;
        sum += x[ravel(idx, s)];
      }
    } else {
      for (int64_t k = len - 1; k > (exclusive ? j : j - 1); --k) {
        idx[axis] = k;
        sum += x[ravel(idx, s)];
      }
    }
    y[i] = sum;
  }
  return y;
}

template <typename T> void checkCumSum(DType t, const Shape &s, unsigned seed) {
  std::vector<T> x = randomValues<T>(count(s), seed);
  for (int64_t axis = 0; axis < static_cast<int64_t>(s.size()); ++axis)
    for (bool exclusive : {false, true})
      for (bool reverse : {false, true}) {
        SCOPED_TRACE(::testing::Message()
                     << "axis " << axis << " exclusive " << exclusive
                     << " reverse " << reverse);
        std::vector<T> y(x.size(), T(77));
        cumSum(t, x.data(), s, axis, exclusive, reverse, y.data());
        EXPECT_EQ(y, cumSumReference(x, s, axis, exclusive, reverse));
      }
}
} // namespace

TEST(IndexingCumSum, MatchesReferenceAtEveryTier) {
  // Values are multiples of 1/4 small enough that every f32 sum is exact,
  // so the row kernels and the scalar loop must agree bit for bit.
  tiers::forEachTier([](IsaLevel) {
    for (const Shape &s : {Shape{1}, Shape{17}, Shape{3, 17}, Shape{2, 5, 19},
                           Shape{4, 1, 33}, Shape{2, 0, 3}})
      checkCumSum<float>(DType::F32, s, 1);
  });
}

TEST(IndexingCumSum, IntegerAndDoubleTypes) {
  checkCumSum<int64_t>(DType::I64, {3, 17}, 2);
  checkCumSum<int32_t>(DType::I32, {2, 3, 5}, 3);
  checkCumSum<double>(DType::F64, {5, 7}, 4);
  // Integer sums wrap instead of overflowing (undefined in C++).
  std::vector<int32_t> big = {INT32_MAX, 1}, y(2);
  cumSum(DType::I32, big.data(), {2}, 0, false, false, y.data());
  EXPECT_EQ(y[1], INT32_MIN);
}
