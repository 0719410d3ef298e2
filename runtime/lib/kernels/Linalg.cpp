//===- Linalg.cpp - Einsum's general form, Det ----------------------------===//
//
// Part of opscope's runtime. osc.det: each matrix's LU factorisation with
// partial pivoting, in double. osc.einsum: every label looped over, each
// output element summed over the labels it lacks. The importer lowers f32
// equations to matmuls, transposes and reductions instead; this is the
// form for the other element types (f64, i32, i64), so it is written for
// clarity: a stride per label and input, summed over the labels an input
// repeats (its diagonal) and 0 where an input broadcasts.
//
//===----------------------------------------------------------------------===//

#include "Parallel.h"

#include "opscope/runtime/generic.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace opscope::rt;

namespace {
template <typename T>
void einsumT(const std::vector<const void *> &inputs,
             const std::vector<Shape> &shapes, const Shape &labels,
             const Shape &outShape, T *y) {
  int64_t maxLabel = 0;
  for (int64_t l : labels)
    maxLabel = std::max(maxLabel, l + 1);
  const size_t k = inputs.size();
  std::vector<int64_t> size(maxLabel, 1);
  std::vector<bool> inOutput(maxLabel, false), present(maxLabel, false);
  // stride[l * k + i]: input i's step along label l.
  std::vector<int64_t> stride(maxLabel * k, 0);
  size_t pos = 0;
  for (size_t i = 0; i < k; ++i) {
    const Shape &s = shapes[i];
    int64_t step = 1;
    for (size_t d = s.size(); d-- > 0;) {
      int64_t l = labels[pos + d];
      present[l] = true;
      if (s[d] != 1) {
        size[l] = s[d];
        stride[l * k + i] += step;
      }
      step *= s[d];
    }
    pos += s.size();
  }
  std::vector<int64_t> outLabels(labels.begin() + pos, labels.end()), sumLabels;
  for (int64_t l : outLabels)
    inOutput[l] = true;
  int64_t sumN = 1;
  for (int64_t l = 0; l < maxLabel; ++l)
    if (present[l] && !inOutput[l]) {
      sumLabels.push_back(l);
      sumN *= size[l];
    }
  std::vector<const T *> in(k);
  for (size_t i = 0; i < k; ++i)
    in[i] = static_cast<const T *>(inputs[i]);
  int64_t outN = numElements(outShape);
  if (sumN == 0) {
    std::fill(y, y + outN, T(0));
    return;
  }
  int64_t grain = std::max<int64_t>(1, 4096 / sumN);
  detail::parallelRanges(outN, grain, [&](int64_t o0, int64_t o1) {
    std::vector<int64_t> base(k), off(k), idx(sumLabels.size());
    for (int64_t o = o0; o < o1; ++o) {
      std::fill(base.begin(), base.end(), 0);
      int64_t rem = o;
      for (size_t d = outLabels.size(); d-- > 0;) {
        int64_t l = outLabels[d], at = rem % outShape[d];
        rem /= outShape[d];
        for (size_t i = 0; i < k; ++i)
          base[i] += at * stride[l * k + i];
      }
      off = base;
      std::fill(idx.begin(), idx.end(), 0);
      T acc = T(0);
      for (int64_t s = 0; s < sumN; ++s) {
        T p = in[0][off[0]];
        for (size_t i = 1; i < k; ++i)
          p *= in[i][off[i]];
        acc += p;
        // The next combination of the summed labels, the last fastest.
        for (size_t d = sumLabels.size(); d-- > 0;) {
          int64_t l = sumLabels[d];
          for (size_t i = 0; i < k; ++i)
            off[i] += stride[l * k + i];
          if (++idx[d] < size[l])
            break;
          for (size_t i = 0; i < k; ++i)
            off[i] -= stride[l * k + i] * size[l];
          idx[d] = 0;
        }
      }
      y[o] = acc;
    }
  });
}
} // namespace

bool opscope::rt::einsum(DType type, const std::vector<const void *> &inputs,
                         const std::vector<Shape> &shapes, const Shape &labels,
                         const Shape &outShape, void *y) {
  switch (type) {
  case DType::F32:
    einsumT(inputs, shapes, labels, outShape, static_cast<float *>(y));
    return true;
  case DType::F64:
    einsumT(inputs, shapes, labels, outShape, static_cast<double *>(y));
    return true;
  case DType::I32:
    einsumT(inputs, shapes, labels, outShape, static_cast<int32_t *>(y));
    return true;
  case DType::I64:
    einsumT(inputs, shapes, labels, outShape, static_cast<int64_t *>(y));
    return true;
  default:
    return false;
  }
}

namespace {
template <typename T>
void detT(const T *x, const Shape &shape, T *y) {
  const int64_t n = shape.back();
  // The matrices' count from the leading dimensions (n may be 0: each
  // empty matrix's determinant is 1).
  const int64_t count = numElements(Shape(shape.begin(), shape.end() - 2));
  detail::parallelRanges(count, 64, [&](int64_t b0, int64_t b1) {
    std::vector<double> a(n * n);
    for (int64_t b = b0; b < b1; ++b) {
      std::copy(x + b * n * n, x + (b + 1) * n * n, a.begin());
      double det = 1.0;
      for (int64_t k = 0; k < n && det != 0.0; ++k) {
        int64_t p = k;
        for (int64_t i = k + 1; i < n; ++i)
          if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k]))
            p = i;
        if (a[p * n + k] == 0.0) {
          det = 0.0;
          break;
        }
        if (p != k) {
          std::swap_ranges(a.begin() + k * n, a.begin() + (k + 1) * n,
                           a.begin() + p * n);
          det = -det;
        }
        const double pivot = a[k * n + k];
        det *= pivot;
        for (int64_t i = k + 1; i < n; ++i) {
          const double f = a[i * n + k] / pivot;
          for (int64_t j = k + 1; j < n; ++j)
            a[i * n + j] -= f * a[k * n + j];
        }
      }
      y[b] = static_cast<T>(det);
    }
  });
}
} // namespace

bool opscope::rt::det(DType type, const void *x, const Shape &shape,
                      void *y) {
  if (type == DType::F32)
    detT(static_cast<const float *>(x), shape, static_cast<float *>(y));
  else if (type == DType::F64)
    detT(static_cast<const double *>(x), shape, static_cast<double *>(y));
  else
    return false;
  return true;
}
