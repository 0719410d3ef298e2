//===- kinds.h - op kinds, element types, enums and scalar semantics -*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM; header-only, so the compiler
// includes it without linking the runtime). Everything here is generated
// from kinds.def:
//
//   * the enums that cross the ABI (OpKind, DType, UnaryKind, ...), with
//     `kindName(e)` and `parseKind<E>(name)` for the names the plan carries;
//   * one scalar definition of unary, binary and compare, used by the osc
//     constant folders and by the runtime's generic kernels, so folding and
//     running compute the same function.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_KINDS_H
#define OPSCOPE_RUNTIME_KINDS_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace opscope::rt {

//===----------------------------------------------------------------------===//
// Enums and names
//===----------------------------------------------------------------------===//

#define OPSCOPE_ENUM_CASE(E, ...) E,
#define OPSCOPE_ENUM_NAME(E, N, ...) N,

enum class OpKind : uint8_t {
#define OPSCOPE_OP_KIND OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class DType : uint8_t {
#define OPSCOPE_DTYPE OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class UnaryKind : uint8_t {
#define OPSCOPE_UNARY_KIND OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class BinaryKind : uint8_t {
#define OPSCOPE_BINARY_KIND OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class CompareKind : uint8_t {
#define OPSCOPE_COMPARE_KIND OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class ReduceKind : uint8_t {
#define OPSCOPE_REDUCE_KIND OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class PoolKind : uint8_t {
#define OPSCOPE_POOL_KIND OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class GeluKind : uint8_t {
#define OPSCOPE_GELU_KIND OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class PostOpKind : uint8_t {
#define OPSCOPE_POST_OP OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class PadMode : uint8_t {
#define OPSCOPE_PAD_MODE OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class ResizeMode : uint8_t {
#define OPSCOPE_RESIZE_MODE OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class CoordinateTransform : uint8_t {
#define OPSCOPE_COORDINATE_TRANSFORM OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class NearestMode : uint8_t {
#define OPSCOPE_NEAREST_MODE OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class RnnCell : uint8_t {
#define OPSCOPE_RNN_CELL OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class RnnActivation : uint8_t {
#define OPSCOPE_RNN_ACTIVATION OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class ScatterReduction : uint8_t {
#define OPSCOPE_SCATTER_REDUCTION OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};
enum class TfIdfMode : uint8_t {
#define OPSCOPE_TFIDF_MODE OPSCOPE_ENUM_CASE
#include "opscope/runtime/kinds.def"
};

/// The names of an enum's cases, in order (`KindTraits<UnaryKind>::names`).
template <typename E> struct KindTraits;

template <> struct KindTraits<OpKind> {
  static constexpr const char *names[] = {
#define OPSCOPE_OP_KIND OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  /// What compile-time reports show as the op's kernel.
  static constexpr const char *families[] = {
#define OPSCOPE_OP_KIND(E, N, K) K,
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<DType> {
  static constexpr const char *names[] = {
#define OPSCOPE_DTYPE OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t bytes[] = {
#define OPSCOPE_DTYPE(E, N, B) B,
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<UnaryKind> {
  static constexpr const char *names[] = {
#define OPSCOPE_UNARY_KIND OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};

template <> struct KindTraits<BinaryKind> {
  static constexpr const char *names[] = {
#define OPSCOPE_BINARY_KIND OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<CompareKind> {
  static constexpr const char *names[] = {
#define OPSCOPE_COMPARE_KIND OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<ReduceKind> {
  static constexpr const char *names[] = {
#define OPSCOPE_REDUCE_KIND OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<PoolKind> {
  static constexpr const char *names[] = {
#define OPSCOPE_POOL_KIND OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<GeluKind> {
  static constexpr const char *names[] = {
#define OPSCOPE_GELU_KIND OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<PostOpKind> {
  static constexpr const char *names[] = {
#define OPSCOPE_POST_OP OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  /// How many parameters (alpha, then beta) each kind takes.
  static constexpr int parameters[] = {
#define OPSCOPE_POST_OP(E, N, P) P,
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<PadMode> {
  static constexpr const char *names[] = {
#define OPSCOPE_PAD_MODE OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<ResizeMode> {
  static constexpr const char *names[] = {
#define OPSCOPE_RESIZE_MODE OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<CoordinateTransform> {
  static constexpr const char *names[] = {
#define OPSCOPE_COORDINATE_TRANSFORM OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<NearestMode> {
  static constexpr const char *names[] = {
#define OPSCOPE_NEAREST_MODE OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<RnnCell> {
  static constexpr const char *names[] = {
#define OPSCOPE_RNN_CELL OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<RnnActivation> {
  static constexpr const char *names[] = {
#define OPSCOPE_RNN_ACTIVATION OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<ScatterReduction> {
  static constexpr const char *names[] = {
#define OPSCOPE_SCATTER_REDUCTION OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};
template <> struct KindTraits<TfIdfMode> {
  static constexpr const char *names[] = {
#define OPSCOPE_TFIDF_MODE OPSCOPE_ENUM_NAME
#include "opscope/runtime/kinds.def"
  };
  static constexpr size_t size = sizeof(names) / sizeof(names[0]);
};

#undef OPSCOPE_ENUM_CASE
#undef OPSCOPE_ENUM_NAME

/// The name the plan uses for `e` (`inner_product`, `f32`, `gelu_erf`).
template <typename E> constexpr const char *kindName(E e) {
  return KindTraits<E>::names[static_cast<size_t>(e)];
}

/// The case named `name`, or nullopt.
template <typename E> std::optional<E> parseKind(std::string_view name) {
  for (size_t i = 0; i < KindTraits<E>::size; ++i)
    if (name == KindTraits<E>::names[i])
      return static_cast<E>(i);
  return std::nullopt;
}

/// A fused post-operation: its kind and, for the kinds that take them
/// (`KindTraits<PostOpKind>::parameters`), alpha and beta as osc.unary's
/// (leaky_relu's slope, elu's alpha, hard_sigmoid's alpha and beta, clip's
/// bounds). `PostOp::Relu` and the like are the kinds without parameters.
struct PostOp {
  PostOpKind kind = PostOpKind::Relu;
  float alpha = 0.0f, beta = 0.0f;

  constexpr PostOp() = default;
  constexpr PostOp(PostOpKind kind, float alpha = 0.0f, float beta = 0.0f)
      : kind(kind), alpha(alpha), beta(beta) {}

#define OPSCOPE_POST_OP(E, N, P) static const PostOp E;
#include "opscope/runtime/kinds.def"

  friend constexpr bool operator==(const PostOp &a, const PostOp &b) {
    return a.kind == b.kind && a.alpha == b.alpha && a.beta == b.beta;
  }
  friend constexpr bool operator!=(const PostOp &a, const PostOp &b) {
    return !(a == b);
  }
};
#define OPSCOPE_POST_OP(E, N, P)                                               \
  inline constexpr PostOp PostOp::E{PostOpKind::E};
#include "opscope/runtime/kinds.def"

constexpr int postOpParameters(PostOpKind k) {
  return KindTraits<PostOpKind>::parameters[static_cast<size_t>(k)];
}

/// The plan's spelling of `p`: its name, then its parameters in
/// parentheses (`leaky_relu(0.100000001)`), each printed so that reading it
/// back gives the same float.
inline std::string postOpName(const PostOp &p) {
  std::string s = kindName(p.kind);
  int n = postOpParameters(p.kind);
  for (int i = 0; i < n; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", double(i ? p.beta : p.alpha));
    s += (i ? ", " : "(");
    s += buf;
  }
  if (n)
    s += ")";
  return s;
}

/// Reads `postOpName`'s spelling back; nullopt for an unknown name or the
/// wrong number of parameters.
inline std::optional<PostOp> parsePostOp(std::string_view text) {
  size_t open = text.find('(');
  auto kind = parseKind<PostOpKind>(text.substr(0, open));
  if (!kind)
    return std::nullopt;
  PostOp p(*kind);
  const int want = postOpParameters(*kind);
  if (open == std::string_view::npos)
    return want == 0 ? std::optional<PostOp>(p) : std::nullopt;
  if (text.back() != ')')
    return std::nullopt;
  std::string args(text.substr(open + 1, text.size() - open - 2));
  const char *c = args.c_str();
  int got = 0;
  while (got < want) {
    char *end = nullptr;
    float v = std::strtof(c, &end);
    if (end == c)
      return std::nullopt;
    (got ? p.beta : p.alpha) = v;
    ++got;
    c = end;
    while (*c == ' ')
      ++c;
    if (*c == ',' && got < want)
      ++c;
    else
      break;
  }
  if (got != want || *c != '\0')
    return std::nullopt;
  return p;
}

/// The kernel family compile-time reports show for an op kind.
constexpr const char *kernelFamily(OpKind k) {
  return KindTraits<OpKind>::families[static_cast<size_t>(k)];
}

constexpr size_t dtypeSize(DType t) {
  return KindTraits<DType>::bytes[static_cast<size_t>(t)];
}

//===----------------------------------------------------------------------===//
// Scalar semantics
//===----------------------------------------------------------------------===//

/// Default alpha/beta of a unary kind when the op carries none (oneDNN's
/// eltwise conventions, ONNX's attribute defaults).
struct UnaryParams {
  float alpha = 0, beta = 0;
};

/// An IEEE half (binary16) as float, exactly (every half is a float).
inline float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000 | (mant << 13); // inf, NaN (payload kept)
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign; // +-0
  } else {
    // Subnormal: mant * 2^-24, normalised.
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while (!(mant & 0x400));
    bits = sign | (uint32_t(112 - e) << 23) | ((mant & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline UnaryParams defaultUnaryParams(UnaryKind k) {
  switch (k) {
  case UnaryKind::LeakyRelu:
    return {0.01f, 0};
  case UnaryKind::Elu:
    return {1.0f, 0};
  case UnaryKind::HardSigmoid:
    return {0.2f, 0.5f};
  case UnaryKind::Clip:
    return {-std::numeric_limits<float>::infinity(),
            std::numeric_limits<float>::infinity()};
  case UnaryKind::Selu:
    return {1.67326319217681884765625f, 1.05070102214813232421875f};
  case UnaryKind::ThresholdedRelu:
  case UnaryKind::Celu:
    return {1.0f, 0};
  case UnaryKind::Shrink:
    return {0.5f, 0};
  default:
    return {};
  }
}

namespace detail {
template <typename T> T clamp01(T v) {
  return std::max(T(0), std::min(T(1), v));
}

/// Two's-complement wrap-around for integer arithmetic (signed overflow is
/// undefined in C++; ONNX runtimes wrap).
template <typename T, typename F> T wrapping(T a, T b, F f) {
  // At least `unsigned int`: narrower unsigned types promote to (signed)
  // int, where 65535 * 65535 would overflow.
  using U = std::make_unsigned_t<T>;
  using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  return static_cast<T>(f(static_cast<W>(static_cast<U>(a)),
                          static_cast<W>(static_cast<U>(b))));
}

/// a^b for integers: exact with wrap-around for b >= 0; for b < 0 the
/// truncated real result (1, -1 or 0).
template <typename T> T integerPow(T a, T b) {
  using U = std::make_unsigned_t<T>;
  if (b < 0) {
    if (a == 1)
      return 1;
    if constexpr (std::is_signed_v<T>)
      if (a == -1)
        return (b % 2 == 0) ? T(1) : T(-1);
    return 0;
  }
  // Multiplied in at least `unsigned int` (see wrapping), reduced to U.
  using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  U result = 1, base = static_cast<U>(a);
  for (U e = static_cast<U>(b); e; e >>= 1) {
    if (e & 1)
      result = static_cast<U>(static_cast<W>(result) * static_cast<W>(base));
    base = static_cast<U>(static_cast<W>(base) * static_cast<W>(base));
  }
  return static_cast<T>(result);
}
} // namespace detail

/// The unary function of `k` on one floating-point value.
template <typename T>
T unaryFloat(UnaryKind k, T x, T alpha, T beta) {
  static_assert(std::is_floating_point_v<T>);
  using detail::clamp01;
  (void)alpha;
  (void)beta;
  switch (k) {
#define OPSCOPE_UNARY_KIND(E, N, F)                                            \
  case UnaryKind::E:                                                           \
    return F;
#include "opscope/runtime/kinds.def"
  }
  return x;
}

/// The unary function of `k` on one value of any element type T. Integers
/// have exact neg/abs/relu/not/clip (wrapping at the type's limits); other
/// kinds compute through double and convert back.
template <typename T> T unaryScalar(UnaryKind k, T x, float alpha, float beta) {
  if constexpr (std::is_floating_point_v<T>) {
    return unaryFloat<T>(k, x, static_cast<T>(alpha), static_cast<T>(beta));
  } else {
    using U = std::make_unsigned_t<T>;
    switch (k) {
    case UnaryKind::Neg:
      return static_cast<T>(U(0) - static_cast<U>(x));
    case UnaryKind::Abs:
      return x < 0 ? static_cast<T>(U(0) - static_cast<U>(x)) : x;
    case UnaryKind::Relu:
      return x > 0 ? x : T(0);
    case UnaryKind::Not:
      return static_cast<T>(x == 0);
    case UnaryKind::Clip: {
      double v = std::min(std::max(double(x), double(alpha)), double(beta));
      return static_cast<T>(v);
    }
    default: {
      double v = unaryFloat<double>(k, double(x), alpha, beta);
      if (!(v >= double(std::numeric_limits<T>::lowest()) &&
            v <= double(std::numeric_limits<T>::max())))
        return 0; // NaN or out of range: no integer result
      return static_cast<T>(v);
    }
    }
  }
}

/// a^b. Floating point: exponents 2 and 3 are products (as ONNX Runtime
/// computes them), 0.5 is a square root with pow's results for -0 and -inf,
/// anything else std::pow. Integers: see detail::integerPow.
template <typename T> T powScalar(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == T(2))
      return a * a;
    if (b == T(3))
      return a * a * a;
    if (b == T(0.5))
      return a == -std::numeric_limits<T>::infinity()
                 ? std::numeric_limits<T>::infinity()
                 : std::sqrt(a) + T(0);
    return std::pow(a, b);
  } else {
    return detail::integerPow(a, b);
  }
}

/// a (k) b on one pair of values of element type T. Integer division by zero
/// gives 0; integer arithmetic wraps; max/min propagate NaN (as numpy).
template <typename T> T binaryScalar(BinaryKind k, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (k) {
    case BinaryKind::Add:
      return a + b;
    case BinaryKind::Sub:
      return a - b;
    case BinaryKind::Mul:
      return a * b;
    case BinaryKind::Div:
      return a / b;
    case BinaryKind::Pow:
      return powScalar(a, b);
    case BinaryKind::Max:
      return std::isnan(a) || std::isnan(b) ? a + b : std::max(a, b);
    case BinaryKind::Min:
      return std::isnan(a) || std::isnan(b) ? a + b : std::min(a, b);
    case BinaryKind::And:
      return static_cast<T>(a != 0 && b != 0);
    case BinaryKind::Or:
      return static_cast<T>(a != 0 || b != 0);
    case BinaryKind::Xor:
      return static_cast<T>((a != 0) != (b != 0));
    case BinaryKind::Fmod:
      return std::fmod(a, b);
    case BinaryKind::Mod: {
      T r = std::fmod(a, b);
      return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
    }
    case BinaryKind::Shl:
    case BinaryKind::Shr:
      return a; // integers only (the verifier refuses others)
    }
  } else {
    switch (k) {
    case BinaryKind::Add:
      return detail::wrapping(a, b, [](auto x, auto y) { return x + y; });
    case BinaryKind::Sub:
      return detail::wrapping(a, b, [](auto x, auto y) { return x - y; });
    case BinaryKind::Mul:
      return detail::wrapping(a, b, [](auto x, auto y) { return x * y; });
    case BinaryKind::Div:
      if (b == 0)
        return 0;
      if constexpr (std::is_signed_v<T>)
        if (b == -1) // the one quotient that overflows (lowest / -1)
          return detail::wrapping(T(0), a, [](auto x, auto y) { return x - y; });
      return static_cast<T>(a / b); // truncates toward zero, as ONNX
    case BinaryKind::Pow:
      return powScalar(a, b);
    case BinaryKind::Max:
      return std::max(a, b);
    case BinaryKind::Min:
      return std::min(a, b);
    case BinaryKind::And:
      return static_cast<T>(a != 0 && b != 0);
    case BinaryKind::Or:
      return static_cast<T>(a != 0 || b != 0);
    case BinaryKind::Xor:
      return static_cast<T>((a != 0) != (b != 0));
    case BinaryKind::Fmod:
    case BinaryKind::Mod: {
      if (b == 0)
        return 0;
      if constexpr (std::is_signed_v<T>)
        if (b == -1)
          return 0; // also where lowest % -1 would overflow
      T r = static_cast<T>(a % b); // the dividend's sign
      if constexpr (std::is_signed_v<T>)
        if (k == BinaryKind::Mod && r != 0 && ((r < 0) != (b < 0)))
          r = static_cast<T>(r + b);
      return r;
    }
    case BinaryKind::Shl:
    case BinaryKind::Shr: {
      // ONNX defines BitShift on unsigned types only; a shift by the bit
      // width or more (undefined in C++) gives 0, as numpy and ONNX Runtime.
      using U = std::make_unsigned_t<T>;
      using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
      U by = static_cast<U>(b);
      if (by >= sizeof(U) * 8)
        return 0;
      W v = static_cast<W>(static_cast<U>(a));
      return static_cast<T>(static_cast<U>(k == BinaryKind::Shl ? v << by
                                                                : v >> by));
    }
    }
  }
  return a;
}

/// a (k) b; comparisons with NaN are false except `ne` (IEEE).
template <typename T> bool compareScalar(CompareKind k, T a, T b) {
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

/// An attribute an executed op carries in the plan (attrs.def): whether
/// the runtime reads it, or only the plan carries it.
struct OpAttr {
  OpKind kind;
  const char *name;
  bool read;
};
inline constexpr OpAttr kOpAttrs[] = {
#define OPSCOPE_OP_ATTR(K, N) {OpKind::K, N, true},
#define OPSCOPE_PLAN_ONLY_ATTR(K, N) {OpKind::K, N, false},
#include "opscope/runtime/attrs.def"
};

/// Whether the runtime may read attribute `name` of a `kind` op.
inline bool runtimeReadsAttr(OpKind kind, std::string_view name) {
  for (const OpAttr &a : kOpAttrs)
    if (a.kind == kind && a.read && name == a.name)
      return true;
  return false;
}

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_KINDS_H
