//===- OscVerify.h - shared helpers of the osc op verifiers -----*- C++ -*-===//
//
// Part of opscope (internal to lib/Dialect/Osc/IR). The shape and type
// checks the op verifiers share, with messages that name the operand and its
// shape (OscOps.cpp, OscDataOps.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_LIB_DIALECT_OSC_IR_OSCVERIFY_H
#define OPSCOPE_LIB_DIALECT_OSC_IR_OSCVERIFY_H

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/IR/OscShapes.h"

#include <cmath>

namespace opscope::osc::verify {
using namespace mlir;

inline RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

inline std::string shapeOf(Value v) {
  return formatShape(tensorType(v).getShape());
}

/// Checks that `actual` equals the shape the op's rules produce.
inline LogicalResult verifyResultShape(Operation *op, Value result,
                                       ArrayRef<int64_t> expected) {
  auto actual = tensorType(result).getShape();
  if (actual != expected)
    return op->emitOpError("result shape ")
           << formatShape(actual) << " does not match the expected shape "
           << formatShape(expected);
  return success();
}

inline LogicalResult verifySameElementType(Operation *op, Value a,
                                           StringRef aName, Value b,
                                           StringRef bName) {
  Type ea = tensorType(a).getElementType();
  Type eb = tensorType(b).getElementType();
  if (ea != eb)
    return op->emitOpError() << aName << " element type " << ea
                             << " differs from " << bName << " element type "
                             << eb;
  return success();
}

/// An f32-computing op's result: the input's type, or its shape in bf16
/// when the input is f32 (a bf16 chain's hand-over, osc-bf16-chains: the
/// kernel computes in f32 and rounds what it writes).
inline LogicalResult verifyBf16Result(Operation *op, Value input,
                                      Value output) {
  auto in = tensorType(input), out = tensorType(output);
  if (in == out || (in.getElementType().isF32() &&
                    out.getElementType().isBF16() &&
                    in.getShape() == out.getShape()))
    return success();
  return op->emitOpError("result type must equal the input type (or be "
                         "its shape in bf16 for an f32 input), got ")
         << out << " for " << in;
}

/// Input, weight and result of a compute op share one element type.
inline LogicalResult verifyComputeTypes(Operation *op, Value input,
                                        Value weight, Value output) {
  if (failed(verifySameElementType(op, input, "input", weight, "weight")))
    return failure();
  return verifySameElementType(op, input, "input", output, "result");
}

/// An inner product computes in its weight's precision: a bf16 weight with
/// f32 activations is the `--precision bf16` form (the kernel rounds the
/// activations to bf16 and accumulates in f32); otherwise all agree. With
/// `bf16Activations` (inner products: osc-bf16-chains) a bf16 weight's
/// input and result may each be f32 or bf16.
inline LogicalResult verifyInnerProductTypes(Operation *op, Value input,
                                             Value weight, Value output,
                                             bool bf16Activations = false) {
  Type in = tensorType(input).getElementType();
  Type out = tensorType(output).getElementType();
  if (tensorType(weight).getElementType().isBF16() && bf16Activations) {
    if ((in.isF32() || in.isBF16()) && (out.isF32() || out.isBF16()))
      return success();
    return op->emitOpError("a bf16 ")
           << op->getName().stripDialect()
           << " has f32 or bf16 input and result, got " << in << " and "
           << out;
  }
  if (tensorType(weight).getElementType().isBF16() && in.isF32())
    return verifySameElementType(op, input, "input", output, "result");
  return verifyComputeTypes(op, input, weight, output);
}

/// The calibrated quantization of an f32 input to u8: a positive finite
/// scale and a zero point in [0, 255].
inline LogicalResult verifyInt8Quantization(Operation *op, float scale,
                                            int32_t zeroPoint,
                                            StringRef which = "input") {
  if (!(scale > 0) || !std::isfinite(scale))
    return op->emitOpError()
           << which << "_scale must be positive and finite, got " << scale;
  if (zeroPoint < 0 || zeroPoint > 255)
    return op->emitOpError()
           << which << "_zero_point must be in [0, 255] (u8), got "
           << zeroPoint;
  return success();
}

/// A weight op's precision (inner product, convolution): an i8 weight
/// (`--precision int8`) with f32 input and result (or ui8 ones: inside an
/// int8 chain, verifyU8Activations) and all
/// three quantization attributes (`rows` output rows / channels, one
/// positive scale each); otherwise verifyInnerProductTypes.
inline LogicalResult verifyWeightPrecision(Operation *op, Value input,
                                           Value weight, Value output,
                                           std::optional<APFloat> inputScale,
                                           std::optional<int32_t> zeroPoint,
                                           std::optional<ArrayRef<float>> scales,
                                           int64_t rows,
                                           bool bf16Activations = false) {
  bool int8 = tensorType(weight).getElementType().isInteger(8);
  if (!int8 && !inputScale && !zeroPoint && !scales)
    return verifyInnerProductTypes(op, input, weight, output,
                                   bf16Activations);
  if (!int8)
    return op->emitOpError("input_scale, input_zero_point and weight_scales "
                           "belong to an i8 weight, got ")
           << tensorType(weight);
  if (!inputScale || !zeroPoint || !scales)
    return op->emitOpError("an i8 weight needs input_scale, input_zero_point "
                           "and weight_scales");
  if (failed(verifyInt8Quantization(op, inputScale->convertToFloat(),
                                    *zeroPoint)))
    return failure();
  if (static_cast<int64_t>(scales->size()) != rows)
    return op->emitOpError("weight_scales has ")
           << scales->size() << " entries, the weight " << rows << " rows";
  for (float sc : *scales)
    if (!(sc > 0) || !std::isfinite(sc))
      return op->emitOpError("weight_scales must be positive and finite, got ")
             << sc;
  auto activation = [&](Value v) {
    Type e = tensorType(v).getElementType();
    return e.isF32() || e.isUnsignedInteger(8);
  };
  if (!activation(input) || !activation(output))
    return op->emitOpError("an int8 ")
           << op->getName().stripDialect() << " has f32 or ui8 input and result";
  return success();
}

/// Post-op lists: `sum` at most once, present exactly when a sum operand is.
inline LogicalResult verifyPostOps(Operation *op, ArrayAttr postOps,
                                   Value sumInput, Value output) {
  unsigned sums = 0;
  for (Attribute a : postOps)
    if (cast<PostOpAttr>(a).getKind() == PostOpKind::sum)
      ++sums;
  if (sums > 1)
    return op->emitOpError("at most one 'sum' post-op is allowed, found ")
           << sums;
  if (sums == 1 && !sumInput)
    return op->emitOpError("'sum' post-op requires a sum(...) operand");
  if (sums == 0 && sumInput)
    return op->emitOpError("sum(...) operand given without a 'sum' post-op");
  if (sumInput && sumInput.getType() != output.getType())
    return op->emitOpError("sum operand type ")
           << sumInput.getType() << " must equal the result type "
           << output.getType();
  return success();
}

inline LogicalResult verifyBias(Operation *op, Value bias, int64_t channels,
                                Value input) {
  if (!bias)
    return success();
  auto shape = tensorType(bias).getShape();
  if (shape.size() != 1 || shape[0] != channels)
    return op->emitOpError("bias shape ")
           << formatShape(shape) << " must be " << channels
           << " (one value per output channel)";
  return verifySameElementType(op, bias, "bias", input, "input");
}

/// An int8 weight op inside an int8 chain (`osc-int8-chains`): a `ui8`
/// result carries the consumer's quantization (`output_scale`,
/// `output_zero_point`, and only a ui8 result has them) and takes no
/// residual sum; the bias is f32 whatever the activations' type. Checks the
/// bias (one value per output row or channel) too.
inline LogicalResult verifyU8Activations(Operation *op, Value input,
                                         Value output, Value bias,
                                         Value sumInput,
                                         std::optional<APFloat> outputScale,
                                         std::optional<int32_t> outputZero,
                                         int64_t rows) {
  bool u8Out = tensorType(output).getElementType().isUnsignedInteger(8);
  if (u8Out != (outputScale || outputZero) ||
      (u8Out && !(outputScale && outputZero)))
    return op->emitOpError("a ui8 result needs output_scale and "
                           "output_zero_point, and only it has them");
  if (u8Out) {
    if (failed(verifyInt8Quantization(op, outputScale->convertToFloat(),
                                      *outputZero, "output")))
      return failure();
    if (sumInput)
      return op->emitOpError("a ui8 result cannot take a sum post-op");
  }
  // A ui8 input is read with this op's input quantization: it must be
  // written with the same by an op of the same kind.
  if (tensorType(input).getElementType().isUnsignedInteger(8)) {
    // Through the osc.probe around the producer, which yields its body's
    // results as they are; not through other region ops (an osc.if's value
    // comes from either branch, an osc.loop's from its last iteration).
    Value v = input;
    Operation *def = v.getDefiningOp();
    while (isa_and_nonnull<ProbeOp>(def) && !def->getRegion(0).empty() &&
           def->getRegion(0).back().mightHaveTerminator()) {
      Operation *term = def->getRegion(0).back().getTerminator();
      unsigned i = cast<OpResult>(v).getResultNumber();
      if (i >= term->getNumOperands())
        break;
      v = term->getOperand(i);
      def = v.getDefiningOp();
    }
    auto scale = def ? def->getAttrOfType<FloatAttr>("output_scale") : nullptr;
    auto zero =
        def ? def->getAttrOfType<IntegerAttr>("output_zero_point") : nullptr;
    auto inScale = op->getAttrOfType<FloatAttr>("input_scale");
    auto inZero = op->getAttrOfType<IntegerAttr>("input_zero_point");
    if (!def || def->getName() != op->getName() || !scale || !zero ||
        !inScale || !inZero || scale.getValue() != inScale.getValue() ||
        zero.getInt() != inZero.getInt())
      return op->emitOpError("a ui8 input must be written by another ")
             << op->getName().stripDialect()
             << " whose output_scale and output_zero_point are this op's "
                "input_scale and input_zero_point";
  }
  if (!bias)
    return success();
  bool f32In = tensorType(input).getElementType().isF32();
  if (failed(verifyBias(op, bias, rows, f32In ? input : bias)))
    return failure();
  if (!f32In && !tensorType(bias).getElementType().isF32())
    return op->emitOpError("the bias must be f32 with a ")
           << tensorType(input).getElementType() << " input, got "
           << tensorType(bias);
  return success();
}

/// An inner product's or convolution's precision attributes and, inside
/// an int8 chain, its u8 activations (`rows`: output rows or channels).
template <typename OpT>
LogicalResult verifyInt8WeightOp(OpT op, int64_t rows) {
  if (failed(verifyWeightPrecision(op, op.getInput(), op.getWeight(),
                                   op.getOutput(), op.getInputScale(),
                                   op.getInputZeroPoint(),
                                   op.getWeightScales(), rows,
                                   /*bf16Activations=*/true)))
    return failure();
  return verifyU8Activations(op, op.getInput(), op.getOutput(), op.getBias(),
                             op.getSumInput(), op.getOutputScale(),
                             op.getOutputZeroPoint(), rows);
}

/// Checks the window attribute sizes of conv/pool ops for `spatial` dims.
inline LogicalResult verifyWindowAttrs(Operation *op, unsigned spatial,
                                       ArrayRef<int64_t> strides,
                                       ArrayRef<int64_t> pads,
                                       ArrayRef<int64_t> dilations) {
  if (strides.size() != spatial)
    return op->emitOpError("expects ")
           << spatial << " strides (one per spatial dimension), got "
           << strides.size();
  if (dilations.size() != spatial)
    return op->emitOpError("expects ")
           << spatial << " dilations (one per spatial dimension), got "
           << dilations.size();
  if (pads.size() != 2 * spatial)
    return op->emitOpError("expects ")
           << 2 * spatial
           << " pads (begin pads of every spatial dimension, then end pads), "
              "got "
           << pads.size();
  if (llvm::any_of(strides, [](int64_t s) { return s <= 0; }))
    return op->emitOpError("strides must be positive");
  if (llvm::any_of(dilations, [](int64_t d) { return d <= 0; }))
    return op->emitOpError("dilations must be positive");
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return op->emitOpError("pads must be non-negative");
  return success();
}

inline LogicalResult verifySpatialRank(Operation *op, Value input) {
  int64_t rank = tensorType(input).getRank();
  if (rank < 3 || rank > 5)
    return op->emitOpError("input must be N x C x spatial... with 1 to 3 "
                           "spatial dimensions, got shape ")
           << shapeOf(input);
  return success();
}

/// The checks conv and conv_transpose share: input rank, weight rank (with
/// the op's weight layout in the message) and the window attributes.
template <typename ConvLikeOp>
inline LogicalResult verifyConvLike(ConvLikeOp op, StringRef weightLayout) {
  if (failed(verifySpatialRank(op, op.getInput())))
    return failure();
  auto in = tensorType(op.getInput()).getShape();
  auto w = tensorType(op.getWeight()).getShape();
  if (w.size() != in.size())
    return op.emitOpError("weight must be ")
           << weightLayout << " of rank " << in.size() << ", got shape "
           << formatShape(w);
  return verifyWindowAttrs(op, in.size() - 2, op.getStrides(), op.getPads(),
                           op.getDilations());
}

/// The checks pool and indexed_max_pool share: the input's rank, the window
/// attributes, the element types and the result's shape from the window.
template <typename PoolLikeOp>
inline LogicalResult verifyPoolLike(PoolLikeOp op) {
  if (failed(verifySpatialRank(op, op.getInput())))
    return failure();
  auto in = tensorType(op.getInput()).getShape();
  unsigned spatial = in.size() - 2;
  auto kernel = op.getKernel();
  if (kernel.size() != spatial)
    return op.emitOpError("expects ")
           << spatial << " kernel sizes, got " << kernel.size();
  if (llvm::any_of(kernel, [](int64_t k) { return k <= 0; }))
    return op.emitOpError("kernel sizes must be positive");
  if (failed(verifyWindowAttrs(op, spatial, op.getStrides(), op.getPads(),
                               op.getDilations())) ||
      failed(verifySameElementType(op, op.getInput(), "input", op.getOutput(),
                                   "result")))
    return failure();
  SmallVector<int64_t> expected = {in[0], in[1]};
  for (unsigned i = 0; i < spatial; ++i) {
    int64_t out = windowOutputSize(in[2 + i], kernel[i], op.getStrides()[i],
                                   op.getPads()[i], op.getPads()[spatial + i],
                                   op.getDilations()[i], op.getCeilMode());
    if (out < 1)
      return op.emitOpError("pooling window does not fit spatial dimension ")
             << i << " of input " << formatShape(in);
    expected.push_back(out);
  }
  return verifyResultShape(op, op.getOutput(), expected);
}

} // namespace opscope::osc::verify

#endif // OPSCOPE_LIB_DIALECT_OSC_IR_OSCVERIFY_H
