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

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
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

namespace {
/// TopK by repeated selection: k times, the best element not yet taken
/// (largest or smallest; on equal values the first position).
template <typename T>
void topKReference(const std::vector<T> &x, const Shape &s, int64_t axis,
                   int64_t k, bool smallest, std::vector<T> &values,
                   std::vector<int64_t> &indices) {
  Shape ys = s;
  ys[axis] = k;
  values.assign(count(ys), T(0));
  indices.assign(count(ys), -1);
  for (int64_t i = 0; i < count(ys); ++i) {
    Shape idx = unravel(i, ys);
    if (idx[axis] != 0)
      continue;
    std::vector<bool> taken(s[axis], false);
    for (int64_t j = 0; j < k; ++j) {
      int64_t best = -1;
      for (int64_t p = 0; p < s[axis]; ++p) {
        if (taken[p])
          continue;
        Shape at = idx;
        at[axis] = p;
        if (best < 0) {
          best = p;
          continue;
        }
        Shape bestAt = idx;
        bestAt[axis] = best;
        T v = x[ravel(at, s)], b = x[ravel(bestAt, s)];
        if (smallest ? v < b : v > b)
          best = p;
      }
      taken[best] = true;
      Shape at = idx, out = idx;
      at[axis] = best;
      out[axis] = j;
      values[ravel(out, ys)] = x[ravel(at, s)];
      indices[ravel(out, ys)] = best;
    }
  }
}

template <typename T> void checkTopK(DType t, const Shape &s, unsigned seed) {
  // A range of 5 values: most slices hold ties.
  std::vector<T> x = randomValues<T>(count(s), seed, -2, 2);
  for (int64_t axis = 0; axis < static_cast<int64_t>(s.size()); ++axis)
    for (int64_t k : {int64_t(0), int64_t(1), s[axis] / 2, s[axis]})
      for (bool smallest : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "axis " << axis << " k " << k
                                          << " smallest " << smallest);
        Shape ys = s;
        ys[axis] = k;
        std::vector<T> v(count(ys)), ev;
        std::vector<int64_t> i(count(ys)), ei;
        topK(t, x.data(), s, axis, k, smallest, v.data(), i.data());
        topKReference(x, s, axis, k, smallest, ev, ei);
        EXPECT_EQ(v, ev);
        EXPECT_EQ(i, ei);
        // A run-time k: results bounded by the axis length (filled with
        // stale data first), the k entries first along the axis, 0 after.
        std::vector<T> bv(count(s), T(7)), bev(count(s), T(0));
        std::vector<int64_t> bi(count(s), 7), bei(count(s), 0);
        topK(t, x.data(), s, axis, k, smallest, bv.data(), bi.data(), s[axis]);
        for (int64_t e = 0; e < count(ys); ++e) {
          int64_t at = ravel(unravel(e, ys), s);
          bev[at] = ev[e];
          bei[at] = ei[e];
        }
        EXPECT_EQ(bv, bev);
        EXPECT_EQ(bi, bei);
      }
}
} // namespace

TEST(IndexingTopK, MatchesSelectionWithTiesByIndex) {
  checkTopK<float>(DType::F32, {17}, 5);
  checkTopK<float>(DType::F32, {3, 17}, 6);
  checkTopK<float>(DType::F32, {2, 5, 3}, 7);
  checkTopK<int64_t>(DType::I64, {4, 9}, 8);
  checkTopK<int32_t>(DType::I32, {3, 1, 6}, 9);
  checkTopK<double>(DType::F64, {6, 4}, 10);
}

TEST(IndexingTopK, TiesAndNaN) {
  // ONNX's example of ties: the lower index first, in both directions.
  std::vector<float> x = {3, 1, 3, 2, 1};
  std::vector<float> v(3);
  std::vector<int64_t> i(3);
  topK(DType::F32, x.data(), {5}, 0, 3, false, v.data(), i.data());
  EXPECT_EQ(v, (std::vector<float>{3, 3, 2}));
  EXPECT_EQ(i, (std::vector<int64_t>{0, 2, 3}));
  topK(DType::F32, x.data(), {5}, 0, 3, true, v.data(), i.data());
  EXPECT_EQ(v, (std::vector<float>{1, 1, 2}));
  EXPECT_EQ(i, (std::vector<int64_t>{1, 4, 3}));
  // A NaN is above every number: first when largest, last when smallest.
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> n = {1, nan, 5, nan};
  std::vector<float> nv(4);
  std::vector<int64_t> ni(4);
  topK(DType::F32, n.data(), {4}, 0, 4, false, nv.data(), ni.data());
  EXPECT_EQ(ni, (std::vector<int64_t>{1, 3, 2, 0}));
  topK(DType::F32, n.data(), {4}, 0, 4, true, nv.data(), ni.data());
  EXPECT_EQ(ni, (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_TRUE(std::isnan(nv[3]));
}

namespace {
/// GatherND by its definition, element by element: output position
/// (batch, tuple position, slice position) reads data at (batch, the
/// tuple's indices made non-negative, slice position).
std::vector<float> gatherNDReference(const std::vector<float> &x,
                                     const Shape &ds,
                                     const std::vector<int64_t> &idx,
                                     const Shape &is, int64_t b) {
  int64_t m = is.back();
  Shape ys(is.begin(), is.end() - 1);
  ys.insert(ys.end(), ds.begin() + b + m, ds.end());
  std::vector<float> y(count(ys));
  for (int64_t i = 0; i < count(ys); ++i) {
    Shape at = unravel(i, ys);
    Shape tuplePos(at.begin(), at.begin() + is.size() - 1);
    tuplePos.push_back(0);
    Shape src(at.begin(), at.begin() + b);
    for (int64_t j = 0; j < m; ++j) {
      tuplePos.back() = j;
      int64_t v = idx[ravel(tuplePos, is)];
      src.push_back(v < 0 ? v + ds[b + j] : v);
    }
    src.insert(src.end(), at.begin() + is.size() - 1, at.end());
    y[i] = x[ravel(src, ds)];
  }
  return y;
}

/// Random indices in [-dim, dim) for each tuple position.
std::vector<int64_t> randomTuples(const Shape &ds, const Shape &is, int64_t b,
                                  unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int64_t> idx(count(is));
  int64_t m = is.back();
  for (size_t i = 0; i < idx.size(); ++i) {
    int64_t dim = ds[b + i % m];
    idx[i] = std::uniform_int_distribution<int64_t>(-dim, dim - 1)(rng);
  }
  return idx;
}
} // namespace

TEST(IndexingGatherND, MatchesDefinition) {
  struct Case {
    Shape ds, is;
    int64_t b;
  };
  for (const Case &k : {Case{{2, 2}, {2, 2}, 0}, Case{{2, 2}, {2, 1}, 0},
                        Case{{3, 4, 5}, {7, 2}, 0}, Case{{3, 4, 5}, {3, 1}, 0},
                        Case{{3, 4, 5}, {3, 2, 1}, 1},
                        Case{{2, 3, 4, 5}, {2, 3, 6, 1}, 2},
                        Case{{17}, {5, 1}, 0}}) {
    SCOPED_TRACE(::testing::Message() << "indices rank " << k.is.size()
                                      << " batch_dims " << k.b);
    std::vector<float> x = randomValues<float>(count(k.ds), 11, -99, 99);
    std::vector<int64_t> idx = randomTuples(k.ds, k.is, k.b, 12);
    std::vector<float> want = gatherNDReference(x, k.ds, idx, k.is, k.b);
    std::vector<float> y(want.size());
    ASSERT_TRUE(gatherND(x.data(), k.ds, idx.data(), DType::I64, k.is, k.b,
                         y.data(), sizeof(float)));
    EXPECT_EQ(y, want);
    // The same indices as i32.
    std::vector<int32_t> idx32(idx.begin(), idx.end());
    std::fill(y.begin(), y.end(), 0.f);
    ASSERT_TRUE(gatherND(x.data(), k.ds, idx32.data(), DType::I32, k.is, k.b,
                         y.data(), sizeof(float)));
    EXPECT_EQ(y, want);
  }
}

TEST(IndexingGatherND, OutOfRangeIsRefusedWithoutReadingPastData) {
  std::vector<float> x = {1, 2, 3, 4};
  // One slot after the output guards against writes past it.
  std::vector<float> y(3, -1);
  for (int64_t bad : {int64_t(2), int64_t(-3), INT64_MAX, INT64_MIN}) {
    std::vector<int64_t> idx = {1, bad};
    EXPECT_FALSE(gatherND(x.data(), {2, 2}, idx.data(), DType::I64, {2, 1},
                          0, y.data(), sizeof(float)))
        << bad;
    EXPECT_EQ(y[2], -1);
  }
}

namespace {
/// ScatterND by its definition: data copied, then each update element
/// combined in index order with the element its tuple and slice position
/// name.
template <typename T>
std::vector<T> scatterNDReference(ScatterReduction r, std::vector<T> y,
                                  const Shape &ds,
                                  const std::vector<int64_t> &idx,
                                  const Shape &is, const std::vector<T> &u) {
  int64_t m = is.back();
  Shape us(is.begin(), is.end() - 1);
  us.insert(us.end(), ds.begin() + m, ds.end());
  for (int64_t i = 0; i < count(us); ++i) {
    Shape at = unravel(i, us);
    Shape tuplePos(at.begin(), at.begin() + is.size() - 1);
    tuplePos.push_back(0);
    Shape dst;
    for (int64_t j = 0; j < m; ++j) {
      tuplePos.back() = j;
      int64_t v = idx[ravel(tuplePos, is)];
      dst.push_back(v < 0 ? v + ds[j] : v);
    }
    dst.insert(dst.end(), at.begin() + is.size() - 1, at.end());
    T &e = y[ravel(dst, ds)];
    switch (r) {
    case ScatterReduction::None:
      e = u[i];
      break;
    case ScatterReduction::Add:
      e += u[i];
      break;
    case ScatterReduction::Mul:
      e *= u[i];
      break;
    case ScatterReduction::Max:
      e = e > u[i] ? e : u[i];
      break;
    case ScatterReduction::Min:
      e = e < u[i] ? e : u[i];
      break;
    }
  }
  return y;
}

const ScatterReduction kReductions[] = {
    ScatterReduction::None, ScatterReduction::Add, ScatterReduction::Mul,
    ScatterReduction::Max, ScatterReduction::Min};
} // namespace

TEST(IndexingScatterND, MatchesDefinitionWithDuplicates) {
  struct Case {
    Shape ds, is;
  };
  for (const Case &k : {Case{{8}, {4, 1}}, Case{{4, 4, 4}, {2, 1}},
                        Case{{3, 5, 2}, {6, 2}}, Case{{3, 5, 2}, {2, 3, 3}},
                        Case{{17, 3}, {9, 1}}})
    for (ScatterReduction r : kReductions) {
      SCOPED_TRACE(::testing::Message()
                   << "data rank " << k.ds.size() << " reduction "
                   << kindName(r));
      // Few distinct tuples: duplicates are common, and the order in which
      // they apply matters for none.
      std::vector<int64_t> idx = randomTuples(k.ds, k.is, 0, 13);
      Shape us(k.is.begin(), k.is.end() - 1);
      us.insert(us.end(), k.ds.begin() + k.is.back(), k.ds.end());
      std::vector<int64_t> data = randomValues<int64_t>(count(k.ds), 14);
      std::vector<int64_t> upd = randomValues<int64_t>(count(us), 15);
      std::vector<int64_t> y(data.size());
      ASSERT_TRUE(scatterND(r, DType::I64, data.data(), k.ds, idx.data(),
                            DType::I64, k.is, upd.data(), y.data()));
      EXPECT_EQ(y, scatterNDReference(r, data, k.ds, idx, k.is, upd));
      // In place (y is data), f32 values (small integers: every sum and
      // product is exact, so the kernel table's rows must agree bit for bit
      // at every tier).
      std::vector<float> fu(upd.begin(), upd.end());
      std::vector<float> want = scatterNDReference(
          r, std::vector<float>(data.begin(), data.end()), k.ds, idx, k.is, fu);
      tiers::forEachTier([&](IsaLevel) {
        std::vector<float> fd(data.begin(), data.end());
        ASSERT_TRUE(scatterND(r, DType::F32, fd.data(), k.ds, idx.data(),
                              DType::I64, k.is, fu.data(), fd.data()));
        EXPECT_EQ(fd, want);
      });
    }
}

TEST(IndexingScatterND, OutOfRangeWritesNothing) {
  std::vector<float> data = {1, 2, 3, 4}, upd = {9, 9}, y(5, -1);
  std::vector<int64_t> idx = {0, 4};
  EXPECT_FALSE(scatterND(ScatterReduction::None, DType::F32, data.data(), {4},
                         idx.data(), DType::I64, {2, 1}, upd.data(),
                         y.data()));
  // Checked before anything is written: the output is as it was.
  EXPECT_EQ(y, std::vector<float>(5, -1));
  idx = {-5, 0};
  EXPECT_FALSE(scatterND(ScatterReduction::Add, DType::F32, data.data(), {4},
                         idx.data(), DType::I64, {2, 1}, upd.data(),
                         data.data()));
  EXPECT_EQ(data, (std::vector<float>{1, 2, 3, 4}));
}

namespace {
/// ScatterElements by its definition: data copied, then each update in
/// row-major order combined with the element at its own position, `axis`
/// replaced by its index.
template <typename T>
std::vector<T> scatterElementsReference(ScatterReduction r, std::vector<T> y,
                                        const Shape &ds,
                                        const std::vector<int64_t> &idx,
                                        const Shape &is, int64_t axis,
                                        const std::vector<T> &u) {
  for (int64_t i = 0; i < count(is); ++i) {
    Shape at = unravel(i, is);
    int64_t v = idx[i];
    at[axis] = v < 0 ? v + ds[axis] : v;
    T &e = y[ravel(at, ds)];
    switch (r) {
    case ScatterReduction::None:
      e = u[i];
      break;
    case ScatterReduction::Add:
      e += u[i];
      break;
    case ScatterReduction::Mul:
      e *= u[i];
      break;
    case ScatterReduction::Max:
      e = e > u[i] ? e : u[i];
      break;
    case ScatterReduction::Min:
      e = e < u[i] ? e : u[i];
      break;
    }
  }
  return y;
}
} // namespace

TEST(IndexingScatterElements, MatchesDefinitionOnEveryAxis) {
  struct Case {
    Shape ds, is;
  };
  for (const Case &k : {Case{{17}, {9}}, Case{{3, 3}, {2, 3}},
                        Case{{4, 5, 6}, {3, 5, 2}}, Case{{1, 5}, {1, 3}}})
    for (int64_t axis = 0; axis < static_cast<int64_t>(k.ds.size()); ++axis)
      for (ScatterReduction r : kReductions) {
        SCOPED_TRACE(::testing::Message() << "data rank " << k.ds.size()
                                          << " axis " << axis << " reduction "
                                          << kindName(r));
        std::mt19937 rng(16 + axis);
        std::vector<int64_t> idx(count(k.is));
        int64_t len = k.ds[axis];
        for (int64_t &v : idx)
          v = std::uniform_int_distribution<int64_t>(-len, len - 1)(rng);
        std::vector<int32_t> data = randomValues<int32_t>(count(k.ds), 17);
        std::vector<int32_t> upd = randomValues<int32_t>(count(k.is), 18);
        std::vector<int32_t> y(data.size());
        ASSERT_TRUE(scatterElements(r, DType::I32, data.data(), k.ds,
                                    idx.data(), DType::I64, k.is, axis,
                                    upd.data(), y.data()));
        EXPECT_EQ(y, scatterElementsReference(r, data, k.ds, idx, k.is, axis,
                                              upd));
        // In place, i32 indices, f64 values.
        std::vector<int32_t> idx32(idx.begin(), idx.end());
        std::vector<double> dd(data.begin(), data.end()),
            du(upd.begin(), upd.end());
        std::vector<double> want =
            scatterElementsReference(r, dd, k.ds, idx, k.is, axis, du);
        ASSERT_TRUE(scatterElements(r, DType::F64, dd.data(), k.ds,
                                    idx32.data(), DType::I32, k.is, axis,
                                    du.data(), dd.data()));
        EXPECT_EQ(dd, want);
      }
}

TEST(IndexingScatterElements, OutOfRangeWritesNothing) {
  std::vector<float> data = {1, 2, 3, 4, 5, 6}, upd = {9, 9}, y(7, -1);
  std::vector<int64_t> idx = {0, 3};
  EXPECT_FALSE(scatterElements(ScatterReduction::None, DType::F32,
                               data.data(), {2, 3}, idx.data(), DType::I64,
                               {1, 2}, 1, upd.data(), y.data()));
  EXPECT_EQ(y, std::vector<float>(7, -1));
  idx = {-4, 0};
  EXPECT_FALSE(scatterElements(ScatterReduction::Max, DType::F32,
                               data.data(), {2, 3}, idx.data(), DType::I64,
                               {1, 2}, 1, upd.data(), data.data()));
  EXPECT_EQ(data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(IndexingReverseSequence, MatchesDefinitionForBothLayouts) {
  for (const Shape &s : {Shape{4, 4}, Shape{5, 3, 7}, Shape{3, 6, 2, 2}})
    for (int64_t timeAxis : {0, 1}) {
      int64_t batchAxis = 1 - timeAxis;
      SCOPED_TRACE(::testing::Message()
                   << "rank " << s.size() << " time axis " << timeAxis);
      std::vector<float> x = randomValues<float>(count(s), 19, -99, 99);
      std::vector<int64_t> lens(s[batchAxis]);
      for (size_t b = 0; b < lens.size(); ++b)
        lens[b] = static_cast<int64_t>(b * 3 % (s[timeAxis] + 1));
      std::vector<float> y(x.size()), want(x.size());
      for (int64_t i = 0; i < count(s); ++i) {
        Shape at = unravel(i, s);
        int64_t n = lens[at[batchAxis]], t = at[timeAxis];
        at[timeAxis] = t < n ? n - 1 - t : t;
        want[i] = x[ravel(at, s)];
      }
      ASSERT_TRUE(reverseSequence(x.data(), s, lens.data(), DType::I64,
                                  batchAxis, timeAxis, y.data(),
                                  sizeof(float)));
      EXPECT_EQ(y, want);
    }
}

TEST(IndexingReverseSequence, LengthOutOfRangeWritesNothing) {
  std::vector<float> x = {1, 2, 3, 4}, y(4, -1);
  for (std::vector<int64_t> lens : {std::vector<int64_t>{2, 3},
                                    std::vector<int64_t>{-1, 1}}) {
    EXPECT_FALSE(reverseSequence(x.data(), {2, 2}, lens.data(), DType::I64, 1,
                                 0, y.data(), sizeof(float)));
    EXPECT_EQ(y, std::vector<float>(4, -1));
  }
}

namespace {
/// TfIdfVectorizer by enumeration, written apart from the kernel's trie:
/// every n-gram of every wanted length and distance (1-grams at distance 1
/// only) compared with every pool n-gram, in ONNX Runtime's order (by
/// distance, then start, then length), each hit of pool n-gram i applied
/// to column ngram_indexes[i]: + 1 (TF), = weights[i] (IDF), + weights[i]
/// (TFIDF).
std::vector<float> tfidfReference(const TfIdfParams &p,
                                  const std::vector<int64_t> &x, int64_t rows,
                                  int64_t length) {
  std::vector<std::vector<int64_t>> grams;
  int64_t size = static_cast<int64_t>(p.pool.size());
  for (size_t level = 0; level < p.ngramCounts.size(); ++level) {
    int64_t n = level + 1, begin = p.ngramCounts[level];
    int64_t end =
        level + 1 < p.ngramCounts.size() ? p.ngramCounts[level + 1] : size;
    for (int64_t i = begin; i < end; i += n)
      grams.emplace_back(p.pool.begin() + i, p.pool.begin() + i + n);
  }
  int64_t columns =
      *std::max_element(p.ngramIndexes.begin(), p.ngramIndexes.end()) + 1;
  std::vector<float> y(rows * columns, 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t d = 1; d <= p.maxSkip + 1; ++d)
      for (int64_t s = 0; s < length; ++s)
        for (int64_t n = std::max<int64_t>(p.minGram, d == 1 ? 1 : 2);
             n <= p.maxGram && s + (n - 1) * d < length; ++n) {
          std::vector<int64_t> g;
          for (int64_t j = 0; j < n; ++j)
            g.push_back(x[r * length + s + j * d]);
          for (size_t i = 0; i < grams.size(); ++i) {
            if (grams[i] != g)
              continue;
            float w = p.weights.empty() ? 1.0f : p.weights[i];
            float &o = y[r * columns + p.ngramIndexes[i]];
            o = p.mode == TfIdfMode::Tf    ? o + 1.0f
                : p.mode == TfIdfMode::Idf ? w
                                           : o + w;
          }
        }
  return y;
}
} // namespace

TEST(IndexingTfIdf, MatchesEnumerationForEveryModeAndLength) {
  // 1- to 3-grams over tokens 0..5 (many repeats), pool n-grams of lengths
  // outside [min, max] included, ngram_indexes a permutation with a column
  // shared by two n-grams.
  TfIdfParams base;
  base.ngramCounts = {0, 4, 10};
  base.pool = {1, 3, 4, 5,        // 1-grams
               1, 3, 3, 4, 5, 1,  // 2-grams
               1, 3, 4, 2, 2, 2}; // 3-grams
  base.ngramIndexes = {6, 0, 2, 5, 1, 3, 4, 0, 7};
  const int64_t rows = 3, length = 17;
  std::vector<int64_t> x = randomValues<int64_t>(rows * length, 29, 0, 5);
  std::vector<int32_t> x32(x.begin(), x.end());
  for (TfIdfMode mode : {TfIdfMode::Tf, TfIdfMode::Idf, TfIdfMode::TfIdf})
    for (auto [minGram, maxGram] :
         {std::pair{1, 1}, std::pair{1, 3}, std::pair{2, 2}, std::pair{2, 3}})
      for (int64_t skip : {0, 1, 4})
        for (bool weighted : {false, true}) {
          TfIdfParams p = base;
          p.mode = mode, p.minGram = minGram, p.maxGram = maxGram;
          p.maxSkip = skip;
          if (weighted)
            p.weights = {0.5f, 2, 0.25f, 3, 1.5f, 0.75f, 4, 8, 9};
          SCOPED_TRACE(::testing::Message()
                       << "mode " << int(mode) << " grams " << minGram << "-"
                       << maxGram << " skip " << skip << " weighted "
                       << weighted);
          TfIdfVectorizer v(p);
          ASSERT_EQ(v.columns(), 8);
          std::vector<float> want = tfidfReference(p, x, rows, length);
          std::vector<float> got(want.size(), -1), got32(want.size(), -1);
          v.run(x.data(), DType::I64, rows, length, got.data());
          v.run(x32.data(), DType::I32, rows, length, got32.data());
          EXPECT_EQ(got, want);
          EXPECT_EQ(got32, want);
        }
}

TEST(IndexingTfIdf, EmptyLevelAndEmptyRows) {
  // ONNX's levelempty case: no 1-grams, three 2-grams.
  TfIdfParams p;
  p.minGram = 2, p.maxGram = 2;
  p.ngramCounts = {0, 0};
  p.pool = {5, 6, 7, 8, 6, 7};
  p.ngramIndexes = {0, 1, 2};
  TfIdfVectorizer v(p);
  std::vector<int32_t> x = {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8};
  std::vector<float> y(3, -1);
  v.run(x.data(), DType::I32, 1, 12, y.data());
  EXPECT_EQ(y, (std::vector<float>{1, 1, 1}));
  // Rows of no tokens count nothing.
  std::vector<float> empty(6, -1);
  v.run(x.data(), DType::I32, 2, 0, empty.data());
  EXPECT_EQ(empty, std::vector<float>(6, 0));
}
