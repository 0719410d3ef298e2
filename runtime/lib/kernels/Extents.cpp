//===- Extents.cpp - kernels whose output extent depends on the data -----===//
//
// Part of opscope's runtime. The kernels of extents.h: plain loops (their
// work is bookkeeping, not arithmetic), named reference.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/extents.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace opscope::rt;

bool opscope::rt::isNonZero(DType t, const void *x, int64_t i) {
  size_t b = dtypeSize(t);
  const uint8_t *p = static_cast<const uint8_t *>(x) + i * b;
  bool floating =
      t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64;
  // Floating types: every bit but the sign (so -0.0 is zero, NaN is not);
  // x86 is little-endian, the sign bit is in the last byte.
  for (size_t k = 0; k < b; ++k) {
    uint8_t v = p[k];
    if (floating && k == b - 1)
      v &= 0x7f;
    if (v)
      return true;
  }
  return false;
}

int64_t opscope::rt::nonZero(DType t, const void *x, const Shape &shape,
                             int64_t *indices) {
  int64_t n = numElements(shape), rank = static_cast<int64_t>(shape.size());
  std::memset(indices, 0, sizeof(int64_t) * rank * n);
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!isNonZero(t, x, i))
      continue;
    int64_t rest = i;
    for (int64_t d = rank - 1; d >= 0; --d) {
      indices[d * n + count] = rest % shape[d];
      rest /= shape[d];
    }
    ++count;
  }
  return count;
}

int64_t opscope::rt::compress(size_t elemBytes, const void *x,
                              const Shape &shape, int64_t axis,
                              const uint8_t *cond, int64_t condLen, void *y) {
  int64_t outer = 1, len = numElements(shape), inner = 1;
  if (axis >= 0) {
    len = shape[axis];
    for (int64_t d = 0; d < axis; ++d)
      outer *= shape[d];
    for (size_t d = axis + 1; d < shape.size(); ++d)
      inner *= shape[d];
  }
  int64_t bound = std::min(len, condLen);
  size_t slice = inner * elemBytes;
  const uint8_t *src = static_cast<const uint8_t *>(x);
  uint8_t *dst = static_cast<uint8_t *>(y);
  std::memset(dst, 0, outer * bound * slice);
  int64_t count = 0;
  for (int64_t j = 0; j < bound; ++j)
    count += cond[j] != 0;
  for (int64_t o = 0; o < outer; ++o) {
    uint8_t *row = dst + o * bound * slice;
    for (int64_t j = 0; j < bound; ++j)
      if (cond[j]) {
        std::memcpy(row, src + (o * len + j) * slice, slice);
        row += slice;
      }
  }
  return count;
}

namespace {
/// A total order on elements: NaN equals NaN and sorts after every number.
template <typename T> int compareElements(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    bool an = std::isnan(a), bn = std::isnan(b);
    if (an || bn)
      return an == bn ? 0 : an ? 1 : -1;
  }
  return a < b ? -1 : b < a ? 1 : 0;
}

template <typename T>
int64_t uniqueTyped(const T *x, const Shape &shape, int64_t axis, bool sorted,
                    T *y, int64_t *indices, int64_t *inverse,
                    int64_t *counts) {
  int64_t outer = 1, len = numElements(shape), inner = 1;
  if (axis >= 0) {
    len = shape[axis];
    for (int64_t d = 0; d < axis; ++d)
      outer *= shape[d];
    for (size_t d = axis + 1; d < shape.size(); ++d)
      inner *= shape[d];
  }
  // Slice j: x[o, j, i] over o, then i.
  auto cmp = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        if (int c = compareElements(x[(o * len + a) * inner + i],
                                    x[(o * len + b) * inner + i]))
          return c;
    return 0;
  };
  std::vector<int64_t> order(len);
  for (int64_t j = 0; j < len; ++j)
    order[j] = j;
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return cmp(a, b) < 0; });
  // Groups of equal slices, each led by its first occurrence.
  std::vector<int64_t> groupOf(len), first, count;
  for (int64_t k = 0; k < len; ++k) {
    if (k == 0 || cmp(order[k - 1], order[k]) != 0) {
      first.push_back(order[k]);
      count.push_back(0);
    }
    groupOf[order[k]] = static_cast<int64_t>(first.size()) - 1;
    ++count.back();
  }
  int64_t u = static_cast<int64_t>(first.size());
  std::vector<int64_t> rank(u); // output position of each group
  std::vector<int64_t> byPos(u);
  for (int64_t g = 0; g < u; ++g)
    byPos[g] = g;
  if (!sorted)
    std::sort(byPos.begin(), byPos.end(),
              [&](int64_t a, int64_t b) { return first[a] < first[b]; });
  for (int64_t p = 0; p < u; ++p)
    rank[byPos[p]] = p;
  std::memset(y, 0, sizeof(T) * outer * len * inner);
  std::memset(indices, 0, sizeof(int64_t) * len);
  std::memset(counts, 0, sizeof(int64_t) * len);
  for (int64_t p = 0; p < u; ++p) {
    int64_t g = byPos[p], j = first[g];
    indices[p] = j;
    counts[p] = count[g];
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(y + (o * len + p) * inner, x + (o * len + j) * inner,
                  sizeof(T) * inner);
  }
  for (int64_t j = 0; j < len; ++j)
    inverse[j] = rank[groupOf[j]];
  return u;
}
} // namespace

int64_t opscope::rt::unique(DType t, const void *x, const Shape &shape,
                            int64_t axis, bool sorted, void *y,
                            int64_t *indices, int64_t *inverse,
                            int64_t *counts) {
  auto run = [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return uniqueTyped(static_cast<const T *>(x), shape, axis, sorted,
                       static_cast<T *>(y), indices, inverse, counts);
  };
  switch (t) {
  case DType::F32: return run((float *)nullptr);
  case DType::F64: return run((double *)nullptr);
  case DType::I8: return run((int8_t *)nullptr);
  case DType::I1:
  case DType::U8: return run((uint8_t *)nullptr);
  case DType::I16: return run((int16_t *)nullptr);
  case DType::I32: return run((int32_t *)nullptr);
  case DType::I64: return run((int64_t *)nullptr);
  case DType::U16: return run((uint16_t *)nullptr);
  case DType::U32: return run((uint32_t *)nullptr);
  case DType::U64: return run((uint64_t *)nullptr);
  default: return -1;
  }
}
