//===- opscope-opt.cpp - opscope's MLIR optimizer driver ------------------===//
//
// Part of opscope. `mlir-opt` with the osc dialect, its passes and pipelines.
//
//===----------------------------------------------------------------------===//

#include "opscope/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  opscope::registerAllDialects(registry);
  opscope::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "opscope optimizer driver\n", registry));
}
