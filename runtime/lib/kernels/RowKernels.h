//===- RowKernels.h - element-wise rows and reductions, every tier -*- C++ -*-===//
//
// Part of opscope's runtime (internal). The bodies of the table's
// element-wise rows (arithmetic, unary, select) and row reductions, written
// once as plain loops the compiler vectorises. Each tier's file
// instantiates them inside its own target-attributed functions
// (always_inline puts the loops in the caller's target context), so every
// tier gets its own vector width from one source; the reference tier
// compiles them for the baseline. The scalar function of every kind comes
// from kinds.h, shared with the compiler's constant folders; the files that
// include this one compile with -ffp-contract=off so that no tier
// contracts a kind's a*b+c into an FMA the folder does not.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_ROWKERNELS_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_ROWKERNELS_H

#include "opscope/runtime/kinds.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace opscope::rt::row_kernels {

#define OPSCOPE_INLINE __attribute__((always_inline)) inline

/// The f32 add/sub/mul/div rows, the bulk of an unfused transformer's
/// element-wise time. The kind is a constant in each loop, so
/// binaryScalar's switch folds away and the loop vectorises.
OPSCOPE_INLINE void arithRow(BinaryKind k, const float *a, int64_t sa,
                             const float *b, int64_t sb, float *y, int64_t n) {
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

/// f32 unary rows: one loop per kind, generated from the kinds table, with
/// the kind's expression written into the loop itself. (Through
/// unaryFloat<float>, whose switch over every kind GCC does not inline,
/// each element was a call: Clip ran at 0.8 GB/s.)
OPSCOPE_INLINE void unaryRow(UnaryKind k, const float *src, float *y,
                             int64_t n, float alpha, float beta) {
  using T = float;
  using detail::clamp01;
  (void)alpha;
  (void)beta;
  switch (k) {
#define OPSCOPE_UNARY_KIND(E, N, F)                                            \
  case UnaryKind::E:                                                           \
    for (int64_t i = 0; i < n; ++i) {                                          \
      const T x = src[i];                                                      \
      y[i] = (F);                                                              \
    }                                                                          \
    return;
#include "opscope/runtime/kinds.def"
  }
}

/// y = cond ? a : b on contiguous 32-bit rows (where/select).
OPSCOPE_INLINE void select32(const uint8_t *cond, const uint32_t *a,
                             const uint32_t *b, uint32_t *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = cond[i] ? a[i] : b[i];
}

/// The numeric conversions the table's castRow vectorises: integer
/// and float widenings and narrowings whose C++ conversion is the vector
/// instruction's (vcvtdq2ps, vcvttps2dq, vpmovzxbd, ...). A float converted
/// to an 8-bit integer (the scalar conversion goes through int) and the
/// bool, f16 and bf16 types stay with the generic loop.
constexpr bool castRowHandles(DType from, DType to) {
  auto is = [](DType t, std::initializer_list<DType> set) {
    for (DType d : set)
      if (t == d)
        return true;
    return false;
  };
  if (from == to)
    return false;
  if (is(from, {DType::F32, DType::F64, DType::I32, DType::I64}))
    return is(to, {DType::F32, DType::F64, DType::I32, DType::I64});
  if (is(from, {DType::U8, DType::I8}))
    return is(to, {DType::F32, DType::I32, DType::I64});
  return false;
}

template <typename F, typename T>
OPSCOPE_INLINE void castLoop(const void *x, void *y, int64_t n) {
  const F *src = static_cast<const F *>(x);
  T *dst = static_cast<T *>(y);
  for (int64_t i = 0; i < n; ++i)
    dst[i] = static_cast<T>(src[i]);
}

/// y = x converted element by element as static_cast does, for the pairs
/// castRowHandles accepts (others: nothing written).
OPSCOPE_INLINE void castRow(DType from, DType to, const void *x, void *y,
                            int64_t n) {
#define OPSCOPE_CAST_TO(F)                                                     \
  switch (to) {                                                                \
  case DType::F32:                                                             \
    return castLoop<F, float>(x, y, n);                                        \
  case DType::F64:                                                             \
    return castLoop<F, double>(x, y, n);                                       \
  case DType::I32:                                                             \
    return castLoop<F, int32_t>(x, y, n);                                      \
  case DType::I64:                                                             \
    return castLoop<F, int64_t>(x, y, n);                                      \
  default:                                                                     \
    return;                                                                    \
  }
  switch (from) {
  case DType::F32:
    OPSCOPE_CAST_TO(float)
  case DType::F64:
    OPSCOPE_CAST_TO(double)
  case DType::I32:
    OPSCOPE_CAST_TO(int32_t)
  case DType::I64:
    OPSCOPE_CAST_TO(int64_t)
  case DType::U8:
    OPSCOPE_CAST_TO(uint8_t)
  case DType::I8:
    OPSCOPE_CAST_TO(int8_t)
  default:
    return;
  }
#undef OPSCOPE_CAST_TO
}

/// Each of `rows` contiguous rows of `cols` f32 reduced, with 16 partial
/// results per row so that the loop vectorises at any width up to 512 bits.
OPSCOPE_INLINE void reduceRows(ReduceKind k, const float *x, float *y,
                               int64_t rows, int64_t cols) {
  constexpr int kLanes = 16;
  for (int64_t r = 0; r < rows; ++r) {
    const float *in = x + r * cols;
    float acc[kLanes];
    bool isMax = k == ReduceKind::Max, isMin = k == ReduceKind::Min;
    bool square = k == ReduceKind::SumSquare || k == ReduceKind::L2;
    float init = isMax ? -INFINITY : isMin ? INFINITY : 0.0f;
    for (float &a : acc)
      a = init;
    int64_t c = 0;
    for (; c + kLanes <= cols; c += kLanes)
      for (int l = 0; l < kLanes; ++l) {
        float v = in[c + l];
        if (isMax)
          acc[l] = std::max(acc[l], v);
        else if (isMin)
          acc[l] = std::min(acc[l], v);
        else
          acc[l] += square ? v * v : v;
      }
    float total = init;
    for (float a : acc)
      total = isMax ? std::max(total, a) : isMin ? std::min(total, a) : total + a;
    for (; c < cols; ++c) {
      float v = in[c];
      total = isMax ? std::max(total, v) : isMin ? std::min(total, v)
                                         : total + (square ? v * v : v);
    }
    if (k == ReduceKind::Mean)
      total /= static_cast<float>(cols);
    else if (k == ReduceKind::L2)
      total = std::sqrt(total);
    y[r] = total;
  }
}

/// Instance normalization's row (one sample's channel): y = (x - mean) *
/// scale / sqrt(var + eps) + bias over the row's n (>= 1) elements, with
/// the row's own mean and biased variance. Two passes of 16 partial sums
/// each (the mean, then the centred squares, as the layer norms), so that
/// both vectorise at any width up to 512 bits, and one that writes.
OPSCOPE_INLINE void instanceNormRow(const float *x, float *y, int64_t n,
                                    float scale, float bias, float eps) {
  constexpr int kLanes = 16;
  float acc[kLanes] = {};
  int64_t c = 0;
  for (; c + kLanes <= n; c += kLanes)
    for (int l = 0; l < kLanes; ++l)
      acc[l] += x[c + l];
  float sum = 0.0f;
  for (float a : acc)
    sum += a;
  for (; c < n; ++c)
    sum += x[c];
  const float mean = sum / static_cast<float>(n);
  float sq[kLanes] = {};
  for (c = 0; c + kLanes <= n; c += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      float d = x[c + l] - mean;
      sq[l] += d * d;
    }
  float total = 0.0f;
  for (float a : sq)
    total += a;
  for (; c < n; ++c) {
    float d = x[c] - mean;
    total += d * d;
  }
  const float s = scale / std::sqrt(total / static_cast<float>(n) + eps);
  for (int64_t i = 0; i < n; ++i)
    y[i] = (x[i] - mean) * s + bias;
}

/// LRN's output row for one channel: y = x * (bias + k * s)^-beta over n
/// elements, s the sum of the squares of the `count` (>= 1) rows of the
/// channel's window, `window` the first and the others `stride` apart. `y`
/// holds the sums first (and must not overlap the input). beta 0.75 (the
/// default, AlexNet's and GoogLeNet's) and 0.5 are square roots, which
/// vectorise; other betas take pow per element.
OPSCOPE_INLINE void lrnRow(const float *x, const float *window,
                           int64_t stride, int64_t count, float *y, int64_t n,
                           float k, float beta, float bias) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = window[i] * window[i];
  for (int64_t j = 1; j < count; ++j) {
    const float *w = window + j * stride;
    for (int64_t i = 0; i < n; ++i)
      y[i] += w[i] * w[i];
  }
  if (beta == 0.75f) {
    for (int64_t i = 0; i < n; ++i) {
      float t = std::sqrt(bias + k * y[i]);
      y[i] = x[i] / (t * std::sqrt(t));
    }
  } else if (beta == 0.5f) {
    for (int64_t i = 0; i < n; ++i)
      y[i] = x[i] / std::sqrt(bias + k * y[i]);
  } else {
    for (int64_t i = 0; i < n; ++i)
      y[i] = x[i] * std::pow(bias + k * y[i], -beta);
  }
}

/// Resize's horizontal pass over one source row (Resize.cpp):
/// y[o] = w0[o] * x[c0[o]] + w1[o] * x[c1[o]], or x[c0[o]] when `copy`
/// (nearest: a copy, so no 0 * inf).
OPSCOPE_INLINE void resampleRow(const float *x, const int64_t *c0,
                                const int64_t *c1, const float *w0,
                                const float *w1, float *y, int64_t n,
                                bool copy) {
  if (copy) {
    for (int64_t o = 0; o < n; ++o)
      y[o] = x[c0[o]];
    return;
  }
  for (int64_t o = 0; o < n; ++o)
    y[o] = w0[o] * x[c0[o]] + w1[o] * x[c1[o]];
}

/// Resize's vertical pass: y = a * r0 + b * r1 over n elements.
OPSCOPE_INLINE void blendRows(const float *r0, const float *r1, float a,
                              float b, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = a * r0[i] + b * r1[i];
}

/// One channels-last output pixel of a 2-D linear resize, `c` channels:
/// the source pixels' rows r0/r1 at columns c0/c1 blended horizontally
/// (w0, w1; `colCopy`: taken) then vertically (a, b; `oneRow`: the first).
OPSCOPE_INLINE void resizePixelNhwcInline(const float *r0, const float *r1,
                                    int64_t c0, int64_t c1, float w0,
                                    float w1, float a, float b, bool colCopy,
                                    bool oneRow, float *y, int64_t c) {
  if (colCopy && oneRow) {
    for (int64_t k = 0; k < c; ++k)
      y[k] = r0[c0 + k];
    return;
  }
  if (oneRow) {
    for (int64_t k = 0; k < c; ++k)
      y[k] = w0 * r0[c0 + k] + w1 * r0[c1 + k];
    return;
  }
  if (colCopy) {
    for (int64_t k = 0; k < c; ++k)
      y[k] = a * r0[c0 + k] + b * r1[c0 + k];
    return;
  }
  for (int64_t k = 0; k < c; ++k)
    y[k] = a * (w0 * r0[c0 + k] + w1 * r0[c1 + k]) +
           b * (w0 * r1[c0 + k] + w1 * r1[c1 + k]);
}

/// One channels-last output row of a 2-D linear resize: `n` pixels, pixel
/// `o` from source columns c0[o] and c1[o] (pixels of `c` channels) with
/// weights w0[o] and w1[o], each as resizePixelNhwcInline computes it.
OPSCOPE_INLINE void resizeRowNhwc(const float *r0, const float *r1,
                                  const int64_t *c0, const int64_t *c1,
                                  const float *w0, const float *w1, float a,
                                  float b, bool colCopy, bool oneRow,
                                  float *y, int64_t n, int64_t c) {
  for (int64_t o = 0; o < n; ++o)
    resizePixelNhwcInline(r0, r1, c0[o] * c, c1[o] * c, w0[o], w1[o], a, b,
                          colCopy, oneRow, y + o * c, c);
}

/// Bilinear resize in ONNX Runtime's order (Resize.cpp, resize2DOrtOrder):
/// the two taps of a source row of `len` elements gathered into contiguous
/// rows (every index in [0, len)) ...
OPSCOPE_INLINE void gatherTaps(const float *x, int64_t len, const int64_t *c0,
                               const int64_t *c1, float *t0, float *t1,
                               int64_t n) {
  (void)len;
  for (int64_t o = 0; o < n; ++o) {
    t0[o] = x[c0[o]];
    t1[o] = x[c1[o]];
  }
}

/// ... then blended as ONNX Runtime's UpsampleBilinear does, each product
/// rounded, left to right, no fused multiply-add.
OPSCOPE_INLINE void blendTapsOrt(const float *__restrict a0,
                                 const float *__restrict a1,
                                 const float *__restrict b0,
                                 const float *__restrict b1,
                                 const float *__restrict wx0,
                                 const float *__restrict wx1, float wy0,
                                 float wy1, float *__restrict y, int64_t n) {
  for (int64_t o = 0; o < n; ++o)
    y[o] = wx0[o] * wy0 * a0[o] + wx1[o] * wy0 * a1[o] +
           wx0[o] * wy1 * b0[o] + wx1[o] * wy1 * b1[o];
}

/// One channels-last output pixel of a 2-D max pooling, `c` channels: the
/// lane-wise maximum of the `count` (>= 1) source pixels `px` (the window's
/// positions inside the input). `v > m ? v : m` is the vector max
/// instruction's own rule (a NaN in the window's later pixel is passed
/// over), so every tier gives the reference tier's bits.
OPSCOPE_INLINE void maxPixelNhwc(const float *const *px, int64_t count,
                                 float *y, int64_t c) {
  for (int64_t k = 0; k < c; ++k)
    y[k] = px[0][k];
  for (int64_t j = 1; j < count; ++j) {
    const float *x = px[j];
    for (int64_t k = 0; k < c; ++k)
      y[k] = x[k] > y[k] ? x[k] : y[k];
  }
}

/// NonMaxSuppression's suppression step (kernels/NonMaxSuppression.cpp):
/// `box` is the kept box as {x min, x max, y min, y max, area}, `cols` the
/// n candidates in five rows of stride `ld` in the same order. Sets
/// suppressed[j] to 1 where ONNX Runtime's SuppressByIOU(kept, j) holds:
/// the intersection is not empty, both areas and the union are positive,
/// and intersection / union > threshold, in its order of operations (and
/// no contraction, so every tier agrees bit for bit). Branch-free so that
/// it vectorises: a NaN anywhere makes one of the ordered comparisons
/// false, as it makes ONNX Runtime's final comparison false.
OPSCOPE_INLINE void iouSuppressRow(const float *box, const float *cols,
                                   int64_t ld, int64_t n, float threshold,
                                   uint8_t *suppressed) {
  const float bx0 = box[0], bx1 = box[1], by0 = box[2], by1 = box[3],
              barea = box[4];
  if (!(barea > 0.0f))
    return; // suppresses nothing
  const float *x0 = cols, *x1 = cols + ld, *y0 = cols + 2 * ld,
              *y1 = cols + 3 * ld, *area = cols + 4 * ld;
  for (int64_t j = 0; j < n; ++j) {
    // std::max(kept, j) and std::min(kept, j), as ONNX Runtime takes them.
    float ix0 = bx0 < x0[j] ? x0[j] : bx0;
    float ix1 = x1[j] < bx1 ? x1[j] : bx1;
    float iy0 = by0 < y0[j] ? y0[j] : by0;
    float iy1 = y1[j] < by1 ? y1[j] : by1;
    float inter = (ix1 - ix0) * (iy1 - iy0);
    float uni = barea + area[j] - inter;
    float iou = inter / uni;
    bool hit = (ix1 > ix0) & (iy1 > iy0) & (inter > 0.0f) & (area[j] > 0.0f) &
               (uni > 0.0f) & (iou > threshold);
    suppressed[j] |= static_cast<uint8_t>(hit);
  }
}

/// The dequantizing epilogue of conv_integer / matmul_integer (their
/// fused form): y[i] = float(sums[i]) * scale[i * ss] (+ bias[i * sb]),
/// then relu, over n elements, the strides 0 (one channel's value) or 1.
/// The unfused ops' operations in their order: Cast's conversion
/// (round to nearest), Mul, Add, relu as kinds.def's `x > 0 ? x : 0`; no
/// contraction (-ffp-contract=off), so the result is theirs bit for bit.
/// `sums` and `y` may be the same buffer (the sums are read through
/// memcpy, so the i32 and f32 views do not alias under the type rules).
template <bool ScaleRow, bool HasBias, bool BiasRow, bool Relu>
OPSCOPE_INLINE void dequantizeRowAs(const char *acc, float *y, int64_t n,
                                    const float *scale, const float *bias) {
  const float s0 = scale[0], b0 = HasBias ? bias[0] : 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    int32_t a;
    __builtin_memcpy(&a, acc + 4 * i, 4);
    float v = static_cast<float>(a) * (ScaleRow ? scale[i] : s0);
    if (HasBias)
      v = v + (BiasRow ? bias[i] : b0);
    if (Relu)
      v = v > 0.0f ? v : 0.0f;
    y[i] = v;
  }
}

OPSCOPE_INLINE void dequantizeRow(const void *sums, float *y, int64_t n,
                                  const float *scale, int64_t ss,
                                  const float *bias, int64_t sb, bool relu) {
  // Each case its own loop with contiguous or broadcast operands, so that
  // every one vectorises (a run-time stride would not). No lambdas: they
  // would not carry the tier's target attribute.
  const char *acc = static_cast<const char *>(sums);
#define OPSCOPE_DEQ(S, HB, B)                                                  \
  if (relu)                                                                    \
    dequantizeRowAs<S, HB, B, true>(acc, y, n, scale, bias);                   \
  else                                                                         \
    dequantizeRowAs<S, HB, B, false>(acc, y, n, scale, bias);
#define OPSCOPE_DEQ_BIAS(S)                                                    \
  if (!bias) {                                                                 \
    OPSCOPE_DEQ(S, false, false)                                               \
  } else if (sb) {                                                             \
    OPSCOPE_DEQ(S, true, true)                                                 \
  } else {                                                                     \
    OPSCOPE_DEQ(S, true, false)                                                \
  }
  if (ss) {
    OPSCOPE_DEQ_BIAS(true)
  } else {
    OPSCOPE_DEQ_BIAS(false)
  }
#undef OPSCOPE_DEQ_BIAS
#undef OPSCOPE_DEQ
}

#undef OPSCOPE_INLINE

} // namespace opscope::rt::row_kernels

/// Defines the table's row entries for one tier, `ATTR` its target
/// attribute (empty for the reference tier), in namespace NS.
#define OPSCOPE_DEFINE_ROW_KERNELS(NS, ATTR)                                   \
  namespace NS {                                                               \
  ATTR void arithRow(opscope::rt::BinaryKind k, const float *a, int64_t sa,    \
                     const float *b, int64_t sb, float *y, int64_t n) {        \
    opscope::rt::row_kernels::arithRow(k, a, sa, b, sb, y, n);                 \
  }                                                                            \
  ATTR void unaryRow(opscope::rt::UnaryKind k, const float *x, float *y,       \
                     int64_t n, float alpha, float beta) {                     \
    opscope::rt::row_kernels::unaryRow(k, x, y, n, alpha, beta);               \
  }                                                                            \
  ATTR void select32(const uint8_t *cond, const uint32_t *a,                   \
                     const uint32_t *b, uint32_t *y, int64_t n) {              \
    opscope::rt::row_kernels::select32(cond, a, b, y, n);                      \
  }                                                                            \
  ATTR void castRow(opscope::rt::DType from, opscope::rt::DType to,            \
                    const void *x, void *y, int64_t n) {                       \
    opscope::rt::row_kernels::castRow(from, to, x, y, n);                      \
  }                                                                            \
  ATTR void reduceRows(opscope::rt::ReduceKind k, const float *x, float *y,    \
                       int64_t rows, int64_t cols) {                           \
    opscope::rt::row_kernels::reduceRows(k, x, y, rows, cols);                 \
  }                                                                            \
  ATTR void instanceNormRow(const float *x, float *y, int64_t n, float scale,  \
                            float bias, float eps) {                           \
    opscope::rt::row_kernels::instanceNormRow(x, y, n, scale, bias, eps);      \
  }                                                                            \
  ATTR void lrnRow(const float *x, const float *window, int64_t stride,        \
                   int64_t count, float *y, int64_t n, float k, float beta,    \
                   float bias) {                                               \
    opscope::rt::row_kernels::lrnRow(x, window, stride, count, y, n, k, beta,  \
                                     bias);                                    \
  }                                                                            \
  ATTR void resampleRow(const float *x, const int64_t *c0, const int64_t *c1,  \
                        const float *w0, const float *w1, float *y, int64_t n, \
                        bool copy) {                                           \
    opscope::rt::row_kernels::resampleRow(x, c0, c1, w0, w1, y, n, copy);      \
  }                                                                            \
  ATTR void blendRows(const float *r0, const float *r1, float a, float b,      \
                      float *y, int64_t n) {                                   \
    opscope::rt::row_kernels::blendRows(r0, r1, a, b, y, n);                   \
  }                                                                            \
  ATTR void resizeRowNhwc(const float *r0, const float *r1,                  \
                          const int64_t *c0, const int64_t *c1,              \
                          const float *w0, const float *w1, float a, float b,\
                          bool colCopy, bool oneRow, float *y, int64_t n,    \
                          int64_t c) {                                       \
    opscope::rt::row_kernels::resizeRowNhwc(r0, r1, c0, c1, w0, w1, a, b,      \
                                            colCopy, oneRow, y, n, c);         \
  }                                                                            \
  ATTR void gatherTaps(const float *x, int64_t len, const int64_t *c0,        \
                       const int64_t *c1, float *t0, float *t1, int64_t n) {   \
    opscope::rt::row_kernels::gatherTaps(x, len, c0, c1, t0, t1, n);           \
  }                                                                            \
  ATTR void blendTapsOrt(const float *a0, const float *a1, const float *b0,    \
                         const float *b1, const float *wx0, const float *wx1,  \
                         float wy0, float wy1, float *y, int64_t n) {          \
    opscope::rt::row_kernels::blendTapsOrt(a0, a1, b0, b1, wx0, wx1, wy0, wy1, \
                                           y, n);                              \
  }                                                                            \
  ATTR void maxPixelNhwc(const float *const *px, int64_t count, float *y,      \
                         int64_t c) {                                          \
    opscope::rt::row_kernels::maxPixelNhwc(px, count, y, c);                   \
  }                                                                            \
  ATTR void dequantizeRow(const void *sums, float *y, int64_t n,               \
                          const float *scale, int64_t ss, const float *bias,   \
                          int64_t sb, bool relu) {                             \
    opscope::rt::row_kernels::dequantizeRow(sums, y, n, scale, ss, bias, sb,   \
                                            relu);                             \
  }                                                                            \
  ATTR void iouSuppressRow(const float *box, const float *cols, int64_t ld,    \
                           int64_t n, float threshold, uint8_t *suppressed) {  \
    opscope::rt::row_kernels::iouSuppressRow(box, cols, ld, n, threshold,      \
                                             suppressed);                      \
  }                                                                            \
  }

/// Assigns them into table `t`.
#define OPSCOPE_FILL_ROW_KERNELS(NS, t)                                        \
  do {                                                                         \
    (t).arithRow = NS::arithRow;                                               \
    (t).unaryRow = NS::unaryRow;                                               \
    (t).select32 = NS::select32;                                               \
    (t).castRow = NS::castRow;                                                 \
    (t).reduceRows = NS::reduceRows;                                           \
    (t).instanceNormRow = NS::instanceNormRow;                                 \
    (t).lrnRow = NS::lrnRow;                                                   \
    (t).resampleRow = NS::resampleRow;                                         \
    (t).blendRows = NS::blendRows;                                             \
    (t).resizeRowNhwc = NS::resizeRowNhwc;                                     \
    (t).gatherTaps = NS::gatherTaps;                                           \
    (t).blendTapsOrt = NS::blendTapsOrt;                                       \
    (t).maxPixelNhwc = NS::maxPixelNhwc;                                       \
    (t).iouSuppressRow = NS::iouSuppressRow;                                   \
    (t).dequantizeRow = NS::dequantizeRow;                                     \
  } while (0)

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_ROWKERNELS_H
