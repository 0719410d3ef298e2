//===- InitAll.cpp - register everything opscope tools use ----------------===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#include "opscope/InitAll.h"
#include "opscope/Dialect/Osc/IR/OscDialect.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void opscope::registerAllDialects(mlir::DialectRegistry &registry) {
  // func holds the model entry point; everything inside is osc.
  registry.insert<osc::OscDialect, mlir::func::FuncDialect>();
}

void opscope::registerAllPasses() {
  osc::registerOscPasses();
  osc::registerOscPipelines();
  // Upstream cleanups users expect next to opscope's own passes.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  mlir::registerInlinerPass();
}
