//===- Elementwise.cpp - unary, binary, compare, where and cast -----------===//
//
// Part of opscope's runtime. The scalar function of every kind comes from
// kinds.h (shared with the compiler's constant folders); this file only
// walks tensors with it. The f32 rows that dominate unfused transformers and
// contiguous 32-bit selects run the kernel table's rows (RowKernels.h, one
// form per tier), and exp/erf/tanh/sigmoid its vectorised polynomials.
//
//===----------------------------------------------------------------------===//

#include "KernelTable.h"
#include "Parallel.h"
#include "RowKernels.h"
#include "Walk.h"

#include "opscope/runtime/half.h"
#include "opscope/runtime/kernels.h"
#include "opscope/runtime/kinds.h"

#include <algorithm>
#include <cstring>

using namespace opscope::rt;
using namespace opscope::rt::detail;

namespace {

template <typename T>
void binaryTyped(BinaryKind k, const T *a, const T *b, T *y,
                 const StridedWalk &w) {
  walkRows<3>(
      w, [&](std::array<int64_t, 3> off, int64_t n, std::array<int64_t, 3> st) {
        T *yr = y + off[0];
        const T *ar = a + off[1];
        const T *br = b + off[2];
        if constexpr (std::is_same_v<T, float>) {
          if (k <= BinaryKind::Div) {
            kernelTable().arithRow(k, ar, st[1], br, st[2], yr, n);
            return;
          }
        }
        if (k == BinaryKind::Pow && st[2] == 0) {
          // A constant exponent (x^2 of a decomposed LayerNorm, x^3 of tanh
          // GELU): powScalar's exponent tests are loop-invariant.
          T e = br[0];
          for (int64_t i = 0; i < n; ++i)
            yr[i] = powScalar<T>(ar[i * st[1]], e);
          return;
        }
        for (int64_t i = 0; i < n; ++i)
          yr[i] = binaryScalar<T>(k, ar[i * st[1]], br[i * st[2]]);
      });
}

template <typename T>
void compareTyped(CompareKind k, const T *a, const T *b, uint8_t *y,
                  const StridedWalk &w) {
  walkRows<3>(
      w, [&](std::array<int64_t, 3> off, int64_t n, std::array<int64_t, 3> st) {
        for (int64_t i = 0; i < n; ++i)
          y[off[0] + i] =
              compareScalar<T>(k, a[off[1] + i * st[1]], b[off[2] + i * st[2]]);
      });
}

template <typename T>
void unaryTyped(UnaryKind k, const T *x, T *y, int64_t n, float alpha,
                float beta) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = unaryScalar<T>(k, x[i], alpha, beta);
}

} // namespace

void opscope::rt::unary(UnaryKind k, DType t, const void *x, void *y,
                        int64_t n, float alpha, float beta) {
  if (t == DType::F32) {
    const float *xf = static_cast<const float *>(x);
    float *yf = static_cast<float *>(y);
    // 32K elements (128 KB) a range at least: over the threads in force.
    parallelRanges(n, int64_t(1) << 15, [&](int64_t b, int64_t e) {
      switch (k) {
      case UnaryKind::Exp:
        return transcendental(Transcendental::Exp, xf + b, yf + b, e - b);
      case UnaryKind::Erf:
        return transcendental(Transcendental::Erf, xf + b, yf + b, e - b);
      case UnaryKind::Tanh:
        return transcendental(Transcendental::Tanh, xf + b, yf + b, e - b);
      case UnaryKind::Sigmoid:
        return transcendental(Transcendental::Sigmoid, xf + b, yf + b, e - b);
      case UnaryKind::Swish:
        return swishRow(xf + b, yf + b, e - b);
      case UnaryKind::Elu:
        return kernelTable().eluRow(xf + b, yf + b, e - b, alpha);
      case UnaryKind::Softplus:
        return kernelTable().softplusRow(xf + b, yf + b, e - b);
      case UnaryKind::Mish:
        return kernelTable().mishRow(xf + b, yf + b, e - b);
      default:
        return kernelTable().unaryRow(k, xf + b, yf + b, e - b, alpha, beta);
      }
    });
    return;
  }
  dispatchType(t, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    unaryTyped<T>(k, static_cast<const T *>(x), static_cast<T *>(y), n, alpha,
                  beta);
  });
}

void opscope::rt::binary(BinaryKind k, DType t, const void *a, const void *b,
                         void *y, const StridedWalk &w) {
  dispatchType(t, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    binaryTyped<T>(k, static_cast<const T *>(a), static_cast<const T *>(b),
                   static_cast<T *>(y), w);
  });
}

void opscope::rt::binary(BinaryKind k, DType t, const void *a,
                         const Shape &aShape, const void *b,
                         const Shape &bShape, void *y, const Shape &yShape) {
  binary(k, t, a, b, y, broadcastWalk(yShape, {aShape, bShape}));
}

void opscope::rt::compare(CompareKind k, DType t, const void *a, const void *b,
                          uint8_t *y, const StridedWalk &w) {
  dispatchType(t, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    compareTyped<T>(k, static_cast<const T *>(a), static_cast<const T *>(b),
                    y, w);
  });
}

void opscope::rt::compare(CompareKind k, DType t, const void *a,
                          const Shape &aShape, const void *b,
                          const Shape &bShape, uint8_t *y,
                          const Shape &yShape) {
  compare(k, t, a, b, y, broadcastWalk(yShape, {aShape, bShape}));
}

void opscope::rt::where(const uint8_t *cond, const void *a, const void *b,
                        void *y, const StridedWalk &w, size_t elemSize) {
  dispatchSize<2>(elemSize, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T *at = static_cast<const T *>(a);
    const T *bt = static_cast<const T *>(b);
    T *yt = static_cast<T *>(y);
    walkRows<4>(w, [&](std::array<int64_t, 4> off, int64_t n,
                       std::array<int64_t, 4> st) {
      if constexpr (sizeof(T) == 4) {
        if (st[1] == 1 && st[2] == 1 && st[3] == 1) {
          kernelTable().select32(
              cond + off[1], reinterpret_cast<const uint32_t *>(at + off[2]),
              reinterpret_cast<const uint32_t *>(bt + off[3]),
              reinterpret_cast<uint32_t *>(yt + off[0]), n);
          return;
        }
      }
      for (int64_t i = 0; i < n; ++i)
        yt[off[0] + i] = cond[off[1] + i * st[1]] ? at[off[2] + i * st[2]]
                                                  : bt[off[3] + i * st[3]];
    });
  });
}

void opscope::rt::where(const uint8_t *cond, const Shape &cShape,
                        const void *a, const Shape &aShape, const void *b,
                        const Shape &bShape, void *y, const Shape &yShape,
                        size_t elemSize) {
  where(cond, a, b, y, broadcastWalk(yShape, {cShape, aShape, bShape}),
        elemSize);
}

bool opscope::rt::castVectorized(DType from, DType to) {
  return row_kernels::castRowHandles(from, to);
}

void opscope::rt::cast(DType from, const void *x, DType to, void *y,
                       int64_t n) {
  if (from == to) {
    std::memcpy(y, x, n * dtypeSize(from));
    return;
  }
  if (castVectorized(from, to)) {
    kernelTable().castRow(from, to, x, y, n);
    return;
  }
  // f16 at an fp16 model's graph inputs and outputs (the model computes in
  // f32), bf16 at a graph's: through f32, which holds every half and
  // bfloat16 exactly. To bf16 rounds to nearest even, as ONNX Runtime does.
  if (isHalfFloat(from) || isHalfFloat(to)) {
    const int64_t kChunk = 1024;
    float buf[kChunk];
    for (int64_t i = 0; i < n; i += kChunk) {
      int64_t m = std::min(kChunk, n - i);
      const char *src = static_cast<const char *>(x) + i * dtypeSize(from);
      if (from == DType::F16)
        halvesToFloats(src, buf, m);
      else if (from == DType::BF16)
        bfloatsToFloats(src, buf, m);
      else
        cast(from, src, DType::F32, buf, m);
      char *dst = static_cast<char *>(y) + i * dtypeSize(to);
      uint16_t *h = reinterpret_cast<uint16_t *>(dst);
      if (to == DType::F16) {
        for (int64_t j = 0; j < m; ++j)
          h[j] = floatToHalf(buf[j]);
      } else if (to == DType::BF16) {
        for (int64_t j = 0; j < m; ++j)
          h[j] = floatToBfloat(buf[j]);
      } else {
        cast(DType::F32, buf, to, dst, m);
      }
    }
    return;
  }
  dispatchType(from, [&](auto *fromTag) {
    using F = std::remove_pointer_t<decltype(fromTag)>;
    dispatchType(to, [&](auto *toTag) {
      using T = std::remove_pointer_t<decltype(toTag)>;
      const F *src = static_cast<const F *>(x);
      T *dst = static_cast<T *>(y);
      if (to == DType::I1) {
        for (int64_t i = 0; i < n; ++i)
          dst[i] = src[i] != F(0);
      } else if (from == DType::I1) {
        for (int64_t i = 0; i < n; ++i)
          dst[i] = src[i] ? T(1) : T(0);
      } else {
        for (int64_t i = 0; i < n; ++i)
          dst[i] = static_cast<T>(src[i]);
      }
    });
  });
}

