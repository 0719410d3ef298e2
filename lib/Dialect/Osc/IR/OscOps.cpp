//===- OscOps.cpp - osc dialect operations --------------------------------===//
//
// Part of opscope. Verifiers here are the dialect's contract: every shape and
// type rule an op documents is checked, with a message that names the
// offending operand and its shape, because the importer surfaces them to
// users whose model is wrong.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/IR/OscShapes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

#include "opscope/Dialect/Osc/IR/OscEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static std::string shapeOf(Value v) {
  return formatShape(tensorType(v).getShape());
}

/// Checks that `actual` equals the shape the op's rules produce.
static LogicalResult verifyResultShape(Operation *op, Value result,
                                       ArrayRef<int64_t> expected) {
  auto actual = tensorType(result).getShape();
  if (actual != expected)
    return op->emitOpError("result shape ")
           << formatShape(actual) << " does not match the expected shape "
           << formatShape(expected);
  return success();
}

static LogicalResult verifySameElementType(Operation *op, Value a,
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

/// Input, weight and result of a compute op share one element type.
static LogicalResult verifyComputeTypes(Operation *op, Value input,
                                        Value weight, Value output) {
  if (failed(verifySameElementType(op, input, "input", weight, "weight")))
    return failure();
  return verifySameElementType(op, input, "input", output, "result");
}

/// An inner product computes in its weight's precision: a bf16 weight with
/// f32 activations is the `--precision bf16` form (the kernel rounds the
/// activations to bf16 and accumulates in f32); otherwise all agree.
static LogicalResult verifyInnerProductTypes(Operation *op, Value input,
                                             Value weight, Value output) {
  if (tensorType(weight).getElementType().isBF16() &&
      tensorType(input).getElementType().isF32())
    return verifySameElementType(op, input, "input", output, "result");
  return verifyComputeTypes(op, input, weight, output);
}

/// Post-op lists: `sum` at most once, present exactly when a sum operand is.
static LogicalResult verifyPostOps(Operation *op, ArrayAttr postOps,
                                   Value sumInput, Value output) {
  unsigned sums = 0;
  for (Attribute a : postOps)
    if (cast<PostOpKindAttr>(a).getValue() == PostOpKind::sum)
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

static LogicalResult verifyBias(Operation *op, Value bias, int64_t channels,
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

/// Checks the window attribute sizes of conv/pool ops for `spatial` dims.
static LogicalResult verifyWindowAttrs(Operation *op, unsigned spatial,
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

static LogicalResult verifySpatialRank(Operation *op, Value input) {
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
static LogicalResult verifyConvLike(ConvLikeOp op, StringRef weightLayout) {
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

//===----------------------------------------------------------------------===//
// Custom directive: the list in `post_ops [relu, sum]`
//===----------------------------------------------------------------------===//

static ParseResult parsePostOps(OpAsmParser &parser, ArrayAttr &postOps) {
  SmallVector<Attribute> kinds;
  auto parseOne = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return failure();
    std::optional<PostOpKind> kind = symbolizePostOpKind(keyword);
    if (!kind)
      return parser.emitError(loc, "unknown post-op '") << keyword << "'";
    kinds.push_back(PostOpKindAttr::get(parser.getContext(), *kind));
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseOne))
    return failure();
  postOps = parser.getBuilder().getArrayAttr(kinds);
  return success();
}

static void printPostOps(OpAsmPrinter &p, Operation *, ArrayAttr postOps) {
  p << "[";
  llvm::interleaveComma(postOps, p, [&](Attribute a) {
    p << stringifyPostOpKind(cast<PostOpKindAttr>(a).getValue());
  });
  p << "]";
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ConstantOp::Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  if (!adaptor.getValue())
    return failure();
  inferred.push_back(adaptor.getValue().getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  auto type = dyn_cast<RankedTensorType>(getValue().getType());
  if (!type || !type.hasStaticShape())
    return emitOpError("value must be a tensor with a static shape, got ")
           << getValue().getType();
  // A resource blob whose size disagrees with its type would make every
  // consumer read out of bounds. Blobs not loaded, or dropped from a module
  // printed with --elide-weights (marked osc.weights_elided), are not checked.
  auto module = (*this)->getParentOfType<ModuleOp>();
  bool elided = module && module->hasAttr(kWeightsElidedAttr);
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(getValue());
      resource && !elided) {
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob()) {
      int64_t elementBytes = (type.getElementTypeBitWidth() + 7) / 8;
      int64_t expected = type.getNumElements() * elementBytes;
      int64_t actual = blob->getData().size();
      if (actual != expected)
        return emitOpError("resource '")
               << resource.getRawHandle().getKey() << "' holds " << actual
               << " bytes but " << type << " needs " << expected;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MatMulOp / InnerProductOp
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::verify() {
  if (failed(verifySameElementType(*this, getLhs(), "lhs", getRhs(), "rhs")) ||
      failed(verifySameElementType(*this, getLhs(), "lhs", getOutput(),
                                   "result")))
    return failure();
  std::string error;
  auto shape = matmulShape(tensorType(getLhs()).getShape(),
                           tensorType(getRhs()).getShape(), getTransposeA(),
                           getTransposeB(), error);
  if (!shape)
    return emitOpError() << error << " (lhs " << shapeOf(getLhs()) << ", rhs "
                         << shapeOf(getRhs()) << ")";
  return verifyResultShape(*this, getOutput(), *shape);
}

LogicalResult InnerProductOp::verify() {
  auto in = tensorType(getInput()).getShape();
  auto w = tensorType(getWeight()).getShape();
  if (in.size() < 2)
    return emitOpError("input must have rank >= 2, got shape ")
           << formatShape(in);
  if (w.size() != 2)
    return emitOpError("weight must be N x K, got shape ") << formatShape(w);
  if (w[1] != in.back())
    return emitOpError("weight shape ")
           << formatShape(w) << " has K=" << w[1]
           << " but the input's last dimension is " << in.back();
  if (failed(verifyInnerProductTypes(*this, getInput(), getWeight(), getOutput())) ||
      failed(verifyBias(*this, getBias(), w[0], getInput())))
    return failure();
  SmallVector<int64_t> expected(in.drop_back());
  expected.push_back(w[0]);
  if (failed(verifyResultShape(*this, getOutput(), expected)))
    return failure();
  return verifyPostOps(*this, getPostOps(), getSumInput(), getOutput());
}

LogicalResult SparseInnerProductOp::verify() {
  ArrayRef<int64_t> w = getWeightShape();
  if (w.size() != 2 || w[0] <= 0 || w[1] <= 0)
    return emitOpError("weight_shape must be N x K, got ") << formatShape(w);
  auto packed = tensorType(getPacked());
  if (packed.getRank() != 1 || !packed.getElementType().isInteger(8))
    return emitOpError("packed weight must be a 1-D i8 tensor, got ")
           << packed;
  int64_t n = w[0], k = w[1];
  auto in = tensorType(getInput()).getShape();
  auto out = tensorType(getOutput()).getShape();
  int64_t inElems = tensorType(getInput()).getNumElements();
  int64_t outElems = tensorType(getOutput()).getNumElements();
  if (getTransposedInput()) {
    if (in.size() != 2 || in[0] != k)
      return emitOpError("transposed input must be K x M with K=")
             << k << ", got shape " << formatShape(in);
  } else if (in.size() < 2 || in.back() != k) {
    return emitOpError("input must be [..., K] with K=")
           << k << ", got shape " << formatShape(in);
  }
  if (getTransposedOutput()) {
    if (out.size() != 2 || out[0] != n)
      return emitOpError("transposed result must be N x M with N=")
             << n << ", got shape " << formatShape(out);
  } else if (out.size() < 2 || out.back() != n) {
    return emitOpError("result must be [..., N] with N=")
           << n << ", got shape " << formatShape(out);
  }
  if (inElems / k != outElems / n)
    return emitOpError("input ")
           << formatShape(in) << " and result " << formatShape(out)
           << " do not have the same number of tokens";
  if (getBlockSparsity().convertToDouble() < 0 ||
      getBlockSparsity().convertToDouble() > 1 ||
      getWeightSparsity().convertToDouble() < 0 ||
      getWeightSparsity().convertToDouble() > 1)
    return emitOpError("sparsities must be fractions in [0, 1]");
  if (getNonzeroBlocks() < 0 || getNonzeroBlocks() > n * ((k + 3) / 4))
    return emitOpError("nonzero_blocks ")
           << getNonzeroBlocks() << " out of range for " << formatShape(w);
  if (failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")) ||
      failed(verifyBias(*this, getBias(), n, getInput())))
    return failure();
  return verifyPostOps(*this, getPostOps(), getSumInput(), getOutput());
}

//===----------------------------------------------------------------------===//
// ConvOp / ConvTransposeOp
//===----------------------------------------------------------------------===//

LogicalResult ConvOp::verify() {
  if (failed(verifyConvLike(*this, "OC x C/groups x kernel...")))
    return failure();
  auto in = tensorType(getInput()).getShape();
  auto w = tensorType(getWeight()).getShape();
  unsigned spatial = in.size() - 2;
  int64_t groups = getGroups();
  if (groups <= 0)
    return emitOpError("groups must be positive, got ") << groups;
  if (in[1] % groups != 0 || w[0] % groups != 0)
    return emitOpError("input channels (")
           << in[1] << ") and output channels (" << w[0]
           << ") must both be divisible by groups (" << groups << ")";
  if (w[1] * groups != in[1])
    return emitOpError("weight shape ")
           << formatShape(w) << " expects " << w[1] * groups
           << " input channels with groups=" << groups << ", input has "
           << in[1];
  if (failed(verifyComputeTypes(*this, getInput(), getWeight(), getOutput())) ||
      failed(verifyBias(*this, getBias(), w[0], getInput())))
    return failure();
  SmallVector<int64_t> expected = {in[0], w[0]};
  for (unsigned i = 0; i < spatial; ++i) {
    int64_t out =
        windowOutputSize(in[2 + i], w[2 + i], getStrides()[i], getPads()[i],
                         getPads()[spatial + i], getDilations()[i]);
    if (out < 1)
      return emitOpError("kernel window does not fit spatial dimension ")
             << i << " (input " << formatShape(in) << ", kernel "
             << formatShape(w) << ")";
    expected.push_back(out);
  }
  if (failed(verifyResultShape(*this, getOutput(), expected)))
    return failure();
  return verifyPostOps(*this, getPostOps(), getSumInput(), getOutput());
}

LogicalResult ConvTransposeOp::verify() {
  if (failed(verifyConvLike(*this, "C x OC/groups x kernel...")))
    return failure();
  auto in = tensorType(getInput()).getShape();
  auto w = tensorType(getWeight()).getShape();
  unsigned spatial = in.size() - 2;
  if (getOutputPadding().size() != spatial)
    return emitOpError("expects ")
           << spatial << " output_padding values, got "
           << getOutputPadding().size();
  int64_t groups = getGroups();
  if (groups <= 0 || in[1] % groups != 0)
    return emitOpError("input channels (")
           << in[1] << ") must be divisible by a positive groups (" << groups
           << ")";
  if (w[0] != in[1])
    return emitOpError("weight shape ")
           << formatShape(w) << " expects " << w[0]
           << " input channels, input has " << in[1];
  if (failed(verifyComputeTypes(*this, getInput(), getWeight(), getOutput())))
    return failure();
  int64_t outChannels = w[1] * groups;
  if (failed(verifyBias(*this, getBias(), outChannels, getInput())))
    return failure();
  SmallVector<int64_t> expected = {in[0], outChannels};
  for (unsigned i = 0; i < spatial; ++i) {
    int64_t out = transposedWindowOutputSize(
        in[2 + i], w[2 + i], getStrides()[i], getPads()[i],
        getPads()[spatial + i], getDilations()[i], getOutputPadding()[i]);
    if (out < 1)
      return emitOpError("padding leaves no output in spatial dimension ") << i;
    expected.push_back(out);
  }
  if (failed(verifyResultShape(*this, getOutput(), expected)))
    return failure();
  return verifyPostOps(*this, getPostOps(), Value(), getOutput());
}

//===----------------------------------------------------------------------===//
// PoolOp / GlobalPoolOp
//===----------------------------------------------------------------------===//

LogicalResult PoolOp::verify() {
  if (failed(verifySpatialRank(*this, getInput())))
    return failure();
  auto in = tensorType(getInput()).getShape();
  unsigned spatial = in.size() - 2;
  if (getKernel().size() != spatial)
    return emitOpError("expects ")
           << spatial << " kernel sizes, got " << getKernel().size();
  if (llvm::any_of(getKernel(), [](int64_t k) { return k <= 0; }))
    return emitOpError("kernel sizes must be positive");
  if (failed(verifyWindowAttrs(*this, spatial, getStrides(), getPads(),
                               getDilations())) ||
      failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")))
    return failure();
  SmallVector<int64_t> expected = {in[0], in[1]};
  for (unsigned i = 0; i < spatial; ++i) {
    int64_t out = windowOutputSize(in[2 + i], getKernel()[i], getStrides()[i],
                                   getPads()[i], getPads()[spatial + i],
                                   getDilations()[i], getCeilMode());
    if (out < 1)
      return emitOpError("pooling window does not fit spatial dimension ")
             << i << " of input " << formatShape(in);
    expected.push_back(out);
  }
  return verifyResultShape(*this, getOutput(), expected);
}

LogicalResult GlobalPoolOp::verify() {
  auto in = tensorType(getInput()).getShape();
  if (in.size() < 3)
    return emitOpError("input must be N x C x spatial..., got shape ")
           << formatShape(in);
  if (failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")))
    return failure();
  SmallVector<int64_t> expected(in.size(), 1);
  expected[0] = in[0];
  expected[1] = in[1];
  return verifyResultShape(*this, getOutput(), expected);
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::verify() {
  auto in = tensorType(getInput()).getShape();
  if (in.size() < 2)
    return emitOpError("input must be N x C x ..., got shape ")
           << formatShape(in);
  if (getOutput().getType() != getInput().getType())
    return emitOpError("result type must equal the input type");
  std::pair<Value, StringRef> params[] = {{getScale(), "scale"},
                                          {getBias(), "bias"},
                                          {getMean(), "mean"},
                                          {getVariance(), "variance"}};
  for (auto [value, name] : params) {
    auto shape = tensorType(value).getShape();
    if (shape.size() != 1 || shape[0] != in[1])
      return emitOpError()
             << name << " shape " << formatShape(shape) << " must be " << in[1]
             << " (one value per channel)";
    if (failed(verifySameElementType(*this, value, name, getInput(), "input")))
      return failure();
  }
  return success();
}

LogicalResult LayerNormOp::verify() {
  auto in = tensorType(getInput()).getShape();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= static_cast<int64_t>(in.size()))
    return emitOpError("axis ")
           << axis << " is out of range for input of rank " << in.size();
  if (getOutput().getType() != getInput().getType())
    return emitOpError("result type must equal the input type");
  ArrayRef<int64_t> normalized = in.drop_front(axis);
  for (auto [value, name] :
       {std::pair<Value, StringRef>{getScale(), "scale"}, {getBias(), "bias"}}) {
    if (!value)
      continue;
    if (tensorType(value).getShape() != normalized)
      return emitOpError()
             << name << " shape " << shapeOf(value)
             << " must equal the normalized shape " << formatShape(normalized);
    if (failed(verifySameElementType(*this, value, name, getInput(), "input")))
      return failure();
  }
  return success();
}

LogicalResult SoftmaxOp::verify() {
  auto in = tensorType(getInput()).getShape();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= static_cast<int64_t>(in.size()))
    return emitOpError("axis ")
           << axis << " is out of range for input of rank " << in.size();
  if (getOutput().getType() != getInput().getType())
    return emitOpError("result type must equal the input type");
  if (Value mask = getMask()) {
    if (failed(verifySameElementType(*this, mask, "mask", getInput(), "input")))
      return failure();
    auto b = broadcastShapes(in, tensorType(mask).getShape());
    if (!b || ArrayRef<int64_t>(*b) != in)
      return emitOpError("mask shape ")
             << shapeOf(mask) << " does not broadcast to the input shape "
             << formatShape(in);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

static bool takesAlpha(UnaryKind k) {
  return k == UnaryKind::leaky_relu || k == UnaryKind::elu ||
         k == UnaryKind::hard_sigmoid || k == UnaryKind::clip;
}

static bool takesBeta(UnaryKind k) {
  return k == UnaryKind::hard_sigmoid || k == UnaryKind::clip;
}

LogicalResult UnaryOp::verify() {
  UnaryKind kind = getKind();
  StringRef name = stringifyUnaryKind(kind);
  Type elem = tensorType(getInput()).getElementType();
  bool isBool = elem.isInteger(1);
  bool isFloat = isa<FloatType>(elem);
  if (kind == UnaryKind::not_) {
    if (!isBool)
      return emitOpError("'not' requires a boolean (i1) tensor, got ") << elem;
  } else if (isBool) {
    return emitOpError("'") << name << "' does not accept boolean tensors";
  } else if (!isFloat && kind != UnaryKind::abs && kind != UnaryKind::neg &&
             kind != UnaryKind::relu) {
    return emitOpError("'") << name
                            << "' requires a floating-point tensor, got "
                            << elem;
  }
  if (takesAlpha(kind) != static_cast<bool>(getAlphaAttr()))
    return takesAlpha(kind)
               ? emitOpError("'") << name << "' requires an alpha attribute"
               : emitOpError("'") << name << "' does not take alpha";
  if (takesBeta(kind) != static_cast<bool>(getBetaAttr()))
    return takesBeta(kind)
               ? emitOpError("'") << name << "' requires a beta attribute"
               : emitOpError("'") << name << "' does not take beta";
  if (kind == UnaryKind::clip && *getAlpha() > *getBeta())
    return emitOpError("clip bounds are empty: alpha (min) ")
           << getAlpha()->convertToDouble() << " > beta (max) "
           << getBeta()->convertToDouble();
  return success();
}

/// Shared by the broadcasting elementwise ops: result shape is the numpy
/// broadcast of all operands.
static LogicalResult verifyBroadcastResult(Operation *op, ValueRange operands,
                                           Value result) {
  SmallVector<int64_t> shape;
  for (Value v : operands) {
    auto next = broadcastShapes(shape, tensorType(v).getShape());
    if (!next) {
      std::string shapes;
      llvm::raw_string_ostream os(shapes);
      llvm::interleave(
          operands, os, [&](Value o) { os << shapeOf(o); }, ", ");
      return op->emitOpError("operand shapes (")
             << os.str() << ") are not broadcast-compatible";
    }
    shape = std::move(*next);
  }
  return verifyResultShape(op, result, shape);
}

LogicalResult BinaryOp::verify() {
  if (failed(verifySameElementType(*this, getLhs(), "lhs", getRhs(), "rhs")) ||
      failed(verifySameElementType(*this, getLhs(), "lhs", getOutput(),
                                   "result")))
    return failure();
  BinaryKind kind = getKind();
  bool logical = kind == BinaryKind::and_ || kind == BinaryKind::or_ ||
                 kind == BinaryKind::xor_;
  bool isBool = tensorType(getLhs()).getElementType().isInteger(1);
  if (logical && !isBool)
    return emitOpError("'") << stringifyBinaryKind(kind)
                            << "' requires boolean (i1) operands";
  if (!logical && isBool)
    return emitOpError("'") << stringifyBinaryKind(kind)
                            << "' does not accept boolean operands";
  return verifyBroadcastResult(*this, {getLhs(), getRhs()}, getOutput());
}

LogicalResult CompareOp::verify() {
  if (failed(verifySameElementType(*this, getLhs(), "lhs", getRhs(), "rhs")))
    return failure();
  return verifyBroadcastResult(*this, {getLhs(), getRhs()}, getOutput());
}

LogicalResult WhereOp::verify() {
  if (failed(verifySameElementType(*this, getOnTrue(), "on_true", getOnFalse(),
                                   "on_false")) ||
      failed(verifySameElementType(*this, getOnTrue(), "on_true", getOutput(),
                                   "result")))
    return failure();
  return verifyBroadcastResult(*this, {getCondition(), getOnTrue(), getOnFalse()},
                               getOutput());
}

LogicalResult ReduceOp::verify() {
  auto in = tensorType(getInput()).getShape();
  ArrayRef<int64_t> axes = getAxes();
  if (axes.empty())
    return emitOpError("axes must not be empty");
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t a : axes) {
    if (a < 0 || a >= static_cast<int64_t>(in.size()))
      return emitOpError("axis ")
             << a << " is out of range for input of rank " << in.size();
    if (!seen.insert(a).second)
      return emitOpError("axis ") << a << " appears more than once";
  }
  if (failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")))
    return failure();
  SmallVector<int64_t> expected;
  for (auto [i, d] : llvm::enumerate(in)) {
    if (!seen.contains(i))
      expected.push_back(d);
    else if (getKeepDims())
      expected.push_back(1);
  }
  return verifyResultShape(*this, getOutput(), expected);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto in = tensorType(getInput());
  auto out = tensorType(getOutput());
  if (failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")))
    return failure();
  if (in.getNumElements() != out.getNumElements())
    return emitOpError("cannot reshape ")
           << formatShape(in.getShape()) << " (" << in.getNumElements()
           << " elements) to " << formatShape(out.getShape()) << " ("
           << out.getNumElements() << " elements)";
  return success();
}

LogicalResult TransposeOp::verify() {
  auto in = tensorType(getInput()).getShape();
  ArrayRef<int64_t> perm = getPerm();
  if (perm.size() != in.size())
    return emitOpError("perm has ")
           << perm.size() << " entries but the input has rank " << in.size();
  SmallVector<bool> used(in.size(), false);
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(in.size()) || used[p])
      return emitOpError("perm is not a permutation of [0, ")
             << in.size() << ")";
    used[p] = true;
    expected.push_back(in[p]);
  }
  if (failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")))
    return failure();
  return verifyResultShape(*this, getOutput(), expected);
}

LogicalResult BroadcastToOp::verify() {
  if (failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")))
    return failure();
  auto out = tensorType(getOutput()).getShape();
  auto b = broadcastShapes(tensorType(getInput()).getShape(), out);
  if (!b || ArrayRef<int64_t>(*b) != out)
    return emitOpError("input shape ")
           << shapeOf(getInput()) << " does not broadcast to "
           << formatShape(out);
  return success();
}

LogicalResult GatherOp::verify() {
  auto data = tensorType(getData()).getShape();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= static_cast<int64_t>(data.size()))
    return emitOpError("axis ")
           << axis << " is out of range for data of rank " << data.size();
  if (failed(verifySameElementType(*this, getData(), "data", getOutput(),
                                   "result")))
    return failure();
  SmallVector<int64_t> expected(data.take_front(axis));
  llvm::append_range(expected, tensorType(getIndices()).getShape());
  llvm::append_range(expected, data.drop_front(axis + 1));
  return verifyResultShape(*this, getOutput(), expected);
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  auto first = tensorType(getInputs().front()).getShape();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= static_cast<int64_t>(first.size()))
    return emitOpError("axis ")
           << axis << " is out of range for inputs of rank " << first.size();
  SmallVector<int64_t> expected(first);
  expected[axis] = 0;
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    auto shape = tensorType(v).getShape();
    if (failed(verifySameElementType(*this, v, "input", getOutput(), "result")))
      return failure();
    bool compatible = shape.size() == first.size();
    for (size_t d = 0; compatible && d < shape.size(); ++d)
      compatible = d == static_cast<size_t>(axis) || shape[d] == first[d];
    if (!compatible)
      return emitOpError("input ")
             << i << " shape " << formatShape(shape)
             << " differs from input 0 shape " << formatShape(first)
             << " outside axis " << axis;
    expected[axis] += shape[axis];
  }
  return verifyResultShape(*this, getOutput(), expected);
}

LogicalResult SliceOp::verify() {
  auto in = tensorType(getInput()).getShape();
  size_t rank = in.size();
  if (getStarts().size() != rank || getSizes().size() != rank ||
      getSteps().size() != rank)
    return emitOpError("starts, sizes and steps need ")
           << rank << " entries each (the input rank)";
  for (size_t d = 0; d < rank; ++d) {
    int64_t start = getStarts()[d], size = getSizes()[d], step = getSteps()[d];
    if (step == 0)
      return emitOpError("step of dimension ") << d << " is zero";
    if (size < 0)
      return emitOpError("size of dimension ") << d << " is negative";
    if (size == 0)
      continue;
    int64_t last = start + (size - 1) * step;
    if (start < 0 || start >= in[d] || last < 0 || last >= in[d])
      return emitOpError("slice of dimension ")
             << d << " (start " << start << ", size " << size << ", step "
             << step << ") reads outside [0, " << in[d] << ")";
  }
  if (failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")))
    return failure();
  return verifyResultShape(*this, getOutput(), getSizes());
}

LogicalResult PadOp::verify() {
  auto in = tensorType(getInput()).getShape();
  size_t rank = in.size();
  ArrayRef<int64_t> pads = getPads();
  if (pads.size() != 2 * rank)
    return emitOpError("expects ")
           << 2 * rank << " pads (begin pads of every dimension, then end "
           << "pads), got " << pads.size();
  if (failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")))
    return failure();
  SmallVector<int64_t> expected;
  for (size_t d = 0; d < rank; ++d) {
    int64_t b = pads[d], e = pads[rank + d];
    if (b < 0 || e < 0)
      return emitOpError("pads must be non-negative");
    if (getMode() == PadMode::reflect && (b >= in[d] || e >= in[d]))
      return emitOpError("reflect padding of dimension ")
             << d << " must be smaller than its size " << in[d];
    if (getMode() == PadMode::edge && in[d] == 0 && (b || e))
      return emitOpError("edge padding of empty dimension ") << d;
    expected.push_back(in[d] + b + e);
  }
  return verifyResultShape(*this, getOutput(), expected);
}

LogicalResult ResizeOp::verify() {
  auto in = tensorType(getInput());
  auto out = tensorType(getOutput());
  if (in.getRank() != out.getRank())
    return emitOpError("result rank ")
           << out.getRank() << " differs from input rank " << in.getRank();
  if (failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")))
    return failure();
  if (auto scales = getScales()) {
    if (scales->size() != static_cast<size_t>(in.getRank()))
      return emitOpError("expects ")
             << in.getRank() << " scales, got " << scales->size();
    if (llvm::any_of(*scales, [](float s) { return !(s > 0.0f); }))
      return emitOpError("scales must be positive");
  }
  if (llvm::any_of(out.getShape(), [](int64_t d) { return d <= 0; }))
    return emitOpError("result dimensions must be positive");
  return success();
}

//===----------------------------------------------------------------------===//
// ProbeOp
//===----------------------------------------------------------------------===//

LogicalResult ProbeOp::verify() {
  // I64Attr's getter is unsigned; read the signed value users wrote.
  int64_t id = getIdAttr().getInt();
  if (id < 0)
    return emitOpError("probe id must be non-negative, got ") << id;
  Block &body = getBody().front();
  if (body.getOperations().size() < 2)
    return emitOpError("body must contain the probed op");
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yields ")
           << yield.getValues().size()
           << " value(s) whose types differ from the probe's result types";
  return success();
}

void ProbeOp::getSuccessorRegions(RegionBranchPoint point,
                                  SmallVectorImpl<RegionSuccessor> &regions) {
  if (point.isParent()) {
    regions.push_back(RegionSuccessor(&getBody()));
    return;
  }
  regions.push_back(RegionSuccessor(getResults()));
}

#define GET_OP_CLASSES
#include "opscope/Dialect/Osc/IR/OscOps.cpp.inc"
