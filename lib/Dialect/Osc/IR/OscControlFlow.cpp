//===- OscControlFlow.cpp - osc.if and osc.loop ---------------------------===//
//
// Part of opscope. Verifiers of the control-flow ops, and the
// canonicalization that replaces an osc.if whose condition is a constant by
// the region it takes.
//
//===----------------------------------------------------------------------===//

#include "OscVerify.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

static LogicalResult verifyYield(Operation *op, Region &region,
                                 TypeRange expected, StringRef what) {
  auto yield = cast<YieldOp>(region.front().getTerminator());
  if (yield.getValues().getTypes() != expected)
    return op->emitOpError() << what << " yields " << yield.getValues().size()
                             << " value(s) whose types differ from "
                             << expected.size() << " expected";
  return success();
}

static LogicalResult verifyOneElement(Operation *op, Value v, StringRef what) {
  if (cast<RankedTensorType>(v.getType()).getNumElements() != 1)
    return op->emitOpError() << what << " must have one element, got "
                             << v.getType();
  return success();
}

LogicalResult IfOp::verify() {
  if (failed(verifyOneElement(*this, getCond(), "condition")))
    return failure();
  if (failed(verifyYield(*this, getThenRegion(), getResultTypes(),
                         "the then region")))
    return failure();
  return verifyYield(*this, getElseRegion(), getResultTypes(),
                     "the else region");
}

LogicalResult LoopOp::verify() {
  if (getMaxTripCount() &&
      failed(verifyOneElement(*this, getMaxTripCount(), "max_trip_count")))
    return failure();
  if (getCond() && failed(verifyOneElement(*this, getCond(), "cond")))
    return failure();
  if (getInits().getTypes() != getResultTypes())
    return emitOpError("results must have the types of the carried values");
  Block &body = getBody().front();
  if (body.empty() || !isa<YieldOp>(body.back()))
    return emitOpError("body must end with osc.yield");
  SmallVector<Type> args{RankedTensorType::get({}, IntegerType::get(getContext(), 64)),
                         RankedTensorType::get({}, IntegerType::get(getContext(), 1))};
  llvm::append_range(args, getInits().getTypes());
  if (body.getArgumentTypes() != TypeRange(args))
    return emitOpError("body arguments must be (tensor<i64> iteration, "
                       "tensor<i1> condition, the carried values' types)");
  SmallVector<Type> yielded{args[1]};
  llvm::append_range(yielded, getInits().getTypes());
  return verifyYield(*this, getBody(), yielded, "the body");
}

namespace {
/// osc.if on a constant condition -> the ops of the region it takes.
struct InlineConstantIf : OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr cond;
    if (!matchPattern(op.getCond(), m_Constant(&cond)))
      return failure();
    bool taken = *cond.getValues<bool>().begin();
    Block &block = (taken ? op.getThenRegion() : op.getElseRegion()).front();
    auto yield = cast<YieldOp>(block.getTerminator());
    SmallVector<Value> results(yield.getValues());
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&block, op);
    rewriter.replaceOp(op, results);
    return success();
  }
};
} // namespace

void IfOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                       MLIRContext *context) {
  results.add<InlineConstantIf>(context);
}
