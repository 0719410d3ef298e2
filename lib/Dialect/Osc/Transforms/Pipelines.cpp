//===- Pipelines.cpp - osc pass pipelines ---------------------------------===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void opscope::osc::buildOscOptimizationPipeline(OpPassManager &pm) {
  OpPassManager &func = pm.nest<func::FuncOp>();
  // IR from other sources than the importer may still carry shape
  // sub-graphs; folding first gives the fusion patterns concrete constants.
  func.addPass(createOscFoldConstants());
  // Decomposed patterns to kernel-sized ops, with post-ops.
  func.addPass(createOscFuse());
  // Fusion leaves identical computations behind (DistilBERT's mask is
  // rebuilt per layer): merge them.
  func.addPass(createCSEPass());
  // Fold what CSE exposed and drop dead constants.
  func.addPass(createOscFoldConstants());
}

void opscope::osc::registerOscPipelines() {
  PassPipelineRegistration<>(
      "osc-optimize",
      "fold constants, fuse into kernel-sized ops with post-ops, CSE",
      buildOscOptimizationPipeline);
}
