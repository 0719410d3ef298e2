//===- InitAll.cpp - register everything opscope tools use ----------------===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#include "opscope/InitAll.h"
#include "opscope/Conversion/Passes.h"
#include "opscope/Dialect/Osc/IR/OscDialect.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void opscope::registerAllDialects(mlir::DialectRegistry &registry) {
  // func holds the model entry point; everything inside is osc.
  registry.insert<osc::OscDialect, mlir::func::FuncDialect>();
  // What convert-osc-to-runtime produces, and MLIR's LLVM translation.
  registry.insert<mlir::LLVM::LLVMDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect>();
}

void opscope::registerAllPasses() {
  osc::registerOscPasses();
  osc::registerOscPipelines();
  registerConversionPasses();
  registerConversionPipelines();
  // Upstream cleanups users expect next to opscope's own passes.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  mlir::registerInlinerPass();
}
