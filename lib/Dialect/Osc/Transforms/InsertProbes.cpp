//===- InsertProbes.cpp - osc-insert-probes -------------------------------===//
//
// Part of opscope. Wraps each selected executed op in an osc.probe region;
// the lowering turns the region into begin/end calls around the op's kernel
// and the probe table (built from the probed ops when the model is lowered)
// carries the op's static facts under the same dense id.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/IR/OscUtils.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Regex.h"

#include <set>

namespace opscope::osc {
#define GEN_PASS_DEF_OSCINSERTPROBES
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"
} // namespace opscope::osc

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

namespace {
bool kindMatches(const std::string &kind, ArrayRef<std::string> types) {
  std::string prefix = kind.substr(0, kind.find('.'));
  for (const std::string &t : types)
    if (t == kind || t == prefix)
      return true;
  return false;
}

bool nameMatches(Operation *op, llvm::Regex &re) {
  for (const std::string &n : sourceNodes(op->getLoc()))
    if (re.match(n))
      return true;
  return false;
}

struct InsertProbesPass : osc::impl::OscInsertProbesBase<InsertProbesPass> {
  using OscInsertProbesBase::OscInsertProbesBase;

  void runOnOperation() override {
    llvm::Regex include(names), exclude(excludeNames);
    std::string err;
    if (!names.empty() && !include.isValid(err)) {
      mlir::emitError(getOperation()->getLoc(), "osc-insert-probes: invalid names regex '")
          << names << "': " << err;
      return signalPassFailure();
    }
    if (!excludeNames.empty() && !exclude.isValid(err)) {
      mlir::emitError(getOperation()->getLoc(), "osc-insert-probes: invalid exclude-names regex '")
          << excludeNames << "': " << err;
      return signalPassFailure();
    }
    SmallVector<Operation *> selected;
    std::set<std::string> kinds; // of every op that could be probed
    getOperation().walk([&](Operation *op) {
      if (!isa_and_nonnull<OscDialect>(op->getDialect()) || !isExecuted(op) ||
          op->getParentOfType<ProbeOp>())
        return;
      std::string kind = kindOf(op);
      kinds.insert(kind.substr(0, kind.find('.')));
      if (!types.empty() && !kindMatches(kind, types))
        return;
      if (!names.empty() && !nameMatches(op, include))
        return;
      if (kindMatches(kind, excludeTypes))
        return;
      if (!excludeNames.empty() && nameMatches(op, exclude))
        return;
      selected.push_back(op);
    });
    // A selection that matches nothing is a mistake (a misspelt kind or
    // regex), not a request for an unprofiled model.
    if (selected.empty() && !kinds.empty() && (!types.empty() || !names.empty())) {
      std::string selection, known;
      if (!names.empty())
        selection += "names '" + names + "'";
      if (!types.empty()) {
        selection += selection.empty() ? "types '" : ", types '";
        for (auto [i, t] : llvm::enumerate(types))
          selection += (i ? "," : "") + t;
        selection += "'";
      }
      for (const std::string &k : kinds)
        known += (known.empty() ? "" : ", ") + k;
      mlir::emitError(getOperation()->getLoc(), "osc-insert-probes: the probe selection (")
          << selection << ") matches no op; the op kinds here are " << known;
      return signalPassFailure();
    }
    OpBuilder b(&getContext());
    for (Operation *op : selected) {
      std::vector<std::string> sources = sourceNodes(op->getLoc());
      std::string name = sources.empty() ? kindOf(op) : sources.front();
      b.setInsertionPoint(op);
      auto probe = b.create<ProbeOp>(op->getLoc(), op->getResultTypes(),
                                     b.getI64IntegerAttr(0),
                                     b.getStringAttr(name));
      Block *body = b.createBlock(&probe.getBody());
      op->moveBefore(body, body->end());
      b.setInsertionPointToEnd(body);
      auto yield = b.create<YieldOp>(op->getLoc(), op->getResults());
      for (auto [from, to] : llvm::zip(op->getResults(), probe.getResults()))
        from.replaceAllUsesExcept(to, yield);
      ++numProbes;
    }
    // Dense ids in execution order.
    int64_t id = 0;
    getOperation().walk([&](ProbeOp p) { p.setIdAttr(b.getI64IntegerAttr(id++)); });
  }
};
} // namespace
