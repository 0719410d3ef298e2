//===- OscOps.cpp - osc dialect operations --------------------------------===//
//
// Part of opscope. Verifiers here are the dialect's contract: every shape and
// type rule an op documents is checked, with a message that names the
// offending operand and its shape, because the importer surfaces them to
// users whose model is wrong. This file: the compute ops, the op classes
// and the custom directives; the elementwise and data-movement verifiers are
// in OscDataOps.cpp, the helpers both use in OscVerify.h.
//
//===----------------------------------------------------------------------===//

#include "OscVerify.h"

#include "opscope/runtime/kernels.h"

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
using namespace opscope::osc::verify;

#include "opscope/Dialect/Osc/IR/OscEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Custom directive: the list in `post_ops [relu, sum]`
//===----------------------------------------------------------------------===//

static ParseResult parsePostOps(OpAsmParser &parser, ArrayAttr &postOps) {
  SmallVector<Attribute> list;
  auto parseOne = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return failure();
    std::optional<PostOpKind> kind = symbolizePostOpKind(keyword);
    if (!kind)
      return parser.emitError(loc, "unknown post-op '") << keyword << "'";
    SmallVector<double, 2> params;
    if (succeeded(parser.parseOptionalLParen())) {
      auto parseParam = [&]() -> ParseResult {
        return parser.parseFloat(params.emplace_back());
      };
      if (parser.parseCommaSeparatedList(parseParam) || parser.parseRParen())
        return failure();
    }
    // The attribute's verifier checks the count against the kind.
    if (params.size() > 2)
      return parser.emitError(loc, "post-op '")
             << keyword << "' takes " << PostOpAttr::parameterCount(*kind)
             << " parameter(s), " << params.size() << " given";
    auto param = [&](size_t i) {
      return i < params.size()
                 ? FloatAttr::get(parser.getBuilder().getF32Type(), params[i])
                 : FloatAttr();
    };
    auto attr = PostOpAttr::getChecked([&] { return parser.emitError(loc); },
                                       parser.getContext(), *kind, param(0),
                                       param(1));
    if (!attr)
      return failure();
    list.push_back(attr);
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseOne))
    return failure();
  postOps = parser.getBuilder().getArrayAttr(list);
  return success();
}

static void printPostOps(OpAsmPrinter &p, Operation *, ArrayAttr postOps) {
  p << "[";
  llvm::interleaveComma(postOps, p, [&](Attribute a) {
    auto post = cast<PostOpAttr>(a);
    p << stringifyPostOpKind(post.getKind());
    if (!post.getAlpha())
      return;
    p << "(";
    p.printFloat(post.getAlpha().getValue());
    if (post.getBeta()) {
      p << ", ";
      p.printFloat(post.getBeta().getValue());
    }
    p << ")";
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
  if (getComputeBf16() && getComputeInt8())
    return emitOpError("compute_bf16 and compute_int8 exclude each other");
  if (getComputeBf16()) {
    // Each operand and the result f32, or bf16 inside a bf16 chain
    // (osc-bf16-chains).
    for (auto [v, name] : {std::pair<Value, StringRef>{getLhs(), "lhs"},
                           {getRhs(), "rhs"},
                           {getOutput(), "result"}}) {
      Type e = tensorType(v).getElementType();
      if (!e.isF32() && !e.isBF16())
        return emitOpError("a compute_bf16 matmul's ")
               << name << " is f32 or bf16, got " << e;
    }
    // A constant rhs is packed once from f32 (bf16 ones come only from
    // producers inside a chain).
    if (tensorType(getRhs()).getElementType().isBF16() &&
        getRhs().getDefiningOp<ConstantOp>())
      return emitOpError("a compute_bf16 matmul's constant rhs must be f32");
  } else if (failed(verifySameElementType(*this, getLhs(), "lhs", getRhs(),
                                          "rhs")) ||
             failed(verifySameElementType(*this, getLhs(), "lhs", getOutput(),
                                          "result"))) {
    return failure();
  }
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
  if (failed(verifyInt8WeightOp(*this, w[0])))
    return failure();
  if (tensorType(getOutput()).getElementType().isBF16() && getSumInput())
    return emitOpError("a bf16 result cannot take a sum post-op");
  if (auto dk = getDenseKernel()) {
    if (*dk != "matmul" && *dk != "inner_product")
      return emitOpError("dense_kernel must be matmul or inner_product, got '")
             << *dk << "'";
    if (*dk == "matmul" && !tensorType(getWeight()).getElementType().isF32())
      return emitOpError("dense_kernel matmul runs f32 weights only");
  }
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
  if (getBlockRows() != 1 && (getBlockRows() != 4 || n % 4))
    return emitOpError("block_rows must be 1, or 4 with N a multiple of 4; "
                       "got ")
           << getBlockRows() << " with N=" << n;
  if (getInputScale().has_value() != getInputZeroPoint().has_value())
    return emitOpError("input_scale and input_zero_point go together");
  if (getInputScale() && failed(verifyInt8Quantization(*this, getInputScale()->convertToFloat(),
                                                       *getInputZeroPoint())))
    return failure();
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
  if ((getInputNhwc() || getOutputNhwc()) && spatial != 2)
    return emitOpError("input_nhwc and output_nhwc need 2 spatial dimensions, "
                       "got ") << spatial;
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
  if (failed(verifyInt8WeightOp(*this, w[0])))
    return failure();
  if (tensorType(getOutput()).getElementType().isBF16() && getSumInput())
    return emitOpError("a bf16 result cannot take a sum post-op");
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
  if ((getInputNhwc() || getOutputNhwc()) && spatial != 2)
    return emitOpError("input_nhwc and output_nhwc need 2 spatial dimensions, "
                       "got ") << spatial;
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
  int64_t outChannels = w[1] * groups;
  // A bf16 weight (--precision bf16) or an i8 one with its quantization
  // (--precision int8); the activations stay f32 (no chains through
  // transposed convolutions).
  if (failed(verifyWeightPrecision(*this, getInput(), getWeight(), getOutput(),
                                   getInputScale(), getInputZeroPoint(),
                                   getWeightScales(), outChannels)))
    return failure();
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
  if (getNhwc() && tensorType(getInput()).getRank() != 4)
    return emitOpError("nhwc needs a 2-D pooling");
  return verifyPoolLike(*this);
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
  if (failed(verifyBf16Result(*this, getInput(), getOutput())))
    return failure();
  if (getTransposed() && getOutput().getType() != getInput().getType())
    return emitOpError("a transposed layer norm's result type must equal the "
                       "input type");
  ArrayRef<int64_t> normalized = in.drop_front(axis);
  if (getTransposed()) {
    if (in.size() != 2 || axis != 1)
      return emitOpError("a transposed layer norm takes a 2-D hidden x tokens "
                         "input with axis 1, got rank ")
             << in.size() << " and axis " << axis;
    normalized = in.take_front(1);
  }
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

bool opscope::osc::softmaxCanWriteBf16(SoftmaxOp op) {
  auto in = tensorType(op.getInput()).getShape();
  if (op.getAxis() + 1 != static_cast<int64_t>(in.size()))
    return false;
  if (!op.getMask())
    return true;
  auto m = tensorType(op.getMask()).getShape();
  return rt::softmaxMaskRowGroup({in.begin(), in.end()},
                                 {m.begin(), m.end()}) > 0;
}

LogicalResult SoftmaxOp::verify() {
  auto in = tensorType(getInput()).getShape();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= static_cast<int64_t>(in.size()))
    return emitOpError("axis ")
           << axis << " is out of range for input of rank " << in.size();
  if (failed(verifyBf16Result(*this, getInput(), getOutput())))
    return failure();
  if (tensorType(getOutput()).getElementType() !=
          tensorType(getInput()).getElementType() &&
      !softmaxCanWriteBf16(*this))
    return emitOpError("a bf16 result needs the softmax over the last axis "
                       "with no mask or one that varies only over leading "
                       "dimensions and the last one");
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
// ProbeOp
//===----------------------------------------------------------------------===//

LogicalResult RnnOp::verify() {
  auto x = tensorType(getInput()).getShape();
  if (x.size() != 3)
    return emitOpError("input must be 3-D (seq x batch x input_size, or batch "
                       "x seq x input_size with batch_first), got ")
           << shapeOf(getInput());
  bool bf = getBatchFirst();
  int64_t seq = bf ? x[1] : x[0], batch = bf ? x[0] : x[1], in = x[2];
  int64_t hidden = getHiddenSize(), gates = rnnGates(getCell());
  auto w = tensorType(getWeight()).getShape();
  if (w.size() != 3 || (w[0] != 1 && w[0] != 2))
    return emitOpError("weight must be directions x gates*hidden x input_size "
                       "with 1 or 2 directions, got ")
           << shapeOf(getWeight());
  int64_t dirs = w[0];
  if (hidden <= 0)
    return emitOpError("hidden_size must be positive, got ") << hidden;
  if (dirs == 2 && getReverse())
    return emitOpError("reverse applies to one direction, the weight has two");
  auto expect = [&](Value v, StringRef name,
                    ArrayRef<int64_t> shape) -> LogicalResult {
    if (!v)
      return success();
    if (tensorType(v).getShape() != shape)
      return emitOpError() << name << " shape " << shapeOf(v) << " must be "
                           << formatShape(shape);
    return success();
  };
  SmallVector<int64_t> state =
      bf ? SmallVector<int64_t>{batch, dirs, hidden}
         : SmallVector<int64_t>{dirs, batch, hidden};
  SmallVector<int64_t> all =
      bf ? SmallVector<int64_t>{batch, seq, dirs, hidden}
         : SmallVector<int64_t>{seq, dirs, batch, hidden};
  if (failed(expect(getWeight(), "weight", {dirs, gates * hidden, in})) ||
      failed(expect(getRecurrence(), "recurrence",
                    {dirs, gates * hidden, hidden})) ||
      failed(expect(getBias(), "bias", {dirs, 2 * gates * hidden})) ||
      failed(expect(getSequenceLens(), "sequence_lens", {batch})) ||
      failed(expect(getInitialH(), "initial_h", state)) ||
      failed(expect(getInitialC(), "initial_c", state)) ||
      failed(expect(getPeepholes(), "peepholes", {dirs, 3 * hidden})) ||
      failed(expect(getOutput(), "output", all)) ||
      failed(expect(getOutputH(), "output_h", state)) ||
      failed(expect(getOutputC(), "output_c", state)))
    return failure();
  bool lstm = getCell() == RnnCell::lstm;
  if (!lstm && (getInitialC() || getPeepholes() || getOutputC() ||
                getInputForget()))
    return emitOpError("initial_c, peepholes, output_c and input_forget are "
                       "LSTM's; this is a ")
           << stringifyRnnCell(getCell()) << " cell";
  if (lstm && !getOutputC())
    return emitOpError("an LSTM produces output_c");
  if (getLinearBeforeReset() && getCell() != RnnCell::gru)
    return emitOpError("linear_before_reset is GRU's");
  for (Value v : {getWeight(), getRecurrence(), getBias(), getInitialH(),
                  getInitialC(), getPeepholes()})
    if (v && failed(verifySameElementType(*this, v, "parameter", getInput(),
                                          "input")))
      return failure();
  size_t acts = static_cast<size_t>(dirs * rnnActivations(getCell()));
  if (getActivations().size() != acts || getActivationAlpha().size() != acts ||
      getActivationBeta().size() != acts)
    return emitOpError("needs ")
           << acts << " activations with one alpha and beta each ("
           << rnnActivations(getCell()) << " per direction), got "
           << getActivations().size();
  for (Attribute a : getActivations()) {
    StringRef name = cast<StringAttr>(a).getValue();
    if (!rt::parseKind<rt::RnnActivation>(
            std::string_view(name.data(), name.size())))
      return emitOpError("unknown activation '") << name << "'";
  }
  if (auto clip = getClip(); clip && !(clip->convertToFloat() > 0))
    return emitOpError("clip must be positive");
  return success();
}

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
