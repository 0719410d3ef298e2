//===- StridedWalk.cpp - walk planning and strided copies -----------------===//
//
// Part of opscope's runtime. Builds the strided walks (dimension merging,
// broadcast strides) the runtime plans once per op when a model is loaded,
// and the strided copy behind transpose, broadcast_to and slice.
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

bool opscope::rt::dtypeComputable(DType t) {
  return t != DType::F16 && t != DType::BF16;
}

int64_t opscope::rt::numElements(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// Row-major element strides of a contiguous tensor.
Shape opscope::rt::detail::contiguousStrides(const Shape &s) {
  Shape st(s.size());
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    acc *= s[i];
  }
  return st;
}

/// Strides of `in` read as if broadcast to `out` (right-aligned, 0 where
/// broadcast).
Shape opscope::rt::detail::broadcastStrides(const Shape &in, const Shape &out) {
  Shape st(out.size(), 0);
  Shape inSt = contiguousStrides(in);
  size_t off = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    st[off + i] = in[i] == 1 ? 0 : inSt[i];
  return st;
}

/// Merges the walk of `shape` for operands with the given element strides:
/// dimensions of size 1 are dropped and dimensions contiguous for all
/// operands merged.
StridedWalk opscope::rt::detail::makeWalk(const Shape &shape, const std::vector<Shape> &strides) {
  StridedWalk w;
  size_t n = strides.size();
  w.strides.resize(n);
  w.base.assign(n, 0);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    if (!w.dims.empty()) {
      bool merge = true;
      for (size_t k = 0; k < n; ++k)
        merge &= w.strides[k].back() == strides[k][d] * shape[d];
      if (merge) {
        w.dims.back() *= shape[d];
        for (size_t k = 0; k < n; ++k)
          w.strides[k].back() = strides[k][d];
        continue;
      }
    }
    w.dims.push_back(shape[d]);
    for (size_t k = 0; k < n; ++k)
      w.strides[k].push_back(strides[k][d]);
  }
  return w;
}


StridedWalk opscope::rt::broadcastWalk(const Shape &y,
                                       const std::vector<Shape> &inputs) {
  std::vector<Shape> strides = {contiguousStrides(y)};
  for (const Shape &in : inputs)
    strides.push_back(broadcastStrides(in, y));
  return makeWalk(y, strides);
}

StridedWalk opscope::rt::transposeWalk(const Shape &x,
                                       const std::vector<int64_t> &perm) {
  Shape xSt = contiguousStrides(x);
  Shape y(perm.size()), st(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    y[i] = x[perm[i]];
    st[i] = xSt[perm[i]];
  }
  return makeWalk(y, {contiguousStrides(y), st});
}

StridedWalk opscope::rt::sliceWalk(const Shape &x,
                                   const std::vector<int64_t> &starts,
                                   const Shape &y,
                                   const std::vector<int64_t> &steps) {
  Shape xSt = contiguousStrides(x);
  Shape st(x.size());
  int64_t base = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    st[i] = xSt[i] * steps[i];
    base += starts[i] * xSt[i];
  }
  StridedWalk w = makeWalk(y, {contiguousStrides(y), st});
  w.base[1] = base;
  return w;
}

namespace {
/// Rows of exactly `Bytes` contiguous bytes on both sides (a depth-to-space
/// to one channel moves pairs of floats): the innermost dimension becomes a
/// fixed-size move, and the loop runs over the next one, so each row costs
/// a load and a store instead of a memcpy call and an odometer step (a
/// 1x4x160x160 -> 1x1x320x320 shuffle took 0.48 ms on a Zen 5 core).
template <size_t Bytes>
void copyChunks(const char *src, char *dst, const StridedWalk &w,
                size_t elemSize) {
  StridedWalk outer = w;
  outer.dims.pop_back();
  for (Shape &st : outer.strides)
    st.pop_back();
  auto es = static_cast<int64_t>(elemSize);
  walkRows<2>(outer, [&](std::array<int64_t, 2> off, int64_t n,
                         std::array<int64_t, 2> st) {
    char *d = dst + off[0] * es;
    const char *s = src + off[1] * es;
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(d + i * st[0] * es, s + i * st[1] * es, Bytes);
  });
}

/// The copy of `w`'s elements on this thread.
void copyWalk(const void *x, void *y, const StridedWalk &w, size_t elemSize) {
  size_t r = w.dims.size();
  if (r >= 2 && w.strides.size() == 2 && w.strides[0][r - 1] == 1 &&
      w.strides[1][r - 1] == 1) {
    const auto *src = static_cast<const char *>(x);
    auto *dst = static_cast<char *>(y);
    switch (w.dims[r - 1] * elemSize) {
    case 4:
      return copyChunks<4>(src, dst, w, elemSize);
    case 8:
      return copyChunks<8>(src, dst, w, elemSize);
    case 12:
      return copyChunks<12>(src, dst, w, elemSize);
    case 16:
      return copyChunks<16>(src, dst, w, elemSize);
    default:
      break;
    }
  }
  dispatchSize<2>(elemSize, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T *src = static_cast<const T *>(x);
    T *dst = static_cast<T *>(y);
    walkRows<2>(w, [&](std::array<int64_t, 2> off, int64_t n,
                       std::array<int64_t, 2> st) {
      T *d = dst + off[0];
      const T *s = src + off[1];
      if (st[1] == 1)
        std::memcpy(d, s, n * sizeof(T));
      else
        for (int64_t i = 0; i < n; ++i)
          d[i] = s[i * st[1]];
    });
  });
}
} // namespace

void opscope::rt::stridedCopy(const void *x, void *y, const StridedWalk &w,
                              size_t elemSize) {
  for (int64_t d : w.dims)
    if (d == 0)
      return;
  // The outermost dimension over the threads in force, 32K elements a range
  // at least: each range a walk of its own from its first index. (With 64K
  // a range, attention's head split and merge, 128 x 12 x 64 floats, stayed
  // on one thread: 24 of them took 1.33 ms of the DistilBERT-shaped model
  // with two threads against 1.45 with one, AMD EPYC Zen 3, AVX2 tier.)
  int64_t total = 1;
  for (int64_t d : w.dims)
    total *= d;
  if (w.dims.size() < 2 || total < (int64_t(1) << 16))
    return copyWalk(x, y, w, elemSize);
  int64_t per = total / w.dims[0];
  parallelRanges(w.dims[0], std::max<int64_t>(1, (int64_t(1) << 15) / per),
                 [&](int64_t begin, int64_t end) {
                   StridedWalk part = w;
                   part.dims[0] = end - begin;
                   for (size_t k = 0; k < part.base.size(); ++k)
                     part.base[k] += begin * w.strides[k][0];
                   copyWalk(x, y, part, elemSize);
                 });
}


std::optional<ShortInnerWalk>
opscope::rt::shortInnerWalk(const StridedWalk &w) {
  size_t r = w.dims.size();
  if (r < 2 || w.strides.size() != 2 || w.dims[r - 1] < 2 ||
      w.dims[r - 1] > 8 || w.strides[0][r - 1] != 1 ||
      w.strides[0][r - 2] != w.dims[r - 1] || w.strides[1][r - 2] != 1)
    return std::nullopt;
  ShortInnerWalk s;
  s.inner = w.dims[r - 1];
  s.innerStride = w.strides[1][r - 1];
  s.outer = w;
  s.outer.dims.pop_back();
  for (Shape &st : s.outer.strides)
    st.pop_back();
  return s;
}

void opscope::rt::stridedCopyShortInner(const void *x, void *y,
                                        const ShortInnerWalk &w,
                                        size_t elemSize) {
  for (int64_t d : w.outer.dims)
    if (d == 0)
      return;
  const int64_t inner = w.inner, lane = w.innerStride;
  if (inner == 2 && elemSize == 4) {
    // Two rows interleaved by register permutes (a 2x depth-to-space took
    // 0.74 ms for 2.4 MB with the strided stores below on an Ice Lake core).
    const auto *src = static_cast<const uint32_t *>(x);
    auto *dst = static_cast<uint32_t *>(y);
    walkRows<2>(w.outer, [&](std::array<int64_t, 2> off, int64_t n,
                             std::array<int64_t, 2>) {
      kernelTable().interleave2x32(src + off[1], src + off[1] + lane, n,
                                  dst + off[0]);
    });
    return;
  }
  dispatchSize<2>(elemSize, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T *src = static_cast<const T *>(x);
    T *dst = static_cast<T *>(y);
    walkRows<2>(w.outer, [&](std::array<int64_t, 2> off, int64_t n,
                             std::array<int64_t, 2>) {
      for (int64_t j = 0; j < inner; ++j) {
        T *d = dst + off[0] + j;
        const T *s = src + off[1] + j * lane;
        for (int64_t i = 0; i < n; ++i)
          d[i * inner] = s[i];
      }
    });
  });
}
