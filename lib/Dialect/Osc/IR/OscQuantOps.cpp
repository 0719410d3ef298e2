//===- OscQuantOps.cpp - verifiers of the quantization ops ----------------===//
//
// Part of opscope. quantize_linear, dequantize_linear,
// dynamic_quantize_linear and matmul_integer (ONNX's quantization ops).
//
//===----------------------------------------------------------------------===//

#include "OscVerify.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::osc::verify;

static bool isInt8(Type t) { return t.isInteger(8); }

/// scale (and zero point) per tensor (0-D) or per `axis` (1-D).
static LogicalResult verifyQuantParams(Operation *op, Value data, Value scale,
                                       Value zeroPoint, int64_t axis,
                                       Type zeroType) {
  auto d = tensorType(data), s = tensorType(scale);
  if (s.getRank() > 1)
    return op->emitOpError("scale must be 0-D or 1-D, got ") << s;
  if (s.getRank() == 1 && s.getNumElements() != 1) {
    if (axis < 0 || axis >= d.getRank())
      return op->emitOpError("axis ")
             << axis << " is out of range for rank " << d.getRank();
    if (s.getDimSize(0) != d.getDimSize(axis))
      return op->emitOpError("per-axis scale has ")
             << s.getDimSize(0) << " elements, dimension " << axis << " has "
             << d.getDimSize(axis);
  }
  if (zeroPoint) {
    auto z = tensorType(zeroPoint);
    if (z.getShape() != s.getShape())
      return op->emitOpError("zero_point shape must equal the scale's, got ")
             << z << " and " << s;
    if (z.getElementType() != zeroType)
      return op->emitOpError("zero_point element type ")
             << z.getElementType() << " must be " << zeroType;
  }
  return success();
}

LogicalResult QuantizeLinearOp::verify() {
  auto out = tensorType(getOutput());
  if (!isInt8(out.getElementType()))
    return emitOpError("result must be ui8 or i8, got ") << out;
  if (out.getShape() != tensorType(getInput()).getShape())
    return emitOpError("result shape must equal the input's");
  return verifyQuantParams(*this, getInput(), getScale(), getZeroPoint(),
                           getAxis(), out.getElementType());
}

LogicalResult DequantizeLinearOp::verify() {
  auto in = tensorType(getInput());
  Type e = in.getElementType();
  if (!isInt8(e) && !e.isSignlessInteger(32))
    return emitOpError("input must be ui8, i8 or i32, got ") << in;
  auto out = tensorType(getOutput());
  if (!out.getElementType().isF32() || out.getShape() != in.getShape())
    return emitOpError("result must be f32 of the input's shape, got ") << out;
  return verifyQuantParams(*this, getInput(), getScale(), getZeroPoint(),
                           getAxis(), e);
}

LogicalResult DynamicQuantizeLinearOp::verify() {
  auto in = tensorType(getInput()), out = tensorType(getOutput());
  Type u8 = IntegerType::get(getContext(), 8, IntegerType::Unsigned);
  if (!in.getElementType().isF32())
    return emitOpError("input must be f32, got ") << in;
  switch (getPart()) {
  case 0:
    if (out.getElementType() != u8 || out.getShape() != in.getShape())
      return emitOpError("the data must be ui8 of the input's shape, got ")
             << out;
    return success();
  case 1:
    if (out.getRank() != 0 || !out.getElementType().isF32())
      return emitOpError("the scale must be tensor<f32>, got ") << out;
    return success();
  case 2:
    if (out.getRank() != 0 || out.getElementType() != u8)
      return emitOpError("the zero point must be tensor<ui8>, got ") << out;
    return success();
  default:
    return emitOpError("part must be 0 (data), 1 (scale) or 2 (zero point), "
                       "got ")
           << getPart();
  }
}

/// A zero point operand of an integer product: `elem` typed, and a scalar
/// or (`count` > 0) one element per row/column/channel.
static LogicalResult verifyZeroPoint(Operation *op, Value zp, Type elem,
                                     int64_t count, StringRef what,
                                     StringRef per) {
  if (!zp)
    return success();
  auto z = tensorType(zp);
  if (z.getElementType() != elem)
    return op->emitOpError(what) << " zero point must be " << elem;
  if (z.getNumElements() != 1 &&
      !(count && z.getRank() == 1 && z.getDimSize(0) == count))
    return op->emitOpError(what)
           << " zero point must be a scalar"
           << (count ? (" or have one element per " + per).str() : "")
           << ", got " << z;
  return success();
}

/// The dequantizing form of conv_integer / matmul_integer (fuse-dynamic-
/// quant): with `weightScale` an f32 result, `bias` and post-ops (relu
/// only); an f32 `input` quantized by the op itself, so without its zero
/// point or scale. `count` is the output channels (OC or N) that
/// `weightScale` and `bias` may have one element each of.
static LogicalResult verifyDequantForm(Operation *op, Value input,
                                       Value inputZeroPoint, Value inputScale,
                                       Value weightScale, Value bias,
                                       ArrayAttr postOps, int64_t count,
                                       StringRef in, StringRef w) {
  auto x = tensorType(input);
  auto out = tensorType(op->getResult(0));
  if (!weightScale) {
    if (inputScale || bias || !postOps.empty())
      return op->emitOpError(in) << "_scale, bias and post_ops need a " << w
                                 << "_scale";
    if (!isInt8(x.getElementType()))
      return op->emitOpError(in) << " must be ui8 or i8 without a " << w
                                 << "_scale, got " << x;
    if (!out.getElementType().isSignlessInteger(32))
      return op->emitOpError("result must be i32, got ") << out;
    return success();
  }
  if (!out.getElementType().isF32())
    return op->emitOpError("result must be f32 with a ")
           << w << "_scale, got " << out;
  if (x.getElementType().isF32()) {
    if (inputZeroPoint || inputScale)
      return op->emitOpError("an f32 ")
             << in << " is quantized by the op: no " << in
             << "_zero_point or " << in << "_scale";
  } else if (!isInt8(x.getElementType())) {
    return op->emitOpError(in) << " must be ui8, i8 or f32, got " << x;
  } else if (!inputScale) {
    return op->emitOpError("a quantized ") << in << " needs its " << in
                                           << "_scale";
  }
  if (inputScale && (tensorType(inputScale).getNumElements() != 1 ||
                     !tensorType(inputScale).getElementType().isF32()))
    return op->emitOpError(in) << "_scale must be one f32, got "
                               << inputScale.getType();
  for (auto [v, name] : {std::pair(weightScale, (w + "_scale").str()),
                         std::pair(bias, std::string("bias"))}) {
    if (!v)
      continue;
    auto t = tensorType(v);
    if (!t.getElementType().isF32() ||
        (t.getNumElements() != 1 && t.getNumElements() != count))
      return op->emitOpError(name)
             << " must be f32 with one element or " << count << ", got " << t;
  }
  for (Attribute a : postOps)
    if (cast<PostOpAttr>(a).getKind() != PostOpKind::relu)
      return op->emitOpError("post_ops may only be relu here");
  return success();
}

LogicalResult ConvIntegerOp::verify() {
  if (failed(verify::verifyConvLike(*this, "OC x C/groups x kernel...")))
    return failure();
  auto x = tensorType(getInput()), w = tensorType(getWeight());
  if (!isInt8(w.getElementType()))
    return emitOpError("weight must be ui8 or i8, got ") << w;
  auto in = x.getShape(), ws = w.getShape();
  if (failed(verifyDequantForm(*this, getInput(), getInputZeroPoint(),
                               getInputScale(), getWeightScale(), getBias(),
                               getPostOps(), ws[0], "input", "weight")))
    return failure();
  Type xq = x.getElementType().isF32()
                ? IntegerType::get(getContext(), 8, IntegerType::Unsigned)
                : x.getElementType();
  unsigned spatial = in.size() - 2;
  int64_t groups = getGroups();
  if (groups <= 0 || in[1] % groups || ws[0] % groups || ws[1] * groups != in[1])
    return emitOpError("weight ")
           << formatShape(ws) << " and input " << formatShape(in)
           << " do not agree with groups=" << groups
           << " (weight is OC x C/groups x kernel...)";
  if (failed(verifyZeroPoint(*this, getInputZeroPoint(), xq, 0, "input", "")) ||
      failed(verifyZeroPoint(*this, getWeightZeroPoint(), w.getElementType(),
                             ws[0], "weight", "output channel")))
    return failure();
  SmallVector<int64_t> expected = {in[0], ws[0]};
  for (unsigned i = 0; i < spatial; ++i) {
    int64_t out = windowOutputSize(in[2 + i], ws[2 + i], getStrides()[i],
                                   getPads()[i], getPads()[spatial + i],
                                   getDilations()[i]);
    if (out < 1)
      return emitOpError("kernel window does not fit spatial dimension ") << i;
    expected.push_back(out);
  }
  return verifyResultShape(*this, getOutput(), expected);
}

LogicalResult MatMulIntegerOp::verify() {
  auto a = tensorType(getLhs()), b = tensorType(getRhs());
  if (!isInt8(b.getElementType()))
    return emitOpError("rhs must be ui8 or i8, got ") << b;
  if (a.getRank() < 2 || b.getRank() < 2)
    return emitOpError("operands must have rank >= 2");
  int64_t m = a.getDimSize(a.getRank() - 2), k = a.getDimSize(a.getRank() - 1);
  int64_t n = b.getDimSize(b.getRank() - 1);
  if (failed(verifyDequantForm(*this, getLhs(), getLhsZeroPoint(),
                               getLhsScale(), getRhsScale(), getBias(),
                               getPostOps(), n, "lhs", "rhs")))
    return failure();
  Type aq = a.getElementType().isF32()
                ? IntegerType::get(getContext(), 8, IntegerType::Unsigned)
                : a.getElementType();
  if (b.getDimSize(b.getRank() - 2) != k)
    return emitOpError("contraction sizes differ: ")
           << k << " and " << b.getDimSize(b.getRank() - 2);
  if (failed(verifyZeroPoint(*this, getLhsZeroPoint(), aq, m,
                             "lhs", "row (M)")) ||
      failed(verifyZeroPoint(*this, getRhsZeroPoint(), b.getElementType(), n,
                             "rhs", "column (N)")))
    return failure();
  auto batch = broadcastShapes(a.getShape().drop_back(2), b.getShape().drop_back(2));
  if (!batch)
    return emitOpError("batch dimensions do not broadcast");
  SmallVector<int64_t> expected(*batch);
  expected.append({m, n});
  return verifyResultShape(*this, getOutput(), expected);
}
