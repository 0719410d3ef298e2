//===- OscDataOps.cpp - verifiers of the elementwise and data ops ---------===//
//
// Part of opscope. The verifiers of the elementwise ops (unary, binary,
// compare, where, reduce) and the data-movement ops (reshape, transpose,
// broadcast_to, gather, concat, slice, pad, resize); OscOps.cpp has the
// compute ops, the op classes and the shared helpers (OscVerify.h).
//
//===----------------------------------------------------------------------===//

#include "OscVerify.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::osc::verify;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

static bool takesAlpha(UnaryKind k) {
  return k == UnaryKind::leaky_relu || k == UnaryKind::elu ||
         k == UnaryKind::hard_sigmoid || k == UnaryKind::clip ||
         k == UnaryKind::selu || k == UnaryKind::thresholded_relu ||
         k == UnaryKind::shrink || k == UnaryKind::celu;
}

static bool takesBeta(UnaryKind k) {
  return k == UnaryKind::hard_sigmoid || k == UnaryKind::clip ||
         k == UnaryKind::selu || k == UnaryKind::shrink;
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
             kind != UnaryKind::relu && kind != UnaryKind::sign) {
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
  bool shift = kind == BinaryKind::shl || kind == BinaryKind::shr;
  if (shift && !tensorType(getLhs()).getElementType().isUnsignedInteger())
    return emitOpError("'") << stringifyBinaryKind(kind)
                            << "' requires unsigned integer operands";
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

LogicalResult DepthToSpaceOp::verify() {
  auto in = tensorType(getInput()).getShape();
  int64_t b = getBlocksize();
  if (in.size() != 4)
    return emitOpError("takes a 4-D NCHW input, got ") << formatShape(in);
  if (b < 1)
    return emitOpError("blocksize must be positive, got ") << b;
  if (in[1] % (b * b))
    return emitOpError("channels (")
           << in[1] << ") must be a multiple of blocksize^2 (" << b * b << ")";
  if (failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")))
    return failure();
  return verifyResultShape(*this, getOutput(),
                           {in[0], in[1] / (b * b), in[2] * b, in[3] * b});
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

LogicalResult GatherElementsOp::verify() {
  auto data = tensorType(getData()).getShape();
  auto idx = tensorType(getIndices()).getShape();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= static_cast<int64_t>(data.size()))
    return emitOpError("axis ")
           << axis << " is out of range for data of rank " << data.size();
  if (idx.size() != data.size())
    return emitOpError("indices ")
           << formatShape(idx) << " must have the rank of data "
           << formatShape(data);
  for (size_t d = 0; d < data.size(); ++d)
    if (static_cast<int64_t>(d) != axis && idx[d] > data[d])
      return emitOpError("indices ")
             << formatShape(idx) << " exceed data " << formatShape(data)
             << " along axis " << d;
  if (failed(verifySameElementType(*this, getData(), "data", getOutput(),
                                   "result")))
    return failure();
  return verifyResultShape(*this, getOutput(), idx);
}

LogicalResult ArgReduceOp::verify() {
  auto in = tensorType(getInput()).getShape();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= static_cast<int64_t>(in.size()))
    return emitOpError("axis ")
           << axis << " is out of range for input of rank " << in.size();
  if (in[axis] == 0)
    return emitOpError("axis ") << axis << " is empty";
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d)
    if (d != axis)
      expected.push_back(in[d]);
    else if (getKeepDims())
      expected.push_back(1);
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
  if (getNhwc() && first.size() != 4)
    return emitOpError("nhwc needs 4-D inputs, got rank ") << first.size();
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
  if (getNhwc() && rank != 4)
    return emitOpError("nhwc needs a 4-D input, got rank ") << rank;
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
  bool crop = getCoordinateTransformationMode() ==
              CoordinateTransform::tf_crop_and_resize;
  if (crop != getRoi().has_value())
    return emitOpError("roi goes with tf_crop_and_resize, and only with it");
  if (crop && getRoi()->size() != 2 * static_cast<size_t>(in.getRank()))
    return emitOpError("expects ")
           << 2 * in.getRank() << " roi entries (starts, then ends), got "
           << getRoi()->size();
  if (getNhwc() && !isSpatialResize2D(*this))
    return emitOpError("nhwc needs a nearest or linear resize of the last two "
                       "dimensions of a 4-D tensor");
  return success();
}

bool osc::isSpatialResize2D(ResizeOp op) {
  auto in = tensorType(op.getInput()), out = tensorType(op.getOutput());
  if (in.getRank() != 4 ||
      (op.getMode() != ResizeMode::nearest &&
       op.getMode() != ResizeMode::linear) ||
      op.getCoordinateTransformationMode() ==
          CoordinateTransform::tf_crop_and_resize ||
      op.getCoordinateTransformationMode() ==
          CoordinateTransform::tf_half_pixel_for_nn)
    return false;
  for (int d = 0; d < 2; ++d)
    if (in.getDimSize(d) != out.getDimSize(d) ||
        (op.getScales() && (*op.getScales())[d] != 1.0f))
      return false;
  return true;
}

