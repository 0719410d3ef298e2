//===- TranslateTool.cpp - opscope-translate's flags and import -----------===//
//
// Part of opscope. `opscope-translate --import-onnx MODEL --input-shape
// NAME=DIMS ... -o OUT.mlir`: the ONNX importer into the osc dialect, the
// module printed with its locations (the ONNX node names).
//
//===----------------------------------------------------------------------===//

#include "TranslateTool.h"

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

using opscope::tools::kFailure;
using opscope::tools::kOk;
using opscope::tools::kUsage;
using opscope::tools::translate::Options;

namespace {

/// --list-ops: the ONNX op types the importer supports.
int listOps() {
  for (const std::string &op : opscope::supportedONNXOps())
    llvm::outs() << op << "\n";
  return kOk;
}

/// The import options from the flags (--no-check, --max-tensor-bytes,
/// --input-shape, --freeze-input). False after an invalid spec (message
/// printed).
bool parseImportOptions(const Options &o, opscope::ImportOptions &options) {
  options.runChecker = !o.noCheck;
  opscope::tools::parseByteCount(o.maxTensorBytes, options.maxTensorBytes);
  for (const std::string &spec : o.shapes) {
    std::string error = opscope::parseInputShapeSpec(spec, options);
    if (!error.empty()) {
      llvm::errs() << "opscope-translate: error: --input-shape: " << error
                   << "\n";
      return false;
    }
  }

  for (const std::string &spec : o.frozen) {
    std::string error = opscope::parseFreezeInputSpec(spec, options);
    if (!error.empty()) {
      llvm::errs() << "opscope-translate: error: --freeze-input: " << error
                   << "\n";
      return false;
    }
  }
  return true;
}

/// --elide-weights: drops the blobs rather than ask the printer to elide
/// them: MLIR's elision hex-encodes each blob first (seconds for a large
/// model), while a resource without a blob is not printed at all. The
/// module is not used after printing.
void elideWeights(mlir::ModuleOp module) {
  module->setAttr(opscope::osc::kWeightsElidedAttr,
                  mlir::UnitAttr::get(module->getContext()));
  module.walk([](mlir::Operation *op) {
    for (mlir::NamedAttribute a : op->getAttrs())
      if (auto r = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(a.getValue()))
        if (auto *resource = r.getRawHandle().getResource())
          resource->setBlob(mlir::AsmResourceBlob());
  });
}

/// Prints `module` to `output` ('-': stdout). The exit code.
int writeModule(mlir::ModuleOp module, const std::string &output,
                bool stripLocations) {
  mlir::OpPrintingFlags flags;
  // Locations carry the ONNX node names every later report maps back to, so
  // they are printed unless asked not to.
  if (!stripLocations)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  // Written to a temporary file and renamed: a failed or interrupted run
  // leaves no partial output.
  llvm::Error err =
      llvm::writeToOutput(output, [&](llvm::raw_ostream &os) -> llvm::Error {
        module.print(os, flags);
        return llvm::Error::success();
      });
  if (err) {
    llvm::errs() << "opscope-translate: error: cannot write '" << output
                 << "': " << llvm::toString(std::move(err)) << "\n";
    return kFailure;
  }
  return kOk;
}

/// Imports the model and prints it, with --timing's phases. The exit code.
int importAndPrint(const Options &o,
                   const opscope::ImportOptions &options) {
  mlir::DialectRegistry registry;
  opscope::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  opscope::ToolDiagnosticHandler diagnostics(&context, "opscope-translate");
  mlir::DefaultTimingManager tm;
  tm.setEnabled(o.timing);
  mlir::TimingScope root = tm.getRootScope();
  mlir::TimingScope importTimer = root.nest("import");
  auto module = opscope::importONNXFile(o.model, options, &context);
  importTimer.stop();
  if (!module)
    return kFailure;

  if (o.elideWeights)
    elideWeights(*module);
  mlir::TimingScope printTimer = root.nest("print");
  return writeModule(*module, o.output, o.stripLocations);
}

} // namespace

void opscope::tools::translate::addOptions(CLI::App &app, Options &o) {
  auto *importOpt =
      app.add_option("--import-onnx", o.model,
                     "ONNX model to import (.onnx protobuf or .onnxtext)");
  app.add_flag("--list-ops", o.listOps,
               "print the ONNX op types the importer supports and exit")
      ->excludes(importOpt);
  addImportInputOptions(app, o.shapes, o.frozen);
  app.add_option("-o,--output", o.output, "output .mlir file ('-' for stdout)");
  app.add_flag("--elide-weights", o.elideWeights,
               "leave weight blobs out of the output (readable, but not "
               "compilable)");
  app.add_flag("--no-check", o.noCheck, "skip the ONNX model checker");
  app.add_option("--max-tensor-bytes", o.maxTensorBytes,
                 "refuse any tensor larger than this (bytes, or with a K/M/G "
                 "suffix; default 4G)")
      ->check(opscope::tools::byteCount());
  app.add_flag("--timing", o.timing, "print the time of each phase to stderr");
  auto *printLoc = app.add_flag(
      "--print-locations", o.printLocations,
      "print each op's location (its ONNX node name); the default");
  app.add_flag("--strip-locations", o.stripLocations,
               "do not print locations (loses ONNX provenance)")
      ->excludes(printLoc);
}

int opscope::tools::translate::run(const CLI::App &app, Options &o) {
  if (o.listOps)
    return listOps();
  if (o.model.empty()) {
    llvm::errs() << "opscope-translate: error: --import-onnx MODEL is "
                    "required\n";
    return kUsage;
  }
  opscope::ImportOptions options;
  if (!parseImportOptions(o, options))
    return kUsage;
  return importAndPrint(o, options);
}
