//===- fuzz-onnx-import.cpp - libFuzzer harness: ONNX importer -----------===//
//
// Part of opscope. Bytes -> ONNX protobuf -> osc import -> verify, as
// `opscope-translate --import-onnx MODEL --no-check` does (the checker off:
// the importer must not rely on it). The model's directory does not exist,
// so external data is always refused without touching the disk; the
// per-tensor limit is 64 MiB so that legal-but-large inputs stay within
// libFuzzer's memory limit. Any crash, sanitizer report or leak past an
// error is a bug; an error diagnostic is a pass.
//
//===----------------------------------------------------------------------===//

#include "opscope/InitAll.h"
#include "opscope/Target/ONNX/ImportONNX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry();
    opscope::registerAllDialects(*r);
    return r;
  }();
  mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  opscope::ImportOptions options;
  options.runChecker = false;
  options.maxTensorBytes = int64_t(64) << 20;
  auto module = opscope::importONNXBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "/nonexistent-opscope-fuzz/model.onnx", /*isText=*/false, options,
      &context);
  if (module && mlir::failed(mlir::verify(*module)))
    __builtin_trap(); // the importer returned a module that does not verify
  return 0;
}
