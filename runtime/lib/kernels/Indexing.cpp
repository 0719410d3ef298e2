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
                       int64_t *indices, int64_t bound) {
  AxisSplit s(shape, axis);
  if (bound < 0)
    bound = k;
  if (bound > k) { // the padding after the k results of each slice
    int64_t n = s.outer * bound * s.inner;
    std::memset(values, 0, n * dtypeSize(t));
    std::memset(indices, 0, n * sizeof(int64_t));
  }
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
        int64_t base = o * bound * s.inner + i;
        for (int64_t j = 0; j < k; ++j) {
          out[base + j * s.inner] = row[order[j] * s.inner];
          indices[base + j * s.inner] = order[j];
        }
      }
  });
}

namespace {
/// Index i of an i32 or i64 index tensor.
int64_t indexAt(const void *indices, DType t, int64_t i) {
  return t == DType::I32 ? static_cast<const int32_t *>(indices)[i]
                         : static_cast<const int64_t *>(indices)[i];
}

/// The tuples of GatherND and ScatterND: `batches` groups of `tuples`
/// tuples of m indices into axes b .. b + m - 1 of data, each selecting a
/// slice of `slice` elements. The element offset of tuple `t` of batch
/// `bt` in data, or -1 for an index out of range.
struct TupleIndex {
  int64_t batches = 1, tuples = 1, m = 0, slice = 1, batchStride = 1;
  Shape dims, strides; // the indexed axes' sizes and element strides
  TupleIndex(const Shape &dShape, const Shape &iShape, int64_t b) {
    m = iShape.back();
    for (int64_t d = 0; d < b; ++d)
      batches *= iShape[d];
    for (size_t d = b; d + 1 < iShape.size(); ++d)
      tuples *= iShape[d];
    for (size_t d = b + m; d < dShape.size(); ++d)
      slice *= dShape[d];
    batchStride = slice;
    strides.assign(m, 0);
    dims.assign(m, 0);
    for (int64_t j = m; j-- > 0;) {
      dims[j] = dShape[b + j];
      strides[j] = batchStride;
      batchStride *= dims[j];
    }
  }
  int64_t offset(const void *indices, DType t, int64_t bt, int64_t tuple) const {
    int64_t first = (bt * tuples + tuple) * m, off = bt * batchStride;
    for (int64_t j = 0; j < m; ++j) {
      int64_t v = indexAt(indices, t, first + j);
      if (v < 0)
        v += dims[j];
      if (v < 0 || v >= dims[j])
        return -1;
      off += v * strides[j];
    }
    return off;
  }
};
} // namespace

bool opscope::rt::gatherND(const void *data, const Shape &dShape,
                           const void *indices, DType indexType,
                           const Shape &iShape, int64_t batchDims, void *y,
                           size_t elemSize) {
  TupleIndex ti(dShape, iShape, batchDims);
  const char *src = static_cast<const char *>(data);
  char *dst = static_cast<char *>(y);
  size_t block = ti.slice * elemSize;
  for (int64_t bt = 0; bt < ti.batches; ++bt)
    for (int64_t t = 0; t < ti.tuples; ++t) {
      int64_t off = ti.offset(indices, indexType, bt, t);
      if (off < 0)
        return false;
      std::memcpy(dst, src + off * elemSize, block);
      dst += block;
    }
  return true;
}

namespace {
/// `into` combined with update u by a scatter's reduction (integers wrap).
template <typename T> void combine(ScatterReduction r, T &into, T u) {
  switch (r) {
  case ScatterReduction::None:
    into = u;
    break;
  case ScatterReduction::Add:
    into = wrappingAdd(into, u);
    break;
  case ScatterReduction::Mul:
    if constexpr (std::is_integral_v<T>)
      into = static_cast<T>(static_cast<std::make_unsigned_t<T>>(into) *
                            static_cast<std::make_unsigned_t<T>>(u));
    else
      into = into * u;
    break;
  case ScatterReduction::Max:
    into = std::max(into, u);
    break;
  case ScatterReduction::Min:
    into = std::min(into, u);
    break;
  }
}
} // namespace

bool opscope::rt::scatterND(ScatterReduction reduction, DType t,
                            const void *data, const Shape &dShape,
                            const void *indices, DType indexType,
                            const Shape &iShape, const void *updates,
                            void *y) {
  TupleIndex ti(dShape, iShape, 0);
  std::vector<int64_t> offsets(ti.tuples);
  for (int64_t i = 0; i < ti.tuples; ++i)
    if ((offsets[i] = ti.offset(indices, indexType, 0, i)) < 0)
      return false;
  size_t es = dtypeSize(t);
  if (y != data)
    std::memcpy(y, data, numElements(dShape) * es);
  if (reduction == ScatterReduction::None) {
    for (int64_t i = 0; i < ti.tuples; ++i)
      std::memcpy(static_cast<char *>(y) + offsets[i] * es,
                  static_cast<const char *>(updates) + i * ti.slice * es,
                  ti.slice * es);
    return true;
  }
  dispatchType(t, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T *out = static_cast<T *>(y);
    const T *upd = static_cast<const T *>(updates);
    for (int64_t i = 0; i < ti.tuples; ++i) {
      T *row = out + offsets[i];
      const T *u = upd + i * ti.slice;
      if constexpr (std::is_same_v<T, float>) {
        // Slices of f32 added or multiplied in place by the kernel table's
        // rows (a cache update of whole vectors).
        if (ti.slice > 1 && (reduction == ScatterReduction::Add ||
                             reduction == ScatterReduction::Mul)) {
          kernelTable().arithRow(reduction == ScatterReduction::Add
                                     ? BinaryKind::Add
                                     : BinaryKind::Mul,
                                 row, 1, u, 1, row, ti.slice);
          continue;
        }
      }
      for (int64_t j = 0; j < ti.slice; ++j)
        combine(reduction, row[j], u[j]);
    }
  });
  return true;
}

bool opscope::rt::scatterElements(ScatterReduction reduction, DType t,
                                  const void *data, const Shape &dShape,
                                  const void *indices, DType indexType,
                                  const Shape &iShape, int64_t axis,
                                  const void *updates, void *y) {
  size_t rank = dShape.size();
  Shape dStride = contiguousStrides(dShape), pos(rank, 0);
  int64_t n = numElements(iShape), len = dShape[axis];
  std::vector<int64_t> offsets(n);
  for (int64_t e = 0; e < n; ++e) {
    int64_t idx = indexAt(indices, indexType, e);
    if (idx < 0)
      idx += len;
    if (idx < 0 || idx >= len)
      return false;
    int64_t off = 0;
    for (size_t d = 0; d < rank; ++d)
      off += (static_cast<int64_t>(d) == axis ? idx : pos[d]) * dStride[d];
    offsets[e] = off;
    for (size_t d = rank; d-- > 0;) { // next position in the indices
      if (++pos[d] < iShape[d])
        break;
      pos[d] = 0;
    }
  }
  size_t es = dtypeSize(t);
  if (y != data)
    std::memcpy(y, data, numElements(dShape) * es);
  if (reduction == ScatterReduction::None) {
    for (int64_t e = 0; e < n; ++e)
      std::memcpy(static_cast<char *>(y) + offsets[e] * es,
                  static_cast<const char *>(updates) + e * es, es);
    return true;
  }
  dispatchType(t, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T *out = static_cast<T *>(y);
    const T *upd = static_cast<const T *>(updates);
    for (int64_t e = 0; e < n; ++e)
      combine(reduction, out[offsets[e]], upd[e]);
  });
  return true;
}

bool opscope::rt::reverseSequence(const void *x, const Shape &shape,
                                  const void *lens, DType lensType,
                                  int64_t batchAxis, int64_t timeAxis, void *y,
                                  size_t elemSize) {
  int64_t batch = shape[batchAxis], time = shape[timeAxis];
  for (int64_t b = 0; b < batch; ++b) {
    int64_t n = indexAt(lens, lensType, b);
    if (n < 0 || n > time)
      return false;
  }
  // Rows of the axes after the first two, contiguous.
  int64_t inner = 1;
  for (size_t d = 2; d < shape.size(); ++d)
    inner *= shape[d];
  size_t row = inner * elemSize;
  // Element strides (in rows) of the batch and time axes.
  int64_t bStride = batchAxis == 0 ? time : 1;
  int64_t tStride = timeAxis == 0 ? batch : 1;
  const char *src = static_cast<const char *>(x);
  char *dst = static_cast<char *>(y);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t n = indexAt(lens, lensType, b);
    for (int64_t t = 0; t < time; ++t) {
      int64_t from = t < n ? n - 1 - t : t;
      std::memcpy(dst + (b * bStride + t * tStride) * row,
                  src + (b * bStride + from * tStride) * row, row);
    }
  }
  return true;
}
