//===- FuseActivations.cpp - GELU and post-ops ----------------------------===//
//
// Part of opscope. GELU formulas (erf and tanh forms, as
// exporters decompose them) to osc.gelu, and activations and residual sums
// into their producer's post-op list.
//
//===----------------------------------------------------------------------===//

#include "FusionPatterns.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::osc::fusion;

namespace {
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
    if (f && side.hasOneUse() &&
        near(splatConstant(otherOperand(add, side)), 1.0)) {
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
  LogicalResult matchAndRewrite(BinaryOp op,
                                PatternRewriter &rw) const override {
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
      if (auto e = onePlus<UnaryOp>(inner, more);
          e && e.getKind() == UnaryKind::erf) {
        SmallVector<Value> zf;
        double zc = 1.0;
        collectFactors(e.getInput(), true, zf, zc, more);
        if (zf.size() == 1 && zf[0] == x && near(zc, M_SQRT1_2))
          return rewrite(op, x, GeluApproximation::erf, ops, more, rw);
      }
      more.clear();
      if (auto t = onePlus<UnaryOp>(inner, more);
          t && t.getKind() == UnaryKind::tanh) {
        SmallVector<Value> uf;
        double uc = 1.0;
        collectFactors(t.getInput(), true, uf, uc, more);
        auto sum = uf.size() == 1 ? definingOp<BinaryOp>(uf[0]) : BinaryOp();
        if (!sum || sum.getKind() != BinaryKind::add ||
            !near(uc, std::sqrt(2.0 / M_PI)))
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
            if (auto p = definingOp<BinaryOp>(cf[0]);
                p && p.getKind() == BinaryKind::pow && p.getLhs() == x &&
                near(splatConstant(p.getRhs()), 3.0)) {
              cube = true;
              more.push_back(p);
            }
          if (cf.size() == 3 &&
              llvm::all_of(cf, [&](Value f) { return f == x; }))
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
    count();
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Hardswish
//===----------------------------------------------------------------------===//

/// Hardswish's constants (3, 6, 1/6, 1/2) within float rounding: a clip of
/// x + 3.002 is not hardswish.
constexpr double kHardSwishTol = 1e-6;

/// `v` is a single-use clip of `x + 3` to [0, 6] (Paddle2ONNX's and older
/// torch exports' hardswish), or a single-use hard_sigmoid of `x` with
/// alpha 1/6 and beta 1/2; returns x and the matched ops (in `ops`).
Value hardSwishInput(Value v, double &scale, SmallVectorImpl<Operation *> &ops) {
  auto u = definingOp<UnaryOp>(v);
  if (!u || !v.hasOneUse())
    return {};
  auto attr = [](std::optional<APFloat> a) -> std::optional<double> {
    if (!a)
      return std::nullopt;
    return a->convertToDouble();
  };
  if (u.getKind() == UnaryKind::hard_sigmoid &&
      near(attr(u.getAlpha()), 1.0 / 6.0, kHardSwishTol) &&
      near(attr(u.getBeta()), 0.5, kHardSwishTol)) {
    ops.push_back(u);
    return u.getInput();
  }
  auto add = definingOp<BinaryOp>(u.getInput());
  if (u.getKind() != UnaryKind::clip || !near(attr(u.getAlpha()), 0.0) ||
      !near(attr(u.getBeta()), 6.0, kHardSwishTol) || !add ||
      add.getKind() != BinaryKind::add || !add->hasOneUse())
    return {};
  for (Value side : {add.getLhs(), add.getRhs()}) {
    Value other = otherOperand(add, side);
    if (near(splatConstant(side), 3.0, kHardSwishTol) &&
        typeOf(side).getNumElements() == 1 && other.getType() == v.getType()) {
      ops.push_back(u);
      ops.push_back(add);
      scale *= 6.0; // clip(x + 3, 0, 6) = 6 * hard_sigmoid(x)
      return other;
    }
  }
  return {};
}

/// x * clip(x + 3, 0, 6) / 6 and x * hard_sigmoid(x; 1/6, 1/2), with the
/// division or a multiply by 1/6 anywhere in the product, become
/// `osc.unary hard_swish`, which then fuses into its producer as a post-op.
struct FuseHardSwish : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BinaryOp op,
                                PatternRewriter &rw) const override {
    if (op.getKind() != BinaryKind::mul && op.getKind() != BinaryKind::div)
      return failure();
    if (!isa<FloatType>(typeOf(op.getResult()).getElementType()))
      return failure();
    SmallVector<Value> factors;
    SmallVector<Operation *> ops;
    double constant = 1.0;
    collectFactors(op.getResult(), /*isRoot=*/true, factors, constant, ops);
    if (factors.size() != 2)
      return failure();
    for (int i = 0; i < 2; ++i) {
      SmallVector<Operation *> more;
      double scale = constant;
      Value x = hardSwishInput(factors[1 - i], scale, more);
      if (!x || x != factors[i] || x.getType() != op.getType() ||
          !near(scale, 1.0, kHardSwishTol))
        continue;
      SmallVector<Location> locs;
      for (Operation *o : ops)
        locs.push_back(o->getLoc());
      for (Operation *o : more)
        locs.push_back(o->getLoc());
      auto hs = rw.create<UnaryOp>(rw.getFusedLoc(locs), x.getType(),
                                   UnaryKind::hard_swish, x, FloatAttr(),
                                   FloatAttr());
      rw.replaceOp(op, hs.getResult());
      count();
      return success();
    }
    return failure();
  }
};

//===----------------------------------------------------------------------===//
// SiLU (swish) and Mish: x times a gate of x
//===----------------------------------------------------------------------===//

/// The product `op` of x and a gate computed from x alone, on either side,
/// becomes `osc.unary kind` of x. `gate(side, x)` gives the locations of
/// the ops that compute the gate from x, each single-use, outermost last
/// (none where `side` is not such a gate); the new op's location fuses
/// them with the product's. The producer of x has two users until then
/// (the gate and the product), so neither could fuse into it; as one op it
/// becomes its producer's post-op.
template <typename Gate>
LogicalResult fuseGatedProduct(BinaryOp op, PatternRewriter &rw,
                               UnaryKind kind, Gate gate) {
  if (op.getKind() != BinaryKind::mul ||
      !isa<FloatType>(typeOf(op.getResult()).getElementType()))
    return failure();
  for (Value side : {op.getLhs(), op.getRhs()}) {
    Value x = otherOperand(op, side);
    if (x.getType() != op.getType())
      continue;
    SmallVector<Location> locs = gate(side, x);
    if (locs.empty())
      continue;
    locs.push_back(op->getLoc());
    auto fused = rw.create<UnaryOp>(rw.getFusedLoc(locs), x.getType(), kind,
                                    x, FloatAttr(), FloatAttr());
    rw.replaceOp(op, fused.getResult());
    return success();
  }
  return failure();
}

/// The single-use osc.unary `kind` that `v` is, of anything.
UnaryOp singleUseUnary(Value v, UnaryKind kind) {
  auto u = definingOp<UnaryOp>(v);
  return u && u.getKind() == kind && v.hasOneUse() ? u : UnaryOp();
}

/// x * sigmoid(x) (torch exports nn.SiLU as Sigmoid and Mul: YOLOv5/v8,
/// EfficientNet) becomes `osc.unary swish`.
struct FuseSwish : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BinaryOp op,
                                PatternRewriter &rw) const override {
    auto gate = [](Value side, Value x) -> SmallVector<Location> {
      UnaryOp sig = singleUseUnary(side, UnaryKind::sigmoid);
      if (!sig || sig.getInput() != x)
        return {};
      return {sig->getLoc()};
    };
    if (failed(fuseGatedProduct(op, rw, UnaryKind::swish, gate)))
      return failure();
    count();
    return success();
  }
};

/// x * tanh(softplus(x)) (ONNX's Mish as the importer expands it; torch
/// exports nn.Mish below opset 18 as Softplus, Tanh and Mul: YOLOv4,
/// CSPDarknet) becomes `osc.unary mish`.
struct FuseMish : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BinaryOp op,
                                PatternRewriter &rw) const override {
    auto gate = [](Value side, Value x) -> SmallVector<Location> {
      UnaryOp tanh = singleUseUnary(side, UnaryKind::tanh);
      UnaryOp softplus =
          tanh ? singleUseUnary(tanh.getInput(), UnaryKind::softplus)
               : UnaryOp();
      if (!softplus || softplus.getInput() != x)
        return {};
      return {softplus->getLoc(), tanh->getLoc()};
    };
    if (failed(fuseGatedProduct(op, rw, UnaryKind::mish, gate)))
      return failure();
    count();
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Post-ops
//===----------------------------------------------------------------------===//

/// The post-op `op` is, if it is an activation a producer can fuse: every
/// osc.unary activation oneDNN's post-ops and the runtime's own kernels
/// both apply, with its parameters.
PostOpAttr activationPostOp(Operation *op) {
  MLIRContext *ctx = op->getContext();
  auto plain = [&](PostOpKind k) { return PostOpAttr::get(ctx, k); };
  if (auto g = dyn_cast<GeluOp>(op))
    return plain(g.getApproximation() == GeluApproximation::erf
                     ? PostOpKind::gelu_erf
                     : PostOpKind::gelu_tanh);
  auto u = dyn_cast<UnaryOp>(op);
  if (!u)
    return {};
  // The kinds below that take alpha and beta always carry them (UnaryOp's
  // verifier).
  const double alpha = u.getAlpha() ? u.getAlpha()->convertToDouble() : 0.0;
  const double beta = u.getBeta() ? u.getBeta()->convertToDouble() : 0.0;
  auto with = [&](PostOpKind k) -> PostOpAttr {
    if (!std::isfinite(alpha) || !std::isfinite(beta))
      return {};
    return PostOpAttr::get(ctx, k, alpha, beta);
  };
  switch (u.getKind()) {
  case UnaryKind::relu:
    return plain(PostOpKind::relu);
  case UnaryKind::sigmoid:
    return plain(PostOpKind::sigmoid);
  case UnaryKind::tanh:
    return plain(PostOpKind::tanh);
  case UnaryKind::hard_swish:
    return plain(PostOpKind::hard_swish);
  case UnaryKind::swish:
    return plain(PostOpKind::swish);
  case UnaryKind::mish:
    return plain(PostOpKind::mish);
  case UnaryKind::leaky_relu:
    return with(PostOpKind::leaky_relu);
  case UnaryKind::elu:
    return with(PostOpKind::elu);
  case UnaryKind::hard_sigmoid:
    return with(PostOpKind::hard_sigmoid);
  case UnaryKind::clip:
    // ReLU6 (MobileNet's Clip to [0, 6]) and a Clip with only a zero
    // minimum (ReLU) keep their own names; other finite bounds are a clip
    // (the attribute and the constant-input forms alike).
    if (alpha == 0.0 && beta == 6.0)
      return plain(PostOpKind::relu6);
    if (alpha == 0.0 && beta == std::numeric_limits<double>::infinity())
      return plain(PostOpKind::relu);
    return with(PostOpKind::clip);
  default:
    return {};
  }
}

/// Rebuilds a fusible op with a new post-op list (and sum operand).
Value rebuildWithPostOps(Operation *producer, ArrayAttr postOps, Value sum,
                         Location loc, PatternRewriter &rw) {
  if (auto ip = dyn_cast<InnerProductOp>(producer))
    return rw.create<InnerProductOp>(loc, ip.getType(), ip.getInput(),
                                     ip.getWeight(), ip.getBias(),
                                     sum ? sum : ip.getSumInput(), postOps);
  if (auto conv = dyn_cast<ConvOp>(producer))
    return rw.create<ConvOp>(
        loc, conv.getType(), conv.getInput(), conv.getWeight(), conv.getBias(),
        sum ? sum : conv.getSumInput(), conv.getStridesAttr(),
        conv.getPadsAttr(), conv.getDilationsAttr(), conv.getGroupsAttr(),
        postOps);
  if (auto ct = dyn_cast<ConvTransposeOp>(producer); ct && !sum)
    return rw.create<ConvTransposeOp>(
        loc, ct.getType(), ct.getInput(), ct.getWeight(), ct.getBias(),
        ct.getStridesAttr(), ct.getPadsAttr(), ct.getDilationsAttr(),
        ct.getOutputPaddingAttr(), ct.getGroupsAttr(), postOps);
  return {};
}

bool isFusible(Operation *op) {
  return isa_and_nonnull<InnerProductOp, ConvOp, ConvTransposeOp>(op);
}

/// act(ip(...)) -> ip(...) post_ops [..., act].
struct ActivationPostOp : RewritePattern {
  ActivationPostOp(MLIRContext *ctx, Counter *n)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx), n(n) {}
  void count() const {
    if (n)
      ++*n;
  }
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rw) const override {
    PostOpAttr post = activationPostOp(op);
    if (!post)
      return failure();
    Operation *producer = op->getOperand(0).getDefiningOp();
    if (!isFusible(producer) || !producer->hasOneUse() ||
        !isa<FloatType>(typeOf(op->getResult(0)).getElementType()))
      return failure();
    auto list = producer->getAttrOfType<ArrayAttr>("post_ops");
    Value fused = rebuildWithPostOps(
        producer, appendPostOp(list, post), Value(),
        rw.getFusedLoc({producer->getLoc(), op->getLoc()}), rw);
    if (!fused)
      return failure();
    rw.replaceOp(op, fused);
    rw.eraseOp(producer);
    count();
    return success();
  }
  Counter *n;
};

/// ip(...) + r -> ip(...) sum(r) post_ops [..., sum]: the residual Add.
struct ResidualPostOp : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BinaryOp op,
                                PatternRewriter &rw) const override {
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
      Value fused = rebuildWithPostOps(
          producer, appendPostOp(list, PostOpKind::sum, getContext()), residual,
          rw.getFusedLoc({producer->getLoc(), op.getLoc()}), rw);
      if (!fused)
        continue;
      rw.replaceOp(op, fused);
      rw.eraseOp(producer);
      count();
      return success();
    }
    return failure();
  }
};

} // namespace

void osc::populateOscGeluFusionPatterns(RewritePatternSet &patterns,
                                       llvm::Statistic *counter) {
  patterns.add<FuseGelu>(patterns.getContext(), counter);
}

void osc::populateOscHardSwishFusionPatterns(RewritePatternSet &patterns,
                                            llvm::Statistic *counter) {
  patterns.add<FuseHardSwish>(patterns.getContext(), counter);
}

void osc::populateOscSwishFusionPatterns(RewritePatternSet &patterns,
                                        Counter *counter) {
  patterns.add<FuseSwish>(patterns.getContext(), counter);
}

void osc::populateOscMishFusionPatterns(RewritePatternSet &patterns,
                                       Counter *counter) {
  patterns.add<FuseMish>(patterns.getContext(), counter);
}

void osc::populateOscPostOpFusionPatterns(RewritePatternSet &patterns,
                                         llvm::Statistic *counter) {
  patterns.add<ActivationPostOp, ResidualPostOp>(patterns.getContext(),
                                                 counter);
}
