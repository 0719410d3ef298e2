//===- Fuse.cpp - osc-fuse: decomposed patterns to kernel-sized ops -------===//
//
// Part of opscope. Each fusion is a rewrite pattern; the pass picks the
// families its options enable and lets the greedy driver chain them (a
// matmul becomes an inner_product, which takes its bias, then its GELU, then
// the residual Add). Fused ops get a FusedLoc of every op they replace.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/IR/OscShapes.h"
#include "opscope/Dialect/Osc/IR/OscUtils.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace opscope::osc {
#define GEN_PASS_DEF_OSCFUSE
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"
} // namespace opscope::osc

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

namespace {

using Counter = llvm::Statistic;

/// A pattern that counts its rewrites in one of the pass's statistics.
template <typename OpTy> struct CountedPattern : OpRewritePattern<OpTy> {
  CountedPattern(MLIRContext *ctx, Counter &n) : OpRewritePattern<OpTy>(ctx), n(n) {}
  Counter &n;
};

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

bool near(std::optional<double> v, double expected, double tol = 1e-3) {
  return v && std::fabs(*v - expected) <= tol * std::fabs(expected);
}

/// The other operand of a commutative binary op, given one.
Value otherOperand(BinaryOp op, Value v) {
  return op.getLhs() == v ? op.getRhs() : op.getLhs();
}

template <typename OpTy> OpTy definingOp(Value v) {
  return v ? v.getDefiningOp<OpTy>() : OpTy();
}

/// Post-op list with `kind` appended.
ArrayAttr appendPostOp(ArrayAttr list, PostOpKind kind, MLIRContext *ctx) {
  SmallVector<Attribute> kinds(list.begin(), list.end());
  kinds.push_back(PostOpKindAttr::get(ctx, kind));
  return ArrayAttr::get(ctx, kinds);
}

bool hasSum(ArrayAttr list) {
  return llvm::any_of(list, [](Attribute a) {
    return cast<PostOpKindAttr>(a).getValue() == PostOpKind::sum;
  });
}

/// A name for a rewritten weight, from the constant's location.
std::string weightName(Value v, StringRef suffix) {
  auto names = sourceNodes(v.getLoc());
  return (names.empty() ? std::string("weight") : names.front()) + suffix.str();
}

//===----------------------------------------------------------------------===//
// Scalars and transposes
//===----------------------------------------------------------------------===//

/// x / c -> x * (1/c) for a constant float scalar c, so scales compose.
struct DivByScalar : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BinaryOp op, PatternRewriter &rw) const override {
    auto c = splatConstant(op.getRhs());
    if (op.getKind() != BinaryKind::div || !c || *c == 0.0 ||
        !isa<FloatType>(typeOf(op.getLhs()).getElementType()) ||
        typeOf(op.getRhs()).getNumElements() != 1)
      return failure();
    auto cType = typeOf(op.getRhs());
    Value inv = rw.create<ConstantOp>(
        op.getRhs().getLoc(),
        DenseElementsAttr::get(cType, FloatAttr::get(cType.getElementType(), 1.0 / *c)));
    rw.replaceOpWithNewOp<BinaryOp>(op, op.getType(), BinaryKind::mul, op.getLhs(), inv);
    ++n;
    return success();
  }
};

/// matmul(...) * c -> matmul(..., scale = scale * c).
struct ScaleIntoMatmul : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BinaryOp op, PatternRewriter &rw) const override {
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
      ++n;
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
  LogicalResult matchAndRewrite(MatMulOp op, PatternRewriter &rw) const override {
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
            t.getLoc(), RankedTensorType::get(shape, typeOf(source).getElementType()),
            source, rw.getDenseI64ArrayAttr(perm));
      }
      bool ta = op.getTransposeA(), tb = op.getTransposeB();
      (side ? tb : ta) = !(side ? tb : ta);
      auto fused = rw.create<MatMulOp>(
          fuseWithInputs(op.getLoc(), {t.getLoc()}), op.getType(),
          side ? op.getLhs() : source, side ? source : op.getRhs(),
          ta ? rw.getUnitAttr() : UnitAttr(), tb ? rw.getUnitAttr() : UnitAttr(),
          op.getScaleAttr());
      rw.replaceOp(op, fused.getResult());
      ++n;
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
  LogicalResult matchAndRewrite(MatMulOp op, PatternRewriter &rw) const override {
    auto wType = typeOf(op.getRhs());
    if (wType.getRank() != 2 || op.getTransposeA() ||
        op.getScale().convertToFloat() != 1.0f || typeOf(op.getLhs()).getRank() < 2)
      return failure();
    Value weight = op.getRhs();
    if (!op.getTransposeB()) {
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
                                          Value(), Value(), rw.getArrayAttr({}));
    ++n;
    return success();
  }
};

/// inner_product(...) + b with a constant b of the output channels -> bias.
struct BiasIntoInnerProduct : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BinaryOp op, PatternRewriter &rw) const override {
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
            bias.getLoc(), RankedTensorType::get({channels}, typeOf(bias).getElementType()),
            bias);
      auto fused = rw.create<InnerProductOp>(
          rw.getFusedLoc({ip.getLoc(), op.getLoc()}), ip.getType(), ip.getInput(),
          ip.getWeight(), bias, Value(), ip.getPostOpsAttr());
      rw.replaceOp(op, fused.getResult());
      rw.eraseOp(ip);
      ++n;
      return success();
    }
    return failure();
  }
};

//===----------------------------------------------------------------------===//
// GELU
//===----------------------------------------------------------------------===//

/// The factors of a product tree of single-use multiplies (and divisions by
/// constant scalars): non-constant factors in `factors`, constants multiplied
/// into `constant`, every op of the tree in `ops`.
void collectFactors(Value v, bool isRoot, SmallVectorImpl<Value> &factors,
                    double &constant, SmallVectorImpl<Operation *> &ops) {
  auto op = definingOp<BinaryOp>(v);
  if (auto c = splatConstant(v); c && typeOf(v).getNumElements() == 1) {
    constant *= *c;
    return;
  }
  if (op && (isRoot || v.hasOneUse())) {
    if (op.getKind() == BinaryKind::mul) {
      ops.push_back(op);
      collectFactors(op.getLhs(), false, factors, constant, ops);
      collectFactors(op.getRhs(), false, factors, constant, ops);
      return;
    }
    auto c = splatConstant(op.getRhs());
    if (op.getKind() == BinaryKind::div && c && *c != 0.0) {
      ops.push_back(op);
      constant /= *c;
      collectFactors(op.getLhs(), false, factors, constant, ops);
      return;
    }
  }
  factors.push_back(v);
}

/// `1 + f(...)` with f of type OpTy: returns f.
template <typename OpTy>
OpTy onePlus(Value v, SmallVectorImpl<Operation *> &ops) {
  auto add = definingOp<BinaryOp>(v);
  if (!add || add.getKind() != BinaryKind::add || !v.hasOneUse())
    return {};
  for (Value side : {add.getLhs(), add.getRhs()}) {
    auto f = definingOp<OpTy>(side);
    if (f && side.hasOneUse() && near(splatConstant(otherOperand(add, side)), 1.0)) {
      ops.push_back(add);
      ops.push_back(f);
      return f;
    }
  }
  return {};
}

/// erf form: 0.5 * x * (1 + erf(x / sqrt(2)));
/// tanh form: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
struct FuseGelu : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BinaryOp op, PatternRewriter &rw) const override {
    if (op.getKind() != BinaryKind::mul && op.getKind() != BinaryKind::div)
      return failure();
    SmallVector<Value> factors;
    SmallVector<Operation *> ops;
    double constant = 1.0;
    collectFactors(op.getResult(), /*isRoot=*/true, factors, constant, ops);
    if (factors.size() != 2 || !near(constant, 0.5))
      return failure();
    for (int i = 0; i < 2; ++i) {
      Value x = factors[i], inner = factors[1 - i];
      SmallVector<Operation *> more;
      if (auto e = onePlus<UnaryOp>(inner, more); e && e.getKind() == UnaryKind::erf) {
        SmallVector<Value> zf;
        double zc = 1.0;
        collectFactors(e.getInput(), true, zf, zc, more);
        if (zf.size() == 1 && zf[0] == x && near(zc, M_SQRT1_2))
          return rewrite(op, x, GeluApproximation::erf, ops, more, rw);
      }
      more.clear();
      if (auto t = onePlus<UnaryOp>(inner, more); t && t.getKind() == UnaryKind::tanh) {
        SmallVector<Value> uf;
        double uc = 1.0;
        collectFactors(t.getInput(), true, uf, uc, more);
        auto sum = uf.size() == 1 ? definingOp<BinaryOp>(uf[0]) : BinaryOp();
        if (!sum || sum.getKind() != BinaryKind::add || !near(uc, std::sqrt(2.0 / M_PI)))
          continue;
        more.push_back(sum);
        for (Value side : {sum.getLhs(), sum.getRhs()}) {
          if (side != x)
            continue;
          SmallVector<Value> cf;
          double cc = 1.0;
          collectFactors(otherOperand(sum, side), true, cf, cc, more);
          bool cube = false;
          if (cf.size() == 1)
            if (auto p = definingOp<BinaryOp>(cf[0]); p && p.getKind() == BinaryKind::pow &&
                                                      p.getLhs() == x &&
                                                      near(splatConstant(p.getRhs()), 3.0)) {
              cube = true;
              more.push_back(p);
            }
          if (cf.size() == 3 && llvm::all_of(cf, [&](Value f) { return f == x; }))
            cube = true;
          if (cube && near(cc, 0.044715))
            return rewrite(op, x, GeluApproximation::tanh, ops, more, rw);
        }
      }
    }
    return failure();
  }

  LogicalResult rewrite(BinaryOp root, Value x, GeluApproximation approx,
                        ArrayRef<Operation *> ops, ArrayRef<Operation *> more,
                        PatternRewriter &rw) const {
    SmallVector<Location> locs;
    for (Operation *o : ops)
      locs.push_back(o->getLoc());
    for (Operation *o : more)
      locs.push_back(o->getLoc());
    auto gelu = rw.create<GeluOp>(rw.getFusedLoc(locs), x.getType(), approx, x);
    rw.replaceOp(root, gelu.getResult());
    ++n;
    return success();
  }
};

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
      if (axes[i] != rank - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(i))
        return false;
    return true;
  }

  LogicalResult matchAndRewrite(BinaryOp op, PatternRewriter &rw) const override {
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
          if (!eps || !trailingMean(var, rank) || var.getAxes() != mean.getAxes())
            continue;
          auto sq = definingOp<BinaryOp>(var.getInput());
          bool square = sq && ((sq.getKind() == BinaryKind::pow && sq.getLhs() == sub.getResult() &&
                                near(splatConstant(sq.getRhs()), 2.0)) ||
                               (sq.getKind() == BinaryKind::mul && sq.getLhs() == sub.getResult() &&
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
            if (s.size() > normalized.size() && s.take_back(normalized.size()) == normalized &&
                llvm::all_of(s.drop_back(normalized.size()), [](int64_t d) { return d == 1; }))
              return rw.createOrFold<ReshapeOp>(
                  v.getLoc(), RankedTensorType::get(normalized, typeOf(v).getElementType()), v);
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
              rw.getFusedLoc(locs), x.getType(), x, g, b, rw.getI64IntegerAttr(axis),
              rw.getF32FloatAttr(static_cast<float>(*eps)));
          rw.replaceOp(op, ln.getResult());
          ++n;
          return success();
        }
      }
    }
    return failure();
  }
};

//===----------------------------------------------------------------------===//
// Post-ops
//===----------------------------------------------------------------------===//

std::optional<PostOpKind> activationKind(Operation *op) {
  if (auto u = dyn_cast<UnaryOp>(op)) {
    switch (u.getKind()) {
    case UnaryKind::relu:
      return PostOpKind::relu;
    case UnaryKind::sigmoid:
      return PostOpKind::sigmoid;
    case UnaryKind::tanh:
      return PostOpKind::tanh;
    case UnaryKind::hard_swish:
      return PostOpKind::hard_swish;
    default:
      return std::nullopt;
    }
  }
  if (auto g = dyn_cast<GeluOp>(op))
    return g.getApproximation() == GeluApproximation::erf ? PostOpKind::gelu_erf
                                                          : PostOpKind::gelu_tanh;
  return std::nullopt;
}

/// Rebuilds a fusible op with a new post-op list (and sum operand).
Value rebuildWithPostOps(Operation *producer, ArrayAttr postOps, Value sum,
                         Location loc, PatternRewriter &rw) {
  if (auto ip = dyn_cast<InnerProductOp>(producer))
    return rw.create<InnerProductOp>(loc, ip.getType(), ip.getInput(), ip.getWeight(),
                                     ip.getBias(), sum ? sum : ip.getSumInput(), postOps);
  if (auto conv = dyn_cast<ConvOp>(producer))
    return rw.create<ConvOp>(loc, conv.getType(), conv.getInput(), conv.getWeight(),
                             conv.getBias(), sum ? sum : conv.getSumInput(),
                             conv.getStridesAttr(), conv.getPadsAttr(),
                             conv.getDilationsAttr(), conv.getGroupsAttr(), postOps);
  if (auto ct = dyn_cast<ConvTransposeOp>(producer); ct && !sum)
    return rw.create<ConvTransposeOp>(loc, ct.getType(), ct.getInput(), ct.getWeight(),
                                      ct.getBias(), ct.getStridesAttr(), ct.getPadsAttr(),
                                      ct.getDilationsAttr(), ct.getOutputPaddingAttr(),
                                      ct.getGroupsAttr(), postOps);
  return {};
}

bool isFusible(Operation *op) {
  return isa_and_nonnull<InnerProductOp, ConvOp, ConvTransposeOp>(op);
}

/// act(ip(...)) -> ip(...) post_ops [..., act].
struct ActivationPostOp : RewritePattern {
  ActivationPostOp(MLIRContext *ctx, Counter &n)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx), n(n) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rw) const override {
    auto kind = activationKind(op);
    if (!kind)
      return failure();
    Operation *producer = op->getOperand(0).getDefiningOp();
    if (!isFusible(producer) || !producer->hasOneUse() ||
        !isa<FloatType>(typeOf(op->getResult(0)).getElementType()))
      return failure();
    auto list = producer->getAttrOfType<ArrayAttr>("post_ops");
    Value fused = rebuildWithPostOps(producer, appendPostOp(list, *kind, getContext()),
                                     Value(), rw.getFusedLoc({producer->getLoc(), op->getLoc()}),
                                     rw);
    if (!fused)
      return failure();
    rw.replaceOp(op, fused);
    rw.eraseOp(producer);
    ++n;
    return success();
  }
  Counter &n;
};

/// ip(...) + r -> ip(...) sum(r) post_ops [..., sum]: the residual Add.
struct ResidualPostOp : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BinaryOp op, PatternRewriter &rw) const override {
    if (op.getKind() != BinaryKind::add)
      return failure();
    for (Value side : {op.getLhs(), op.getRhs()}) {
      Operation *producer = side.getDefiningOp();
      Value residual = otherOperand(op, side);
      if (!isFusible(producer) || !producer->hasOneUse() || residual == side ||
          residual.getType() != op.getType() || side.getType() != op.getType())
        continue;
      auto list = producer->getAttrOfType<ArrayAttr>("post_ops");
      if (hasSum(list))
        continue;
      Value fused = rebuildWithPostOps(producer, appendPostOp(list, PostOpKind::sum, getContext()),
                                       residual,
                                       rw.getFusedLoc({producer->getLoc(), op.getLoc()}), rw);
      if (!fused)
        continue;
      rw.replaceOp(op, fused);
      rw.eraseOp(producer);
      ++n;
      return success();
    }
    return failure();
  }
};

//===----------------------------------------------------------------------===//
// Attention masks
//===----------------------------------------------------------------------===//

/// softmax(s + m) -> softmax(s) mask(m); softmax(where(c, -inf, s)) ->
/// softmax(s) mask(where(c, -inf, 0)) on c before broadcasting.
struct MaskIntoSoftmax : CountedPattern<SoftmaxOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(SoftmaxOp op, PatternRewriter &rw) const override {
    if (op.getMask() || !op.getInput().hasOneUse())
      return failure();
    auto type = typeOf(op.getInput());
    if (auto add = definingOp<BinaryOp>(op.getInput()); add && add.getKind() == BinaryKind::add) {
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
            where.getLoc(), DenseElementsAttr::get(scalar, FloatAttr::get(elem, *f)));
        Value zero = rw.create<ConstantOp>(
            where.getLoc(), DenseElementsAttr::get(scalar, FloatAttr::get(elem, 0.0)));
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
                        ArrayRef<Location> absorbed, PatternRewriter &rw) const {
    auto b = broadcastShapes(typeOf(scores).getShape(), typeOf(mask).getShape());
    if (!b || ArrayRef<int64_t>(*b) != typeOf(scores).getShape() ||
        typeOf(mask).getElementType() != typeOf(scores).getElementType())
      return failure();
    auto fused = rw.create<SoftmaxOp>(fuseWithInputs(op.getLoc(), absorbed),
                                      op.getType(), scores, mask,
                                      op.getAxisAttr(), op.getLogAttr());
    rw.replaceOp(op, fused.getResult());
    ++n;
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Conv + BatchNorm
//===----------------------------------------------------------------------===//

/// batch_norm(conv(x, W, b)) -> conv(x, W * a, (b - mean) * a + beta) with
/// a = scale / sqrt(var + eps), per output channel.
struct ConvBatchNorm : CountedPattern<BatchNormOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BatchNormOp bn, PatternRewriter &rw) const override {
    auto conv = definingOp<ConvOp>(bn.getInput());
    if (!conv || !conv->hasOneUse() || !conv.getPostOps().empty() || conv.getSumInput())
      return failure();
    auto w = readF32Constant(conv.getWeight());
    auto scale = readF32Constant(bn.getScale()), beta = readF32Constant(bn.getBias()),
         mean = readF32Constant(bn.getMean()), var = readF32Constant(bn.getVariance());
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
    Value wv = rw.create<ConstantOp>(conv.getWeight().getLoc(),
                                     makeF32Weight(wType, newW, weightName(conv.getWeight(), ".bn")));
    Value bv = rw.create<ConstantOp>(
        bn.getLoc(), makeF32Weight(RankedTensorType::get({oc}, wType.getElementType()), newB,
                                   weightName(conv.getWeight(), ".bn_bias")));
    auto fused = rw.create<ConvOp>(rw.getFusedLoc({conv.getLoc(), bn.getLoc()}), conv.getType(),
                                   conv.getInput(), wv, bv, Value(), conv.getStridesAttr(),
                                   conv.getPadsAttr(), conv.getDilationsAttr(),
                                   conv.getGroupsAttr(), conv.getPostOpsAttr());
    rw.replaceOp(bn, fused.getResult());
    rw.eraseOp(conv);
    ++n;
    return success();
  }
};

struct FusePass : osc::impl::OscFuseBase<FusePass> {
  using OscFuseBase::OscFuseBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto module = getOperation()->getParentOfType<ModuleOp>();
    if (module && module->hasAttr(kWeightsElidedAttr))
      getOperation().emitWarning(
          "osc-fuse: this IR was printed with --elide-weights; fusions that "
          "read weight data (matmul to inner_product) are skipped");
    RewritePatternSet patterns(ctx);
    if (foldScalars) {
      patterns.add<DivByScalar>(ctx, numScales);
      patterns.add<ScaleIntoMatmul>(ctx, numScales);
    }
    if (foldTransposes)
      patterns.add<TransposeIntoMatmul>(ctx, numTransposes);
    if (fuseInnerProduct) {
      patterns.add<MatmulToInnerProduct>(ctx, numInnerProducts);
      patterns.add<BiasIntoInnerProduct>(ctx, numBiases);
    }
    if (fuseGelu)
      patterns.add<FuseGelu>(ctx, numGelus);
    if (fuseLayerNorm)
      patterns.add<FuseLayerNorm>(ctx, numLayerNorms);
    if (fusePostOps) {
      patterns.add<ActivationPostOp>(ctx, numPostOps);
      patterns.add<ResidualPostOp>(ctx, numPostOps);
    }
    if (fuseAttention)
      patterns.add<MaskIntoSoftmax>(ctx, numMasks);
    if (fuseConvBn)
      patterns.add<ConvBatchNorm>(ctx, numConvBns);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
