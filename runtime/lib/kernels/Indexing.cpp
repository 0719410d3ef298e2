//===- Indexing.cpp - scans, top-k, N-d gathers and scatters --------------===//
//
// Part of opscope's runtime. The kernels of indexing.h. The scan over f32
// rows adds whole rows with the kernel table's arithRow (one form per
// tier); the index-driven kernels are plain loops over the indices.
//
//===----------------------------------------------------------------------===//

#include "KernelTable.h"
#include "Walk.h"

#include "opscope/runtime/indexing.h"

#include <algorithm>
#include <cstring>
#include <vector>
#include <type_traits>

using namespace opscope::rt;
using namespace opscope::rt::detail;

namespace {
/// The elements before `axis`, along it, and after it.
struct AxisSplit {
  int64_t outer = 1, len = 1, inner = 1;
  AxisSplit(const Shape &shape, int64_t axis) {
    for (int64_t i = 0; i < axis; ++i)
      outer *= shape[i];
    len = shape[axis];
    for (size_t i = axis + 1; i < shape.size(); ++i)
      inner *= shape[i];
  }
};

/// a + b without signed overflow (integers wrap, as ONNX Runtime's do on
/// two's complement machines).
template <typename T> T wrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) +
                          static_cast<std::make_unsigned_t<T>>(b));
  else
    return a + b;
}
} // namespace

void opscope::rt::cumSum(DType t, const void *x, const Shape &shape,
                         int64_t axis, bool exclusive, bool reverse, void *y) {
  AxisSplit s(shape, axis);
  if (s.outer * s.len * s.inner == 0)
    return;
  dispatchType(t, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T *in = static_cast<const T *>(x);
    T *out = static_cast<T *>(y);
    int64_t step = reverse ? -1 : 1;
    for (int64_t o = 0; o < s.outer; ++o) {
      const T *xb = in + o * s.len * s.inner;
      T *yb = out + o * s.len * s.inner;
      int64_t first = reverse ? s.len - 1 : 0;
      // The first row along the axis: the element itself, or 0.
      T *y0 = yb + first * s.inner;
      if (exclusive)
        std::fill(y0, y0 + s.inner, T(0));
      else
        std::copy(xb + first * s.inner, xb + (first + 1) * s.inner, y0);
      for (int64_t n = 1; n < s.len; ++n) {
        int64_t j = first + n * step, prev = j - step;
        // y[j] = y[prev] + x[j] (inclusive) or x[prev] (exclusive).
        const T *add = xb + (exclusive ? prev : j) * s.inner;
        const T *sum = yb + prev * s.inner;
        T *dst = yb + j * s.inner;
        if constexpr (std::is_same_v<T, float>) {
          if (s.inner > 1) {
            kernelTable().arithRow(BinaryKind::Add, sum, 1, add, 1, dst,
                                   s.inner);
            continue;
          }
        }
        for (int64_t i = 0; i < s.inner; ++i)
          dst[i] = wrappingAdd(sum[i], add[i]);
      }
    }
  });
}

namespace {
/// Whether a comes before b in TopK's order: the larger value first (the
/// smaller with `smallest`), a NaN above every number, equal values by
/// position. A strict total order, so the selection is unique.
template <typename T>
bool topKBefore(T a, int64_t ia, T b, int64_t ib, bool smallest) {
  if constexpr (std::is_floating_point_v<T>) {
    bool na = a != a, nb = b != b;
    if (na || nb) {
      if (na && nb)
        return ia < ib;
      return smallest ? nb : na;
    }
  }
  if (a != b)
    return smallest ? a < b : a > b;
  return ia < ib;
}
} // namespace

void opscope::rt::topK(DType t, const void *x, const Shape &shape,
                       int64_t axis, int64_t k, bool smallest, void *values,
                       int64_t *indices) {
  AxisSplit s(shape, axis);
  if (s.outer * s.inner == 0 || k == 0)
    return;
  dispatchType(t, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T *in = static_cast<const T *>(x);
    T *out = static_cast<T *>(values);
    std::vector<int64_t> order(s.len);
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i = 0; i < s.inner; ++i) {
        const T *row = in + o * s.len * s.inner + i;
        for (int64_t j = 0; j < s.len; ++j)
          order[j] = j;
        std::partial_sort(order.begin(), order.begin() + k, order.end(),
                          [&](int64_t a, int64_t b) {
                            return topKBefore(row[a * s.inner], a,
                                              row[b * s.inner], b, smallest);
                          });
        int64_t base = o * k * s.inner + i;
        for (int64_t j = 0; j < k; ++j) {
          out[base + j * s.inner] = row[order[j] * s.inner];
          indices[base + j * s.inner] = order[j];
        }
      }
  });
}
