//===- FusionPatterns.h - shared pieces of osc-fuse patterns ----*- C++ -*-===//
//
// Part of opscope (internal to lib/Dialect/Osc/Transforms). The base class
// that counts a pattern's rewrites in a pass statistic, and the small
// matchers the fusion families share.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_LIB_DIALECT_OSC_TRANSFORMS_FUSIONPATTERNS_H
#define OPSCOPE_LIB_DIALECT_OSC_TRANSFORMS_FUSIONPATTERNS_H

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/IR/OscShapes.h"
#include "opscope/Dialect/Osc/IR/OscUtils.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/Statistic.h"

#include <cmath>
#include <optional>
#include <string>

namespace opscope::osc::fusion {
using namespace mlir;

using Counter = llvm::Statistic;

/// A pattern that counts its rewrites in one of the pass's statistics.
template <typename OpTy> struct CountedPattern : OpRewritePattern<OpTy> {
  CountedPattern(MLIRContext *ctx, Counter *n)
      : OpRewritePattern<OpTy>(ctx), n(n) {}
  void count() const {
    if (n)
      ++*n;
  }
  Counter *n;
};

inline RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

inline bool near(std::optional<double> v, double expected, double tol = 1e-3) {
  return v && std::fabs(*v - expected) <= tol * std::fabs(expected);
}

/// The other operand of a commutative binary op, given one.
inline Value otherOperand(BinaryOp op, Value v) {
  return op.getLhs() == v ? op.getRhs() : op.getLhs();
}

template <typename OpTy> inline OpTy definingOp(Value v) {
  return v ? v.getDefiningOp<OpTy>() : OpTy();
}

/// Post-op list with `kind` appended.
inline ArrayAttr appendPostOp(ArrayAttr list, PostOpAttr post) {
  SmallVector<Attribute> posts(list.begin(), list.end());
  posts.push_back(post);
  return ArrayAttr::get(post.getContext(), posts);
}
inline ArrayAttr appendPostOp(ArrayAttr list, PostOpKind kind,
                              MLIRContext *ctx) {
  return appendPostOp(list, PostOpAttr::get(ctx, kind));
}

inline bool hasSum(ArrayAttr list) {
  return llvm::any_of(list, [](Attribute a) {
    return cast<PostOpAttr>(a).getKind() == PostOpKind::sum;
  });
}

/// A name for a rewritten weight, from the constant's location.
inline std::string weightName(Value v, StringRef suffix) {
  auto names = sourceNodes(v.getLoc());
  return (names.empty() ? std::string("weight") : names.front()) + suffix.str();
}

/// An inference batch norm folded into a convolution's constant weight and
/// bias: per output channel c (dimension `channelDim` of the weight: 0 for
/// conv's OC x C/g x k..., 1 for conv_transpose's C x OC/g x k...), the
/// weight times a = scale / sqrt(var + eps) and the bias (b - mean) * a +
/// beta. The new weight and bias constants, or nullopt when an operand is
/// not a constant.
std::optional<std::pair<Value, Value>>
foldBatchNorm(PatternRewriter &rw, BatchNormOp bn, Value weight, Value bias,
              int64_t channelDim);

} // namespace opscope::osc::fusion

#endif // OPSCOPE_LIB_DIALECT_OSC_TRANSFORMS_FUSIONPATTERNS_H
