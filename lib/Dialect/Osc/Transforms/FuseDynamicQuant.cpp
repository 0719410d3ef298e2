//===- FuseDynamicQuant.cpp - quantize_dynamic layers to one op -----------===//
//
// Part of opscope. ONNX Runtime's quantize_dynamic writes each quantized
// layer as DynamicQuantizeLinear(x) -> (x_q, x_scale, x_zero_point),
// ConvInteger / MatMulInteger(x_q, W, x_zero_point, w_zero_point) -> i32,
// Cast to f32, Mul by Mul(x_scale, w_scale), then often Add(bias) and an
// activation: five or six ops, each a pass over memory. These patterns
// fold the chain into the integer op's dequantizing form (f32 result,
// weight_scale, bias, post_ops [relu]), which computes the same float
// operations in the same order, so results do not change by a bit.
//
// A DynamicQuantizeLinear whose three results feed only this layer is
// folded too (the op then takes the f32 input and quantizes it itself).
// One shared by several layers (attention's Q, K and V projections) stays,
// computed once, and each layer takes its u8 data, zero point and scale.
//
//===----------------------------------------------------------------------===//

#include "FusionPatterns.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::osc::fusion;

namespace {

/// The pieces of a conv_integer or matmul_integer that the rewrites read
/// and replace, so that one pattern serves both.
struct IntegerProduct {
  Operation *op = nullptr;
  Value input, weight, inputZeroPoint, weightZeroPoint, inputScale,
      weightScale, bias;
  ArrayAttr postOps;
  int64_t channelDim = 0; ///< the output dimension weight_scale runs along

  static IntegerProduct of(Operation *op) {
    IntegerProduct p;
    if (auto c = dyn_cast_or_null<ConvIntegerOp>(op)) {
      p = {op,
           c.getInput(),
           c.getWeight(),
           c.getInputZeroPoint(),
           c.getWeightZeroPoint(),
           c.getInputScale(),
           c.getWeightScale(),
           c.getBias(),
           c.getPostOps(),
           1};
    } else if (auto m = dyn_cast_or_null<MatMulIntegerOp>(op)) {
      p = {op,
           m.getLhs(),
           m.getRhs(),
           m.getLhsZeroPoint(),
           m.getRhsZeroPoint(),
           m.getLhsScale(),
           m.getRhsScale(),
           m.getBias(),
           m.getPostOps(),
           typeOf(m.getOutput()).getRank() - 1};
    }
    return p;
  }
  explicit operator bool() const { return op != nullptr; }

  /// This product with the given operands, result type and location.
  Value rebuild(PatternRewriter &rw, Location loc, Type type) const {
    if (auto c = dyn_cast<ConvIntegerOp>(op))
      return rw.create<ConvIntegerOp>(
          loc, type, input, weight, inputZeroPoint, weightZeroPoint,
          inputScale, weightScale, bias, c.getStridesAttr(), c.getPadsAttr(),
          c.getDilationsAttr(), c.getGroupsAttr(), postOps);
    return rw.create<MatMulIntegerOp>(loc, type, input, weight, inputZeroPoint,
                                      weightZeroPoint, inputScale, weightScale,
                                      bias, postOps);
  }
};

bool isConstant(Value v) { return v && v.getDefiningOp<ConstantOp>(); }

/// `v` has one element, or one per element of `out`'s dimension `dim`
/// broadcasting along the others (`OC`, `1 x OC x 1 x 1`, `N`).
bool isChannelVector(Value v, RankedTensorType out, int64_t dim) {
  auto t = typeOf(v);
  if (!t.getElementType().isF32())
    return false;
  if (t.getNumElements() == 1)
    return t.getRank() <= out.getRank();
  int64_t lead = out.getRank() - t.getRank();
  if (lead < 0 || dim < lead)
    return false;
  for (int64_t i = 0; i < t.getRank(); ++i)
    if (t.getDimSize(i) != (i + lead == dim ? out.getDimSize(dim) : 1))
      return false;
  return true;
}

/// part `part` of a DynamicQuantizeLinear, or null.
DynamicQuantizeLinearOp dqlPart(Value v, int64_t part) {
  auto d = definingOp<DynamicQuantizeLinearOp>(v);
  return d && static_cast<int64_t>(d.getPart()) == part ? d
                                                        : DynamicQuantizeLinearOp();
}

/// Mul(Cast(integer product), Mul(x_scale, w_scale)) -> the product's
/// dequantizing form, with x's DynamicQuantizeLinear folded in when this
/// layer is its only reader.
struct DequantizeIntegerProduct : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BinaryOp mul,
                                PatternRewriter &rw) const override {
    if (mul.getKind() != BinaryKind::mul)
      return failure();
    for (Value side : {mul.getLhs(), mul.getRhs()}) {
      auto cast = definingOp<CastOp>(side);
      Value scales = otherOperand(mul, side);
      if (!cast || !cast->hasOneUse() || scales == side ||
          mul.getType() != cast.getType() ||
          !typeOf(cast.getOutput()).getElementType().isF32())
        continue;
      IntegerProduct p = IntegerProduct::of(cast.getInput().getDefiningOp());
      if (!p || p.weightScale || !p.op->hasOneUse() || !isConstant(p.weight) ||
          (p.weightZeroPoint && !isConstant(p.weightZeroPoint)))
        continue;
      // x_q, x_zero_point and x_scale of one DynamicQuantizeLinear.
      auto data = dqlPart(p.input, 0), zero = dqlPart(p.inputZeroPoint, 2);
      auto sm = definingOp<BinaryOp>(scales);
      if (!data || !zero || zero.getInput() != data.getInput() || !sm ||
          sm.getKind() != BinaryKind::mul)
        continue;
      auto out = typeOf(mul.getOutput());
      for (Value xs : {sm.getLhs(), sm.getRhs()}) {
        auto scale = dqlPart(xs, 1);
        Value ws = otherOperand(sm, xs);
        if (!scale || scale.getInput() != data.getInput() || ws == xs ||
            !isConstant(ws) || !isChannelVector(ws, out, p.channelDim))
          continue;
        // The integer op's node first: the report and the profile name a
        // fused op after its first source (the Conv, not the quantization).
        SmallVector<Location> locs = {p.op->getLoc()};
        // This layer alone reads the quantization: it quantizes x itself.
        bool own = data->hasOneUse() && zero->hasOneUse() &&
                   scale->hasOneUse() && sm->hasOneUse();
        if (own) {
          locs.push_back(data.getLoc());
          p.input = data.getInput();
          p.inputZeroPoint = Value();
        } else {
          p.inputScale = xs;
        }
        p.weightScale = ws;
        locs.append({cast.getLoc(), sm.getLoc(), mul.getLoc()});
        Value fused = p.rebuild(rw, rw.getFusedLoc(locs), out);
        Operation *integer = p.op;
        rw.replaceOp(mul, fused);
        rw.eraseOp(cast);
        rw.eraseOp(integer);
        if (sm->use_empty())
          rw.eraseOp(sm);
        if (own)
          for (Operation *d : {data.getOperation(), zero.getOperation(),
                               scale.getOperation()})
            rw.eraseOp(d);
        count();
        return success();
      }
    }
    return failure();
  }
};

/// Add(dequantized product, constant per-channel bias) -> its bias.
struct DequantizedBias : CountedPattern<BinaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(BinaryOp add,
                                PatternRewriter &rw) const override {
    if (add.getKind() != BinaryKind::add)
      return failure();
    for (Value side : {add.getLhs(), add.getRhs()}) {
      IntegerProduct p = IntegerProduct::of(side.getDefiningOp());
      Value bias = otherOperand(add, side);
      if (!p || !p.weightScale || p.bias || !p.postOps.empty() ||
          !p.op->hasOneUse() || bias == side || side.getType() != add.getType() ||
          !isConstant(bias) ||
          !isChannelVector(bias, typeOf(side), p.channelDim))
        continue;
      p.bias = bias;
      Value fused = p.rebuild(
          rw, rw.getFusedLoc({p.op->getLoc(), add.getLoc()}), add.getType());
      Operation *old = p.op;
      rw.replaceOp(add, fused);
      rw.eraseOp(old);
      count();
      return success();
    }
    return failure();
  }
};

/// Relu(dequantized product) -> post_ops [relu]. Only relu: the epilogue
/// computes it as the unary kernel does (x > 0 ? x : 0), bit for bit.
struct DequantizedRelu : CountedPattern<UnaryOp> {
  using CountedPattern::CountedPattern;
  LogicalResult matchAndRewrite(UnaryOp relu,
                                PatternRewriter &rw) const override {
    if (relu.getKind() != UnaryKind::relu)
      return failure();
    IntegerProduct p = IntegerProduct::of(relu.getInput().getDefiningOp());
    if (!p || !p.weightScale || !p.postOps.empty() || !p.op->hasOneUse() ||
        relu.getType() != p.op->getResult(0).getType())
      return failure();
    p.postOps = appendPostOp(p.postOps, PostOpKind::relu, getContext());
    Value fused = p.rebuild(
        rw, rw.getFusedLoc({p.op->getLoc(), relu.getLoc()}), relu.getType());
    Operation *old = p.op;
    rw.replaceOp(relu, fused);
    rw.eraseOp(old);
    count();
    return success();
  }
};

} // namespace

void osc::populateOscDynamicQuantFusionPatterns(RewritePatternSet &patterns,
                                                llvm::Statistic *counter) {
  patterns.add<DequantizeIntegerProduct, DequantizedBias, DequantizedRelu>(
      patterns.getContext(), counter);
}
