//===- OscBuilderTest.cpp - building osc ops from C++ ---------------------===//
//
// Part of opscope. The importer and passes build osc ops through the generated
// C++ API; these tests check that ops built that way verify (or fail with the
// documented message) without going through the parser.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscDialect.h"
#include "opscope/Dialect/Osc/IR/OscOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace opscope;

namespace {

class OscBuilderTest : public ::testing::Test {
protected:
  OscBuilderTest() : builder(&context) {
    context.loadDialect<osc::OscDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }

  Value zeros(ArrayRef<int64_t> shape) {
    auto type = f32(shape);
    auto attr = DenseElementsAttr::get(type, builder.getF32FloatAttr(0.0f));
    return builder.create<osc::ConstantOp>(builder.getUnknownLoc(), attr);
  }

  /// Verifies the module and returns the first diagnostic's text.
  std::string verifyMessage() {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      if (message.empty())
        message = d.str();
      return success();
    });
    if (succeeded(verify(*module)))
      return "";
    return message;
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(OscBuilderTest, ConstantInfersItsType) {
  Value c = zeros({2, 3});
  EXPECT_EQ(c.getType(), f32({2, 3}));
  EXPECT_EQ(verifyMessage(), "");
}

TEST_F(OscBuilderTest, InnerProductWithPostOps) {
  Value x = zeros({4, 16});
  Value w = zeros({8, 16});
  Value b = zeros({8});
  Value r = zeros({4, 8});
  auto postOps = builder.getArrayAttr(
      {osc::PostOpAttr::get(&context, osc::PostOpKind::gelu_erf),
       osc::PostOpAttr::get(&context, osc::PostOpKind::sum)});
  builder.create<osc::InnerProductOp>(builder.getUnknownLoc(), f32({4, 8}), x,
                                      w, b, r, postOps);
  EXPECT_EQ(verifyMessage(), "");
}

TEST_F(OscBuilderTest, InnerProductRejectsWrongK) {
  Value x = zeros({4, 16});
  Value w = zeros({8, 15});
  builder.create<osc::InnerProductOp>(builder.getUnknownLoc(), f32({4, 8}), x,
                                      w, Value(), Value(),
                                      builder.getArrayAttr({}));
  EXPECT_EQ(verifyMessage(),
            "'osc.inner_product' op weight shape 8x15 has K=15 but the "
            "input's last dimension is 16");
}

TEST_F(OscBuilderTest, SumPostOpNeedsOperand) {
  Value x = zeros({4, 16});
  Value w = zeros({8, 16});
  auto postOps = builder.getArrayAttr(
      {osc::PostOpAttr::get(&context, osc::PostOpKind::sum)});
  builder.create<osc::InnerProductOp>(builder.getUnknownLoc(), f32({4, 8}), x,
                                      w, Value(), Value(), postOps);
  EXPECT_EQ(verifyMessage(),
            "'osc.inner_product' op 'sum' post-op requires a sum(...) operand");
}

TEST_F(OscBuilderTest, BinaryBroadcastResult) {
  Value a = zeros({2, 1, 5});
  Value b = zeros({3, 1});
  builder.create<osc::BinaryOp>(builder.getUnknownLoc(), f32({2, 3, 5}),
                                osc::BinaryKind::add, a, b);
  EXPECT_EQ(verifyMessage(), "");
  builder.create<osc::BinaryOp>(builder.getUnknownLoc(), f32({2, 3, 4}),
                                osc::BinaryKind::mul, a, b);
  EXPECT_EQ(verifyMessage(), "'osc.binary' op result shape 2x3x4 does not "
                             "match the expected shape 2x3x5");
}

} // namespace
