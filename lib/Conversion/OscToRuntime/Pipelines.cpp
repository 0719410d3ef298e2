//===- Pipelines.cpp - osc-lower-to-llvm ----------------------------------===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#include "opscope/Conversion/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

void opscope::buildOscLowerToLLVMPipeline(mlir::OpPassManager &pm) {
  pm.addPass(createConvertOscToRuntime());
  pm.addPass(mlir::createArithToLLVMConversionPass());
  pm.addPass(mlir::createConvertControlFlowToLLVMPass());
  pm.addPass(mlir::createConvertFuncToLLVMPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
}

void opscope::registerConversionPipelines() {
  mlir::PassPipelineRegistration<>(
      "osc-lower-to-llvm",
      "Lower a planned osc model to the LLVM dialect (convert-osc-to-runtime, "
      "then arith/cf/func to LLVM)",
      buildOscLowerToLLVMPipeline);
}
