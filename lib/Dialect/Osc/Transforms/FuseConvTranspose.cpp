//===- FuseConvTranspose.cpp - BatchNorm folding, the sub-pixel form ------===//
//
// Part of opscope. Two rewrites of osc.conv_transpose:
//  * an inference BatchNorm after it folds into its weights and bias (per
//    output channel, dimension 1 of the C x OC x k... weight), so the ReLU
//    after can become its post-op;
//  * a 2-D f32 one with constant weights, no groups, dilation or sum, not
//    reading a dequantized input and with pads within the kernel's reach
//    becomes its sub-pixel form: a convolution to OC*s0*s1 channels, a
//    depth-to-space shuffle (osc.depth_to_space when s0 == s1) and a crop
//    (with kernel == stride and no padding, the 2x2 stride-2 upsampling of
//    segmentation and text-detection heads, a 1x1 convolution and the
//    shuffle). oneDNN 2.6's deconvolution ran the PaddleOCR-like head's
//    24 -> 1 channel 2x2 case 40x slower than the 1x1 convolution and
//    shuffle, and the U-Net's 3x3 stride-2 ones at 5-9 GFLOP/s
//    (docs/benchmarks.md, docs/fusion.md).
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

/// A 2-D conv_transpose (groups 1, dilation 1) -> a convolution to
/// OC*s0*s1 channels + depth-to-space + a crop: the sub-pixel form. Along
/// one dimension (stride s, kernel k, begin pad p), output o reads input i
/// through tap t when o + p = s*i + t. Write u = o + p = s*q + r: the
/// output's phase r takes taps r, r + s, ... (M = ceil(k/s) of them) from
/// inputs q, q - 1, ..., a correlation of x with that phase's taps
/// reversed. One convolution of kernel M computes every phase of every
/// q in [q0, q0 + Q) as its own output channel (zero weights where a
/// phase has fewer taps), the shuffle interleaves the phases (u), and the
/// crop keeps u in [p, p + O). With kernel == stride and no padding (the
/// 2x2 stride-2 upsampling of segmentation and text-detection heads) it is
/// a 1x1 convolution and a shuffle, no crop. The op's element-wise
/// post-ops commute with the shuffle and the crop; an output no input
/// reaches gets the bias, as in the transposed convolution.
struct ConvTransposeAsConv : CountedPattern<ConvTransposeOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(ConvTransposeOp ct,
                                PatternRewriter &rw) const override {
    auto xt = typeOf(ct.getInput()), wt = typeOf(ct.getWeight());
    if (xt.getRank() != 4 || !xt.getElementType().isF32() ||
        ct.getGroups() != 1 || !allEqual(ct.getDilations(), 1) ||
        hasSum(ct.getPostOps()))
      return failure();
    // A QDQ model's int8 layer (its input dequantized): osc-precision runs
    // it in int8 on the model's own per-channel integers, which the
    // sub-pixel channels (a phase's share of each channel's taps) would
    // not keep.
    if (ct.getInput().getDefiningOp<DequantizeLinearOp>())
      return failure();
    int64_t n = xt.getDimSize(0), ic = xt.getDimSize(1), oc = wt.getDimSize(1);
    // Per spatial dimension: stride, kernel, taps per phase (m), the first
    // q (q0) and the count of them (q), the conv's pads and the crop's
    // start, the input and output sizes.
    struct Dim {
      int64_t s, k, m, q0, q, padB, padE, crop, in, out;
    } d[2];
    auto outType = cast<RankedTensorType>(ct.getType());
    for (int i = 0; i < 2; ++i) {
      Dim &e = d[i];
      e.s = ct.getStrides()[i];
      e.k = wt.getDimSize(2 + i);
      e.in = xt.getDimSize(2 + i);
      e.out = outType.getDimSize(2 + i);
      int64_t p = ct.getPads()[i];
      if (e.s <= 0 || p < 0)
        return failure();
      e.m = (e.k + e.s - 1) / e.s;
      e.q0 = p / e.s;
      e.q = (p + e.out + e.s - 1) / e.s - e.q0;
      e.padB = e.m - 1 - e.q0;
      e.padE = e.q - e.in - e.padB + e.m - 1;
      e.crop = p - e.s * e.q0;
      // Pads beyond the kernel's reach: leave it to the deconvolution.
      if (e.padB < 0 || e.padE < 0)
        return failure();
    }
    auto weight = readF32Constant(ct.getWeight());
    std::optional<std::vector<float>> bias;
    if (!weight || (ct.getBias() && !(bias = readF32Constant(ct.getBias()))))
      return failure();
    // W'[o2][ic][j0][j1] = W[ic][oc][t0][t1] with t = r + s * (m - 1 - j)
    // (zero past the kernel), o2 = (r0, r1, oc) when s0 == s1 (the DCR
    // order of osc.depth_to_space, which channels-last moves in rows of
    // s*OC values), else (oc, r0, r1) for a 6-D transpose; the bias
    // repeats per output channel's s0*s1 phases.
    int64_t phases = d[0].s * d[1].s, channels = oc * phases;
    int64_t m0 = d[0].m, m1 = d[1].m, k0 = d[0].k, k1 = d[1].k;
    bool dcr = d[0].s == d[1].s;
    std::vector<float> w2(channels * ic * m0 * m1, 0.0f), b2(channels, 0.0f);
    for (int64_t c = 0; c < oc; ++c)
      for (int64_t r0 = 0; r0 < d[0].s; ++r0)
        for (int64_t r1 = 0; r1 < d[1].s; ++r1) {
          int64_t o2 = dcr ? (r0 * d[1].s + r1) * oc + c
                           : (c * d[0].s + r0) * d[1].s + r1;
          if (bias)
            b2[o2] = (*bias)[c];
          for (int64_t i = 0; i < ic; ++i)
            for (int64_t j0 = 0; j0 < m0; ++j0)
              for (int64_t j1 = 0; j1 < m1; ++j1) {
                int64_t t0 = r0 + d[0].s * (m0 - 1 - j0);
                int64_t t1 = r1 + d[1].s * (m1 - 1 - j1);
                if (t0 < k0 && t1 < k1)
                  w2[((o2 * ic + i) * m0 + j0) * m1 + j1] =
                      (*weight)[((i * oc + c) * k0 + t0) * k1 + t1];
              }
        }
    Type f32 = xt.getElementType();
    Location loc = ct.getLoc();
    Value wv = rw.create<ConstantOp>(
        loc, makeF32Weight(RankedTensorType::get({channels, ic, m0, m1}, f32),
                           w2, weightName(ct.getWeight(), ".as_conv")));
    Value bv = bias ? rw.create<ConstantOp>(
                          loc, makeF32Weight(RankedTensorType::get({channels}, f32),
                                             b2, weightName(ct.getWeight(),
                                                            ".as_conv_bias")))
                    : Value();
    auto i64s = [&](ArrayRef<int64_t> v) { return rw.getDenseI64ArrayAttr(v); };
    int64_t qs0 = d[0].q, qs1 = d[1].q, s0 = d[0].s, s1 = d[1].s;
    Value v = rw.create<ConvOp>(
        loc, RankedTensorType::get({n, channels, qs0, qs1}, f32),
        ct.getInput(), wv, bv, Value(), i64s({1, 1}),
        i64s({d[0].padB, d[1].padB, d[0].padE, d[1].padE}), i64s({1, 1}),
        rw.getI64IntegerAttr(1), ct.getPostOpsAttr());
    auto full = RankedTensorType::get({n, oc, qs0 * s0, qs1 * s1}, f32);
    if (phases > 1 && dcr) {
      v = rw.create<DepthToSpaceOp>(loc, full, v, rw.getI64IntegerAttr(s0),
                                    UnitAttr(), UnitAttr());
    } else if (phases > 1) { // stride 1 has nothing to interleave
      v = rw.create<ReshapeOp>(
          loc, RankedTensorType::get({n, oc, s0, s1, qs0, qs1}, f32), v);
      v = rw.create<TransposeOp>(
          loc, RankedTensorType::get({n, oc, qs0, s0, qs1, s1}, f32), v,
          i64s({0, 1, 4, 2, 5, 3}));
      v = rw.create<ReshapeOp>(loc, full, v);
    }
    if (full != outType)
      v = rw.create<SliceOp>(loc, outType, v,
                             i64s({0, 0, d[0].crop, d[1].crop}),
                             i64s({n, oc, d[0].out, d[1].out}),
                             i64s({1, 1, 1, 1}));
    rw.replaceOp(ct, v);
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
