//===- ONNXHelpers.h - helpers shared by the ONNX op converters -*- C++ -*-===//
//
// Part of opscope (internal to lib/Target/ONNX). Small builders every
// converter family uses: types, splats, reshapes, and unary/binary ops with
// the importer's type checks.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_LIB_TARGET_ONNX_ONNXHELPERS_H
#define OPSCOPE_LIB_TARGET_ONNX_ONNXHELPERS_H

#include "Importer.h"

#include "opscope/Dialect/Osc/IR/OscShapes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

namespace opscope::onnx_import {
using namespace mlir;
using namespace opscope::osc;
using llvm::SmallVector;
using llvm::SmallVectorImpl;

inline RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}
inline Type elemOf(Value v) { return typeOf(v).getElementType(); }
inline RankedTensorType tensorOf(ArrayRef<int64_t> shape, Type elem) {
  return RankedTensorType::get(shape, elem);
}

inline Value splat(NodeContext &c, ArrayRef<int64_t> shape, Type elem,
                   double value) {
  Attribute a;
  if (auto ft = dyn_cast<FloatType>(elem))
    a = FloatAttr::get(ft, value);
  else
    a = IntegerAttr::get(elem, static_cast<int64_t>(value));
  return c.b.create<ConstantOp>(
      c.loc, DenseElementsAttr::get(tensorOf(shape, elem), a));
}

/// A constant of `shape` (one dimension not 1) holding 0, 1, ..., n-1 in
/// the integer type `type`: the class indices one-hot masks compare with.
inline Value iota(NodeContext &c, ArrayRef<int64_t> shape, Type type) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  SmallVector<APInt> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(APInt(type.getIntOrFloatBitWidth(), i, /*isSigned=*/true));
  return c.b.create<ConstantOp>(
      c.loc, DenseElementsAttr::get(tensorOf(shape, type), values));
}

inline Value reshape(NodeContext &c, Value v, ArrayRef<int64_t> shape) {
  return c.create<ReshapeOp>(tensorOf(shape, elemOf(v)), v);
}

inline FailureOr<Value> binary(NodeContext &c, BinaryKind kind, Value a,
                               Value b) {
  if (elemOf(a) != elemOf(b)) {
    c.error() << "operand element types differ (" << elemOf(a) << " and "
              << elemOf(b) << ")";
    return failure();
  }
  auto shape = broadcastShapes(typeOf(a).getShape(), typeOf(b).getShape());
  if (!shape) {
    c.error() << "operand shapes " << formatShape(typeOf(a).getShape())
              << " and " << formatShape(typeOf(b).getShape())
              << " do not broadcast";
    return failure();
  }
  return c.create<BinaryOp>(tensorOf(*shape, elemOf(a)), kind, a, b);
}

inline Value unary(NodeContext &c, UnaryKind kind, Value x,
                   std::optional<float> alpha = std::nullopt,
                   std::optional<float> beta = std::nullopt) {
  FloatAttr a = alpha ? c.b.getF32FloatAttr(*alpha) : FloatAttr();
  FloatAttr bt = beta ? c.b.getF32FloatAttr(*beta) : FloatAttr();
  return c.create<UnaryOp>(x.getType(), kind, x, a, bt);
}

inline LogicalResult requireFloat(NodeContext &c, Value v, StringRef what) {
  if (isa<FloatType>(elemOf(v)))
    return success();
  c.error() << what << " must be floating point, got " << elemOf(v);
  return failure();
}

/// Input `i` as one constant number (the window ops' size, MelWeightMatrix's
/// parameters); an error naming `what` when it is not a constant scalar:
/// with static shapes, an input that sets an output's shape must be known
/// at import.
inline std::optional<double> constScalar(NodeContext &c, unsigned i,
                                         StringRef what) {
  auto v = c.constFloats(i);
  if (v && v->size() == 1)
    return (*v)[0];
  c.error() << what << " must be a constant scalar (opscope compiles "
            << "static shapes; --freeze-input fixes a graph input)";
  return std::nullopt;
}

/// The single integer of input `i` (a scalar, or one element), which must
/// be a compile-time constant (requireConstInts says which graph inputs to
/// freeze when it is not): TopK's k, CumSum's axis, DFT's length and axis,
/// STFT's frame step and length.
inline FailureOr<int64_t> constIntScalar(NodeContext &c, unsigned i,
                                         StringRef what) {
  auto v = c.requireConstInts(i, what);
  if (failed(v))
    return failure();
  if (v->size() != 1) {
    c.error() << "input '" << what << "' must hold one value, not "
              << v->size();
    return failure();
  }
  return (*v)[0];
}

inline DenseI64ArrayAttr i64Array(NodeContext &c, ArrayRef<int64_t> values) {
  return c.b.getDenseI64ArrayAttr(values);
}

/// Window attributes shared by Conv, ConvTranspose, ConvInteger and the
/// pools (ONNXCompute.cpp): kernel_shape from the weight or the attribute,
/// strides, dilations, pads (begin pads then end pads) with auto_pad
/// resolved against the input's spatial sizes (except for transposed
/// convolutions, which derive their pads from the output shape).
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, pads;
};
FailureOr<Window> readWindow(NodeContext &c, ArrayRef<int64_t> kernel,
                             ArrayRef<int64_t> inSpatial,
                             bool transposed = false);

} // namespace opscope::onnx_import

#endif // OPSCOPE_LIB_TARGET_ONNX_ONNXHELPERS_H
