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

LogicalResult MaxUnpoolOp::verify() {
  auto in = tensorType(getInput()).getShape();
  auto out = tensorType(getOutput()).getShape();
  if (tensorType(getIndices()).getShape() != in)
    return emitOpError("indices shape ")
           << shapeOf(getIndices()) << " must equal the input's "
           << formatShape(in);
  if (failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")))
    return failure();
  if (in.size() < 3 || out.size() != in.size() || out[0] != in[0] ||
      out[1] != in[1])
    return emitOpError("result shape ")
           << formatShape(out) << " must be N x C x spatial... like the input "
           << formatShape(in);
  return success();
}

LogicalResult GridSampleOp::verify() {
  auto in = tensorType(getInput()).getShape();
  auto grid = tensorType(getGrid()).getShape();
  int64_t k = static_cast<int64_t>(in.size()) - 2;
  if (k < 1 || static_cast<int64_t>(grid.size()) != k + 2 ||
      grid[0] != in[0] || grid.back() != k)
    return emitOpError("expects an N x C x D1..Dk input and an N x O1..Ok "
                       "x k grid, got ")
           << formatShape(in) << " and " << formatShape(grid);
  if (failed(verifySameElementType(*this, getInput(), "input", getGrid(),
                                   "grid")) ||
      failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")))
    return failure();
  SmallVector<int64_t> expected{in[0], in[1]};
  expected.append(grid.begin() + 1, grid.end() - 1);
  return verifyResultShape(*this, getOutput(), expected);
}

LogicalResult RoiAlignOp::verify() {
  auto in = tensorType(getInput()).getShape();
  auto rois = tensorType(getRois()).getShape();
  auto idx = tensorType(getBatchIndices()).getShape();
  auto out = tensorType(getOutput()).getShape();
  if (in.size() != 4 || rois.size() != 2 || rois[1] != 4 || idx.size() != 1 ||
      idx[0] != rois[0])
    return emitOpError("expects an N x C x H x W input, R x 4 rois and R "
                       "batch indices, got ")
           << formatShape(in) << ", " << formatShape(rois) << " and "
           << formatShape(idx);
  if (failed(verifySameElementType(*this, getInput(), "input", getRois(),
                                   "rois")) ||
      failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")))
    return failure();
  if (out.size() != 4 || out[0] != rois[0] || out[1] != in[1] || out[2] < 1 ||
      out[3] < 1)
    return emitOpError("result shape ")
           << formatShape(out) << " must be R x C x OH x OW";
  if (getSamplingRatio() < 0)
    return emitOpError("sampling_ratio must not be negative");
  return success();
}

LogicalResult IndexedMaxPoolOp::verify() {
  if (failed(verifyPoolLike(*this)))
    return failure();
  if (getStorageOrder() != 0 && getStorageOrder() != 1)
    return emitOpError("storage_order must be 0 (row major) or 1 (column "
                       "major), got ")
           << getStorageOrder();
  if (Value i = getIndices())
    if (tensorType(i).getShape() != tensorType(getOutput()).getShape())
      return emitOpError("indices ")
             << shapeOf(i) << " must have the output's shape "
             << shapeOf(getOutput());
  return success();
}
