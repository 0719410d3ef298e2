//===- OscFolders.cpp - constant folding of osc ops -----------------------===//
//
// Part of opscope. The folders evaluate ops whose operands are small dense
// constants. With static shapes, ONNX's shape sub-graphs (Shape, Gather,
// Concat, Unsqueeze, Cast, arithmetic, Equal/Where, Reshape) become chains of
// such ops, so `createOrFold` at import and `osc-fold-constants` afterwards
// reduce them to constants. Weights (dense_resource) are never expanded: only
// DenseElementsAttr up to kFoldLimit elements are folded.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/IR/OscShapes.h"
#include "opscope/runtime/kinds.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

/// Larger constants stay as ops: folding them would bloat the IR and the
/// compile time for no runtime gain.
static constexpr int64_t kFoldLimit = 1 << 16;

/// Whether a result of `type` is over the fold limit; a shape whose element
/// count overflows (getNumElements would wrap) is too.
static bool tooBigToFold(ShapedType type) {
  int64_t n = 1;
  for (int64_t d : type.getShape())
    if (d < 0 || __builtin_mul_overflow(n, d, &n) || n > kFoldLimit)
      return true;
  return false;
}
static bool tooBigToFold(DenseElementsAttr d) { return tooBigToFold(d.getType()); }

static DenseElementsAttr smallDense(Attribute a) {
  auto d = dyn_cast_or_null<DenseElementsAttr>(a);
  if (!d || tooBigToFold(d))
    return {};
  return d;
}

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

//===----------------------------------------------------------------------===//
// Index helpers
//===----------------------------------------------------------------------===//

static void delinearize(int64_t index, ArrayRef<int64_t> shape,
                        SmallVectorImpl<int64_t> &out) {
  out.assign(shape.size(), 0);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] == 0)
      return;
    out[d] = index % shape[d];
    index /= shape[d];
  }
}

static int64_t linearize(ArrayRef<int64_t> index, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    linear = linear * shape[d] + index[d];
  return linear;
}

/// Index into a numpy-broadcast operand of shape `in` for result index `idx`.
static int64_t broadcastIndex(ArrayRef<int64_t> idx, ArrayRef<int64_t> in) {
  size_t offset = idx.size() - in.size();
  int64_t linear = 0;
  for (size_t d = 0; d < in.size(); ++d)
    linear = linear * in[d] + (in[d] == 1 ? 0 : idx[offset + d]);
  return linear;
}

/// Builds a constant of `resultType` whose element i is input element
/// `inputIndexOf(index of i)`: the shared core of every data-movement folder.
static DenseElementsAttr
remapElements(DenseElementsAttr input, ShapedType resultType,
              llvm::function_ref<int64_t(ArrayRef<int64_t>)> inputIndexOf) {
  if (input.isSplat())
    return DenseElementsAttr::get(resultType,
                                  input.getSplatValue<Attribute>());
  // A small constant broadcast or tiled to a huge shape stays an op.
  if (tooBigToFold(resultType))
    return {};
  auto values = input.getValues<Attribute>();
  SmallVector<Attribute> out;
  out.reserve(resultType.getNumElements());
  SmallVector<int64_t> idx;
  for (int64_t i = 0, e = resultType.getNumElements(); i < e; ++i) {
    delinearize(i, resultType.getShape(), idx);
    out.push_back(values[inputIndexOf(idx)]);
  }
  return DenseElementsAttr::get(resultType, out);
}

//===----------------------------------------------------------------------===//
// Scalar arithmetic on attribute elements
//===----------------------------------------------------------------------===//

namespace {
/// One element as the folders compute with it: integers (incl. i1) as int64,
/// floats as double. The element type decides which field is meaningful.
struct Scalar {
  int64_t i = 0;
  double f = 0.0;
};
} // namespace

static bool isUnsignedInt(Type t) {
  auto it = dyn_cast<IntegerType>(t);
  return it && (it.isUnsigned() || it.getWidth() == 1);
}

static Scalar toScalar(Attribute a) {
  Scalar s;
  if (auto f = dyn_cast<FloatAttr>(a)) {
    s.f = f.getValueAsDouble();
    // Meaningless for a float element, but converting a value outside
    // int64 (FLT_MAX, inf, NaN) would be undefined behaviour.
    s.i = std::fabs(s.f) < 9.2e18 ? static_cast<int64_t>(s.f) : 0;
  } else if (auto i = dyn_cast<IntegerAttr>(a)) {
    if (isUnsignedInt(i.getType())) {
      // u64 above 2^63 keeps its bits in `i`; `f` is its value.
      uint64_t z = i.getValue().getZExtValue();
      s.i = static_cast<int64_t>(z);
      s.f = static_cast<double>(z);
    } else {
      s.i = i.getValue().getSExtValue();
      s.f = static_cast<double>(s.i);
    }
  }
  return s;
}

static Attribute fromScalar(Type elementType, Scalar s) {
  if (auto ft = dyn_cast<FloatType>(elementType))
    return FloatAttr::get(ft, s.f);
  auto it = cast<IntegerType>(elementType);
  if (it.getWidth() == 1)
    return IntegerAttr::get(it, APInt(1, s.i != 0));
  return IntegerAttr::get(it, APInt(it.getWidth(), s.i, !isUnsignedInt(it)));
}

/// Elementwise map over numpy-broadcast operands.
static DenseElementsAttr
mapElements(ArrayRef<DenseElementsAttr> operands, ShapedType resultType,
            llvm::function_ref<std::optional<Scalar>(ArrayRef<Scalar>)> fn) {
  if (tooBigToFold(resultType))
    return {};
  SmallVector<SmallVector<Attribute>> values;
  for (DenseElementsAttr d : operands)
    values.push_back(llvm::to_vector(d.getValues<Attribute>()));
  SmallVector<Attribute> out;
  SmallVector<int64_t> idx;
  SmallVector<Scalar> args(operands.size());
  Type elementType = resultType.getElementType();
  for (int64_t i = 0, e = resultType.getNumElements(); i < e; ++i) {
    delinearize(i, resultType.getShape(), idx);
    for (size_t k = 0; k < operands.size(); ++k)
      args[k] = toScalar(values[k][broadcastIndex(
          idx, operands[k].getType().getShape())]);
    std::optional<Scalar> r = fn(args);
    if (!r)
      return {};
    out.push_back(fromScalar(elementType, *r));
  }
  return DenseElementsAttr::get(resultType, out);
}


//===----------------------------------------------------------------------===//
// Typed evaluation with the runtime's scalar semantics
//===----------------------------------------------------------------------===//

// Unary, binary and compare fold with the functions the runtime's kernels
// run (opscope/runtime/kinds.h), in the element type the runtime computes in
// (f32 as float, i32 as int32_t, ...), so a folded constant equals what the
// op would have computed at run time.

/// Calls `f` with a null pointer of the C++ type the runtime computes
/// element type `t` in.
template <typename F> static auto withComputeType(Type t, F &&f) {
  if (isa<FloatType>(t))
    return t.isF64() ? f(static_cast<double *>(nullptr))
                     : f(static_cast<float *>(nullptr));
  auto it = cast<IntegerType>(t);
  if (it.getWidth() == 1)
    return f(static_cast<uint8_t *>(nullptr));
  if (it.isUnsigned()) {
    switch (it.getWidth()) {
    case 8:
      return f(static_cast<uint8_t *>(nullptr));
    case 16:
      return f(static_cast<uint16_t *>(nullptr));
    case 32:
      return f(static_cast<uint32_t *>(nullptr));
    default:
      return f(static_cast<uint64_t *>(nullptr));
    }
  }
  switch (it.getWidth()) {
  case 8:
    return f(static_cast<int8_t *>(nullptr));
  case 16:
    return f(static_cast<int16_t *>(nullptr));
  case 32:
    return f(static_cast<int32_t *>(nullptr));
  default:
    return f(static_cast<int64_t *>(nullptr));
  }
}

template <typename T> static T fromAttr(Attribute a) {
  Scalar s = toScalar(a);
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(s.f);
  else
    return static_cast<T>(s.i);
}

template <typename T> static Attribute toAttr(Type elementType, T v) {
  Scalar s;
  if constexpr (std::is_floating_point_v<T>) {
    s.f = v;
  } else {
    s.i = static_cast<int64_t>(v);
    s.f = static_cast<double>(v);
  }
  return fromScalar(elementType, s);
}

/// Elementwise map over numpy-broadcast operands read as T; `fn` returns the
/// result element as an attribute.
template <typename T>
static DenseElementsAttr
mapTyped(ArrayRef<DenseElementsAttr> operands, ShapedType resultType,
         llvm::function_ref<Attribute(ArrayRef<T>)> fn) {
  if (tooBigToFold(resultType))
    return {};
  SmallVector<SmallVector<Attribute>> values;
  for (DenseElementsAttr d : operands)
    values.push_back(llvm::to_vector(d.getValues<Attribute>()));
  SmallVector<Attribute> out;
  SmallVector<int64_t> idx;
  SmallVector<T> args(operands.size());
  for (int64_t i = 0, e = resultType.getNumElements(); i < e; ++i) {
    delinearize(i, resultType.getShape(), idx);
    for (size_t k = 0; k < operands.size(); ++k)
      args[k] = fromAttr<T>(
          values[k][broadcastIndex(idx, operands[k].getType().getShape())]);
    out.push_back(fn(args));
  }
  return DenseElementsAttr::get(resultType, out);
}

/// The runtime's enum case of an osc enum case (the same name in kinds.def;
/// unittests/Dialect/Osc/KindsTableTest.cpp checks every case).
template <typename E> static std::optional<E> runtimeCase(StringRef name) {
  return rt::parseKind<E>(std::string_view(name.data(), name.size()));
}

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getOutput().getType())
    return getInput();
  // reshape(reshape(x)) -> reshape(x): only the final shape matters.
  if (auto producer = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(producer.getInput());
    return getOutput();
  }
  auto type = tensorType(getOutput());
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(type);
  // A weight blob is row-major bytes: reshaping shares the blob.
  if (auto resource =
          dyn_cast_or_null<DenseResourceElementsAttr>(adaptor.getInput()))
    return DenseResourceElementsAttr::get(type, resource.getRawHandle());
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getOutput().getType())
    return getInput();
  auto input = smallDense(adaptor.getInput());
  if (!input)
    return {};
  bool fromFloat = isa<FloatType>(tensorType(getInput()).getElementType());
  Type to = tensorType(getOutput()).getElementType();
  bool toBool = to.isInteger(1);
  bool toUnsigned = to.isUnsignedInteger();
  return mapElements({input}, tensorType(getOutput()),
                     [&](ArrayRef<Scalar> a) -> std::optional<Scalar> {
                       Scalar r = a[0];
                       if (toBool) {
                         r.i = fromFloat ? (a[0].f != 0.0) : (a[0].i != 0);
                       } else if (fromFloat) {
                         // Float to int truncates toward zero, as in ONNX
                         // (u64 above 2^63 through uint64_t).
                         double t = std::trunc(a[0].f);
                         r.i = toUnsigned && t >= 0x1p63 && t < 0x1p64
                                   ? static_cast<int64_t>(static_cast<uint64_t>(t))
                                   : static_cast<int64_t>(t);
                       }
                       return r;
                     });
}

OpFoldResult UnaryOp::fold(FoldAdaptor adaptor) {
  auto input = smallDense(adaptor.getInput());
  auto kind = runtimeCase<rt::UnaryKind>(stringifyUnaryKind(getKind()));
  if (!input || !kind)
    return {};
  rt::UnaryParams params = rt::defaultUnaryParams(*kind);
  float alpha = getAlpha() ? getAlpha()->convertToFloat() : params.alpha;
  float beta = getBeta() ? getBeta()->convertToFloat() : params.beta;
  auto type = tensorType(getOutput());
  Type element = type.getElementType();
  return withComputeType(element, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return mapTyped<T>({input}, type, [&](ArrayRef<T> a) {
      return toAttr<T>(element, rt::unaryScalar<T>(*kind, a[0], alpha, beta));
    });
  });
}

OpFoldResult BinaryOp::fold(FoldAdaptor adaptor) {
  auto lhs = smallDense(adaptor.getLhs());
  auto rhs = smallDense(adaptor.getRhs());
  auto type = tensorType(getOutput());
  auto kind = runtimeCase<rt::BinaryKind>(stringifyBinaryKind(getKind()));
  if (!lhs || !rhs || !kind || tooBigToFold(type))
    return {};
  Type element = type.getElementType();
  return withComputeType(element, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return mapTyped<T>({lhs, rhs}, type, [&](ArrayRef<T> a) {
      return toAttr<T>(element, rt::binaryScalar<T>(*kind, a[0], a[1]));
    });
  });
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  auto lhs = smallDense(adaptor.getLhs());
  auto rhs = smallDense(adaptor.getRhs());
  auto type = tensorType(getOutput());
  auto kind = runtimeCase<rt::CompareKind>(stringifyCompareKind(getKind()));
  if (!lhs || !rhs || !kind || tooBigToFold(type))
    return {};
  Type i1 = type.getElementType();
  return withComputeType(tensorType(getLhs()).getElementType(), [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return mapTyped<T>({lhs, rhs}, type, [&](ArrayRef<T> a) -> Attribute {
      return IntegerAttr::get(i1, rt::compareScalar<T>(*kind, a[0], a[1]));
    });
  });
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  auto type = tensorType(getOutput());
  if (getOnTrue() == getOnFalse() && getOnTrue().getType() == type)
    return getOnTrue();
  auto c = smallDense(adaptor.getCondition());
  auto t = smallDense(adaptor.getOnTrue());
  auto f = smallDense(adaptor.getOnFalse());
  if (!c || !t || !f || tooBigToFold(type))
    return {};
  return mapElements({c, t, f}, type,
                     [](ArrayRef<Scalar> a) -> std::optional<Scalar> {
                       return a[0].i ? a[1] : a[2];
                     });
}

OpFoldResult ReduceOp::fold(FoldAdaptor adaptor) {
  auto input = smallDense(adaptor.getInput());
  if (!input)
    return {};
  auto inType = tensorType(getInput());
  auto outType = tensorType(getOutput());
  ArrayRef<int64_t> inShape = inType.getShape();
  SmallVector<bool> reduced(inShape.size(), false);
  for (int64_t a : getAxes())
    reduced[a] = true;
  // Accumulate into the keep_dims-shaped result, whose linear order equals the
  // result's whether or not the reduced dimensions are kept.
  SmallVector<int64_t> keptShape;
  int64_t count = 1;
  for (size_t d = 0; d < inShape.size(); ++d) {
    keptShape.push_back(reduced[d] ? 1 : inShape[d]);
    if (reduced[d])
      count *= inShape[d];
  }
  ReduceKind kind = getKind();
  if (kind == ReduceKind::l2 || kind == ReduceKind::sum_square)
    return {};
  int64_t outCount = outType.getNumElements();
  SmallVector<double> accF(outCount);
  SmallVector<int64_t> accI(outCount);
  SmallVector<bool> seen(outCount, false);
  auto values = input.getValues<Attribute>();
  SmallVector<int64_t> idx;
  for (int64_t i = 0, e = inType.getNumElements(); i < e; ++i) {
    delinearize(i, inShape, idx);
    for (size_t d = 0; d < idx.size(); ++d)
      if (reduced[d])
        idx[d] = 0;
    int64_t o = linearize(idx, keptShape);
    Scalar v = toScalar(values[i]);
    if (!seen[o]) {
      seen[o] = true;
      accF[o] = kind == ReduceKind::prod ? 1.0 : (kind == ReduceKind::max ||
                                                  kind == ReduceKind::min)
                                                     ? v.f
                                                     : 0.0;
      accI[o] = kind == ReduceKind::prod ? 1 : (kind == ReduceKind::max ||
                                                kind == ReduceKind::min)
                                                   ? v.i
                                                   : 0;
    }
    switch (kind) {
    case ReduceKind::sum:
    case ReduceKind::mean:
      accF[o] += v.f, accI[o] += v.i;
      break;
    case ReduceKind::prod:
      accF[o] *= v.f, accI[o] *= v.i;
      break;
    case ReduceKind::max:
      accF[o] = std::max(accF[o], v.f), accI[o] = std::max(accI[o], v.i);
      break;
    case ReduceKind::min:
      accF[o] = std::min(accF[o], v.f), accI[o] = std::min(accI[o], v.i);
      break;
    default:
      return {};
    }
  }
  SmallVector<Attribute> out;
  for (int64_t o = 0; o < outCount; ++o) {
    Scalar s;
    s.f = accF[o];
    s.i = accI[o];
    if (kind == ReduceKind::mean && count) {
      s.f /= count;
      s.i /= count;
    }
    out.push_back(fromScalar(outType.getElementType(), s));
  }
  return DenseElementsAttr::get(outType, out);
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto it) {
    return static_cast<int64_t>(it.index()) == it.value();
  });
  if (identity)
    return getInput();
  auto input = smallDense(adaptor.getInput());
  if (!input)
    return {};
  ArrayRef<int64_t> inShape = tensorType(getInput()).getShape();
  SmallVector<int64_t> inIdx(perm.size());
  return remapElements(input, tensorType(getOutput()),
                       [&](ArrayRef<int64_t> idx) {
                         for (size_t d = 0; d < perm.size(); ++d)
                           inIdx[perm[d]] = idx[d];
                         return linearize(inIdx, inShape);
                       });
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getOutput().getType())
    return getInput();
  auto input = smallDense(adaptor.getInput());
  auto type = tensorType(getOutput());
  if (!input || tooBigToFold(type))
    return {};
  ArrayRef<int64_t> inShape = tensorType(getInput()).getShape();
  return remapElements(input, type, [&](ArrayRef<int64_t> idx) {
    return broadcastIndex(idx, inShape);
  });
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  auto data = smallDense(adaptor.getData());
  auto indices = smallDense(adaptor.getIndices());
  if (!data || !indices)
    return {};
  int64_t axis = getAxis();
  ArrayRef<int64_t> dataShape = tensorType(getData()).getShape();
  int64_t indexRank = tensorType(getIndices()).getRank();
  SmallVector<int64_t> index;
  for (APInt v : indices.getValues<APInt>()) {
    int64_t i = v.getSExtValue();
    if (i < 0)
      i += dataShape[axis];
    if (i < 0 || i >= dataShape[axis])
      return {}; // out of range: left for the runtime to report
    index.push_back(i);
  }
  ArrayRef<int64_t> indexShape = tensorType(getIndices()).getShape();
  SmallVector<int64_t> dataIdx(dataShape.size());
  return remapElements(data, tensorType(getOutput()),
                       [&](ArrayRef<int64_t> idx) {
                         for (int64_t d = 0; d < axis; ++d)
                           dataIdx[d] = idx[d];
                         dataIdx[axis] = index[linearize(
                             idx.slice(axis, indexRank), indexShape)];
                         for (size_t d = axis + 1; d < dataShape.size(); ++d)
                           dataIdx[d] = idx[d - 1 + indexRank];
                         return linearize(dataIdx, dataShape);
                       });
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1 &&
      getInputs().front().getType() == getOutput().getType())
    return getInputs().front();
  SmallVector<DenseElementsAttr> inputs;
  for (Attribute a : adaptor.getInputs()) {
    auto d = smallDense(a);
    if (!d)
      return {};
    inputs.push_back(d);
  }
  auto type = tensorType(getOutput());
  if (tooBigToFold(type))
    return {};
  int64_t axis = getAxis();
  SmallVector<SmallVector<Attribute>> values;
  for (DenseElementsAttr d : inputs)
    values.push_back(llvm::to_vector(d.getValues<Attribute>()));
  SmallVector<Attribute> out;
  SmallVector<int64_t> idx;
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    delinearize(i, type.getShape(), idx);
    int64_t pos = idx[axis];
    size_t k = 0;
    while (pos >= inputs[k].getType().getShape()[axis]) {
      pos -= inputs[k].getType().getShape()[axis];
      ++k;
    }
    idx[axis] = pos;
    out.push_back(values[k][linearize(idx, inputs[k].getType().getShape())]);
  }
  return DenseElementsAttr::get(type, out);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getOutput().getType() &&
      llvm::all_of(getStarts(), [](int64_t s) { return s == 0; }) &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getInput();
  auto input = smallDense(adaptor.getInput());
  if (!input)
    return {};
  ArrayRef<int64_t> inShape = tensorType(getInput()).getShape();
  ArrayRef<int64_t> starts = getStarts(), steps = getSteps();
  SmallVector<int64_t> inIdx(inShape.size());
  return remapElements(input, tensorType(getOutput()),
                       [&](ArrayRef<int64_t> idx) {
                         for (size_t d = 0; d < inShape.size(); ++d)
                           inIdx[d] = starts[d] + idx[d] * steps[d];
                         return linearize(inIdx, inShape);
                       });
}
