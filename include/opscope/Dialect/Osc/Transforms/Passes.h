//===- Passes.h - osc dialect passes ----------------------------*- C++ -*-===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_DIALECT_OSC_TRANSFORMS_PASSES_H
#define OPSCOPE_DIALECT_OSC_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace opscope::osc {

#define GEN_PASS_DECL
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"

/// Import cleanup and fusion: the pipeline every compilation runs before
/// layout, probes and lowering. Registered as `osc-optimize`.
void buildOscOptimizationPipeline(mlir::OpPassManager &pm);

/// Registers the osc pipelines with the global registry.
void registerOscPipelines();

#define GEN_PASS_REGISTRATION
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"

} // namespace opscope::osc

#endif // OPSCOPE_DIALECT_OSC_TRANSFORMS_PASSES_H
