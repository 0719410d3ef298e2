//===- UnsignedTest.cpp - u8/u16/u32/u64 kernels against plain references -===//
//
// The generic binary, compare, cast and unique kernels on the unsigned
// element types, against plain reference code written here with each
// type's own operators (so a kernel that computed through the signed type
// of the same width, or through double, would differ). The values include
// each type's upper half (above the signed maximum), where unsigned and
// signed comparison, division and remainder disagree, and shift counts at
// and beyond the bit width (ONNX BitShift: 0).
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/extents.h"
#include "opscope/runtime/generic.h"
#include "opscope/runtime/kinds.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <vector>

using namespace opscope;
using namespace opscope::rt;

namespace {

template <typename T> DType dtypeOf() {
  if constexpr (sizeof(T) == 1)
    return DType::U8;
  else if constexpr (sizeof(T) == 2)
    return DType::U16;
  else if constexpr (sizeof(T) == 4)
    return DType::U32;
  else
    return DType::U64;
}

/// Small values, the signed maximum and its neighbours, the type's top.
template <typename T> std::vector<T> values() {
  constexpr T top = std::numeric_limits<T>::max();
  constexpr T half = top / 2; // the signed type's maximum
  return {T(0), T(1),        T(2),        T(3),      T(7),
          T(100), half,      T(half + 1), T(half + 7), T(top - 1),
          top};
}

/// The reference of binary kind k on T, with T's own operators (computed
/// in uintmax_t where a narrow T would promote to int).
template <typename T> T reference(BinaryKind k, T a, T b) {
  constexpr unsigned bits = sizeof(T) * 8;
  uintmax_t x = a, y = b;
  switch (k) {
  case BinaryKind::Add:
    return T(x + y);
  case BinaryKind::Sub:
    return T(x - y);
  case BinaryKind::Mul:
    return T(x * y);
  case BinaryKind::Div:
    return y == 0 ? T(0) : T(x / y);
  case BinaryKind::Max:
    return a > b ? a : b;
  case BinaryKind::Min:
    return a < b ? a : b;
  case BinaryKind::Mod:
  case BinaryKind::Fmod:
    return y == 0 ? T(0) : T(x % y);
  case BinaryKind::Shl:
    return y >= bits ? T(0) : T(x << y);
  case BinaryKind::Shr:
    return y >= bits ? T(0) : T(x >> y);
  default:
    return 0;
  }
}

template <typename T> void checkBinaryKinds() {
  std::vector<T> v = values<T>();
  int64_t n = static_cast<int64_t>(v.size());
  // Shift counts: every count below the width, the width, and beyond.
  std::vector<T> counts;
  for (unsigned s = 0; s <= sizeof(T) * 8 + 2; ++s)
    counts.push_back(T(s));
  counts.push_back(std::numeric_limits<T>::max());
  int64_t m = static_cast<int64_t>(counts.size());
  for (BinaryKind k :
       {BinaryKind::Add, BinaryKind::Sub, BinaryKind::Mul, BinaryKind::Div,
        BinaryKind::Max, BinaryKind::Min, BinaryKind::Mod, BinaryKind::Fmod,
        BinaryKind::Shl, BinaryKind::Shr}) {
    bool shift = k == BinaryKind::Shl || k == BinaryKind::Shr;
    const std::vector<T> &rhs = shift ? counts : v;
    int64_t r = shift ? m : n;
    // lhs n x 1 against rhs 1 x r: every pair.
    std::vector<T> y(n * r);
    binary(k, dtypeOf<T>(), v.data(), {n, 1}, rhs.data(), {1, r}, y.data(),
           {n, r});
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < r; ++j)
        EXPECT_EQ(uint64_t(y[i * r + j]), uint64_t(reference<T>(k, v[i], rhs[j])))
            << kindName(k) << " " << kindName(dtypeOf<T>()) << ": "
            << uint64_t(v[i]) << ", " << uint64_t(rhs[j]);
  }
}

template <typename T> void checkCompareKinds() {
  std::vector<T> v = values<T>();
  int64_t n = static_cast<int64_t>(v.size());
  for (CompareKind k : {CompareKind::Lt, CompareKind::Le, CompareKind::Gt,
                        CompareKind::Ge, CompareKind::Eq, CompareKind::Ne}) {
    std::vector<uint8_t> y(n * n);
    compare(k, dtypeOf<T>(), v.data(), {n, 1}, v.data(), {1, n}, y.data(),
            {n, n});
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T a = v[i], b = v[j];
        bool want = k == CompareKind::Lt   ? a < b
                    : k == CompareKind::Le ? a <= b
                    : k == CompareKind::Gt ? a > b
                    : k == CompareKind::Ge ? a >= b
                    : k == CompareKind::Eq ? a == b
                                           : a != b;
        EXPECT_EQ(y[i * n + j] != 0, want)
            << kindName(k) << " " << kindName(dtypeOf<T>()) << ": "
            << uint64_t(a) << ", " << uint64_t(b);
      }
  }
}

template <typename T> void checkCasts() {
  std::vector<T> v = values<T>();
  int64_t n = static_cast<int64_t>(v.size());
  std::vector<double> d(n);
  cast(dtypeOf<T>(), v.data(), DType::F64, d.data(), n);
  std::vector<int64_t> i64(n);
  cast(dtypeOf<T>(), v.data(), DType::I64, i64.data(), n);
  std::vector<T> back(n);
  cast(DType::I64, i64.data(), dtypeOf<T>(), back.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(d[i], static_cast<double>(v[i])) << uint64_t(v[i]);
    EXPECT_EQ(uint64_t(i64[i]), uint64_t(v[i])); // u64: the same bits
    EXPECT_EQ(back[i], v[i]);
  }
  // f32 to unsigned truncates toward zero; values in range only (ONNX
  // leaves others undefined).
  std::vector<float> f = {0.0f, 0.75f, 1.5f, 200.9f, 255.0f};
  std::vector<T> u(f.size());
  cast(DType::F32, f.data(), dtypeOf<T>(), u.data(), int64_t(f.size()));
  for (size_t i = 0; i < f.size(); ++i)
    EXPECT_EQ(uint64_t(u[i]), uint64_t(f[i]));
}

template <typename T> void checkUnique() {
  constexpr T top = std::numeric_limits<T>::max();
  std::vector<T> x = {top, 1, T(top / 2 + 1), 1, top};
  std::vector<T> y(x.size());
  std::vector<int64_t> first(x.size()), inverse(x.size()), counts(x.size());
  int64_t k = unique(dtypeOf<T>(), x.data(), {5}, -1, /*sorted=*/true,
                     y.data(), first.data(), inverse.data(), counts.data());
  ASSERT_EQ(k, 3);
  // Sorted as unsigned: the upper half after 1.
  EXPECT_EQ(y[0], T(1));
  EXPECT_EQ(y[1], T(top / 2 + 1));
  EXPECT_EQ(y[2], top);
  EXPECT_EQ(counts[0], 2);
  EXPECT_EQ(counts[2], 2);
}

} // namespace

TEST(UnsignedKernels, BinaryMatchesReference) {
  checkBinaryKinds<uint8_t>();
  checkBinaryKinds<uint16_t>();
  checkBinaryKinds<uint32_t>();
  checkBinaryKinds<uint64_t>();
}

TEST(UnsignedKernels, CompareIsUnsigned) {
  checkCompareKinds<uint8_t>();
  checkCompareKinds<uint16_t>();
  checkCompareKinds<uint32_t>();
  checkCompareKinds<uint64_t>();
}

TEST(UnsignedKernels, CastsKeepValues) {
  checkCasts<uint8_t>();
  checkCasts<uint16_t>();
  checkCasts<uint32_t>();
  checkCasts<uint64_t>();
}

TEST(UnsignedKernels, UniqueSortsUnsigned) {
  checkUnique<uint16_t>();
  checkUnique<uint32_t>();
  checkUnique<uint64_t>();
}

TEST(UnsignedKernels, PowWithExponentsAndWrap) {
  // Integer pow is exact with wrap-around: 3^40 mod 2^64, and mod 2^32.
  uint64_t a = 3, e = 40, y = 0;
  binary(BinaryKind::Pow, DType::U64, &a, {}, &e, {}, &y, {});
  uint64_t want = 1;
  for (int i = 0; i < 40; ++i)
    want *= 3;
  EXPECT_EQ(y, want);
  uint32_t a32 = 3, e32 = 40, y32 = 0;
  binary(BinaryKind::Pow, DType::U32, &a32, {}, &e32, {}, &y32, {});
  EXPECT_EQ(y32, uint32_t(want));
}

TEST(UnsignedKernels, ReduceMaxMinExactAboveTwoTo53) {
  // Through double these would round (2^64 - 1 is 2^64 as a double).
  constexpr uint64_t top = std::numeric_limits<uint64_t>::max();
  std::vector<uint64_t> x = {top - 1, 5, top, (uint64_t(1) << 63) + 1,
                             (uint64_t(1) << 53) + 1, (uint64_t(1) << 53)};
  std::vector<uint64_t> y(2);
  // Rows of 3 along axis 1, and the other axis (a strided reduction).
  reduce(ReduceKind::Max, DType::U64, x.data(), {2, 3}, {1}, y.data());
  EXPECT_EQ(y[0], top);
  EXPECT_EQ(y[1], (uint64_t(1) << 63) + 1);
  reduce(ReduceKind::Min, DType::U64, x.data(), {2, 3}, {1}, y.data());
  EXPECT_EQ(y[0], uint64_t(5));
  EXPECT_EQ(y[1], uint64_t(1) << 53);
  std::vector<uint64_t> z(3);
  reduce(ReduceKind::Max, DType::U64, x.data(), {2, 3}, {0}, z.data());
  EXPECT_EQ(z, (std::vector<uint64_t>{top - 1, (uint64_t(1) << 53) + 1, top}));
  std::vector<int64_t> s = {INT64_MAX - 1, INT64_MAX, INT64_MIN + 1,
                            INT64_MIN};
  std::vector<int64_t> sy(1);
  reduce(ReduceKind::Max, DType::I64, s.data(), {4}, {0}, sy.data());
  EXPECT_EQ(sy[0], INT64_MAX);
  reduce(ReduceKind::Min, DType::I64, s.data(), {4}, {0}, sy.data());
  EXPECT_EQ(sy[0], INT64_MIN);
}
