//===- FoldRunAgreementTest.cpp - constant folding equals running ---------===//
//
// Part of opscope. osc's constant folders and the runtime's generic kernels
// both evaluate unary, binary and compare through kinds.h. These tests fold
// each kind on edge values (signed zeros, infinities, NaN, denormals, the
// integer limits) and run the runtime kernel on the same values: the results
// must be identical, bit for bit, except where the runtime deliberately
// uses a vectorised approximation (f32 exp/erf/tanh/sigmoid/softplus/mish
// from the AVX2 tier up), which must stay within 8 ulp.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscDialect.h"
#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/runtime/generic.h"
#include "opscope/runtime/kernels.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace mlir;
using namespace opscope;

namespace {

template <typename T> std::vector<T> edgeValues() {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_floating_point_v<T>)
    return {T(0),     T(-0.0),     T(1),      T(-1),       T(0.5),
            T(2),     T(3),        T(-2.5),   T(7.25),     T(20.5),
            T(-20.5), T(88.5),     T(-100),   T(1e-30),    L::denorm_min(),
            L::max(), L::lowest(), L::infinity(), -L::infinity(),
            L::quiet_NaN()};
  else if constexpr (std::is_signed_v<T>)
    return {T(0), T(1), T(-1), T(2), T(-2), T(3), T(7), T(-8),
            L::max(), L::min(), T(L::max() - 1), T(L::min() + 1)};
  else
    return {T(0), T(1), T(2), T(3), T(7), T(100), L::max(), T(L::max() - 1),
            T(L::max() / 2 + 1)};
}

/// Bitwise equality, with every NaN equal to every NaN.
template <typename T> bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) && std::isnan(b))
      return true;
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// Within `ulps` units in the last place (f32), or both NaN / equal.
bool closeUlps(float a, float b, int ulps) {
  if (same(a, b))
    return true;
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b))
    return false;
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if ((ia < 0) != (ib < 0))
    return std::fabs(a - b) <= 1e-37f;
  return std::abs(static_cast<int64_t>(ia) - ib) <= ulps;
}

class FoldRunAgreement : public ::testing::Test {
protected:
  FoldRunAgreement() : b(&context) {
    context.loadDialect<osc::OscDialect>();
    module = ModuleOp::create(b.getUnknownLoc());
    b.setInsertionPointToEnd(module->getBody());
  }

  template <typename T> Type elementType() {
    if constexpr (std::is_same_v<T, float>)
      return b.getF32Type();
    else if constexpr (std::is_same_v<T, double>)
      return b.getF64Type();
    else if constexpr (std::is_unsigned_v<T>)
      return b.getIntegerType(sizeof(T) * 8, /*isSigned=*/false);
    else
      return b.getIntegerType(sizeof(T) * 8);
  }

  template <typename T> rt::DType dtype() {
    if constexpr (std::is_same_v<T, float>)
      return rt::DType::F32;
    else if constexpr (std::is_same_v<T, double>)
      return rt::DType::F64;
    else if constexpr (std::is_same_v<T, uint8_t>)
      return rt::DType::U8;
    else if constexpr (std::is_same_v<T, uint16_t>)
      return rt::DType::U16;
    else if constexpr (std::is_same_v<T, uint32_t>)
      return rt::DType::U32;
    else if constexpr (std::is_same_v<T, uint64_t>)
      return rt::DType::U64;
    else if constexpr (std::is_same_v<T, int8_t>)
      return rt::DType::I8;
    else if constexpr (std::is_same_v<T, int16_t>)
      return rt::DType::I16;
    else if constexpr (std::is_same_v<T, int32_t>)
      return rt::DType::I32;
    else
      return rt::DType::I64;
  }

  template <typename T>
  std::pair<Value, DenseElementsAttr> constant(ArrayRef<int64_t> shape,
                                               const std::vector<T> &v) {
    auto type = RankedTensorType::get(shape, elementType<T>());
    auto attr = DenseElementsAttr::get(type, ArrayRef<T>(v));
    Value c = b.create<osc::ConstantOp>(b.getUnknownLoc(), attr);
    return {c, attr};
  }

  /// Folds `op` with its operands' constant values; the folded elements.
  template <typename R>
  std::vector<R> fold(Operation *op, ArrayRef<Attribute> operands) {
    SmallVector<OpFoldResult> results;
    if (failed(op->fold(operands, results)) || results.size() != 1)
      return {};
    auto attr = dyn_cast_or_null<DenseElementsAttr>(
        dyn_cast_if_present<Attribute>(results[0]));
    if (!attr)
      return {};
    if constexpr (std::is_same_v<R, bool>) {
      std::vector<R> out;
      for (bool x : attr.getValues<bool>())
        out.push_back(x);
      return out;
    } else {
      auto values = attr.getValues<R>();
      return std::vector<R>(values.begin(), values.end());
    }
  }

  template <typename T> void checkUnary(osc::UnaryKind kind) {
    std::vector<T> x = edgeValues<T>();
    int64_t n = static_cast<int64_t>(x.size());
    auto [in, attr] = constant<T>({n}, x);
    auto rtKind = *rt::parseKind<rt::UnaryKind>(
        std::string(osc::stringifyUnaryKind(kind)));
    rt::UnaryParams p = rt::defaultUnaryParams(rtKind);
    auto op = b.create<osc::UnaryOp>(b.getUnknownLoc(), in.getType(), kind,
                                     in, FloatAttr(), FloatAttr());
    std::vector<T> folded = fold<T>(op, {attr});
    ASSERT_EQ(folded.size(), x.size()) << osc::stringifyUnaryKind(kind).str()
                                       << " did not fold";
    for (rt::IsaLevel level : {rt::IsaLevel::Sse41, rt::IsaLevel::Avx2,
                               rt::IsaLevel::Avx512Core}) {
      if (rt::setKernelTier(level) != level)
        continue;
      std::vector<T> run(x.size());
      rt::unary(rtKind, dtype<T>(), x.data(), run.data(), n, p.alpha, p.beta);
      bool approximated =
          std::is_same_v<T, float> && level >= rt::IsaLevel::Avx2 &&
          (rtKind == rt::UnaryKind::Exp || rtKind == rt::UnaryKind::Erf ||
           rtKind == rt::UnaryKind::Tanh || rtKind == rt::UnaryKind::Sigmoid ||
           rtKind == rt::UnaryKind::Swish || rtKind == rt::UnaryKind::Softplus ||
           rtKind == rt::UnaryKind::Mish);
      for (size_t i = 0; i < x.size(); ++i) {
        bool ok;
        if constexpr (std::is_same_v<T, float>)
          ok = approximated ? closeUlps(folded[i], run[i], 8)
                            : same(folded[i], run[i]);
        else
          ok = same(folded[i], run[i]);
        EXPECT_TRUE(ok) << osc::stringifyUnaryKind(kind).str() << "("
                        << +x[i] << "): folded " << +folded[i] << ", ran "
                        << +run[i] << " (tier " << rt::isaLevelName(level)
                        << ")";
      }
    }
    rt::setKernelTier(rt::IsaLevel::All);
  }

  /// All pairs of edge values: lhs n x 1 broadcast against rhs 1 x n.
  template <typename T> void checkBinary(osc::BinaryKind kind) {
    std::vector<T> x = edgeValues<T>();
    int64_t n = static_cast<int64_t>(x.size());
    auto [lhs, lAttr] = constant<T>({n, 1}, x);
    auto [rhs, rAttr] = constant<T>({1, n}, x);
    auto type = RankedTensorType::get({n, n}, elementType<T>());
    auto op = b.create<osc::BinaryOp>(b.getUnknownLoc(), type, kind, lhs, rhs);
    std::vector<T> folded = fold<T>(op, {lAttr, rAttr});
    ASSERT_EQ(folded.size(), size_t(n * n))
        << osc::stringifyBinaryKind(kind).str() << " did not fold";
    auto rtKind = *rt::parseKind<rt::BinaryKind>(
        std::string(osc::stringifyBinaryKind(kind)));
    std::vector<T> run(n * n);
    rt::binary(rtKind, dtype<T>(), x.data(), {n, 1}, x.data(), {1, n},
               run.data(), {n, n});
    for (int64_t i = 0; i < n * n; ++i)
      EXPECT_TRUE(same(folded[i], run[i]))
          << +x[i / n] << " " << osc::stringifyBinaryKind(kind).str() << " "
          << +x[i % n] << ": folded " << +folded[i] << ", ran " << +run[i];
  }

  template <typename T> void checkCompare(osc::CompareKind kind) {
    std::vector<T> x = edgeValues<T>();
    int64_t n = static_cast<int64_t>(x.size());
    auto [lhs, lAttr] = constant<T>({n, 1}, x);
    auto [rhs, rAttr] = constant<T>({1, n}, x);
    auto type = RankedTensorType::get({n, n}, b.getI1Type());
    auto op = b.create<osc::CompareOp>(b.getUnknownLoc(), type, kind, lhs, rhs);
    std::vector<bool> folded = fold<bool>(op, {lAttr, rAttr});
    ASSERT_EQ(folded.size(), size_t(n * n));
    auto rtKind = *rt::parseKind<rt::CompareKind>(
        std::string(osc::stringifyCompareKind(kind)));
    std::vector<uint8_t> run(n * n);
    rt::compare(rtKind, dtype<T>(), x.data(), {n, 1}, x.data(), {1, n},
                run.data(), {n, n});
    for (int64_t i = 0; i < n * n; ++i)
      EXPECT_EQ(folded[i], run[i] != 0)
          << +x[i / n] << " " << osc::stringifyCompareKind(kind).str() << " "
          << +x[i % n];
  }

  MLIRContext context;
  OpBuilder b;
  OwningOpRef<ModuleOp> module;
};

TEST_F(FoldRunAgreement, UnaryFloat) {
  for (uint32_t i = 0; i <= osc::getMaxEnumValForUnaryKind(); ++i) {
    auto kind = *osc::symbolizeUnaryKind(i);
    checkUnary<float>(kind);
    checkUnary<double>(kind);
  }
}

/// The AVX2 and AVX-512 approximations against the scalar definition
/// folding uses, on a dense grid over [-12, 12], with the same bound for
/// both tiers (measured worst case of both on a Sapphire Rapids Xeon, also
/// on a 1e-6 grid over [0, 4.5]: exp 1, erf 7, tanh 3, sigmoid 2 ulp;
/// softplus within 1.7e-7 relative, about 3 ulp, over [-100, 100] on a
/// Zen 3).
TEST_F(FoldRunAgreement, VectorisedTranscendentalsStayClose) {
  std::vector<float> x;
  for (int i = -8760; i <= 8760; ++i)
    x.push_back(i * 0.00137f);
  for (rt::IsaLevel level : {rt::IsaLevel::Avx2, rt::IsaLevel::Avx512Core}) {
    if (rt::setKernelTier(level) != level)
      continue;
    for (auto k : {rt::UnaryKind::Exp, rt::UnaryKind::Erf, rt::UnaryKind::Tanh,
                   rt::UnaryKind::Sigmoid, rt::UnaryKind::Softplus,
                   rt::UnaryKind::Mish}) {
      std::vector<float> run(x.size());
      rt::unary(k, rt::DType::F32, x.data(), run.data(),
                static_cast<int64_t>(x.size()), 0, 0);
      for (size_t i = 0; i < x.size(); ++i) {
        float exact = rt::unaryScalar<float>(k, x[i], 0, 0);
        ASSERT_TRUE(closeUlps(exact, run[i], 8))
            << rt::kindName(k) << "(" << x[i] << "): scalar " << exact
            << ", kernel " << run[i] << " (tier " << rt::isaLevelName(level)
            << ")";
      }
    }
  }
  rt::setKernelTier(rt::IsaLevel::All);
}

TEST_F(FoldRunAgreement, UnaryInteger) {
  // The kinds the verifier allows on integers, and `not` on booleans' bytes.
  for (auto kind : {osc::UnaryKind::neg, osc::UnaryKind::abs,
                    osc::UnaryKind::relu}) {
    checkUnary<int8_t>(kind);
    checkUnary<int32_t>(kind);
    checkUnary<int64_t>(kind);
  }
  checkUnary<uint8_t>(osc::UnaryKind::not_);
}

TEST_F(FoldRunAgreement, BinaryArithmetic) {
  for (uint32_t i = 0; i <= osc::getMaxEnumValForBinaryKind(); ++i) {
    auto kind = *osc::symbolizeBinaryKind(i);
    if (kind == osc::BinaryKind::and_ || kind == osc::BinaryKind::or_ ||
        kind == osc::BinaryKind::xor_)
      continue;
    checkBinary<uint8_t>(kind);
    checkBinary<uint16_t>(kind);
    checkBinary<uint32_t>(kind);
    checkBinary<uint64_t>(kind);
    // The shifts are defined on unsigned integers only (the verifier).
    if (kind == osc::BinaryKind::shl || kind == osc::BinaryKind::shr)
      continue;
    checkBinary<float>(kind);
    checkBinary<double>(kind);
    checkBinary<int8_t>(kind);
    checkBinary<int16_t>(kind);
    checkBinary<int32_t>(kind);
    checkBinary<int64_t>(kind);
  }
}

TEST_F(FoldRunAgreement, BinaryLogical) {
  for (auto kind :
       {osc::BinaryKind::and_, osc::BinaryKind::or_, osc::BinaryKind::xor_})
    checkBinary<uint8_t>(kind);
}

TEST_F(FoldRunAgreement, Compare) {
  for (uint32_t i = 0; i <= osc::getMaxEnumValForCompareKind(); ++i) {
    auto kind = *osc::symbolizeCompareKind(i);
    checkCompare<float>(kind);
    checkCompare<double>(kind);
    checkCompare<int32_t>(kind);
    checkCompare<int64_t>(kind);
    checkCompare<uint8_t>(kind);
    checkCompare<uint16_t>(kind);
    checkCompare<uint32_t>(kind);
    checkCompare<uint64_t>(kind);
  }
}

} // namespace
