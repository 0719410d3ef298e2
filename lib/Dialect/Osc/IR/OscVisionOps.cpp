//===- OscVisionOps.cpp - verifiers of the image ops ----------------------===//
//
// Part of opscope. instance_norm and the other per-image ops of
// OscVisionOps.td.
//
//===----------------------------------------------------------------------===//

#include "OscVerify.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::osc::verify;

LogicalResult InstanceNormOp::verify() {
  auto in = tensorType(getInput()).getShape();
  if (in.size() < 2)
    return emitOpError("input must be N x C x ..., got shape ")
           << formatShape(in);
  if (getOutput().getType() != getInput().getType())
    return emitOpError("result type must equal the input type");
  std::pair<Value, StringRef> params[] = {{getScale(), "scale"},
                                          {getBias(), "bias"}};
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

LogicalResult LrnOp::verify() {
  auto in = tensorType(getInput()).getShape();
  if (in.size() < 2)
    return emitOpError("input must be N x C x ..., got shape ")
           << formatShape(in);
  if (getSize() < 1)
    return emitOpError("size must be at least 1, got ") << getSize();
  return success();
}
