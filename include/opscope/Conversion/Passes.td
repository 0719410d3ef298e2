//===- Passes.td - opscope conversion passes ---------------*- tablegen -*-===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_CONVERSION_PASSES_TD
#define OPSCOPE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertOscToRuntime : Pass<"convert-osc-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Lower a planned osc model to calls into the runtime ABI";
  let description = [{
    Replaces the model function (after `osc-plan-memory`) with what
    `runtime/include/opscope/runtime/abi.h` specifies:

    * `opscope_abi_version` (i32 global) and `opscope_model_plan`, a
      NUL-terminated JSON global describing inputs, outputs, the arena size,
      the expected `.weights` file (size and id), every executed op (kind,
      source node, attributes, operand and result buffers) and the probe
      table (one entry per `osc.probe`, by id: op name, type, post-ops,
      source nodes, input/output tensors with shapes and dtypes, weight
      shape and sparsity, FLOPs, bytes, kernel).
    * `opscope_model_run(ctx, profiling)`: a straight-line schedule of
      `opscope_rt_exec(ctx, i)` calls, and when `profiling` is set a second
      schedule in which each probe brackets its op with
      `opscope_rt_probe_begin/end(ctx, id)`. Disabled probes cost one branch
      per run, not per op.

    Constants become references into the weights file and disappear from
    the IR. The result uses `func`, `arith`, `cf` and `llvm`; the
    `osc-lower-to-llvm` pipeline continues with MLIR's own LLVM lowerings.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect", "::mlir::cf::ControlFlowDialect"];
  let options = [
    Option<"modelName", "model-name", "std::string", "\"\"",
           "model name recorded in the plan (default: the module's osc.model or `model`)">
  ];
  let statistics = [
    Statistic<"numOps", "ops", "ops scheduled">,
    Statistic<"numProbes", "probes", "probes lowered">
  ];
}

#endif // OPSCOPE_CONVERSION_PASSES_TD
