//===- Reduce.cpp - reductions over any set of axes -----------------------===//
//
// Part of opscope's runtime. Trailing contiguous f32 axes are reduced row by
// row by the kernel table's reduceRows (RowKernels.h); other layouts walk the
// input once, accumulating into the output.
//
//===----------------------------------------------------------------------===//

#include "KernelTable.h"
#include "Walk.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <limits>
#include <vector>

using namespace opscope::rt;
using namespace opscope::rt::detail;

void opscope::rt::reduce(ReduceKind k, DType t, const void *x,
                         const Shape &xShape, const std::vector<int64_t> &axes,
                         void *y) {
  // Trailing contiguous axes of f32: rows reduced with vectorisable float
  // partial sums (the decomposed LayerNorm's ReduceMean).
  bool trailing = t == DType::F32 && !axes.empty() &&
                  k != ReduceKind::Prod;
  for (size_t i = 0; i < axes.size() && trailing; ++i)
    trailing = axes[i] == static_cast<int64_t>(xShape.size() - axes.size() + i);
  if (trailing) {
    int64_t cols = 1;
    for (size_t i = xShape.size() - axes.size(); i < xShape.size(); ++i)
      cols *= xShape[i];
    kernelTable().reduceRows(k, static_cast<const float *>(x), static_cast<float *>(y),
                  numElements(xShape) / std::max<int64_t>(cols, 1), cols);
    return;
  }
  // Output strides over the input's index space: 0 on reduced axes.
  Shape kept = xShape;
  for (int64_t a : axes)
    kept[a] = 1;
  Shape yStrides = broadcastStrides(kept, xShape);
  int64_t outN = numElements(kept);
  int64_t count = numElements(xShape) / std::max<int64_t>(outN, 1);
  dispatchType(t, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T *in = static_cast<const T *>(x);
    T *out = static_cast<T *>(y);
    // Max and min of an empty set: -inf and inf, or the type's lowest and
    // highest value for integers (converting an infinity to one is
    // undefined).
    constexpr bool integral = std::is_integral_v<T>;
    if constexpr (integral) {
      // Integer max and min exactly, in T: through double, i64 and u64
      // values above 2^53 would round (and the u64 maximum, 2^64 as a
      // double, would not convert back).
      if (k == ReduceKind::Max || k == ReduceKind::Min) {
        bool isMax = k == ReduceKind::Max;
        std::vector<T> best(outN, isMax ? std::numeric_limits<T>::lowest()
                                        : std::numeric_limits<T>::max());
        walkRows<2>(makeWalk(xShape, {contiguousStrides(xShape), yStrides}),
                    [&](std::array<int64_t, 2> off, int64_t n,
                        std::array<int64_t, 2> st) {
                      const T *xs = in + off[0];
                      T *bs = best.data() + off[1];
                      for (int64_t i = 0; i < n; ++i) {
                        T &b = bs[i * st[1]];
                        b = isMax ? std::max(b, xs[i]) : std::min(b, xs[i]);
                      }
                    });
        std::copy(best.begin(), best.end(), out);
        return;
      }
    }
    double init = 0;
    if (k == ReduceKind::Max)
      init = integral ? static_cast<double>(std::numeric_limits<T>::lowest())
                      : -std::numeric_limits<double>::infinity();
    else if (k == ReduceKind::Min)
      init = integral ? static_cast<double>(std::numeric_limits<T>::max())
                      : std::numeric_limits<double>::infinity();
    else if (k == ReduceKind::Prod)
      init = 1;
    // Accumulate in double: sums over thousands of f32 values stay exact
    // enough to match references to 1e-6 relative.
    std::vector<double> acc(outN, init);
    walkRows<2>(makeWalk(xShape, {contiguousStrides(xShape), yStrides}),
                [&](std::array<int64_t, 2> off, int64_t n,
                      std::array<int64_t, 2> st) {
                    const T *xs = in + off[0];
                    double *as = acc.data() + off[1];
                    for (int64_t i = 0; i < n; ++i) {
                      double v = static_cast<double>(xs[i]);
                      double &a = as[i * st[1]];
                      switch (k) {
                      case ReduceKind::Mean:
                      case ReduceKind::Sum:
                        a += v;
                        break;
                      case ReduceKind::SumSquare:
                      case ReduceKind::L2:
                        a += v * v;
                        break;
                      case ReduceKind::Max:
                        a = std::max(a, v);
                        break;
                      case ReduceKind::Min:
                        a = std::min(a, v);
                        break;
                      case ReduceKind::Prod:
                        a *= v;
                        break;
                      }
                    }
                  });
    for (int64_t i = 0; i < outN; ++i) {
      double v = acc[i];
      if (k == ReduceKind::Mean)
        v /= static_cast<double>(count);
      else if (k == ReduceKind::L2)
        v = std::sqrt(v);
      out[i] = static_cast<T>(v);
    }
  });
}

void opscope::rt::argReduce(bool min, bool last, DType t, const void *x,
                            const Shape &xShape, int64_t axis, int64_t *y) {
  int64_t outer = 1, inner = 1, len = xShape[axis];
  for (int64_t i = 0; i < axis; ++i)
    outer *= xShape[i];
  for (size_t i = axis + 1; i < xShape.size(); ++i)
    inner *= xShape[i];
  dispatchType(t, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T *xp = static_cast<const T *>(x);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const T *row = xp + o * len * inner + i;
        int64_t best = 0;
        for (int64_t j = 1; j < len; ++j) {
          T v = row[j * inner], b = row[best * inner];
          bool better = min ? (last ? v <= b : v < b) : (last ? v >= b : v > b);
          if (better)
            best = j;
        }
        y[o * inner + i] = best;
      }
  });
}
