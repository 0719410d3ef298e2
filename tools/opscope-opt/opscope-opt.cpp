//===- opscope-opt.cpp - opscope's MLIR optimizer driver ------------------===//
//
// Part of opscope. `mlir-opt` with the osc dialect, its passes and pipelines.
// Unlike mlir-opt it prints locations by default: they carry the ONNX
// provenance that the fusion report and the probe table show
// (`--mlir-print-debuginfo=false` drops them). Like every opscope tool, a
// bad flag exits 2 and `--version` prints opscope's version.
//
//===----------------------------------------------------------------------===//

#include "ToolVersion.h"

#include "opscope/InitAll.h"

#include "mlir/Debug/Counter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <vector>

using namespace mlir;

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

  DialectRegistry registry;
  opscope::registerAllDialects(registry);
  opscope::registerAllPasses();

  // What registerAndParseCLIOptions does, except that a bad flag returns
  // here (exit 2, the opscope convention) instead of exiting with 1.
  static llvm::cl::opt<std::string> inputFilename(
      llvm::cl::Positional, llvm::cl::desc("<input file>"),
      llvm::cl::init("-"));
  static llvm::cl::opt<std::string> outputFilename(
      "o", llvm::cl::desc("Output filename"),
      llvm::cl::value_desc("filename"), llvm::cl::init("-"));
  MlirOptMainConfig::registerCLOptions(registry);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  tracing::DebugCounter::registerCLOptions();
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << opscope::tools::versionText("opscope-opt") << "\n";
  });
  std::string header = "opscope optimizer driver\nAvailable Dialects: ";
  {
    llvm::raw_string_ostream os(header);
    llvm::interleaveComma(registry.getDialectNames(), os);
  }
  if (!llvm::cl::ParseCommandLineOptions(argc, argv, header, &llvm::errs()))
    return 2;
  return asMainReturnCode(
      MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
}
