//===- ONNXLosses.cpp - NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss -===//
//
// Part of opscope. The two classification losses as compositions of osc
// ops: the target's one-hot mask (an osc.compare against the class index),
// weighted by the class weights, picks each element's log-probability with
// a sum over the class axis; `ignore_index` zeroes its elements out of the
// loss and out of the mean's denominator. Models export them when they
// compute a loss at inference (evaluation graphs); the ONNX backend node
// tests cover every reduction and option.
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
using llvm::SmallVectorImpl;

namespace {
/// The loss of log-probabilities `logp` (N x C x d...) against `target`
/// (N x d...), with optional class `weight` (C).
FailureOr<Value> nllLoss(NodeContext &c, Value logp, Value target,
                         Value weight) {
  auto lt = typeOf(logp), tt = typeOf(target);
  Type elem = lt.getElementType();
  if (!isa<FloatType>(elem) || !isa<IntegerType>(tt.getElementType())) {
    c.error() << "takes floating-point scores and integer targets, got "
              << elem << " and " << tt.getElementType();
    return failure();
  }
  int64_t rank = lt.getRank();
  if (rank < 2 || tt.getRank() != rank - 1 || tt.getDimSize(0) != lt.getDimSize(0)) {
    c.error() << "scores " << formatShape(lt.getShape()) << " and target "
              << formatShape(tt.getShape())
              << " must be N x C x d... and N x d...";
    return failure();
  }
  for (int64_t d = 2; d < rank; ++d)
    if (tt.getDimSize(d - 1) != lt.getDimSize(d)) {
      c.error() << "target " << formatShape(tt.getShape())
                << " does not match the scores' spatial dimensions "
                << formatShape(lt.getShape());
      return failure();
    }
  int64_t classes = lt.getDimSize(1);
  if (weight && typeOf(weight).getShape() != ArrayRef<int64_t>{classes}) {
    c.error() << "weight has shape " << formatShape(typeOf(weight).getShape())
              << "; expected " << classes << " (the classes)";
    return failure();
  }
  // One-hot mask over the class axis: target (N x 1 x d...) == class index
  // (1 x C x 1...).
  SmallVector<int64_t> classShape(rank, 1), targetShape(tt.getShape());
  classShape[1] = classes;
  targetShape.insert(targetShape.begin() + 1, 1);
  Type idx = tt.getElementType();
  Value onehot = c.create<CompareOp>(tensorOf(lt.getShape(), c.b.getI1Type()),
                                     CompareKind::eq,
                                     reshape(c, target, targetShape),
                                     iota(c, classShape, idx));
  Value picks = c.create<CastOp>(tensorOf(lt.getShape(), elem), onehot);
  if (weight) {
    auto w = binary(c, BinaryKind::mul, picks, reshape(c, weight, classShape));
    if (failed(w))
      return failure();
    picks = *w;
  }
  // Elements whose target is ignore_index count nowhere.
  if (const auto *ignore = c.attr("ignore_index")) {
    Value ignored = c.create<CompareOp>(
        tensorOf(targetShape, c.b.getI1Type()), CompareKind::eq,
        reshape(c, target, targetShape), splat(c, {}, idx, ignore->i()));
    Value zero = splat(c, {}, elem, 0.0);
    picks = c.create<WhereOp>(picks.getType(), ignored, zero, picks);
  }
  auto picked = binary(c, BinaryKind::mul, logp, picks);
  if (failed(picked))
    return failure();
  auto sumClasses = [&](Value v) {
    return c.create<ReduceOp>(tensorOf(tt.getShape(), elem),
                              ReduceKindAttr::get(c.b.getContext(), ReduceKind::sum),
                              v, i64Array(c, {1}), UnitAttr());
  };
  Value loss = unary(c, UnaryKind::neg, sumClasses(*picked));
  std::string reduction = c.stringAttr("reduction", "mean");
  if (reduction == "none")
    return loss;
  if (reduction != "sum" && reduction != "mean") {
    c.error() << "reduction '" << reduction << "' is not none, sum or mean";
    return failure();
  }
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < tt.getRank(); ++d)
    all.push_back(d);
  auto total = [&](Value v) {
    return c.create<ReduceOp>(tensorOf({}, elem),
                              ReduceKindAttr::get(c.b.getContext(), ReduceKind::sum),
                              v, i64Array(c, all), UnitAttr());
  };
  Value sum = total(loss);
  if (reduction == "sum")
    return sum;
  // mean: divided by the weights of the elements that count.
  return binary(c, BinaryKind::div, sum, total(sumClasses(picks)));
}
} // namespace

void opscope::onnx_import::addLossConverters(llvm::StringMap<Converter> &m) {
  m["NegativeLogLikelihoodLoss"] = [](NodeContext &c,
                                      SmallVectorImpl<Value> &out) {
    auto loss = nllLoss(c, c.input(0), c.input(1), c.input(2));
    if (failed(loss))
      return failure();
    out.push_back(*loss);
    return success();
  };
  m["SoftmaxCrossEntropyLoss"] = [](NodeContext &c,
                                    SmallVectorImpl<Value> &out) {
    Value scores = c.input(0);
    if (failed(requireFloat(c, scores, "scores")))
      return failure();
    if (typeOf(scores).getRank() < 2) {
      c.error() << "scores must be N x C x d..., got "
                << formatShape(typeOf(scores).getShape());
      return failure();
    }
    Value logp = c.create<SoftmaxOp>(scores.getType(), scores, Value(),
                                     c.b.getI64IntegerAttr(1),
                                     c.b.getUnitAttr());
    auto loss = nllLoss(c, logp, c.input(1), c.input(2));
    if (failed(loss))
      return failure();
    out.push_back(*loss);
    out.push_back(logp);
    return success();
  };
}
