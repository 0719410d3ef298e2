//===- opscope-translate.cpp - models into the osc dialect ----------------===//
//
// Part of opscope. `opscope-translate --import-onnx MODEL --input-shape
// NAME=DIMS ... -o OUT.mlir`.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/InitAll.h"
#include "opscope/Target/ONNX/ImportONNX.h"
#include "opscope/Tools/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include "ToolCommon.h"

#include <CLI/CLI.hpp>

int main(int argc, char **argv) {
  CLI::App app{"opscope-translate: import models into the osc dialect"};
  std::string model, output = "-";
  bool listOps = false;
  std::vector<std::string> shapes, frozen;
  bool elideWeights = false, noCheck = false, printLocations = false,
       timing = false;
  auto *importOpt =
      app.add_option("--import-onnx", model,
                     "ONNX model to import (.onnx protobuf or .onnxtext)");
  app.add_flag("--list-ops", listOps,
               "print the ONNX op types the importer supports and exit")
      ->excludes(importOpt);
  app.add_option("--input-shape", shapes,
                 "static shape of a graph input, NAME=DIMS (e.g. "
                 "input_ids=1x128); repeat per input")
      ->take_all();
  app.add_option("--freeze-input", frozen,
                 "replace a graph input by a constant, NAME=FILE.pb (an ONNX "
                 "TensorProto); repeat per input")
      ->take_all();
  app.add_option("-o,--output", output, "output .mlir file ('-' for stdout)");
  app.add_flag("--elide-weights", elideWeights,
               "leave weight blobs out of the output (readable, but not "
               "compilable)");
  app.add_flag("--no-check", noCheck, "skip the ONNX model checker");
  std::string maxTensorBytes = "4G";
  app.add_option("--max-tensor-bytes", maxTensorBytes,
                 "refuse any tensor larger than this (bytes, or with a K/M/G "
                 "suffix; default 4G)")
      ->check(opscope::tools::byteCount());
  app.add_flag("--timing", timing, "print the time of each phase to stderr");
  bool stripLocations = false;
  auto *printLoc = app.add_flag(
      "--print-locations", printLocations,
      "print each op's location (its ONNX node name); the default");
  app.add_flag("--strip-locations", stripLocations,
               "do not print locations (loses ONNX provenance)")
      ->excludes(printLoc);
  opscope::tools::addVersionFlag(app, "opscope-translate");
  if (int code = opscope::tools::parseCommandLine(app, argc, argv); code >= 0)
    return code;
  if (listOps) {
    for (const std::string &op : opscope::supportedONNXOps())
      llvm::outs() << op << "\n";
    return 0;
  }
  if (model.empty()) {
    llvm::errs() << "opscope-translate: error: --import-onnx MODEL is "
                    "required\n";
    return 2;
  }

  opscope::ImportOptions options;
  options.runChecker = !noCheck;
  opscope::tools::parseByteCount(maxTensorBytes, options.maxTensorBytes);
  for (const std::string &spec : shapes) {
    std::string error = opscope::parseInputShapeSpec(spec, options);
    if (!error.empty()) {
      llvm::errs() << "opscope-translate: error: --input-shape: " << error
                   << "\n";
      return 2;
    }
  }

  for (const std::string &spec : frozen) {
    std::string error = opscope::parseFreezeInputSpec(spec, options);
    if (!error.empty()) {
      llvm::errs() << "opscope-translate: error: --freeze-input: " << error
                   << "\n";
      return 2;
    }
  }

  mlir::DialectRegistry registry;
  opscope::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  opscope::ToolDiagnosticHandler diagnostics(&context, "opscope-translate");
  mlir::DefaultTimingManager tm;
  tm.setEnabled(timing);
  mlir::TimingScope root = tm.getRootScope();
  mlir::TimingScope importTimer = root.nest("import");
  auto module = opscope::importONNXFile(model, options, &context);
  importTimer.stop();
  if (!module)
    return 1;

  if (elideWeights) {
    // Drop the blobs rather than ask the printer to elide them: MLIR's
    // elision hex-encodes each blob first (seconds for a large model), while
    // a resource without a blob is not printed at all. The module is not used
    // after printing.
    (*module)->setAttr(opscope::osc::kWeightsElidedAttr,
                       mlir::UnitAttr::get(&context));
    module->walk([](mlir::Operation *op) {
      for (mlir::NamedAttribute a : op->getAttrs())
        if (auto r = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(a.getValue()))
          if (auto *resource = r.getRawHandle().getResource())
            resource->setBlob(mlir::AsmResourceBlob());
    });
  }
  mlir::TimingScope printTimer = root.nest("print");
  mlir::OpPrintingFlags flags;
  // Locations carry the ONNX node names every later report maps back to, so
  // they are printed unless asked not to.
  if (!stripLocations)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  // Written to a temporary file and renamed: a failed or interrupted run
  // leaves no partial output.
  llvm::Error err =
      llvm::writeToOutput(output, [&](llvm::raw_ostream &os) -> llvm::Error {
        module->print(os, flags);
        return llvm::Error::success();
      });
  if (err) {
    llvm::errs() << "opscope-translate: error: cannot write '" << output
                 << "': " << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  return 0;
}
