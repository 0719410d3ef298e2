//===- FoldConstants.cpp - osc-fold-constants -----------------------------===//
//
// Part of opscope. The evaluation itself lives in the ops' fold hooks
// (lib/Dialect/Osc/IR/OscFolders.cpp) so that the importer's createOrFold and
// this pass agree; the pass just drives them to a fixed point.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscDialect.h"
#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace opscope::osc {
#define GEN_PASS_DEF_OSCFOLDCONSTANTS
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"
} // namespace opscope::osc

using namespace mlir;

namespace {
struct FoldConstantsPass
    : opscope::osc::impl::OscFoldConstantsBase<FoldConstantsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    int64_t before = 0, after = 0;
    func.walk([&](Operation *) { ++before; });
    // The greedy driver folds every op and erases dead ones; an osc.if on
    // a constant condition is replaced by the region it takes.
    RewritePatternSet patterns(&getContext());
    opscope::osc::IfOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsAndFoldGreedily(func, std::move(patterns))))
      return signalPassFailure();
    func.walk([&](Operation *) { ++after; });
    numFolded += before > after ? before - after : 0;
  }
};
} // namespace
