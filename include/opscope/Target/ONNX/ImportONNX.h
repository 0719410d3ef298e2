//===- ImportONNX.h - ONNX to osc importer ----------------------*- C++ -*-===//
//
// Part of opscope. Imports an ONNX model (binary protobuf or the `.onnxtext`
// textual form) into a module holding one `func.func` of osc ops with static
// shapes. This header deliberately includes no protobuf or ONNX headers.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TARGET_ONNX_IMPORTONNX_H
#define OPSCOPE_TARGET_ONNX_IMPORTONNX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opscope {

struct ImportOptions {
  /// Static shapes for graph inputs, by input name. Required for inputs with
  /// dynamic dimensions unless their symbolic dimensions are bound through
  /// another input's shape.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Graph inputs replaced by constants, by input name: the path of an ONNX
  /// TensorProto (`.pb`) holding the value. Lets shape operands that a model
  /// takes as inputs (a Reshape target, Slice bounds, Resize scales) become
  /// compile-time constants.
  std::map<std::string, std::string> frozenInputs;
  /// The largest tensor (graph input, initializer or any value a node
  /// computes) the importer accepts, in bytes (--max-tensor-bytes).
  int64_t maxTensorBytes = int64_t(4) << 30;
  /// Run ONNX's model checker before importing.
  bool runChecker = true;
  /// Name of the generated function.
  std::string functionName = "main";
};

/// Parses `NAME=DIMS` (DIMS like `1x128`; `NAME=` or `NAME=scalar` for a
/// rank-0 input) into `options`. Returns an error message, or "" on success;
/// shapes whose element count overflows or alone exceeds
/// `options.maxTensorBytes` are refused here (set that limit first).
std::string parseInputShapeSpec(llvm::StringRef spec, ImportOptions &options);

/// Parses `NAME=FILE.pb` into `options.frozenInputs`. Returns an error
/// message, or "" on success.
std::string parseFreezeInputSpec(llvm::StringRef spec, ImportOptions &options);

/// Imports the model at `path` (`.onnxtext` by extension, binary protobuf
/// otherwise). Errors are emitted as diagnostics on `context` (naming the
/// file, input or ONNX node) and the result is null.
mlir::OwningOpRef<mlir::ModuleOp> importONNXFile(llvm::StringRef path,
                                                 const ImportOptions &options,
                                                 mlir::MLIRContext *context);

/// Imports a model from memory. `path` names the model in messages and is the
/// base directory for external-data tensors; `isText` selects `.onnxtext`.
mlir::OwningOpRef<mlir::ModuleOp>
importONNXBuffer(llvm::StringRef buffer, llvm::StringRef path, bool isText,
                 const ImportOptions &options, mlir::MLIRContext *context);

/// ONNX op types the importer converts, sorted (for docs and coverage tests).
std::vector<std::string> supportedONNXOps();

} // namespace opscope

#endif // OPSCOPE_TARGET_ONNX_IMPORTONNX_H
