//===- FuseConvTranspose.cpp - BatchNorm folding and the k == s fast path -===//
//
// Part of opscope. Two rewrites of osc.conv_transpose:
//  * an inference BatchNorm after it folds into its weights and bias (per
//    output channel, dimension 1 of the C x OC x k... weight), so the ReLU
//    after can become its post-op;
//  * with kernel == stride and no padding, dilation or groups (the 2x2
//    stride-2 upsampling of segmentation and text-detection heads) the
//    output windows do not overlap: y[n, oc, i*k0+a, j*k1+b] =
//    sum_ic x[n, ic, i, j] W[ic, oc, a, b]. That is a 1x1 convolution to
//    OC*k0*k1 channels (with the op's elementwise post-ops, which commute
//    with the shuffle) followed by a depth-to-space shuffle. oneDNN's
//    deconvolution ran the PaddleOCR-like head's 24 -> 1 channel case 40x
//    slower than the 1x1 convolution and shuffle (docs/benchmarks.md).
//
//===----------------------------------------------------------------------===//

#include "FusionPatterns.h"

#include <cmath>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::osc::fusion;

namespace {
bool allEqual(ArrayRef<int64_t> v, int64_t x) {
  return llvm::all_of(v, [&](int64_t e) { return e == x; });
}

/// batch_norm(conv_transpose(x, W, b)) -> conv_transpose(x, W * a, ...).
struct ConvTransposeBatchNorm : CountedPattern<BatchNormOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rw) const override {
    auto ct = definingOp<ConvTransposeOp>(bn.getInput());
    if (!ct || !ct->hasOneUse() || !ct.getPostOps().empty() ||
        ct.getGroups() != 1)
      return failure();
    auto folded = foldBatchNorm(rw, bn, ct.getWeight(), ct.getBias(), 1);
    if (!folded)
      return failure();
    auto [wv, bv] = *folded;
    auto fused = rw.create<ConvTransposeOp>(
        rw.getFusedLoc({ct.getLoc(), bn.getLoc()}), ct.getType(), ct.getInput(),
        wv, bv, ct.getStridesAttr(), ct.getPadsAttr(), ct.getDilationsAttr(),
        ct.getOutputPaddingAttr(), ct.getGroupsAttr(), ct.getPostOpsAttr());
    rw.replaceOp(bn, fused.getResult());
    rw.eraseOp(ct);
    count();
    return success();
  }
};

/// conv_transpose with kernel == stride -> conv 1x1 + depth-to-space.
struct ConvTransposeAsConv : CountedPattern<ConvTransposeOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(ConvTransposeOp ct,
                                PatternRewriter &rw) const override {
    auto xt = typeOf(ct.getInput()), wt = typeOf(ct.getWeight());
    if (xt.getRank() != 4 || !xt.getElementType().isF32() ||
        ct.getGroups() != 1 || !allEqual(ct.getPads(), 0) ||
        !allEqual(ct.getDilations(), 1) || !allEqual(ct.getOutputPadding(), 0) ||
        hasSum(ct.getPostOps()))
      return failure();
    int64_t n = xt.getDimSize(0), ic = xt.getDimSize(1), h = xt.getDimSize(2),
            w = xt.getDimSize(3), oc = wt.getDimSize(1), k0 = wt.getDimSize(2),
            k1 = wt.getDimSize(3);
    if (ct.getStrides()[0] != k0 || ct.getStrides()[1] != k1)
      return failure();
    auto weight = readF32Constant(ct.getWeight());
    std::optional<std::vector<float>> bias;
    if (!weight || (ct.getBias() && !(bias = readF32Constant(ct.getBias()))))
      return failure();
    // W'[(oc*k0 + a)*k1 + b][ic] = W[ic][oc][a][b]; the bias repeats per
    // output channel's k0*k1 positions.
    int64_t taps = k0 * k1, channels = oc * taps;
    std::vector<float> w2(channels * ic), b2(channels, 0.0f);
    for (int64_t i = 0; i < ic; ++i)
      for (int64_t c = 0; c < oc; ++c)
        for (int64_t t = 0; t < taps; ++t)
          w2[(c * taps + t) * ic + i] = (*weight)[(i * oc + c) * taps + t];
    if (bias)
      for (int64_t c = 0; c < channels; ++c)
        b2[c] = (*bias)[c / taps];
    Type f32 = xt.getElementType();
    Location loc = ct.getLoc();
    Value wv = rw.create<ConstantOp>(
        loc, makeF32Weight(RankedTensorType::get({channels, ic, 1, 1}, f32), w2,
                           weightName(ct.getWeight(), ".as_conv")));
    Value bv = bias ? rw.create<ConstantOp>(
                          loc, makeF32Weight(RankedTensorType::get({channels}, f32),
                                             b2, weightName(ct.getWeight(),
                                                            ".as_conv_bias")))
                    : Value();
    auto i64s = [&](ArrayRef<int64_t> v) { return rw.getDenseI64ArrayAttr(v); };
    Value conv = rw.create<ConvOp>(
        loc, RankedTensorType::get({n, channels, h, w}, f32), ct.getInput(), wv,
        bv, Value(), i64s({1, 1}), i64s({0, 0, 0, 0}), i64s({1, 1}),
        rw.getI64IntegerAttr(1), ct.getPostOpsAttr());
    Value v = rw.create<ReshapeOp>(
        loc, RankedTensorType::get({n, oc, k0, k1, h, w}, f32), conv);
    v = rw.create<TransposeOp>(
        loc, RankedTensorType::get({n, oc, h, k0, w, k1}, f32), v,
        i64s({0, 1, 4, 2, 5, 3}));
    rw.replaceOpWithNewOp<ReshapeOp>(ct, ct.getType(), v);
    count();
    return success();
  }
};
} // namespace

void osc::populateOscConvTransposeBatchNormPatterns(RewritePatternSet &patterns,
                                                    llvm::Statistic *counter) {
  patterns.add<ConvTransposeBatchNorm>(patterns.getContext(), counter);
}

void osc::populateOscConvTransposeAsConvPatterns(RewritePatternSet &patterns,
                                                 llvm::Statistic *counter) {
  patterns.add<ConvTransposeAsConv>(patterns.getContext(), counter);
}
