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
struct ConvBatchNorm : CountedPattern<BatchNormOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rw) const override {
    auto conv = definingOp<ConvOp>(bn.getInput());
    if (!conv || !conv->hasOneUse() || !conv.getPostOps().empty() ||
        conv.getSumInput())
      return failure();
    auto w = readF32Constant(conv.getWeight());
    auto scale = readF32Constant(bn.getScale()),
         beta = readF32Constant(bn.getBias()),
         mean = readF32Constant(bn.getMean()),
         var = readF32Constant(bn.getVariance());
    std::optional<std::vector<float>> bias;
    if (conv.getBias()) {
      bias = readF32Constant(conv.getBias());
      if (!bias)
        return failure();
    }
    if (!w || !scale || !beta || !mean || !var)
      return failure();
    auto wType = typeOf(conv.getWeight());
    int64_t oc = wType.getDimSize(0), per = wType.getNumElements() / oc;
    float eps = bn.getEpsilon().convertToFloat();
    std::vector<float> newW(*w), newB(oc);
    for (int64_t c = 0; c < oc; ++c) {
      float a = (*scale)[c] / std::sqrt((*var)[c] + eps);
      for (int64_t i = 0; i < per; ++i)
        newW[c * per + i] *= a;
      newB[c] = ((bias ? (*bias)[c] : 0.0f) - (*mean)[c]) * a + (*beta)[c];
    }
    Value wv = rw.create<ConstantOp>(
        conv.getWeight().getLoc(),
        makeF32Weight(wType, newW, weightName(conv.getWeight(), ".bn")));
    Value bv = rw.create<ConstantOp>(
        bn.getLoc(),
        makeF32Weight(RankedTensorType::get({oc}, wType.getElementType()), newB,
                      weightName(conv.getWeight(), ".bn_bias")));
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
