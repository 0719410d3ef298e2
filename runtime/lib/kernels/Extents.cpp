//===- Extents.cpp - kernels whose output extent depends on the data -----===//
//
// Part of opscope's runtime. The kernels of extents.h: plain loops (their
// work is bookkeeping, not arithmetic), named reference.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/extents.h"

#include <algorithm>
#include <cstring>

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
