//===- ModelFile.h - reading ONNX model files, MLIR-free --------*- C++ -*-===//
//
// Part of opscope. How every opscope component reads an ONNX model file:
// binary protobuf or the `.onnxtext` textual form, and tensors' external
// data, which is untrusted (it must be a regular file inside the model's
// directory, with numeric offsets and lengths inside the file). The importer
// and opscope-prune both use it; it depends on libonnx and protobuf only (no
// MLIR, no LLVM), so a tool that edits ONNX models need not link a compiler.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TARGET_ONNX_MODELFILE_H
#define OPSCOPE_TARGET_ONNX_MODELFILE_H

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::onnx_model {

/// Whether `path` names a textual model (`.onnxtext`, `.onnxtxt`).
bool isTextModelPath(std::string_view path);

/// Parses a model held in memory (`isText`: the `.onnxtext` form). `path`
/// names the model in `error`.
bool parseModel(std::string_view bytes, std::string_view path, bool isText,
                onnx::ModelProto &model, std::string &error);

/// Reads and parses the model file at `path` (textual by extension).
bool readModelFile(const std::string &path, onnx::ModelProto &model,
                   std::string &error);

/// The directory external-data locations of the model at `path` are
/// relative to ("" for the current directory).
std::string modelDirectory(const std::string &path);

/// A tensor's external data, checked: `realPath` is a regular file inside
/// the model's directory and [offset, offset + length) lies within it.
struct ExternalData {
  /// The `location` entry as the model wrote it.
  std::string location;
  /// The model's directory joined with `location`, for messages.
  std::string path;
  /// `path` with `..` and symbolic links resolved.
  std::string realPath;
  uint64_t offset = 0;
  /// The byte count (the rest of the file when the model gives none).
  uint64_t length = 0;
};

/// Resolves and checks the external-data reference of `tensor` (whose
/// data_location is EXTERNAL) against `modelDir`. On failure, `error` names
/// the tensor and says what is wrong.
bool resolveExternalData(const onnx::TensorProto &tensor,
                         const std::string &modelDir, ExternalData &data,
                         std::string &error);

/// Reads the bytes `data` refers to into `bytes`.
bool readExternalData(const onnx::TensorProto &tensor, const ExternalData &data,
                      std::string &bytes, std::string &error);

/// Calls `fn` on every tensor the model holds: graph initializers, sparse
/// initializers' values and indices, tensor attributes of nodes, and the
/// same inside subgraphs and functions.
void forEachTensor(onnx::ModelProto &model,
                   const std::function<void(onnx::TensorProto &)> &fn);

/// Reads the data of every external-data tensor of `model` into its
/// raw_data (its data_location becomes DEFAULT) and lists those tensors in
/// `moved`, so that writeModelFile can store them externally again.
bool loadExternalData(onnx::ModelProto &model, const std::string &modelDir,
                      std::vector<onnx::TensorProto *> &moved,
                      std::string &error);

/// The external-data file writeModelFile writes next to `path`.
std::string externalDataPathFor(const std::string &path);

/// Writes `model` to `path` as binary protobuf. The tensors in `external`
/// move out to one file next to it (externalDataPathFor(path); each
/// location is that file's name, offsets 64-byte aligned); their raw_data
/// is cleared. Both files are written as temporaries (removed on failure
/// and on SIGINT, SIGTERM and SIGHUP) and renamed into place when complete:
/// on failure nothing at `path` changes, and `error` says why.
bool writeModelFile(onnx::ModelProto &model,
                    const std::vector<onnx::TensorProto *> &external,
                    const std::string &path, std::string &error);

} // namespace opscope::onnx_model

#endif // OPSCOPE_TARGET_ONNX_MODELFILE_H
