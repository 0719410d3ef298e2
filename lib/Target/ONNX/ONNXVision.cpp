//===- ONNXVision.cpp - per-image normalisation and sampling --------------===//
//
// Part of opscope. Converters for the image ops of vision and style-transfer
// models: InstanceNormalization, MeanVarianceNormalization, LRN.
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
using llvm::SmallVectorImpl;

void opscope::onnx_import::addVisionConverters(llvm::StringMap<Converter> &m) {
  // InstanceNormalization (opsets 1 and 6; 6 dropped consumed_inputs):
  // osc.instance_norm, one pass per sample's channel for its statistics
  // and one that writes, against the ten of a reduce/elementwise
  // composition.
  m["InstanceNormalization"] = [](NodeContext &c,
                                  SmallVectorImpl<Value> &out) {
    Value x = c.input(0), scale = c.input(1), bias = c.input(2);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    auto xt = typeOf(x);
    if (xt.getRank() < 3) {
      c.error() << "expects an N x C x D1 x ... input (rank 3 or more), got "
                << formatShape(xt.getShape());
      return failure();
    }
    for (Value v : {scale, bias})
      if (typeOf(v).getRank() != 1 ||
          typeOf(v).getDimSize(0) != xt.getDimSize(1) ||
          elemOf(v) != elemOf(x)) {
        c.error() << "scale and bias must be " << xt.getDimSize(1)
                  << " elements of " << elemOf(x)
                  << " (one per channel), got " << v.getType();
        return failure();
      }
    out.push_back(c.create<InstanceNormOp>(
        x.getType(), x, scale, bias,
        c.b.getF32FloatAttr(c.floatAttr("epsilon", 1e-5f))));
    return success();
  };
  // MeanVarianceNormalization (opsets 9, 13): y = (x - mean) / (std +
  // 1e-9) over `axes` (default N, H, W), lowered to osc.reduce and
  // elementwise ops. ONNX's function body takes the variance as
  // E[x^2] - E[x]^2; this takes E[(x - mean)^2], equal in exact arithmetic
  // and never negative (the body's form can round below zero and give NaN
  // for a constant slice). A rare op, left as a composition.
  m["MeanVarianceNormalization"] = [](NodeContext &c,
                                      SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    auto xt = typeOf(x);
    auto axes = c.normalizeAxes(
        c.intsAttr("axes").value_or(SmallVector<int64_t>{0, 2, 3}),
        xt.getRank());
    if (failed(axes))
      return failure();
    llvm::sort(*axes);
    SmallVector<int64_t> statShape(xt.getShape());
    for (int64_t a : *axes)
      statShape[a] = 1;
    auto mean = [&](Value v) {
      return c.create<ReduceOp>(
          tensorOf(statShape, elemOf(x)),
          ReduceKindAttr::get(c.b.getContext(), ReduceKind::mean), v,
          i64Array(c, *axes), c.b.getUnitAttr());
    };
    auto centered = binary(c, BinaryKind::sub, x, mean(x));
    if (failed(centered))
      return failure();
    auto squared = binary(c, BinaryKind::mul, *centered, *centered);
    if (failed(squared))
      return failure();
    auto dev = binary(c, BinaryKind::add,
                      unary(c, UnaryKind::sqrt, mean(*squared)),
                      splat(c, {}, elemOf(x), 1e-9));
    if (failed(dev))
      return failure();
    auto y = binary(c, BinaryKind::div, *centered, *dev);
    if (failed(y))
      return failure();
    out.push_back(*y);
    return success();
  };
  // LRN (opsets 1, 13): osc.lrn, the window's squares summed per channel
  // row and the power taken in the same pass.
  m["LRN"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    auto xt = typeOf(x);
    int64_t size = c.intAttr("size", 0);
    if (xt.getRank() < 2 || size < 1) {
      c.error() << "expects an N x C x ... input and a size of at least 1, "
                   "got "
                << formatShape(xt.getShape()) << " and size " << size;
      return failure();
    }
    out.push_back(c.create<LrnOp>(
        x.getType(), x, c.b.getF32FloatAttr(c.floatAttr("alpha", 1e-4f)),
        c.b.getF32FloatAttr(c.floatAttr("beta", 0.75f)),
        c.b.getF32FloatAttr(c.floatAttr("bias", 1.0f)),
        c.b.getI64IntegerAttr(size)));
    return success();
  };
}
