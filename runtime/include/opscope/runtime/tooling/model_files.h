//===- model_files.h - what a model path is, and the compile cache -*- C++ -*-===//
//
// Part of opscope's runtime tooling (no MLIR). Tools accept a compiled
// model (model.so) or an ONNX model they compile on the fly; this decides
// which a path is, and where and how an ONNX model is compiled and cached.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_TOOLING_MODEL_FILES_H
#define OPSCOPE_RUNTIME_TOOLING_MODEL_FILES_H

#include <string>
#include <vector>

namespace opscope::tooling {

enum class ModelFileKind { Library, Onnx, OnnxText, Mlir, Unknown };

/// By the file name's extension (`.so`, `.onnx`, `.onnxtext`, `.mlir`);
/// directories in the path do not matter (`dir.onnx/model.so` is a
/// library).
ModelFileKind classifyModelFile(const std::string &path);

/// Whether opscope-compile must turn the file into a library first.
inline bool needsCompiling(ModelFileKind k) {
  return k == ModelFileKind::Onnx || k == ModelFileKind::OnnxText ||
         k == ModelFileKind::Mlir;
}

struct CompileRequest {
  std::string model;
  std::vector<std::string> inputShapes; // NAME=DIMS
  bool noFuse = false;
  bool noProbes = false;
  /// Further opscope-compile flags (`--precision bf16`), part of the key.
  std::vector<std::string> extraFlags;
  /// The opscope-compile to run (part of the key); empty: siblingToolPath's,
  /// else the first on PATH. A host that is not an opscope tool (the
  /// Python module) names the one beside its build or install.
  std::string compiler;
};

/// Another opscope tool (opscope-compile, opscope-tune, ...) as a running
/// tool starts it: in `$OPSCOPE_TOOL_DIR` when set (the emulated test runs
/// point it at wrappers that run each tool emulated, test/lit.cfg.py),
/// else beside the running executable. Empty when it is not there.
std::string siblingToolPath(const std::string &name);

/// `$OPSCOPE_CACHE_DIR`, else `~/.cache/opscope/compiled`.
std::string defaultCacheDir();

/// The cached library for a request: keyed by the model's absolute path,
/// size and modification time and by the flags, so an edited model or other
/// flags compile anew. Empty with `error` set when the model is missing.
std::string cachedLibraryPath(const CompileRequest &request,
                              const std::string &cacheDir, std::string &error);

/// The opscope-compile command line that builds `request` into `out`
/// (argv[0] is the compiler).
std::vector<std::string> compileCommand(const CompileRequest &request,
                                        const std::string &out);

/// The library for `request`, compiling it into `cacheDir` with the
/// opscope-compile next to the running executable (or on PATH) when it is
/// not cached yet. Empty with `error` set on failure (the compiler's own
/// messages go to stderr).
std::string compileIntoCache(const CompileRequest &request,
                             const std::string &cacheDir, std::string &error);

} // namespace opscope::tooling

#endif // OPSCOPE_RUNTIME_TOOLING_MODEL_FILES_H
