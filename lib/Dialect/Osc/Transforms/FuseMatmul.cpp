//===- FuseMatmul.cpp - scales, transposes, inner products ----------------===//
//
// Part of opscope. Rewrites around matrix products: constant
// scales and transposes folded into osc.matmul, and a matmul with a constant
// weight (plus its bias) turned into osc.inner_product.
//
//===----------------------------------------------------------------------===//

#include "FusionPatterns.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::osc::fusion;

namespace {
//===----------------------------------------------------------------------===//
// Scalars and transposes
//===----------------------------------------------------------------------===//

/// x / c -> x * (1/c) for a constant float scalar c, so scales compose.
struct DivByScalar : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BinaryOp op,
                                PatternRewriter &rw) const override {
    auto c = splatConstant(op.getRhs());
    if (op.getKind() != BinaryKind::div || !c || *c == 0.0 ||
        !isa<FloatType>(typeOf(op.getLhs()).getElementType()) ||
        typeOf(op.getRhs()).getNumElements() != 1)
      return failure();
    auto cType = typeOf(op.getRhs());
    Value inv = rw.create<ConstantOp>(
        op.getRhs().getLoc(),
        DenseElementsAttr::get(
            cType, FloatAttr::get(cType.getElementType(), 1.0 / *c)));
    rw.replaceOpWithNewOp<BinaryOp>(op, op.getType(), BinaryKind::mul,
                                    op.getLhs(), inv);
    count();
    return success();
  }
};

/// matmul(...) * c -> matmul(..., scale = scale * c).
struct ScaleIntoMatmul : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BinaryOp op,
                                PatternRewriter &rw) const override {
    if (op.getKind() != BinaryKind::mul)
      return failure();
    for (Value side : {op.getLhs(), op.getRhs()}) {
      auto mm = definingOp<MatMulOp>(side);
      Value other = otherOperand(op, side);
      auto c = splatConstant(other);
      if (!mm || !mm->hasOneUse() || !c || op.getType() != mm.getType())
        continue;
      float scale = mm.getScale().convertToFloat() * static_cast<float>(*c);
      auto fused = rw.create<MatMulOp>(
          rw.getFusedLoc({mm.getLoc(), op.getLoc()}), mm.getType(), mm.getLhs(),
          mm.getRhs(), mm.getTransposeAAttr(), mm.getTransposeBAttr(),
          rw.getF32FloatAttr(scale));
      rw.replaceOp(op, fused.getResult());
      rw.eraseOp(mm);
      count();
      return success();
    }
    return failure();
  }
};

/// A transpose that moves a matmul operand's last dimension into the
/// second-to-last place becomes the matmul's transpose flag; what remains is
/// a row-preserving transpose (or nothing).
struct TransposeIntoMatmul : CountedPattern<MatMulOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rw) const override {
    for (int side = 0; side < 2; ++side) {
      Value operand = side ? op.getRhs() : op.getLhs();
      auto t = definingOp<TransposeOp>(operand);
      if (!t)
        continue;
      SmallVector<int64_t> perm(t.getPerm());
      int64_t r = perm.size();
      std::swap(perm[r - 1], perm[r - 2]);
      if (perm[r - 1] != r - 1)
        continue; // the last dimension would still move: no gain
      Value source = t.getInput();
      bool identity = llvm::all_of(llvm::enumerate(perm), [](auto it) {
        return static_cast<int64_t>(it.index()) == it.value();
      });
      if (!identity) {
        SmallVector<int64_t> shape;
        for (int64_t p : perm)
          shape.push_back(typeOf(source).getDimSize(p));
        source = rw.create<TransposeOp>(
            t.getLoc(),
            RankedTensorType::get(shape, typeOf(source).getElementType()),
            source, rw.getDenseI64ArrayAttr(perm));
      }
      bool ta = op.getTransposeA(), tb = op.getTransposeB();
      (side ? tb : ta) = !(side ? tb : ta);
      auto fused = rw.create<MatMulOp>(
          fuseWithInputs(op.getLoc(), {t.getLoc()}), op.getType(),
          side ? op.getLhs() : source, side ? source : op.getRhs(),
          ta ? rw.getUnitAttr() : UnitAttr(),
          tb ? rw.getUnitAttr() : UnitAttr(), op.getScaleAttr());
      rw.replaceOp(op, fused.getResult());
      count();
      return success();
    }
    return failure();
  }
};

//===----------------------------------------------------------------------===//
// Inner product and bias
//===----------------------------------------------------------------------===//

/// matmul(x, W) with a constant 2-D f32 W -> inner_product(x, W^T) (N x K).
struct MatmulToInnerProduct : CountedPattern<MatMulOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rw) const override {
    auto wType = typeOf(op.getRhs());
    if (wType.getRank() != 2 || op.getTransposeA() ||
        op.getScale().convertToFloat() != 1.0f ||
        typeOf(op.getLhs()).getRank() < 2)
      return failure();
    Value weight = op.getRhs();
    auto wConst = weight.getDefiningOp<ConstantOp>();
    auto splat = wConst ? dyn_cast<DenseElementsAttr>(wConst.getValue())
                        : DenseElementsAttr();
    if (!op.getTransposeB() && splat && splat.isSplat()) {
      // A transposed splat is the same splat: never expanded.
      auto tType = RankedTensorType::get(
          {wType.getDimSize(1), wType.getDimSize(0)}, wType.getElementType());
      weight = rw.create<ConstantOp>(weight.getLoc(), splat.reshape(tType));
    } else if (!op.getTransposeB()) {
      auto values = readF32Constant(weight);
      if (!values)
        return failure();
      int64_t k = wType.getDimSize(0), nOut = wType.getDimSize(1);
      std::vector<float> t(values->size());
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < nOut; ++j)
          t[j * k + i] = (*values)[i * nOut + j];
      auto tType = RankedTensorType::get({nOut, k}, wType.getElementType());
      weight = rw.create<ConstantOp>(
          weight.getLoc(), makeF32Weight(tType, t, weightName(weight, ".t")));
    } else if (!weight.getDefiningOp<ConstantOp>()) {
      return failure();
    }
    rw.replaceOpWithNewOp<InnerProductOp>(op, op.getType(), op.getLhs(), weight,
                                          Value(), Value(),
                                          rw.getArrayAttr({}));
    count();
    return success();
  }
};

/// inner_product(...) + b with a constant b of the output channels -> bias.
struct BiasIntoInnerProduct : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BinaryOp op,
                                PatternRewriter &rw) const override {
    if (op.getKind() != BinaryKind::add)
      return failure();
    for (Value side : {op.getLhs(), op.getRhs()}) {
      auto ip = definingOp<InnerProductOp>(side);
      Value bias = otherOperand(op, side);
      if (!ip || !ip->hasOneUse() || ip.getBias() || !ip.getPostOps().empty() ||
          op.getType() != ip.getType() || !bias.getDefiningOp<ConstantOp>())
        continue;
      int64_t channels = typeOf(ip.getWeight()).getDimSize(0);
      auto bShape = typeOf(bias).getShape();
      // Only the channel dimension may be non-1: a bias, not a full tensor.
      if (bShape.empty() || bShape.back() != channels ||
          llvm::any_of(bShape.drop_back(), [](int64_t d) { return d != 1; }))
        continue;
      if (bShape.size() != 1)
        bias = rw.createOrFold<ReshapeOp>(
            bias.getLoc(),
            RankedTensorType::get({channels}, typeOf(bias).getElementType()),
            bias);
      auto fused = rw.create<InnerProductOp>(
          rw.getFusedLoc({ip.getLoc(), op.getLoc()}), ip.getType(),
          ip.getInput(), ip.getWeight(), bias, Value(), ip.getPostOpsAttr());
      rw.replaceOp(op, fused.getResult());
      rw.eraseOp(ip);
      count();
      return success();
    }
    return failure();
  }
};

} // namespace

void osc::populateOscScalarFoldingPatterns(RewritePatternSet &patterns,
                                           llvm::Statistic *counter) {
  patterns.add<DivByScalar, ScaleIntoMatmul>(patterns.getContext(), counter);
}

void osc::populateOscTransposeFoldingPatterns(RewritePatternSet &patterns,
                                             llvm::Statistic *counter) {
  patterns.add<TransposeIntoMatmul>(patterns.getContext(), counter);
}

void osc::populateOscInnerProductFusionPatterns(RewritePatternSet &patterns,
                                               llvm::Statistic *innerProducts,
                                               llvm::Statistic *biases) {
  patterns.add<MatmulToInnerProduct>(patterns.getContext(), innerProducts);
  patterns.add<BiasIntoInnerProduct>(patterns.getContext(), biases);
}
