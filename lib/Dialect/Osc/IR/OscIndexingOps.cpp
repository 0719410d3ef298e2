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
