//===- FuseAttention.cpp - attention masks into softmax -------------------===//
//
// Part of opscope. The additive attention mask (an Add,
// or a Where selecting -inf) folded into osc.softmax's mask operand.
//
//===----------------------------------------------------------------------===//

#include "FusionPatterns.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::osc::fusion;

namespace {
//===----------------------------------------------------------------------===//
// Attention masks
//===----------------------------------------------------------------------===//

/// softmax(s + m) -> softmax(s) mask(m); softmax(where(c, -inf, s)) ->
/// softmax(s) mask(where(c, -inf, 0)) on c before broadcasting.
struct MaskIntoSoftmax : CountedPattern<SoftmaxOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rw) const override {
    if (op.getMask() || !op.getInput().hasOneUse())
      return failure();
    auto type = typeOf(op.getInput());
    if (auto add = definingOp<BinaryOp>(op.getInput());
        add && add.getKind() == BinaryKind::add) {
      Value scores = add.getLhs(), mask = add.getRhs();
      if (typeOf(scores) != type)
        std::swap(scores, mask);
      if (typeOf(scores) == type) {
        return replace(op, scores, mask, {add.getLoc()}, rw);
      }
    }
    if (auto where = definingOp<WhereOp>(op.getInput())) {
      for (bool maskedOnTrue : {true, false}) {
        Value fill = maskedOnTrue ? where.getOnTrue() : where.getOnFalse();
        Value scores = maskedOnTrue ? where.getOnFalse() : where.getOnTrue();
        auto f = splatConstant(fill);
        if (!f || !std::isinf(*f) || *f > 0 || typeOf(scores) != type)
          continue;
        Value cond = where.getCondition();
        if (auto b = definingOp<BroadcastToOp>(cond))
          cond = b.getInput();
        Type elem = type.getElementType();
        auto scalar = RankedTensorType::get({}, elem);
        Value ninf = rw.create<ConstantOp>(
            where.getLoc(),
            DenseElementsAttr::get(scalar, FloatAttr::get(elem, *f)));
        Value zero = rw.create<ConstantOp>(
            where.getLoc(),
            DenseElementsAttr::get(scalar, FloatAttr::get(elem, 0.0)));
        auto maskType = RankedTensorType::get(typeOf(cond).getShape(), elem);
        Value mask = rw.create<WhereOp>(where.getLoc(), maskType, cond,
                                        maskedOnTrue ? ninf : zero,
                                        maskedOnTrue ? zero : ninf);
        return replace(op, scores, mask, {where.getLoc()}, rw);
      }
    }
    return failure();
  }
  /// `absorbed`: the mask's add or where, on the softmax's input side.
  LogicalResult replace(SoftmaxOp op, Value scores, Value mask,
                        ArrayRef<Location> absorbed,
                        PatternRewriter &rw) const {
    auto b =
        broadcastShapes(typeOf(scores).getShape(), typeOf(mask).getShape());
    if (!b || ArrayRef<int64_t>(*b) != typeOf(scores).getShape() ||
        typeOf(mask).getElementType() != typeOf(scores).getElementType())
      return failure();
    auto fused = rw.create<SoftmaxOp>(fuseWithInputs(op.getLoc(), absorbed),
                                      op.getType(), scores, mask,
                                      op.getAxisAttr(), op.getLogAttr());
    rw.replaceOp(op, fused.getResult());
    count();
    return success();
  }
};

} // namespace

void osc::populateOscAttentionFusionPatterns(RewritePatternSet &patterns,
                                            llvm::Statistic *counter) {
  patterns.add<MaskIntoSoftmax>(patterns.getContext(), counter);
}
