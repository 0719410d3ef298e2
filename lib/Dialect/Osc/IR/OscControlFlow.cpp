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
                                 TypeRange expected, StringRef what,
                                 bool prefix = false) {
  auto yield = cast<YieldOp>(region.front().getTerminator());
  TypeRange have = yield.getValues().getTypes();
  if (prefix && have.size() >= expected.size())
    have = have.take_front(expected.size());
  if (have != expected && prefix)
    return op->emitOpError() << what
                             << " yields a condition or carried value whose "
                                "type differs from the loop's (tensor<i1>, "
                                "then the carried values' types)";
  if (have != expected)
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
  size_t carried = getInits().size();
  if (getNumResults() < carried ||
      getInits().getTypes() != TypeRange(getResultTypes()).take_front(carried))
    return emitOpError("the first results must have the types of the "
                       "carried values");
  Block &body = getBody().front();
  if (body.empty() || !isa<YieldOp>(body.back()))
    return emitOpError("body must end with osc.yield");
  SmallVector<Type> args{RankedTensorType::get({}, IntegerType::get(getContext(), 64)),
                         RankedTensorType::get({}, IntegerType::get(getContext(), 1))};
  llvm::append_range(args, getInits().getTypes());
  if (body.getArgumentTypes() != TypeRange(args))
    return emitOpError("body arguments must be (tensor<i64> iteration, "
                       "tensor<i1> condition, the carried values' types)");
  // Scan outputs: each further result stacks one yielded value per
  // iteration along a new leading dimension, the same length for all.
  SmallVector<Type> yielded{args[1]};
  llvm::append_range(yielded, getInits().getTypes());
  auto yield = cast<YieldOp>(body.getTerminator());
  size_t scans = getNumResults() - carried;
  if (yield.getValues().size() != yielded.size() + scans)
    return emitOpError() << "the body yields " << yield.getValues().size()
                         << " value(s); expected " << yielded.size() + scans
                         << " (condition, carried values, scan outputs)";
  std::optional<int64_t> length;
  DenseElementsAttr trip;
  if (getMaxTripCount() && matchPattern(getMaxTripCount(), m_Constant(&trip)))
    length = *trip.getValues<int64_t>().begin();
  for (size_t j = 0; j < scans; ++j) {
    auto result = cast<RankedTensorType>(getResult(carried + j).getType());
    auto element = cast<RankedTensorType>(
        yield.getValues()[yielded.size() + j].getType());
    if (result.getRank() != element.getRank() + 1 ||
        result.getShape().drop_front() != element.getShape() ||
        result.getElementType() != element.getElementType())
      return emitOpError() << "scan output " << j << " is " << result
                           << "; it must stack the yielded " << element
                           << " along a new leading dimension";
    if (length && result.getDimSize(0) != *length)
      return emitOpError() << "scan output " << j << " has "
                           << result.getDimSize(0)
                           << " rows but the trip count is " << *length;
    length = result.getDimSize(0);
  }
  return verifyYield(*this, getBody(), yielded, "the body", /*prefix=*/true);
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
