//===- DataMovement.cpp - transpose, gather, concat, slice, pad -----------===//
//
// Part of opscope's runtime. Data movement in rows: memcpy where a row is
// contiguous, strided loops otherwise.
//
//===----------------------------------------------------------------------===//

#include "KernelTable.h"
#include "Parallel.h"
#include "Walk.h"

#include "opscope/runtime/kernels.h"

#include <algorithm>
#include <cstring>

using namespace opscope::rt;
using namespace opscope::rt::detail;

void opscope::rt::transpose(const void *x, const Shape &xShape,
                            const std::vector<int64_t> &perm, void *y,
                            size_t elemSize) {
  stridedCopy(x, y, transposeWalk(xShape, perm), elemSize);
}

void opscope::rt::transposeMatrices32(const void *x, int64_t batch,
                                      int64_t rows, int64_t cols, void *y) {
  const auto *src = static_cast<const uint32_t *>(x);
  auto *dst = static_cast<uint32_t *>(y);
  auto transpose32 = kernelTable().transpose32;
  for (int64_t b = 0; b < batch; ++b)
    transpose32(src + b * rows * cols, cols, rows, cols,
                dst + b * rows * cols, rows);
}

bool opscope::rt::asMatrixTranspose(const Shape &shape,
                                    const std::vector<int64_t> &perm,
                                    int64_t &batch, int64_t &rows,
                                    int64_t &cols) {
  int64_t r = static_cast<int64_t>(perm.size());
  if (r != static_cast<int64_t>(shape.size()))
    return false;
  int64_t p = 0;
  while (p < r && perm[p] == p)
    ++p;
  if (p >= r - 1)
    return false;
  // perm[p..] = [p + k, ..., r - 1, p, ..., p + k - 1] for some k.
  int64_t k = perm[p] - p;
  if (k <= 0 || k >= r - p)
    return false;
  for (int64_t i = p; i < r; ++i)
    if (perm[i] != (i - p < r - p - k ? i + k : i - (r - p - k)))
      return false;
  batch = rows = cols = 1;
  for (int64_t i = 0; i < p; ++i)
    batch *= shape[i];
  for (int64_t i = p; i < p + k; ++i)
    rows *= shape[i];
  for (int64_t i = p + k; i < r; ++i)
    cols *= shape[i];
  return true;
}

void opscope::rt::broadcastTo(const void *x, const Shape &xShape, void *y,
                              const Shape &yShape, size_t elemSize) {
  stridedCopy(x, y, broadcastWalk(yShape, {xShape}), elemSize);
}

void opscope::rt::slice(const void *x, const Shape &xShape,
                        const std::vector<int64_t> &starts, const Shape &yShape,
                        const std::vector<int64_t> &steps, void *y,
                        size_t elemSize) {
  stridedCopy(x, y, sliceWalk(xShape, starts, yShape, steps), elemSize);
}

bool opscope::rt::gather(const void *data, const Shape &dShape,
                         const void *indices, DType indexType,
                         int64_t numIndices, int64_t axis, void *y,
                         size_t elemSize) {
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i)
    outer *= dShape[i];
  for (size_t i = axis + 1; i < dShape.size(); ++i)
    inner *= dShape[i];
  int64_t len = dShape[axis];
  size_t block = inner * elemSize;
  const char *src = static_cast<const char *>(data);
  char *dst = static_cast<char *>(y);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < numIndices; ++j) {
      int64_t idx = indexType == DType::I32
                        ? static_cast<const int32_t *>(indices)[j]
                        : static_cast<const int64_t *>(indices)[j];
      if (idx < 0)
        idx += len;
      if (idx < 0 || idx >= len)
        return false;
      std::memcpy(dst, src + (o * len + idx) * block, block);
      dst += block;
    }
  }
  return true;
}

bool opscope::rt::maxUnpool(const void *x, const int64_t *indices, int64_t n,
                            void *y, int64_t yElements, size_t elemSize) {
  auto *out = static_cast<char *>(y);
  const auto *in = static_cast<const char *>(x);
  std::memset(out, 0, yElements * elemSize);
  for (int64_t i = 0; i < n; ++i) {
    int64_t at = indices[i];
    if (at < 0 || at >= yElements)
      return false;
    std::memcpy(out + at * elemSize, in + i * elemSize, elemSize);
  }
  return true;
}

bool opscope::rt::gatherElements(const void *data, const Shape &dShape,
                                 const void *indices, DType indexType,
                                 const Shape &iShape, int64_t axis, void *y,
                                 size_t elemSize) {
  size_t rank = dShape.size();
  std::vector<int64_t> dStride(rank, 1), pos(rank, 0);
  for (size_t d = rank; d-- > 1;)
    dStride[d - 1] = dStride[d] * dShape[d];
  int64_t n = 1;
  for (int64_t v : iShape)
    n *= v;
  const char *src = static_cast<const char *>(data);
  char *dst = static_cast<char *>(y);
  int64_t len = dShape[axis];
  for (int64_t e = 0; e < n; ++e) {
    int64_t idx = indexType == DType::I32
                      ? static_cast<const int32_t *>(indices)[e]
                      : static_cast<const int64_t *>(indices)[e];
    if (idx < 0)
      idx += len;
    if (idx < 0 || idx >= len)
      return false;
    int64_t off = 0;
    for (size_t d = 0; d < rank; ++d)
      off += (static_cast<int64_t>(d) == axis ? idx : pos[d]) * dStride[d];
    std::memcpy(dst + e * elemSize, src + off * elemSize, elemSize);
    for (size_t d = rank; d-- > 0;) { // next position in the indices
      if (++pos[d] < iShape[d])
        break;
      pos[d] = 0;
    }
  }
  return true;
}

void opscope::rt::concat(const std::vector<const void *> &inputs,
                         const std::vector<Shape> &shapes, int64_t axis,
                         void *y, size_t elemSize) {
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i)
    outer *= shapes[0][i];
  std::vector<size_t> blocks;
  for (const Shape &s : shapes) {
    int64_t b = 1;
    for (size_t i = axis; i < s.size(); ++i)
      b *= s[i];
    blocks.push_back(b * elemSize);
  }
  size_t row = 0;
  for (size_t b : blocks)
    row += b;
  // Outer rows over the threads in force, 256 KB a range at least.
  int64_t grain =
      std::max<int64_t>(1, (int64_t(1) << 18) / std::max<size_t>(row, 1));
  parallelRanges(outer, grain, [&](int64_t begin, int64_t end) {
    char *dst = static_cast<char *>(y) + begin * row;
    for (int64_t o = begin; o < end; ++o) {
      for (size_t k = 0; k < inputs.size(); ++k) {
        std::memcpy(dst, static_cast<const char *>(inputs[k]) + o * blocks[k],
                    blocks[k]);
        dst += blocks[k];
      }
    }
  });
}

namespace {
/// The input index that output index `i` of a dimension reads (`i - begin`
/// mapped by the mode), or -1 for the constant fill.
int64_t padSource(PadMode mode, int64_t i, int64_t begin, int64_t len) {
  int64_t s = i - begin;
  if (s >= 0 && s < len)
    return s;
  if (mode == PadMode::Constant || len == 0)
    return -1;
  if (mode == PadMode::Edge)
    return s < 0 ? 0 : len - 1;
  // Reflect, without repeating the edge.
  int64_t period = std::max<int64_t>(2 * (len - 1), 1);
  s = ((s % period) + period) % period;
  return s >= len ? period - s : s;
}
} // namespace

PadPlan opscope::rt::planPad(PadMode mode, DType t, const Shape &xShape,
                             const std::vector<int64_t> &pads, double value,
                             const Shape &yShape) {
  PadPlan plan;
  plan.mode = mode;
  plan.elemSize = dtypeSize(t);
  plan.xShape = xShape;
  plan.yShape = yShape;
  plan.xStrides = contiguousStrides(xShape);
  plan.pads = pads;
  size_t rank = xShape.size();
  if (rank == 0 || numElements(yShape) == 0)
    return plan;
  const size_t es = plan.elemSize;
  const int64_t inner = yShape[rank - 1], innerIn = xShape[rank - 1];
  const int64_t begin = pads[rank - 1];
  // One output row (the last dimension) of the constant, and where each of
  // its elements reads in an input row: the middle [lo, hi) is one copy.
  plan.fillRow.resize(inner * es);
  dispatchType(t, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T v = static_cast<T>(value);
    for (int64_t j = 0; j < inner; ++j)
      std::memcpy(plan.fillRow.data() + j * es, &v, es);
  });
  plan.col.resize(inner);
  for (int64_t j = 0; j < inner; ++j)
    plan.col[j] = padSource(mode, j, begin, innerIn);
  plan.lo = std::clamp<int64_t>(begin, 0, inner);
  plan.hi = std::clamp<int64_t>(begin + innerIn, plan.lo, inner);
  return plan;
}

void opscope::rt::pad(const PadPlan &plan, const void *x, void *y) {
  const Shape &xShape = plan.xShape, &yShape = plan.yShape;
  const std::vector<int64_t> &pads = plan.pads;
  const size_t rank = xShape.size(), es = plan.elemSize;
  int64_t n = numElements(yShape);
  if (n == 0)
    return;
  if (rank == 0) {
    std::memcpy(y, x, es);
    return;
  }
  const int64_t inner = yShape[rank - 1], begin = pads[rank - 1];
  const int64_t lo = plan.lo, hi = plan.hi;
  const char *fill = plan.fillRow.data();
  const int64_t *col = plan.col.data();
  const char *src = static_cast<const char *>(x);
  char *dst = static_cast<char *>(y);
  const int64_t rows = n / inner;
  // Rows over the threads in force, 256 KB a range at least.
  int64_t grain = std::max<int64_t>(
      1, (int64_t(1) << 18) / std::max<int64_t>(inner * es, 1));
  parallelRanges(rows, grain, [&](int64_t first, int64_t last) {
    // The outer index of row `first`, then counted up row by row.
    Shape idx(rank, 0);
    for (int64_t r = first, d = int64_t(rank) - 1; d-- > 0;) {
      idx[d] = r % yShape[d];
      r /= yShape[d];
    }
    for (int64_t r = first; r < last; ++r) {
      char *out = dst + r * inner * es;
      int64_t off = 0;
      bool inside = true;
      for (size_t d = 0; d + 1 < rank && inside; ++d) {
        int64_t s = padSource(plan.mode, idx[d], pads[d], xShape[d]);
        inside = s >= 0;
        off += s * plan.xStrides[d];
      }
      if (!inside) {
        std::memcpy(out, fill, inner * es);
      } else {
        const char *in = src + off * es;
        auto edges = [&](int64_t from, int64_t to) {
          for (int64_t j = from; j < to; ++j)
            std::memcpy(out + j * es, col[j] < 0 ? fill : in + col[j] * es,
                        es);
        };
        edges(0, lo);
        std::memcpy(out + lo * es, in + (lo - begin) * es, (hi - lo) * es);
        edges(hi, inner);
      }
      for (int64_t d = int64_t(rank) - 1; d-- > 0;) {
        if (++idx[d] < yShape[d])
          break;
        idx[d] = 0;
      }
    }
  });
}

void opscope::rt::pad(PadMode mode, DType t, const void *x,
                      const Shape &xShape, const std::vector<int64_t> &pads,
                      double value, void *y, const Shape &yShape) {
  pad(planPad(mode, t, xShape, pads, value, yShape), x, y);
}

