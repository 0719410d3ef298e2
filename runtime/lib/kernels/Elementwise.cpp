//===- Elementwise.cpp - unary, binary, compare, where and cast -----------===//
//
// Part of opscope's runtime. The scalar function of every kind comes from
// kinds.h (shared with the compiler's constant folders); this file only
// walks tensors with it. The f32 rows that dominate unfused transformers are
// cloned for AVX-512 (`target_clones`), and exp/erf/tanh/sigmoid use the
// vectorised polynomials of kernels.h.
//
//===----------------------------------------------------------------------===//

#include "Walk.h"

#include "opscope/runtime/kernels.h"
#include "opscope/runtime/kinds.h"

#include <cstring>

using namespace opscope::rt;
using namespace opscope::rt::detail;

namespace {

/// The f32 add/sub/mul/div rows, the bulk of an unfused transformer's
/// elementwise time, cloned for AVX-512. The kind is a constant in each
/// loop, so binaryScalar's switch folds away and the loop vectorises.
__attribute__((target_clones("avx512f", "default"))) void
f32ArithRow(BinaryKind k, const float *a, int64_t sa, const float *b,
            int64_t sb, float *y, int64_t n) {
#define OPSCOPE_ROW(K)                                                         \
  if (sa == 1 && sb == 1) {                                                    \
    for (int64_t i = 0; i < n; ++i)                                            \
      y[i] = binaryScalar<float>(K, a[i], b[i]);                               \
  } else if (sa == 1 && sb == 0) {                                             \
    float z = b[0];                                                            \
    for (int64_t i = 0; i < n; ++i)                                            \
      y[i] = binaryScalar<float>(K, a[i], z);                                  \
  } else if (sa == 0 && sb == 1) {                                             \
    float x = a[0];                                                            \
    for (int64_t i = 0; i < n; ++i)                                            \
      y[i] = binaryScalar<float>(K, x, b[i]);                                  \
  } else {                                                                     \
    for (int64_t i = 0; i < n; ++i)                                            \
      y[i] = binaryScalar<float>(K, a[i * sa], b[i * sb]);                     \
  }
  switch (k) {
  case BinaryKind::Add:
    OPSCOPE_ROW(BinaryKind::Add)
    break;
  case BinaryKind::Sub:
    OPSCOPE_ROW(BinaryKind::Sub)
    break;
  case BinaryKind::Mul:
    OPSCOPE_ROW(BinaryKind::Mul)
    break;
  default:
    OPSCOPE_ROW(BinaryKind::Div)
    break;
  }
#undef OPSCOPE_ROW
}

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
            f32ArithRow(k, ar, st[1], br, st[2], yr, n);
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

/// f32 unary rows, cloned for AVX-512: one loop per kind with the kind a
/// constant, generated from the kinds table.
__attribute__((target_clones("avx512f", "default"))) void
unaryF32Row(UnaryKind k, const float *x, float *y, int64_t n, float alpha,
            float beta) {
  switch (k) {
#define OPSCOPE_UNARY_KIND(E, N, F)                                            \
  case UnaryKind::E:                                                           \
    for (int64_t i = 0; i < n; ++i)                                            \
      y[i] = unaryFloat<float>(UnaryKind::E, x[i], alpha, beta);               \
    return;
#include "opscope/runtime/kinds.def"
  }
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
    switch (k) {
    case UnaryKind::Exp:
      return transcendental(Transcendental::Exp, xf, yf, n);
    case UnaryKind::Erf:
      return transcendental(Transcendental::Erf, xf, yf, n);
    case UnaryKind::Tanh:
      return transcendental(Transcendental::Tanh, xf, yf, n);
    case UnaryKind::Sigmoid:
      return transcendental(Transcendental::Sigmoid, xf, yf, n);
    default:
      break;
    }
    unaryF32Row(k, static_cast<const float *>(x), static_cast<float *>(y), n,
                alpha, beta);
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

void opscope::rt::cast(DType from, const void *x, DType to, void *y,
                       int64_t n) {
  if (from == to) {
    std::memcpy(y, x, n * dtypeSize(from));
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

