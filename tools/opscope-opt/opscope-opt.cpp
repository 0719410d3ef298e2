//===- opscope-opt.cpp - opscope's MLIR optimizer driver ------------------===//
//
// Part of opscope. `mlir-opt` with the osc dialect, its passes and pipelines.
// Unlike mlir-opt it prints locations by default: they carry the ONNX
// provenance that the fusion report and the probe table show
// (`--mlir-print-debuginfo=false` drops them).
//
//===----------------------------------------------------------------------===//

#include "opscope/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include <cstring>
#include <vector>

int main(int argc, char **argv) {
  std::vector<char *> args(argv, argv + argc);
  bool chosen = false;
  for (int i = 1; i < argc; ++i)
    chosen |= std::strstr(argv[i], "mlir-print-debuginfo") != nullptr;
  static char keepLocations[] = "--mlir-print-debuginfo";
  if (!chosen)
    args.insert(args.begin() + 1, keepLocations);
  argc = static_cast<int>(args.size());
  argv = args.data();
  mlir::DialectRegistry registry;
  opscope::registerAllDialects(registry);
  opscope::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "opscope optimizer driver\n", registry));
}
