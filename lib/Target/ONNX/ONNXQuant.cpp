//===- ONNXQuant.cpp - QuantizeLinear, DequantizeLinear, ... --------------===//
//
// Part of opscope's ONNX importer. The quantization ops of int8 models that
// other tools export: QuantizeLinear, DequantizeLinear (folded into an f32
// constant when it dequantizes a constant: quantized weights become f32
// weights the fusion passes see), DynamicQuantizeLinear, MatMulInteger,
// ConvInteger, QLinearMatMul as matmul_integer -> dequantize_linear ->
// quantize_linear, and QLinearConv as conv_integer -> dequantize_linear
// (+ the dequantized bias) -> quantize_linear.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "ONNXHelpers.h"

#include "opscope/Dialect/Osc/IR/OscShapes.h"
#include "opscope/Dialect/Osc/IR/OscUtils.h"

#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

namespace {
/// The integer values of a constant (dense or dense_resource) of u8, i8 or
/// i32 elements.
std::optional<std::vector<int32_t>> integerConstant(Value v) {
  auto c = v ? v.getDefiningOp<ConstantOp>() : ConstantOp();
  if (!c)
    return std::nullopt;
  auto type = typeOf(v);
  auto it = dyn_cast<IntegerType>(type.getElementType());
  if (!it || (it.getWidth() != 8 && it.getWidth() != 32))
    return std::nullopt;
  std::vector<int32_t> out;
  out.reserve(type.getNumElements());
  if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue())) {
    for (const APInt &x : dense.getValues<APInt>())
      out.push_back(static_cast<int32_t>(it.isUnsigned() ? x.getZExtValue()
                                                         : x.getSExtValue()));
    return out;
  }
  auto res = dyn_cast<DenseResourceElementsAttr>(c.getValue());
  AsmResourceBlob *blob = res ? res.getRawHandle().getBlob() : nullptr;
  size_t width = it.getWidth() / 8;
  if (!blob || blob->getData().size() != type.getNumElements() * width)
    return std::nullopt;
  ArrayRef<char> d = blob->getData();
  for (int64_t i = 0; i < type.getNumElements(); ++i) {
    if (width == 4) {
      int32_t x;
      std::memcpy(&x, d.data() + 4 * i, 4);
      out.push_back(x);
    } else {
      out.push_back(it.isUnsigned() ? static_cast<uint8_t>(d[i])
                                    : static_cast<int8_t>(d[i]));
    }
  }
  return out;
}

/// Checks a scale (f32, 0-D or 1-D) and its zero point, and normalizes the
/// axis against the data's rank.
FailureOr<int64_t> quantAxis(NodeContext &c, Value data, Value scale,
                             Value zero) {
  if (!elemOf(scale).isF32()) {
    c.error() << "scale must be f32, got " << elemOf(scale);
    return failure();
  }
  // A constant scale (every exporter's) must be positive and finite: a zero
  // scale divides by zero, a negative one flips the grid.
  if (auto values = readF32Constant(scale))
    for (float v : *values)
      if (!(v > 0) || !std::isfinite(v)) {
        c.error() << "scale '" << tensorName(scale) << "' holds " << v
                  << "; quantization scales must be positive and finite";
        return failure();
      }
  int64_t rank = typeOf(data).getRank();
  // Opset 21's blocked quantization: a scale per block of block_size
  // elements along the axis.
  if (int64_t block = c.intAttr("block_size", 0)) {
    c.error() << "blocked quantization (block_size " << block
              << ", model opset " << c.opset << ") is not supported";
    return failure();
  }
  if (typeOf(scale).getNumElements() == 1 && typeOf(scale).getRank() <= 1) {
    if (zero && typeOf(zero).getNumElements() != 1) {
      c.error() << "zero point " << typeOf(zero)
                << " has more elements than the scale";
      return failure();
    }
    return int64_t(0); // per tensor (also a 1-element 1-D scale)
  }
  auto axis = c.normalizeAxis(c.intAttr("axis", 1), rank);
  if (failed(axis))
    return failure();
  if (typeOf(scale).getRank() > 1) {
    c.error() << "only per-tensor and per-axis quantization is supported "
                 "(scale of shape "
              << typeOf(scale) << ")";
    return failure();
  }
  if (typeOf(scale).getDimSize(0) != typeOf(data).getDimSize(*axis)) {
    c.error() << "per-axis scale has " << typeOf(scale).getDimSize(0)
              << " elements, dimension " << *axis << " has "
              << typeOf(data).getDimSize(*axis);
    return failure();
  }
  if (zero && typeOf(zero).getShape() != typeOf(scale).getShape()) {
    c.error() << "zero point shape " << typeOf(zero)
              << " differs from the scale's " << typeOf(scale);
    return failure();
  }
  return *axis;
}

LogicalResult dequantize(NodeContext &c, SmallVectorImpl<Value> &out) {
  Value x = c.input(0), s = c.input(1), z = c.input(2);
  Type e = elemOf(x);
  if (!(e.isInteger(8) || e.isSignlessInteger(32))) {
    c.error() << "input must be uint8, int8 or int32, got " << e;
    return failure();
  }
  if (z && elemOf(z) != e) {
    c.error() << "zero point type " << elemOf(z) << " differs from the input's "
              << e;
    return failure();
  }
  auto axis = quantAxis(c, x, s, z);
  if (failed(axis))
    return failure();
  auto type = tensorOf(typeOf(x).getShape(), c.b.getF32Type());
  // A constant (a quantized weight) dequantizes now, into an f32 weight.
  auto xv = integerConstant(x);
  auto sv = readF32Constant(s);
  std::optional<std::vector<int32_t>> zv;
  if (z)
    zv = integerConstant(z);
  if (xv && sv && (!z || zv)) {
    int64_t channels = static_cast<int64_t>(sv->size());
    int64_t inner = 1;
    if (typeOf(s).getRank() == 1)
      for (int64_t d = *axis + 1; d < typeOf(x).getRank(); ++d)
        inner *= typeOf(x).getDimSize(d);
    std::vector<float> values(xv->size());
    for (size_t i = 0; i < values.size(); ++i) {
      int64_t ch = channels == 1 ? 0 : (static_cast<int64_t>(i) / inner) % channels;
      values[i] = static_cast<float>((*xv)[i] - (zv ? (*zv)[ch] : 0)) * (*sv)[ch];
    }
    std::string name = c.node.output(0);
    out.push_back(c.b.create<ConstantOp>(
        c.loc, makeF32Weight(type, values, name.empty() ? "dequantized" : name)));
    return success();
  }
  out.push_back(c.b.create<DequantizeLinearOp>(
      c.loc, type, x, s, z, c.b.getI64IntegerAttr(*axis)));
  return success();
}

LogicalResult quantize(NodeContext &c, SmallVectorImpl<Value> &out) {
  Value x = c.input(0), s = c.input(1), z = c.input(2);
  if (!elemOf(x).isF32()) {
    c.error() << "input must be float, got " << elemOf(x);
    return failure();
  }
  Type u8 = IntegerType::get(c.b.getContext(), 8, IntegerType::Unsigned);
  Type e = z ? elemOf(z) : u8;
  // Opset 21: output_dtype names the output's type (the zero point's, when
  // there is one).
  if (int64_t dtype = c.intAttr("output_dtype", 0)) {
    Type named = elementTypeFor(dtype, c.b.getContext());
    if (!named || (z && named != e)) {
      c.error() << "output_dtype " << onnxTypeName(dtype)
                << (z ? " differs from the zero point's type"
                      : " is not supported");
      return failure();
    }
    e = named;
  }
  if (!e.isInteger(8)) {
    c.error() << "only uint8 and int8 quantization is supported, got "
              << e;
    return failure();
  }
  auto axis = quantAxis(c, x, s, z);
  if (failed(axis))
    return failure();
  out.push_back(c.b.create<QuantizeLinearOp>(
      c.loc, tensorOf(typeOf(x).getShape(), e), x, s, z,
      c.b.getI64IntegerAttr(*axis)));
  return success();
}

/// MatMulInteger's checks, shared with QLinearMatMul.
FailureOr<Value> matmulInteger(NodeContext &c, Value a, Value b, Value az,
                               Value bz) {
  auto at = typeOf(a), bt = typeOf(b);
  if (!at.getElementType().isInteger(8) || !bt.getElementType().isInteger(8)) {
    c.error() << "operands must be uint8 or int8, got " << at << " and " << bt;
    return failure();
  }
  if (at.getRank() < 2 || bt.getRank() < 2) {
    c.error() << "1-D operands are not supported (got " << at << " and " << bt
              << ")";
    return failure();
  }
  int64_t k = at.getDimSize(at.getRank() - 1);
  if (bt.getDimSize(bt.getRank() - 2) != k) {
    c.error() << "contraction sizes differ: " << at << " and " << bt;
    return failure();
  }
  auto batch = broadcastShapes(at.getShape().drop_back(2), bt.getShape().drop_back(2));
  if (!batch) {
    c.error() << "batch dimensions of " << at << " and " << bt
              << " do not broadcast";
    return failure();
  }
  SmallVector<int64_t> shape(*batch);
  shape.append({at.getDimSize(at.getRank() - 2), bt.getDimSize(bt.getRank() - 1)});
  for (auto [zp, t, what] : {std::tuple{az, at, "a"}, std::tuple{bz, bt, "b"}})
    if (zp && elemOf(zp) != t.getElementType()) {
      c.error() << what << "_zero_point type " << elemOf(zp)
                << " differs from " << what << "'s";
      return failure();
    }
  int64_t m = at.getDimSize(at.getRank() - 2), n = bt.getDimSize(bt.getRank() - 1);
  for (auto [zp, rows, what] :
       {std::tuple{az, m, "a"}, std::tuple{bz, n, "b"}})
    if (zp && typeOf(zp).getNumElements() != 1 &&
        !(typeOf(zp).getRank() == 1 && typeOf(zp).getDimSize(0) == rows)) {
      c.error() << what << "_zero_point must be a scalar or have " << rows
                << " elements, got " << typeOf(zp);
      return failure();
    }
  return c.b
      .create<MatMulIntegerOp>(c.loc, tensorOf(shape, c.b.getI32Type()), a, b,
                               az, bz)
      .getOutput();
}

/// ConvInteger's checks, shared with QLinearConv: u8/i8 N x C x spatial...
/// input (1 to 3 spatial dims), a weight of the same rank, zero points per
/// tensor (input) or per tensor or output channel (weight).
FailureOr<Value> convInteger(NodeContext &c, Value x, Value w, Value xz,
                             Value wz) {
  auto xt = typeOf(x), wt = typeOf(w);
  if (!xt.getElementType().isInteger(8) || !wt.getElementType().isInteger(8)) {
    c.error() << "input and weight must be uint8 or int8, got " << xt
              << " and " << wt;
    return failure();
  }
  if (xt.getRank() < 3 || xt.getRank() > 5 || wt.getRank() != xt.getRank()) {
    c.error() << "expects N x C x spatial... input (1 to 3 spatial dims) and "
                 "a weight of the same rank, got "
              << formatShape(xt.getShape()) << " and "
              << formatShape(wt.getShape());
    return failure();
  }
  auto win =
      readWindow(c, wt.getShape().drop_front(2), xt.getShape().drop_front(2));
  if (failed(win))
    return failure();
  int64_t groups = c.intAttr("group", 1);
  if (groups < 1 || xt.getDimSize(1) % groups || wt.getDimSize(0) % groups ||
      wt.getDimSize(1) * groups != xt.getDimSize(1)) {
    c.error() << "weight " << formatShape(wt.getShape()) << " and input "
              << formatShape(xt.getShape()) << " do not agree with group="
              << groups;
    return failure();
  }
  for (auto [zp, t, perChannel, what] :
       {std::tuple{xz, xt, int64_t(0), "x"},
        std::tuple{wz, wt, wt.getDimSize(0), "w"}}) {
    if (!zp)
      continue;
    if (elemOf(zp) != t.getElementType()) {
      c.error() << what << "_zero_point type " << elemOf(zp) << " differs from "
                << what << "'s";
      return failure();
    }
    if (typeOf(zp).getNumElements() != 1 &&
        !(perChannel && typeOf(zp).getRank() == 1 &&
          typeOf(zp).getDimSize(0) == perChannel)) {
      c.error() << what << "_zero_point must be a scalar"
                << (perChannel ? " or have one element per output channel"
                               : "")
                << ", got " << typeOf(zp);
      return failure();
    }
  }
  SmallVector<int64_t> shape = {xt.getDimSize(0), wt.getDimSize(0)};
  size_t n = win->kernel.size();
  for (size_t i = 0; i < n; ++i) {
    int64_t out = windowOutputSize(xt.getDimSize(2 + i), win->kernel[i],
                                   win->strides[i], win->pads[i],
                                   win->pads[n + i], win->dilations[i]);
    if (out < 1) {
      c.error() << "the kernel window does not fit spatial dimension " << i;
      return failure();
    }
    shape.push_back(out);
  }
  if (xz && typeOf(xz).getRank() != 0)
    xz = reshape(c, xz, {});
  if (wz && typeOf(wz).getNumElements() == 1 && typeOf(wz).getRank() != 0)
    wz = reshape(c, wz, {});
  return c.b
      .create<ConvIntegerOp>(c.loc, tensorOf(shape, c.b.getI32Type()), x, w,
                             xz, wz, i64Array(c, win->strides),
                             i64Array(c, win->pads),
                             i64Array(c, win->dilations),
                             c.b.getI64IntegerAttr(groups))
      .getOutput();
}
} // namespace

void opscope::onnx_import::addQuantConverters(llvm::StringMap<Converter> &m) {
  m["QuantizeLinear"] = quantize;
  m["DequantizeLinear"] = dequantize;
  m["DynamicQuantizeLinear"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    if (!elemOf(x).isF32()) {
      c.error() << "input must be float, got " << elemOf(x);
      return failure();
    }
    Type u8 = IntegerType::get(c.b.getContext(), 8, IntegerType::Unsigned);
    Type types[] = {tensorOf(typeOf(x).getShape(), u8),
                    tensorOf({}, c.b.getF32Type()), tensorOf({}, u8)};
    for (int part = 0; part < 3; ++part)
      out.push_back(c.outputUsed(part) || part == 0
                        ? c.b.create<DynamicQuantizeLinearOp>(
                              c.loc, types[part], x,
                              c.b.getI64IntegerAttr(part))
                              .getOutput()
                        : Value());
    return success();
  };
  m["MatMulInteger"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    auto y = matmulInteger(c, c.input(0), c.input(1), c.input(2), c.input(3));
    if (failed(y))
      return failure();
    out.push_back(*y);
    return success();
  };
  m["ConvInteger"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    auto y = convInteger(c, c.input(0), c.input(1), c.input(2), c.input(3));
    if (failed(y))
      return failure();
    out.push_back(*y);
    return success();
  };
  m["QLinearConv"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    // x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
    // y_zero_point, B (i32, quantized with x_scale * w_scale).
    Value xs = c.input(1), ws = c.input(4), ys = c.input(6), yz = c.input(7);
    for (auto [v, what] : {std::pair{xs, "x_scale"}, std::pair{ys, "y_scale"}})
      if (typeOf(v).getNumElements() != 1 || !elemOf(v).isF32()) {
        c.error() << what << " must be a float scalar (per tensor), got "
                  << typeOf(v);
        return failure();
      }
    auto acc = convInteger(c, c.input(0), c.input(3), c.input(2), c.input(5));
    if (failed(acc))
      return failure();
    int64_t oc = typeOf(*acc).getDimSize(1), rank = typeOf(*acc).getRank();
    if (!elemOf(ws).isF32() ||
        (typeOf(ws).getNumElements() != 1 &&
         !(typeOf(ws).getRank() == 1 && typeOf(ws).getDimSize(0) == oc))) {
      c.error() << "w_scale must be a float scalar or have one element per "
                   "output channel ("
                << oc << "), got " << typeOf(ws);
      return failure();
    }
    // acc x (x_scale x w_scale), per output channel (axis 1).
    auto scale = binary(c, BinaryKind::mul, reshape(c, xs, {}),
                        reshape(c, ws, typeOf(ws).getNumElements() == 1
                                           ? SmallVector<int64_t>{}
                                           : SmallVector<int64_t>{oc}));
    if (failed(scale))
      return failure();
    Type f32 = c.b.getF32Type();
    Value y = c.b.create<DequantizeLinearOp>(
        c.loc, tensorOf(typeOf(*acc).getShape(), f32), *acc, *scale, Value(),
        c.b.getI64IntegerAttr(1));
    if (Value bias = c.input(8)) {
      if (!elemOf(bias).isSignlessInteger(32) || typeOf(bias).getRank() != 1 ||
          typeOf(bias).getDimSize(0) != oc) {
        c.error() << "B must be int32 with one element per output channel ("
                  << oc << "), got " << typeOf(bias);
        return failure();
      }
      Value b = c.b.create<DequantizeLinearOp>(c.loc, tensorOf({oc}, f32), bias,
                                               *scale, Value(),
                                               c.b.getI64IntegerAttr(0));
      SmallVector<int64_t> bshape(rank - 1, 1);
      bshape[0] = oc;
      auto sum = binary(c, BinaryKind::add, y, reshape(c, b, bshape));
      if (failed(sum))
        return failure();
      y = *sum;
    }
    Type u8 = IntegerType::get(c.b.getContext(), 8, IntegerType::Unsigned);
    Type e = yz ? elemOf(yz) : u8;
    out.push_back(c.b.create<QuantizeLinearOp>(
        c.loc, tensorOf(typeOf(y).getShape(), e), y, reshape(c, ys, {}),
        yz ? reshape(c, yz, {}) : Value(), c.b.getI64IntegerAttr(1)));
    return success();
  };
  m["QLinearMatMul"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    // a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
    // y_zero_point.
    Value as = c.input(1), bs = c.input(4);
    if (typeOf(as).getNumElements() != 1) {
      c.error() << "per-row a_scale is not supported (got " << typeOf(as)
                << ")";
      return failure();
    }
    auto acc = matmulInteger(c, c.input(0), c.input(3), c.input(2), c.input(5));
    if (failed(acc))
      return failure();
    // (a - az)(b - bz) * (a_scale * b_scale), then quantized to y.
    int64_t n = typeOf(*acc).getDimSize(typeOf(*acc).getRank() - 1);
    auto abShape = typeOf(bs).getNumElements() == 1 ? SmallVector<int64_t>{}
                                                    : SmallVector<int64_t>{n};
    Value a0 = reshape(c, as, {});
    Value b0 = reshape(c, bs, abShape);
    auto prod = binary(c, BinaryKind::mul, a0, b0);
    if (failed(prod))
      return failure();
    int64_t rank = typeOf(*acc).getRank();
    Value dq = c.b.create<DequantizeLinearOp>(
        c.loc, tensorOf(typeOf(*acc).getShape(), c.b.getF32Type()), *acc,
        *prod, Value(), c.b.getI64IntegerAttr(rank - 1));
    Value ys = c.input(6), yz = c.input(7);
    Type u8 = IntegerType::get(c.b.getContext(), 8, IntegerType::Unsigned);
    Type e = yz ? elemOf(yz) : u8;
    if (typeOf(ys).getNumElements() != 1) {
      c.error() << "per-axis y_scale is not supported";
      return failure();
    }
    out.push_back(c.b.create<QuantizeLinearOp>(
        c.loc, tensorOf(typeOf(dq).getShape(), e), dq, reshape(c, ys, {}),
        yz ? reshape(c, yz, {}) : Value(), c.b.getI64IntegerAttr(1)));
    return success();
  };
}
