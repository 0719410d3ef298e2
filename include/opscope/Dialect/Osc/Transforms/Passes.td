//===- Passes.td - osc dialect passes ----------------------*- tablegen -*-===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_DIALECT_OSC_TRANSFORMS_PASSES_TD
#define OPSCOPE_DIALECT_OSC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OscFoldConstants : Pass<"osc-fold-constants", "::mlir::func::FuncOp"> {
  let summary = "Fold constant sub-graphs, such as ONNX shape computations";
  let description = [{
    Evaluates every osc op whose operands are small dense constants, and
    removes what becomes dead. With static shapes, the Shape / Gather /
    Unsqueeze / Concat / Reshape chains that exporters emit to compute
    reshape targets, masks built with Equal / Where / Expand, and Cast
    chains all reduce to `osc.constant`s, leaving only the real compute.
    Weights (`dense_resource`) are never expanded; reshapes of weights share
    the weight's blob.

    ```mlir
    %s = osc.constant dense<[1, 128, 768]> : tensor<3xi64>
    %d = osc.slice %s {starts = array<i64: 2>, sizes = array<i64: 1>, steps = array<i64: 1>}
        : tensor<3xi64> -> tensor<1xi64>
    // becomes
    %d = osc.constant dense<768> : tensor<1xi64>
    ```
  }];
  let dependentDialects = ["::opscope::osc::OscDialect"];
  let statistics = [
    Statistic<"numFolded", "folded-ops", "Ops folded or removed as dead">
  ];
}

#endif // OPSCOPE_DIALECT_OSC_TRANSFORMS_PASSES_TD
