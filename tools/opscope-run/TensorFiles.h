//===- TensorFiles.h - tensors from .npy and ONNX .pb files -----*- C++ -*-===//
//
// Part of opscope-run.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_RUN_TENSORFILES_H
#define OPSCOPE_TOOLS_RUN_TENSORFILES_H

#include "opscope/runtime/npy.h"

#include <string>

namespace opscope {
/// Reads `.npy` or an ONNX TensorProto (`.pb`); throws opscope::Error.
rt::HostTensor readTensorFile(const std::string &path);
} // namespace opscope

#endif
