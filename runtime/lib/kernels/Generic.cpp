//===- Generic.cpp - elementwise, reduction and data-movement kernels -----===//
//
// Part of opscope's runtime. Every kernel walks its output in rows: a
// strided N-d loop over all but the innermost dimension, after merging
// dimensions that are contiguous for every operand, so a same-shape add is
// one row of n elements and a bias add is rows of the bias length. The row
// bodies are simple loops the compiler vectorises; the f32 arithmetic rows
// are additionally cloned for AVX-512 (`target_clones`).
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/generic.h"

#include "opscope/runtime/kernels.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

using namespace opscope::rt;

//===----------------------------------------------------------------------===//
// Types and names
//===----------------------------------------------------------------------===//

size_t opscope::rt::dtypeSize(DType t) {
  switch (t) {
  case DType::F16:
  case DType::BF16:
  case DType::I16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::I1:
  case DType::I8:
  case DType::U8:
    return 1;
  }
  return 0;
}

static const char *const kDTypeNames[] = {"f16", "bf16", "f32", "f64", "i1",
                                          "i8",  "u8",   "i16", "i32", "i64"};

const char *opscope::rt::dtypeName(DType t) {
  return kDTypeNames[static_cast<int>(t)];
}

std::optional<DType> opscope::rt::parseDType(const std::string &name) {
  for (int i = 0; i < 10; ++i)
    if (name == kDTypeNames[i])
      return static_cast<DType>(i);
  return std::nullopt;
}

bool opscope::rt::dtypeComputable(DType t) {
  return t != DType::F16 && t != DType::BF16;
}

int64_t opscope::rt::numElements(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

template <typename E>
static std::optional<E> parseName(const std::string &s,
                                  std::initializer_list<const char *> names) {
  int i = 0;
  for (const char *n : names) {
    if (s == n)
      return static_cast<E>(i);
    ++i;
  }
  return std::nullopt;
}

std::optional<UnaryKind> opscope::rt::parseUnaryKind(const std::string &s) {
  return parseName<UnaryKind>(
      s, {"relu", "leaky_relu", "elu", "tanh", "sigmoid", "erf", "exp", "log",
          "sqrt", "reciprocal", "neg", "abs", "floor", "ceil", "softplus",
          "hard_sigmoid", "hard_swish", "clip", "not"});
}
std::optional<BinaryKind> opscope::rt::parseBinaryKind(const std::string &s) {
  return parseName<BinaryKind>(
      s, {"add", "sub", "mul", "div", "pow", "max", "min", "and", "or", "xor"});
}
std::optional<CompareKind> opscope::rt::parseCompareKind(const std::string &s) {
  return parseName<CompareKind>(s, {"eq", "ne", "lt", "le", "gt", "ge"});
}
std::optional<ReduceKind> opscope::rt::parseReduceKind(const std::string &s) {
  return parseName<ReduceKind>(
      s, {"mean", "sum", "max", "min", "prod", "sum_square", "l2"});
}
std::optional<PadMode> opscope::rt::parsePadMode(const std::string &s) {
  return parseName<PadMode>(s, {"constant", "reflect", "edge"});
}
std::optional<ResizeMode> opscope::rt::parseResizeMode(const std::string &s) {
  return parseName<ResizeMode>(s, {"nearest", "linear", "cubic"});
}
std::optional<CoordinateTransform>
opscope::rt::parseCoordinateTransform(const std::string &s) {
  return parseName<CoordinateTransform>(
      s, {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
          "half_pixel_symmetric"});
}
std::optional<NearestMode> opscope::rt::parseNearestMode(const std::string &s) {
  return parseName<NearestMode>(
      s, {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
}

//===----------------------------------------------------------------------===//
// Strided row iteration
//===----------------------------------------------------------------------===//

namespace {
/// Row-major element strides of a contiguous tensor.
Shape contiguousStrides(const Shape &s) {
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
Shape broadcastStrides(const Shape &in, const Shape &out) {
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
StridedWalk makeWalk(const Shape &shape, const std::vector<Shape> &strides) {
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

/// Calls f(offsets, rowLength, innerStrides) once per row of the walk's
/// first N operands.
template <size_t N, typename F> void walkRows(const StridedWalk &w, F &&f) {
  std::array<int64_t, N> off{};
  std::array<int64_t, N> inner{};
  for (size_t k = 0; k < N; ++k)
    off[k] = w.base[k];
  if (w.dims.empty()) {
    f(off, int64_t(1), inner);
    return;
  }
  for (size_t k = 0; k < N; ++k)
    inner[k] = w.strides[k].back();
  size_t outerRank = w.dims.size() - 1;
  int64_t rows = 1;
  for (size_t d = 0; d < outerRank; ++d)
    rows *= w.dims[d];
  // The odometer lives on the stack up to rank 17 (no allocation per call).
  int64_t stackIdx[16] = {};
  std::vector<int64_t> heapIdx;
  int64_t *idx = stackIdx;
  if (outerRank > 16) {
    heapIdx.assign(outerRank, 0);
    idx = heapIdx.data();
  }
  for (int64_t r = 0; r < rows; ++r) {
    f(off, w.dims.back(), inner);
    for (size_t d = outerRank; d-- > 0;) {
      ++idx[d];
      for (size_t k = 0; k < N; ++k)
        off[k] += w.strides[k][d];
      if (idx[d] < w.dims[d])
        break;
      for (size_t k = 0; k < N; ++k)
        off[k] -= w.strides[k][d] * w.dims[d];
      idx[d] = 0;
    }
  }
}

template <typename T> T applyBinary(BinaryKind k, T a, T b) {
  switch (k) {
  case BinaryKind::Add:
    return a + b;
  case BinaryKind::Sub:
    return a - b;
  case BinaryKind::Mul:
    return a * b;
  case BinaryKind::Div:
    if constexpr (std::is_integral_v<T>)
      return b == 0 ? T(0) : T(a / b);
    else
      return a / b;
  case BinaryKind::Pow:
    return static_cast<T>(std::pow(static_cast<double>(a), static_cast<double>(b)));
  case BinaryKind::Max:
    return std::max(a, b);
  case BinaryKind::Min:
    return std::min(a, b);
  case BinaryKind::And:
    return static_cast<T>(a && b);
  case BinaryKind::Or:
    return static_cast<T>(a || b);
  case BinaryKind::Xor:
    return static_cast<T>((a != 0) != (b != 0));
  }
  return a;
}

/// The f32 add/sub/mul/div rows, the bulk of an unfused transformer's
/// elementwise time, cloned for AVX-512.
__attribute__((target_clones("avx512f", "default"))) void
f32ArithRow(BinaryKind k, const float *a, int64_t sa, const float *b,
            int64_t sb, float *y, int64_t n) {
#define OPSCOPE_ROW(EXPR)                                                      \
  if (sa == 1 && sb == 1) {                                                    \
    for (int64_t i = 0; i < n; ++i) {                                          \
      float x = a[i], z = b[i];                                                \
      y[i] = EXPR;                                                             \
    }                                                                          \
  } else if (sa == 1 && sb == 0) {                                             \
    float z = b[0];                                                            \
    for (int64_t i = 0; i < n; ++i) {                                          \
      float x = a[i];                                                          \
      y[i] = EXPR;                                                             \
    }                                                                          \
  } else if (sa == 0 && sb == 1) {                                             \
    float x = a[0];                                                            \
    for (int64_t i = 0; i < n; ++i) {                                          \
      float z = b[i];                                                          \
      y[i] = EXPR;                                                             \
    }                                                                          \
  } else {                                                                     \
    for (int64_t i = 0; i < n; ++i) {                                          \
      float x = a[i * sa], z = b[i * sb];                                      \
      y[i] = EXPR;                                                             \
    }                                                                          \
  }
  switch (k) {
  case BinaryKind::Add:
    OPSCOPE_ROW(x + z)
    break;
  case BinaryKind::Sub:
    OPSCOPE_ROW(x - z)
    break;
  case BinaryKind::Mul:
    OPSCOPE_ROW(x * z)
    break;
  default:
    OPSCOPE_ROW(x / z)
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
          // x^2 (variance in decomposed LayerNorm), x^0.5, x^3 (tanh GELU).
          if (k == BinaryKind::Pow && st[2] == 0 &&
              (br[0] == 2.0f || br[0] == 0.5f || br[0] == 3.0f)) {
            float e = br[0];
            for (int64_t i = 0; i < n; ++i) {
              float v = ar[i * st[1]];
              yr[i] = e == 2.0f ? v * v : e == 3.0f ? v * v * v : std::sqrt(v);
            }
            return;
          }
        }
        for (int64_t i = 0; i < n; ++i)
          yr[i] = applyBinary<T>(k, ar[i * st[1]], br[i * st[2]]);
      });
}

template <typename T> bool applyCompare(CompareKind k, T a, T b) {
  switch (k) {
  case CompareKind::Eq:
    return a == b;
  case CompareKind::Ne:
    return a != b;
  case CompareKind::Lt:
    return a < b;
  case CompareKind::Le:
    return a <= b;
  case CompareKind::Gt:
    return a > b;
  case CompareKind::Ge:
    return a >= b;
  }
  return false;
}

template <typename T>
void compareTyped(CompareKind k, const T *a, const T *b, uint8_t *y,
                  const StridedWalk &w) {
  walkRows<3>(
      w, [&](std::array<int64_t, 3> off, int64_t n, std::array<int64_t, 3> st) {
        for (int64_t i = 0; i < n; ++i)
          y[off[0] + i] =
              applyCompare<T>(k, a[off[1] + i * st[1]], b[off[2] + i * st[2]]);
      });
}

float unaryF32(UnaryKind k, float x, float alpha, float beta) {
  switch (k) {
  case UnaryKind::Relu:
    return x > 0 ? x : 0.0f;
  case UnaryKind::LeakyRelu:
    return x >= 0 ? x : alpha * x;
  case UnaryKind::Elu:
    return x >= 0 ? x : alpha * (std::exp(x) - 1.0f);
  case UnaryKind::Tanh:
    return std::tanh(x);
  case UnaryKind::Sigmoid:
    return 1.0f / (1.0f + std::exp(-x));
  case UnaryKind::Erf:
    return std::erf(x);
  case UnaryKind::Exp:
    return std::exp(x);
  case UnaryKind::Log:
    return std::log(x);
  case UnaryKind::Sqrt:
    return std::sqrt(x);
  case UnaryKind::Reciprocal:
    return 1.0f / x;
  case UnaryKind::Neg:
    return -x;
  case UnaryKind::Abs:
    return std::fabs(x);
  case UnaryKind::Floor:
    return std::floor(x);
  case UnaryKind::Ceil:
    return std::ceil(x);
  case UnaryKind::Softplus:
    return x > 20.0f ? x : std::log1p(std::exp(x));
  case UnaryKind::HardSigmoid:
    return std::max(0.0f, std::min(1.0f, alpha * x + beta));
  case UnaryKind::HardSwish:
    return x * std::max(0.0f, std::min(1.0f, x / 6.0f + 0.5f));
  case UnaryKind::Clip:
    return std::min(std::max(x, alpha), beta);
  case UnaryKind::Not:
    return x == 0.0f;
  }
  return x;
}

template <typename T>
void unaryTyped(UnaryKind k, const T *x, T *y, int64_t n, float alpha,
                float beta) {
  for (int64_t i = 0; i < n; ++i) {
    T v = x[i];
    switch (k) {
    case UnaryKind::Neg:
      y[i] = static_cast<T>(-v);
      break;
    case UnaryKind::Abs:
      y[i] = v < 0 ? static_cast<T>(-v) : v;
      break;
    case UnaryKind::Relu:
      y[i] = v > 0 ? v : T(0);
      break;
    case UnaryKind::Not:
      y[i] = static_cast<T>(!v);
      break;
    case UnaryKind::Clip:
      // Integer clip bounds arrive as floats; compare in double.
      y[i] = static_cast<T>(std::min(std::max(double(v), double(alpha)),
                                     double(beta)));
      break;
    default:
      y[i] = static_cast<T>(unaryF32(k, static_cast<float>(v), alpha, beta));
      break;
    }
  }
}

__attribute__((target_clones("avx512f", "default"))) void
unaryF32Row(UnaryKind k, const float *x, float *y, int64_t n, float alpha,
            float beta) {
  switch (k) {
  case UnaryKind::Relu:
    for (int64_t i = 0; i < n; ++i)
      y[i] = x[i] > 0 ? x[i] : 0.0f;
    return;
  case UnaryKind::Neg:
    for (int64_t i = 0; i < n; ++i)
      y[i] = -x[i];
    return;
  case UnaryKind::Sqrt:
    for (int64_t i = 0; i < n; ++i)
      y[i] = std::sqrt(x[i]);
    return;
  case UnaryKind::Reciprocal:
    for (int64_t i = 0; i < n; ++i)
      y[i] = 1.0f / x[i];
    return;
  case UnaryKind::Clip:
    for (int64_t i = 0; i < n; ++i)
      y[i] = std::min(std::max(x[i], alpha), beta);
    return;
  default:
    for (int64_t i = 0; i < n; ++i)
      y[i] = unaryF32(k, x[i], alpha, beta);
    return;
  }
}

/// Calls f with a typed null pointer of the computable type t.
template <typename F> void dispatchType(DType t, F &&f) {
  switch (t) {
  case DType::F32:
    return f(static_cast<float *>(nullptr));
  case DType::F64:
    return f(static_cast<double *>(nullptr));
  case DType::I1:
  case DType::U8:
    return f(static_cast<uint8_t *>(nullptr));
  case DType::I8:
    return f(static_cast<int8_t *>(nullptr));
  case DType::I16:
    return f(static_cast<int16_t *>(nullptr));
  case DType::I32:
    return f(static_cast<int32_t *>(nullptr));
  case DType::I64:
    return f(static_cast<int64_t *>(nullptr));
  case DType::F16:
  case DType::BF16:
    break;
  }
  assert(false && "f16/bf16 are rejected when the model is loaded");
}

/// Copies elements of `size` bytes along rows.
template <size_t N, typename F> void dispatchSize(size_t size, F &&f) {
  switch (size) {
  case 1:
    return f(static_cast<uint8_t *>(nullptr));
  case 2:
    return f(static_cast<uint16_t *>(nullptr));
  case 4:
    return f(static_cast<uint32_t *>(nullptr));
  default:
    return f(static_cast<uint64_t *>(nullptr));
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Walks
//===----------------------------------------------------------------------===//

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

void opscope::rt::stridedCopy(const void *x, void *y, const StridedWalk &w,
                              size_t elemSize) {
  for (int64_t d : w.dims)
    if (d == 0)
      return;
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

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

namespace {
__attribute__((target_clones("avx512f", "default"))) void
reduceRowsF32(ReduceKind k, const float *x, float *y, int64_t rows,
              int64_t cols) {
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
} // namespace

void opscope::rt::reduce(ReduceKind k, DType t, const void *x,
                         const Shape &xShape, const std::vector<int64_t> &axes,
                         void *y) {
  // Trailing contiguous axes of f32: rows reduced with vectorisable float
  // partial sums (the decomposed LayerNorm's ReduceMean).
  bool trailing = t == DType::F32 && !axes.empty() &&
                  k != ReduceKind::Prod;
  for (size_t i = 0; i < axes.size() && trailing; ++i)
    trailing = axes[i] == static_cast<int64_t>(xShape.size() - axes.size() + i);
  if (trailing) {
    int64_t cols = 1;
    for (size_t i = xShape.size() - axes.size(); i < xShape.size(); ++i)
      cols *= xShape[i];
    reduceRowsF32(k, static_cast<const float *>(x), static_cast<float *>(y),
                  numElements(xShape) / std::max<int64_t>(cols, 1), cols);
    return;
  }
  // Output strides over the input's index space: 0 on reduced axes.
  Shape kept = xShape;
  for (int64_t a : axes)
    kept[a] = 1;
  Shape yStrides = broadcastStrides(kept, xShape);
  int64_t outN = numElements(kept);
  int64_t count = numElements(xShape) / std::max<int64_t>(outN, 1);
  dispatchType(t, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T *in = static_cast<const T *>(x);
    T *out = static_cast<T *>(y);
    double init = 0;
    if (k == ReduceKind::Max)
      init = -std::numeric_limits<double>::infinity();
    else if (k == ReduceKind::Min)
      init = std::numeric_limits<double>::infinity();
    else if (k == ReduceKind::Prod)
      init = 1;
    // Accumulate in double: sums over thousands of f32 values stay exact
    // enough to match references to 1e-6 relative.
    std::vector<double> acc(outN, init);
    walkRows<2>(makeWalk(xShape, {contiguousStrides(xShape), yStrides}),
                [&](std::array<int64_t, 2> off, int64_t n,
                      std::array<int64_t, 2> st) {
                    const T *xs = in + off[0];
                    double *as = acc.data() + off[1];
                    for (int64_t i = 0; i < n; ++i) {
                      double v = static_cast<double>(xs[i]);
                      double &a = as[i * st[1]];
                      switch (k) {
                      case ReduceKind::Mean:
                      case ReduceKind::Sum:
                        a += v;
                        break;
                      case ReduceKind::SumSquare:
                      case ReduceKind::L2:
                        a += v * v;
                        break;
                      case ReduceKind::Max:
                        a = std::max(a, v);
                        break;
                      case ReduceKind::Min:
                        a = std::min(a, v);
                        break;
                      case ReduceKind::Prod:
                        a *= v;
                        break;
                      }
                    }
                  });
    for (int64_t i = 0; i < outN; ++i) {
      double v = acc[i];
      if (k == ReduceKind::Mean)
        v /= static_cast<double>(count);
      else if (k == ReduceKind::L2)
        v = std::sqrt(v);
      out[i] = static_cast<T>(v);
    }
  });
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

void opscope::rt::transpose(const void *x, const Shape &xShape,
                            const std::vector<int64_t> &perm, void *y,
                            size_t elemSize) {
  stridedCopy(x, y, transposeWalk(xShape, perm), elemSize);
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
  char *dst = static_cast<char *>(y);
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t k = 0; k < inputs.size(); ++k) {
      std::memcpy(dst, static_cast<const char *>(inputs[k]) + o * blocks[k],
                  blocks[k]);
      dst += blocks[k];
    }
  }
}

void opscope::rt::pad(PadMode mode, DType t, const void *x,
                      const Shape &xShape, const std::vector<int64_t> &pads,
                      double value, void *y, const Shape &yShape) {
  size_t rank = xShape.size();
  size_t es = dtypeSize(t);
  Shape xSt = contiguousStrides(xShape);
  int64_t n = numElements(yShape);
  if (n == 0)
    return;
  // Constant fill value in the element type.
  std::vector<char> fill(es);
  dispatchType(t, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T v = static_cast<T>(value);
    std::memcpy(fill.data(), &v, es);
  });
  const char *src = static_cast<const char *>(x);
  char *dst = static_cast<char *>(y);
  Shape idx(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      int64_t s = idx[d] - pads[d];
      int64_t len = xShape[d];
      if (s < 0 || s >= len) {
        if (mode == PadMode::Constant || len == 0) {
          inside = false;
          break;
        }
        if (mode == PadMode::Edge) {
          s = s < 0 ? 0 : len - 1;
        } else { // reflect, without repeating the edge
          int64_t period = std::max<int64_t>(2 * (len - 1), 1);
          s = ((s % period) + period) % period;
          if (s >= len)
            s = period - s;
        }
      }
      off += s * xSt[d];
    }
    std::memcpy(dst + i * es, inside ? src + off * es : fill.data(), es);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < yShape[d])
        break;
      idx[d] = 0;
    }
  }
}

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

namespace {
/// Input coordinate of output index `o` along one dimension (ONNX Resize).
double sourceCoordinate(CoordinateTransform t, int64_t o, int64_t in,
                        int64_t out, double scale) {
  switch (t) {
  case CoordinateTransform::HalfPixel:
    return (o + 0.5) / scale - 0.5;
  case CoordinateTransform::PytorchHalfPixel:
    return out > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
  case CoordinateTransform::AlignCorners: {
    // ONNX: length_resized is input * scale, unrounded, when scales are given.
    double resized = scale * in;
    return resized == 1.0 ? 0.0 : double(o) * (in - 1) / (resized - 1.0);
  }
  case CoordinateTransform::Asymmetric:
    return o / scale;
  case CoordinateTransform::HalfPixelSymmetric: {
    double adjustment = out / (scale * in);
    double center = in / 2.0;
    double offset = center * (1 - adjustment);
    return offset + (o + 0.5) / scale - 0.5;
  }
  }
  return 0;
}

int64_t nearestIndex(NearestMode m, double c, int64_t in) {
  double r;
  switch (m) {
  case NearestMode::RoundPreferFloor:
    r = (c - std::floor(c) == 0.5) ? std::floor(c) : std::round(c);
    break;
  case NearestMode::RoundPreferCeil:
    r = (c - std::floor(c) == 0.5) ? std::ceil(c) : std::round(c);
    break;
  case NearestMode::Floor:
    r = std::floor(c);
    break;
  case NearestMode::Ceil:
  default:
    r = std::ceil(c);
    break;
  }
  return std::clamp<int64_t>(static_cast<int64_t>(r), 0, in - 1);
}

/// Taps (source index, weight) for every output index along one dimension.
std::vector<std::vector<std::pair<int64_t, float>>>
resizeTaps(const ResizeParams &p, int64_t in, int64_t out, double scale) {
  std::vector<std::vector<std::pair<int64_t, float>>> taps(out);
  for (int64_t o = 0; o < out; ++o) {
    double c = sourceCoordinate(p.transform, o, in, out, scale);
    auto &t = taps[o];
    if (p.mode == ResizeMode::Nearest) {
      t.push_back({nearestIndex(p.nearest, c, in), 1.0f});
      continue;
    }
    if (p.mode == ResizeMode::Linear) {
      c = std::clamp(c, 0.0, double(in - 1));
      int64_t i0 = static_cast<int64_t>(std::floor(c));
      double r = c - i0;
      t.push_back({i0, static_cast<float>(1 - r)});
      t.push_back({std::min(i0 + 1, in - 1), static_cast<float>(r)});
      continue;
    }
    int64_t i0 = static_cast<int64_t>(std::floor(c));
    double r = c - i0;
    double a = p.cubicA;
    double w[4] = {
        ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
        ((a + 2) * r - (a + 3)) * r * r + 1,
        ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
        ((a * (2 - r) - 5 * a) * (2 - r) + 8 * a) * (2 - r) - 4 * a};
    double sum = 0;
    for (int k = 0; k < 4; ++k) {
      int64_t i = i0 - 1 + k;
      if (p.excludeOutside && (i < 0 || i >= in))
        w[k] = 0;
      sum += w[k];
    }
    for (int k = 0; k < 4; ++k) {
      double wk = p.excludeOutside && sum != 0 ? w[k] / sum : w[k];
      t.push_back({std::clamp<int64_t>(i0 - 1 + k, 0, in - 1),
                   static_cast<float>(wk)});
    }
  }
  return taps;
}
} // namespace

void opscope::rt::resize(const ResizeParams &p, const float *x,
                         const Shape &xShape, float *y, const Shape &yShape) {
  // Separable: resize one dimension at a time through a scratch buffer.
  std::vector<float> cur(x, x + numElements(xShape)), next;
  Shape shape = xShape;
  for (size_t d = 0; d < shape.size(); ++d) {
    double scale = p.scales.empty() ? double(yShape[d]) / shape[d]
                                    : double(p.scales[d]);
    if (yShape[d] == shape[d] && scale == 1.0)
      continue;
    auto taps = resizeTaps(p, shape[d], yShape[d], scale);
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < d; ++i)
      outer *= shape[i];
    for (size_t i = d + 1; i < shape.size(); ++i)
      inner *= shape[i];
    next.assign(outer * yShape[d] * inner, 0.0f);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < yShape[d]; ++j) {
        float *dst = next.data() + (o * yShape[d] + j) * inner;
        for (auto [src, w] : taps[j]) {
          const float *s = cur.data() + (o * shape[d] + src) * inner;
          for (int64_t i = 0; i < inner; ++i)
            dst[i] += w * s[i];
        }
      }
    shape[d] = yShape[d];
    cur.swap(next);
  }
  std::memcpy(y, cur.data(), cur.size() * sizeof(float));
}

//===----------------------------------------------------------------------===//
// Normalisation and pooling helpers
//===----------------------------------------------------------------------===//

void opscope::rt::batchNorm(const float *x, const Shape &shape,
                            const float *scale, const float *bias,
                            const float *mean, const float *var, float eps,
                            float *y) {
  int64_t n = shape[0], c = shape.size() > 1 ? shape[1] : 1;
  int64_t inner = numElements(shape) / std::max<int64_t>(n * c, 1);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      float s = scale[ch] / std::sqrt(var[ch] + eps);
      float t = bias[ch] - mean[ch] * s;
      const float *in = x + (b * c + ch) * inner;
      float *out = y + (b * c + ch) * inner;
      for (int64_t i = 0; i < inner; ++i)
        out[i] = in[i] * s + t;
    }
}

void opscope::rt::globalPool(bool isMax, const float *x, const Shape &shape,
                             float *y) {
  int64_t planes = shape[0] * shape[1];
  int64_t inner = numElements(shape) / std::max<int64_t>(planes, 1);
  for (int64_t p = 0; p < planes; ++p) {
    const float *in = x + p * inner;
    double acc = isMax ? -INFINITY : 0.0;
    for (int64_t i = 0; i < inner; ++i)
      acc = isMax ? std::max(acc, double(in[i])) : acc + in[i];
    y[p] = static_cast<float>(isMax ? acc : acc / inner);
  }
}

void opscope::rt::softmaxAxis(const float *x, const Shape &shape, int64_t axis,
                              bool log, float *y) {
  int64_t outer = 1, inner = 1, len = shape[axis];
  for (int64_t i = 0; i < axis; ++i)
    outer *= shape[i];
  for (size_t i = axis + 1; i < shape.size(); ++i)
    inner *= shape[i];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const float *in = x + o * len * inner + i;
      float *out = y + o * len * inner + i;
      float mx = -INFINITY;
      for (int64_t j = 0; j < len; ++j)
        mx = std::max(mx, in[j * inner]);
      double sum = 0;
      for (int64_t j = 0; j < len; ++j)
        sum += std::exp(double(in[j * inner] - mx));
      for (int64_t j = 0; j < len; ++j) {
        double v = in[j * inner] - mx;
        out[j * inner] = static_cast<float>(log ? v - std::log(sum)
                                                : std::exp(v) / sum);
      }
    }
}
