//===- ONNXVision.cpp - per-image normalisation and sampling --------------===//
//
// Part of opscope. Converters for the image ops of vision and style-transfer
// models: InstanceNormalization.
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
}
