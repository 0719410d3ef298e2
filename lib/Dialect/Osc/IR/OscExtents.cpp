//===- OscExtents.cpp - data-dependent extents through the graph ----------===//
//
// Part of opscope. The ops whose results' extent depends on the data
// (NonZero, Compress, Unique, NonMaxSuppression, TopK with a run-time k)
// declare it through ExecutableOpInterface, and the ops that can run over
// the static bound of such a value and stay right on its valid prefix say
// where the extent goes (propagateExtent). Everything else refuses (docs/architecture.md,
// "Data-dependent output shapes").
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/IR/OscUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

//===----------------------------------------------------------------------===//
// Producers
//===----------------------------------------------------------------------===//

int64_t NonZeroOp::getExtentAxis(unsigned result) {
  return result == 0 ? 1 : -1;
}
Value NonZeroOp::getExtent() { return getCount(); }

int64_t CompressOp::getExtentAxis(unsigned result) {
  if (result != 0)
    return -1;
  return getAxis() ? *getAxis() : 0;
}
Value CompressOp::getExtent() { return getCount(); }

int64_t UniqueOp::getExtentAxis(unsigned result) {
  if (result == 0)
    return getAxis() ? *getAxis() : 0;
  return result == 1 || result == 3 ? 0 : -1; // inverse_indices: static
}
Value UniqueOp::getExtent() { return getCount(); }

int64_t TopKOp::getExtentAxis(unsigned result) {
  // Only with a run-time k: a constant k is the results' static size.
  return getCount() && result < 2 ? getAxis() : -1;
}
Value TopKOp::getExtent() { return getCount(); }

int64_t NonMaxSuppressionOp::getExtentAxis(unsigned result) {
  return result == 0 ? 0 : -1;
}
Value NonMaxSuppressionOp::getExtent() { return getCount(); }
SmallVector<Value> NonMaxSuppressionOp::getRuntimeOperands() {
  // Absent operands keep their slots: the runtime finds each by position.
  return {getBoxes(), getScores(), getMaxOutputBoxesPerClass(),
          getIouThreshold(), getScoreThreshold()};
}

//===----------------------------------------------------------------------===//
// Ops that run on a prefix
//===----------------------------------------------------------------------===//
// Each computes every output entry from input entries at the same position
// along the extent axis (or, for Gather's indices, from one index each), so
// the valid prefix of the input gives the valid prefix of the output and the
// padding only ever produces padding.

int64_t UnaryOp::propagateExtent(unsigned, int64_t axis) { return axis; }
int64_t CastOp::propagateExtent(unsigned, int64_t axis) { return axis; }

int64_t BinaryOp::propagateExtent(unsigned operand, int64_t axis) {
  // Right-aligned broadcasting: the other operand must not vary along the
  // extent axis (size 1 or absent), or its entries would pair with padding.
  auto out = cast<RankedTensorType>(getType());
  auto self = cast<RankedTensorType>(getOperand(operand).getType());
  auto other = cast<RankedTensorType>(getOperand(1 - operand).getType());
  int64_t outAxis = axis + out.getRank() - self.getRank();
  int64_t otherAxis = outAxis - (out.getRank() - other.getRank());
  if (otherAxis >= 0 && other.getDimSize(otherAxis) != 1)
    return -1;
  return outAxis;
}

int64_t GatherOp::propagateExtent(unsigned operand, int64_t axis) {
  int64_t g = getAxis();
  if (operand == 1) // positions along the indices' axes keep their place
    return g + axis;
  if (axis == g) // picking entries along the extent: may read padding
    return -1;
  int64_t idxRank = cast<RankedTensorType>(getIndices().getType()).getRank();
  return axis < g ? axis : axis + idxRank - 1;
}

int64_t TransposeOp::propagateExtent(unsigned, int64_t axis) {
  for (auto [i, p] : llvm::enumerate(getPerm()))
    if (p == axis)
      return static_cast<int64_t>(i);
  return -1;
}

//===----------------------------------------------------------------------===//
// The analysis
//===----------------------------------------------------------------------===//

std::optional<Extent> osc::extentOf(Value v) {
  ExtentCache cache;
  return extentOf(v, cache);
}

std::optional<Extent> osc::extentOf(Value v, ExtentCache &cache) {
  auto res = dyn_cast<OpResult>(v);
  if (!res)
    return std::nullopt;
  if (auto it = cache.find(v); it != cache.end())
    return it->second;
  std::optional<Extent> found;
  auto exec = dyn_cast<ExecutableOpInterface>(res.getOwner());
  // A probe's results are what its body yields.
  if (auto probe = dyn_cast<ProbeOp>(res.getOwner())) {
    found = extentOf(probe.getBody().front().getTerminator()->getOperand(
                         res.getResultNumber()),
                     cache);
  } else if (exec) {
    int64_t axis = exec.getExtentAxis(res.getResultNumber());
    if (axis >= 0) {
      found = Extent{exec.getExtent(), axis};
    } else if (res.getResultNumber() == 0) {
      for (OpOperand &in : res.getOwner()->getOpOperands())
        if (auto e = extentOf(in.get(), cache)) {
          int64_t out = exec.propagateExtent(in.getOperandNumber(), e->axis);
          if (out >= 0) {
            found = Extent{e->count, out};
            break;
          }
        }
    }
  }
  cache[v] = found;
  return found;
}

LogicalResult osc::checkExtents(Operation *fn) {
  ExtentCache cache;
  WalkResult r = fn->walk([&](Operation *op) {
    for (OpOperand &in : op->getOpOperands()) {
      std::optional<Extent> e = extentOf(in.get(), cache);
      if (!e)
        continue;
      if (isa<func::ReturnOp>(op) ||
          (isa<YieldOp>(op) && isa<ProbeOp>(op->getParentOp())))
        continue;
      auto exec = dyn_cast<ExecutableOpInterface>(op);
      int64_t out =
          exec ? exec.propagateExtent(in.getOperandNumber(), e->axis) : -1;
      // Two operands with run-time extents: only one of them is carried,
      // which is right only if they are the same one.
      if (out >= 0)
        for (OpOperand &other : op->getOpOperands())
          if (&other != &in)
            if (auto e2 = extentOf(other.get(), cache); e2 && e2->count != e->count)
              out = -1;
      if (out >= 0)
        continue;
      Operation *producer = e->count.getDefiningOp();
      std::vector<std::string> names = sourceNodes(producer->getLoc());
      Operation *user = op;
      if (isa<YieldOp>(op)) // a branch or loop body: name the If or Loop
        user = op->getParentOp();
      user->emitOpError("cannot take operand ")
          << in.getOperandNumber() << ", whose size along axis " << e->axis
          << " is known only at run time (from "
          << producer->getName().getStringRef() << " '"
          << (names.empty() ? std::string("?") : names.front())
          << "'); data-dependent shapes reach only the ops listed in "
             "docs/architecture.md, \"Data-dependent output shapes\"";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}
