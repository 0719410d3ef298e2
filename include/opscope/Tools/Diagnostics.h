//===- Diagnostics.h - how opscope tools print MLIR diagnostics -*- C++ -*-===//
//
// Part of opscope. Tools print every diagnostic as `TOOL: error: FILE: node
// 'NAME': message`, naming the model file and the ONNX node (from the NameLoc
// the importer attaches), instead of MLIR's source-line format, which means
// nothing for a binary model.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_DIAGNOSTICS_H
#define OPSCOPE_TOOLS_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"

#include <string>

namespace opscope {

/// Formats one diagnostic (without the tool name and severity).
std::string formatDiagnostic(mlir::Diagnostic &diag);

/// Prints diagnostics to stderr as `tool: error: ...` while alive.
class ToolDiagnosticHandler : public mlir::ScopedDiagnosticHandler {
public:
  ToolDiagnosticHandler(mlir::MLIRContext *context, std::string tool);
};

} // namespace opscope

#endif // OPSCOPE_TOOLS_DIAGNOSTICS_H
