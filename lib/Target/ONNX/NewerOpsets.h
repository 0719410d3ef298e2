//===- NewerOpsets.h - op versions of opsets 18-21 --------------*- C++ -*-===//
//
// Part of opscope. Private to lib/Target/ONNX, without MLIR. Debian's
// libonnx (1.12) knows schemas up to opset 17; this is opscope's own record
// of the default-domain op versions introduced in opsets 18 to 21 (ONNX's
// docs/Changelog.md and onnx/defs/operator_sets.h), for the ops the
// importer converts: inputs, outputs, attributes with their types and the
// values the spec allows. A node whose op version libonnx does not know is
// checked against it instead of by ONNX's checker.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_LIB_TARGET_ONNX_NEWEROPSETS_H
#define OPSCOPE_LIB_TARGET_ONNX_NEWEROPSETS_H

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::onnx_import {

/// The newest opset libonnx 1.12's schemas and checker know.
constexpr int64_t kLibOnnxOpset = 17;
/// The newest default-domain opset the importer accepts.
constexpr int64_t kMaxOpset = 21;

enum class AttrKind { Int, Float, String, Ints, Floats };

/// One attribute of an op version as the ONNX spec defines it.
struct AttrRule {
  const char *name;
  AttrKind kind;
  bool required = false;
  /// The values a string attribute may take (empty: any).
  std::vector<std::string> values = {};
  /// The smallest value an int attribute may take.
  int64_t min = INT64_MIN;
};

/// One version of an op newer than opset 17.
struct OpVersion {
  const char *op;
  int64_t since;
  /// The version only admits more element types than the op's last
  /// version up to opset 17 (float8, int4, strings), whose inputs, outputs
  /// and attributes it keeps: ONNX's checker checks the node against that
  /// schema. Otherwise opscope checks it against this record.
  bool typesOnly;
  int minInputs = 0, maxInputs = 0, minOutputs = 1, maxOutputs = 1;
  std::vector<AttrRule> attrs = {};
};

/// The version of `op` (default domain) in force at `opset` when it was
/// introduced after opset 17; null when libonnx knows the op's schema at
/// `opset` (or the op is not in the record: it is not converted).
const OpVersion *newerVersion(std::string_view op, int64_t opset);

/// Whether `op` is an op the record holds that did not exist up to opset 17
/// (Mish, GroupNormalization, Gelu): libonnx knows nothing of it.
bool isNewerOp(std::string_view op);

/// Whether ONNX's checker (at opset 17) cannot check a node of `op` at
/// `opset`: its version is newer and not a widening of types only, or the
/// op is newer than libonnx.
bool needsOwnCheck(std::string_view op, int64_t opset);

/// Checks `node` against `v`: the number of inputs and outputs, required
/// inputs present, every attribute known with the spec's type and value,
/// required attributes present. Returns the message (without the node's
/// name) on failure, empty otherwise.
std::string checkNode(const onnx::NodeProto &node, const OpVersion &v);

} // namespace opscope::onnx_import

#endif // OPSCOPE_LIB_TARGET_ONNX_NEWEROPSETS_H
