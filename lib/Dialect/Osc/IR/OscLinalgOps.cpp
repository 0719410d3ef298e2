//===- OscLinalgOps.cpp - verifiers of the linear-algebra ops -------------===//
//
// Part of opscope. einsum and det (OscLinalgOps.td).
//
//===----------------------------------------------------------------------===//

#include "OscVerify.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::osc::verify;

LogicalResult EinsumOp::verify() {
  ArrayRef<int64_t> labels = getLabels();
  auto out = tensorType(getOutput());
  size_t total = out.getRank();
  for (Value v : getInputs()) {
    total += tensorType(v).getRank();
    if (failed(verifySameElementType(*this, v, "input", getOutput(),
                                     "result")))
      return failure();
  }
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  if (labels.size() != total)
    return emitOpError("has ")
           << labels.size() << " labels for " << total
           << " dimensions (the inputs' and the result's)";
  // Each label's size: equal wherever it appears, or 1 in an input
  // (broadcast).
  llvm::DenseMap<int64_t, int64_t> size;
  size_t pos = 0;
  for (Value v : getInputs())
    for (int64_t d : tensorType(v).getShape()) {
      int64_t l = labels[pos++];
      if (l < 0 || l >= 128)
        return emitOpError("label ") << l << " is not in [0, 128)";
      auto [it, fresh] = size.try_emplace(l, d);
      if (!fresh && it->second != d && d != 1) {
        if (it->second != 1)
          return emitOpError("label ")
                 << l << " has sizes " << it->second << " and " << d;
        it->second = d;
      }
    }
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t d : out.getShape()) {
    int64_t l = labels[pos++];
    if (!seen.insert(l).second)
      return emitOpError("output label ") << l << " appears twice";
    auto it = size.find(l);
    if (it == size.end())
      return emitOpError("output label ") << l << " is in no input";
    if (it->second != d)
      return emitOpError("output dimension of label ")
             << l << " is " << d << ", the inputs give " << it->second;
  }
  return success();
}

LogicalResult DetOp::verify() {
  auto in = tensorType(getInput()).getShape();
  if (in.size() < 2 || in[in.size() - 1] != in[in.size() - 2])
    return emitOpError("input must be ... x n x n, got shape ")
           << formatShape(in);
  if (failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "result")))
    return failure();
  return verifyResultShape(*this, getOutput(), in.drop_back(2));
}

std::optional<double> DetOp::getFlops() {
  int64_t n = tensorType(getInput()).getShape().back();
  return tensorType(getOutput()).getNumElements() * (2.0 / 3.0) * n * n * n;
}
