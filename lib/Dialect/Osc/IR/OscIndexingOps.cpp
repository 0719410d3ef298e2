//===- OscIndexingOps.cpp - verifiers of the indexing ops -----------------===//
//
// Part of opscope. The verifiers of the ops of OscIndexingOps.td (cumsum,
// top_k, gather_nd, scatter_nd, scatter_elements, reverse_sequence).
//
//===----------------------------------------------------------------------===//

#include "OscVerify.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::osc::verify;

/// `axis` is a dimension of a tensor of `rank`.
static LogicalResult verifyAxis(Operation *op, int64_t axis, size_t rank,
                                StringRef what = "axis") {
  if (axis < 0 || axis >= static_cast<int64_t>(rank))
    return op->emitOpError()
           << what << " " << axis << " is out of range for rank " << rank;
  return success();
}

LogicalResult CumSumOp::verify() {
  if (failed(verifyAxis(*this, getAxis(), tensorType(getInput()).getRank())))
    return failure();
  if (tensorType(getInput()) != tensorType(getOutput()))
    return emitOpError("result type ")
           << getOutput().getType() << " differs from input type "
           << getInput().getType();
  return success();
}

LogicalResult TopKOp::verify() {
  auto in = tensorType(getInput()).getShape();
  int64_t axis = getAxis();
  if (failed(verifyAxis(*this, axis, in.size())))
    return failure();
  if (failed(verifySameElementType(*this, getInput(), "input", getValues(),
                                   "values")))
    return failure();
  auto values = tensorType(getValues()).getShape();
  if (values.size() != in.size() || values[axis] > in[axis])
    return emitOpError("values ")
           << formatShape(values) << " must keep at most the input's "
           << in[axis] << " elements along axis " << axis << " of input "
           << formatShape(in);
  SmallVector<int64_t> expected(in);
  expected[axis] = values[axis];
  if (failed(verifyResultShape(*this, getValues(), expected)))
    return failure();
  return verifyResultShape(*this, getIndices(), expected);
}
