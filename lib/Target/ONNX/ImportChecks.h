//===- ImportChecks.h - ONNX's checker and opscope's own checks -*- C++ -*-===//
//
// Part of opscope. Private to lib/Target/ONNX: the checks the importer runs
// over a whole model before its node walk.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_LIB_TARGET_ONNX_IMPORTCHECKS_H
#define OPSCOPE_LIB_TARGET_ONNX_IMPORTCHECKS_H

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>

namespace opscope::onnx_import {

/// Nodes of opsets past kLibOnnxOpset, by who checked them: ONNX's checker
/// (at opset kLibOnnxOpset) and opscope (by op version).
struct NodeChecks {
  int64_t checkerNodes = 0;
  std::map<std::string, int64_t> ownChecked;
};

/// Checks every node of `model` (subgraphs included) of an op version
/// libonnx does not know against NewerOpsets.h, then, with `runLibOnnx`,
/// runs ONNX's checker over the model (at kLibOnnxOpset for newer opsets),
/// counting into `checks` what checked which nodes. `model` is left as it
/// was. Returns the message on failure (without the file's name), empty
/// otherwise.
std::string runChecker(onnx::ModelProto &model, int64_t opset, bool runLibOnnx,
                       const std::string &modelDir, NodeChecks &checks);

/// `osc.checks`: what validated the nodes, `ranLibOnnx` saying whether
/// ONNX's checker ran (not under --no-check).
std::string checksSummary(const NodeChecks &checks, bool ranLibOnnx);

} // namespace opscope::onnx_import

#endif // OPSCOPE_LIB_TARGET_ONNX_IMPORTCHECKS_H
