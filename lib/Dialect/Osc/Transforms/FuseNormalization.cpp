//===- FuseNormalization.cpp - LayerNorm and Conv + BatchNorm -------------===//
//
// Part of opscope. The decomposed LayerNorm
// (mean, variance, normalise, scale, shift) to osc.layer_norm, and an
// inference BatchNorm after a convolution folded into its weights.
//
//===----------------------------------------------------------------------===//

#include "FusionPatterns.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::osc::fusion;

namespace {
//===----------------------------------------------------------------------===//
// LayerNorm
//===----------------------------------------------------------------------===//

/// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) * gamma + beta over the
/// trailing axes.
struct FuseLayerNorm : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;

  static bool trailingMean(ReduceOp r, int64_t rank) {
    if (!r || r.getKind() != ReduceKind::mean || !r.getKeepDims())
      return false;
    ArrayRef<int64_t> axes = r.getAxes();
    for (size_t i = 0; i < axes.size(); ++i)
      if (axes[i] !=
          rank - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(i))
        return false;
    return true;
  }

  LogicalResult matchAndRewrite(BinaryOp op,
                                PatternRewriter &rw) const override {
    if (op.getKind() != BinaryKind::add)
      return failure();
    for (Value scaled : {op.getLhs(), op.getRhs()}) {
      Value beta = otherOperand(op, scaled);
      auto mulG = definingOp<BinaryOp>(scaled);
      if (!mulG || mulG.getKind() != BinaryKind::mul || !scaled.hasOneUse())
        continue;
      for (Value normed : {mulG.getLhs(), mulG.getRhs()}) {
        Value gamma = otherOperand(mulG, normed);
        auto div = definingOp<BinaryOp>(normed);
        if (!div || div.getKind() != BinaryKind::div || !normed.hasOneUse())
          continue;
        auto sub = definingOp<BinaryOp>(div.getLhs());
        auto sqrt = definingOp<UnaryOp>(div.getRhs());
        if (!sub || sub.getKind() != BinaryKind::sub || !sqrt ||
            sqrt.getKind() != UnaryKind::sqrt)
          continue;
        Value x = sub.getLhs();
        int64_t rank = typeOf(x).getRank();
        auto mean = definingOp<ReduceOp>(sub.getRhs());
        if (!trailingMean(mean, rank) || mean.getInput() != x)
          continue;
        auto addEps = definingOp<BinaryOp>(sqrt.getInput());
        if (!addEps || addEps.getKind() != BinaryKind::add)
          continue;
        for (Value varV : {addEps.getLhs(), addEps.getRhs()}) {
          auto eps = splatConstant(otherOperand(addEps, varV));
          auto var = definingOp<ReduceOp>(varV);
          if (!eps || !trailingMean(var, rank) ||
              var.getAxes() != mean.getAxes())
            continue;
          auto sq = definingOp<BinaryOp>(var.getInput());
          bool square = sq && ((sq.getKind() == BinaryKind::pow &&
                                sq.getLhs() == sub.getResult() &&
                                near(splatConstant(sq.getRhs()), 2.0)) ||
                               (sq.getKind() == BinaryKind::mul &&
                                sq.getLhs() == sub.getResult() &&
                                sq.getRhs() == sub.getResult()));
          if (!square)
            continue;
          int64_t axis = mean.getAxes().front();
          ArrayRef<int64_t> normalized = typeOf(x).getShape().drop_front(axis);
          auto fit = [&](Value v) -> Value {
            auto s = typeOf(v).getShape();
            if (s == normalized)
              return v;
            // Leading 1s only: reshape the constant to the normalized shape.
            if (s.size() > normalized.size() &&
                s.take_back(normalized.size()) == normalized &&
                llvm::all_of(s.drop_back(normalized.size()),
                             [](int64_t d) { return d == 1; }))
              return rw.createOrFold<ReshapeOp>(
                  v.getLoc(),
                  RankedTensorType::get(normalized, typeOf(v).getElementType()),
                  v);
            return Value();
          };
          if (typeOf(op.getResult()) != typeOf(x))
            continue;
          Value g = fit(gamma), b = fit(beta);
          if (!g || !b)
            continue;
          SmallVector<Location> locs;
          for (Operation *o : std::initializer_list<Operation *>{
                   mean, sub, sq, var, addEps, sqrt, div, mulG, op})
            locs.push_back(o->getLoc());
          auto ln = rw.create<LayerNormOp>(
              rw.getFusedLoc(locs), x.getType(), x, g, b,
              rw.getI64IntegerAttr(axis),
              rw.getF32FloatAttr(static_cast<float>(*eps)), UnitAttr());
          rw.replaceOp(op, ln.getResult());
          count();
          return success();
        }
      }
    }
    return failure();
  }
};


//===----------------------------------------------------------------------===//
// Conv + BatchNorm
//===----------------------------------------------------------------------===//

/// batch_norm(conv(x, W, b)) -> conv(x, W * a, (b - mean) * a + beta) with
/// a = scale / sqrt(var + eps), per output channel.
} // namespace

std::optional<std::pair<Value, Value>>
fusion::foldBatchNorm(PatternRewriter &rw, BatchNormOp bn, Value weight,
                      Value bias, int64_t channelDim) {
  auto w = readF32Constant(weight);
  auto scale = readF32Constant(bn.getScale()),
       beta = readF32Constant(bn.getBias()), mean = readF32Constant(bn.getMean()),
       var = readF32Constant(bn.getVariance());
  std::optional<std::vector<float>> b;
  if (bias && !(b = readF32Constant(bias)))
    return std::nullopt;
  if (!w || !scale || !beta || !mean || !var)
    return std::nullopt;
  auto wType = typeOf(weight);
  // The weight as outer x channels x inner, channels along channelDim.
  int64_t oc = wType.getDimSize(channelDim);
  int64_t outer = 1;
  for (int64_t d = 0; d < channelDim; ++d)
    outer *= wType.getDimSize(d);
  int64_t inner = wType.getNumElements() / (outer * oc);
  float eps = bn.getEpsilon().convertToFloat();
  std::vector<float> newW(*w), newB(oc), a(oc);
  for (int64_t c = 0; c < oc; ++c) {
    a[c] = (*scale)[c] / std::sqrt((*var)[c] + eps);
    newB[c] = ((b ? (*b)[c] : 0.0f) - (*mean)[c]) * a[c] + (*beta)[c];
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < oc; ++c)
      for (int64_t i = 0; i < inner; ++i)
        newW[(o * oc + c) * inner + i] *= a[c];
  Value wv = rw.create<ConstantOp>(
      weight.getLoc(), makeF32Weight(wType, newW, weightName(weight, ".bn")));
  Value bv = rw.create<ConstantOp>(
      bn.getLoc(),
      makeF32Weight(RankedTensorType::get({oc}, wType.getElementType()), newB,
                    weightName(weight, ".bn_bias")));
  return std::make_pair(wv, bv);
}

namespace {
struct ConvBatchNorm : CountedPattern<BatchNormOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rw) const override {
    auto conv = definingOp<ConvOp>(bn.getInput());
    if (!conv || !conv->hasOneUse() || !conv.getPostOps().empty() ||
        conv.getSumInput())
      return failure();
    auto folded = foldBatchNorm(rw, bn, conv.getWeight(), conv.getBias(), 0);
    if (!folded)
      return failure();
    auto [wv, bv] = *folded;
    auto fused = rw.create<ConvOp>(rw.getFusedLoc({conv.getLoc(), bn.getLoc()}),
                                   conv.getType(), conv.getInput(), wv, bv,
                                   Value(), conv.getStridesAttr(),
                                   conv.getPadsAttr(), conv.getDilationsAttr(),
                                   conv.getGroupsAttr(), conv.getPostOpsAttr());
    rw.replaceOp(bn, fused.getResult());
    rw.eraseOp(conv);
    count();
    return success();
  }
};

} // namespace

void osc::populateOscLayerNormFusionPatterns(RewritePatternSet &patterns,
                                            llvm::Statistic *counter) {
  patterns.add<FuseLayerNorm>(patterns.getContext(), counter);
}

void osc::populateOscConvBatchNormFusionPatterns(RewritePatternSet &patterns,
                                                llvm::Statistic *counter) {
  patterns.add<ConvBatchNorm>(patterns.getContext(), counter);
}
