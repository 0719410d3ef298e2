//===- Diagnostics.cpp - how opscope tools print MLIR diagnostics ---------===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#include "opscope/Tools/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::string opscope::formatDiagnostic(Diagnostic &diag) {
  std::string message = diag.str();
  std::string prefix;
  Location loc = diag.getLocation();
  std::string file, node;
  loc->walk([&](Location l) {
    if (auto name = dyn_cast<NameLoc>(l); name && node.empty())
      node = name.getName().str();
    if (auto f = dyn_cast<FileLineColLoc>(l); f && file.empty())
      file = f.getFilename().str();
    return WalkResult::advance();
  });
  // Importer messages already start with the file or node they are about.
  if (!file.empty() && !StringRef(message).starts_with(file))
    prefix += file + ": ";
  if (!node.empty() && !StringRef(message).starts_with("node '"))
    prefix += "node '" + node + "': ";
  for (Diagnostic &note : diag.getNotes())
    message += "\n  note: " + note.str();
  return prefix + message;
}

opscope::ToolDiagnosticHandler::ToolDiagnosticHandler(MLIRContext *context,
                                                      std::string tool)
    : ScopedDiagnosticHandler(context, [tool](Diagnostic &diag) {
        StringRef severity = diag.getSeverity() == DiagnosticSeverity::Error
                                 ? "error"
                                 : diag.getSeverity() ==
                                           DiagnosticSeverity::Warning
                                       ? "warning"
                                       : "note";
        llvm::errs() << tool << ": " << severity << ": "
                     << formatDiagnostic(diag) << "\n";
        return success();
      }) {}
