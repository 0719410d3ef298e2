//===- NewerOpsets.cpp - op versions of opsets 18-21 ----------------------===//
//
// Part of opscope. The record of NewerOpsets.h, from ONNX's
// docs/Changelog.md (versions 18 to 21 of the default operator set) for the
// ops opscope converts. Ops those opsets added or changed that opscope does
// not convert (CenterCropPad, Col2Im, the Bitwise ops, LpPool, DeformConv,
// AffineGrid, ImageDecoder, the string ops, Optional*) are not
// recorded: the importer refuses them as unsupported op types before any
// check.
//
//===----------------------------------------------------------------------===//

#include "NewerOpsets.h"

#include <algorithm>
#include <climits>

using namespace opscope::onnx_import;

namespace {
using K = AttrKind;

std::vector<OpVersion> buildTable() {
  std::vector<OpVersion> t;
  // Opset 18: the reductions take their axes as an optional second input
  // (ReduceSum did at 13); ReduceMax and ReduceMin admit booleans at 20.
  for (const char *op :
       {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
        "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSumSquare"}) {
    std::vector<AttrRule> attrs = {{"keepdims", K::Int},
                                   {"noop_with_empty_axes", K::Int}};
    t.push_back({op, 18, false, 1, 2, 1, 1, attrs});
    if (std::string_view(op) == "ReduceMax" ||
        std::string_view(op) == "ReduceMin")
      t.push_back({op, 20, false, 1, 2, 1, 1, attrs});
  }
  t.push_back({"Split", 18, false, 1, 2, 1, INT_MAX,
               {{"axis", K::Int}, {"num_outputs", K::Int, false, {}, 1}}});
  const std::vector<std::string> padModes18 = {"constant", "reflect", "edge"};
  std::vector<std::string> padModes19 = padModes18;
  padModes19.push_back("wrap");
  t.push_back({"Pad", 18, false, 2, 4, 1, 1,
               {{"mode", K::String, false, padModes18}}});
  t.push_back({"Pad", 19, false, 2, 4, 1, 1,
               {{"mode", K::String, false, padModes19}}});
  t.push_back({"Pad", 21, false, 2, 4, 1, 1,
               {{"mode", K::String, false, padModes19}}});
  auto resizeAttrs = [](bool symmetric) {
    std::vector<std::string> ctm = {"half_pixel", "pytorch_half_pixel",
                                    "align_corners", "asymmetric",
                                    "tf_crop_and_resize"};
    if (symmetric)
      ctm.push_back("half_pixel_symmetric");
    return std::vector<AttrRule>{
        {"antialias", K::Int},
        {"axes", K::Ints},
        {"coordinate_transformation_mode", K::String, false, ctm},
        {"cubic_coeff_a", K::Float},
        {"exclude_outside", K::Int},
        {"extrapolation_value", K::Float},
        {"keep_aspect_ratio_policy", K::String, false,
         {"stretch", "not_larger", "not_smaller"}},
        {"mode", K::String, false, {"nearest", "linear", "cubic"}},
        {"nearest_mode", K::String, false,
         {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}}};
  };
  t.push_back({"Resize", 18, false, 1, 4, 1, 1, resizeAttrs(false)});
  t.push_back({"Resize", 19, false, 1, 4, 1, 1, resizeAttrs(true)});
  t.push_back({"Mish", 18, false, 1, 1, 1, 1, {}});
  t.push_back({"ScatterND", 18, false, 3, 3, 1, 1,
               {{"reduction", K::String, false,
                 {"none", "add", "mul", "max", "min"}}}});
  t.push_back({"ScatterElements", 18, false, 3, 3, 1, 1,
               {{"axis", K::Int},
                {"reduction", K::String, false,
                 {"none", "add", "mul", "max", "min"}}}});
  t.push_back({"GroupNormalization", 18, false, 3, 3, 1, 1,
               {{"epsilon", K::Float},
                {"num_groups", K::Int, true, {}, 1}}});
  t.push_back({"GroupNormalization", 21, false, 3, 3, 1, 1,
               {{"epsilon", K::Float},
                {"num_groups", K::Int, true, {}, 1},
                {"stash_type", K::Int}}});

  // Opset 19: AveragePool gains dilations; Cast, CastLike and
  // QuantizeLinear gain `saturate` (for float8); Pad gains mode `wrap` and
  // Resize `half_pixel_symmetric` (above).
  t.push_back({"AveragePool", 19, false, 1, 1, 1, 1,
               {{"auto_pad", K::String, false,
                 {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"}},
                {"ceil_mode", K::Int},
                {"count_include_pad", K::Int},
                {"dilations", K::Ints},
                {"kernel_shape", K::Ints, true},
                {"pads", K::Ints},
                {"strides", K::Ints}}});
  for (int64_t v : {19, 21}) {
    t.push_back({"Cast", v, false, 1, 1, 1, 1,
                 {{"saturate", K::Int}, {"to", K::Int, true}}});
    t.push_back({"CastLike", v, false, 2, 2, 1, 1, {{"saturate", K::Int}}});
  }
  t.push_back({"QuantizeLinear", 19, false, 2, 3, 1, 1,
               {{"axis", K::Int}, {"saturate", K::Int}}});
  // Opset 21: blocked quantization (block_size), QuantizeLinear's
  // output_dtype.
  t.push_back({"QuantizeLinear", 21, false, 2, 3, 1, 1,
               {{"axis", K::Int},
                {"block_size", K::Int, false, {}, 0},
                {"output_dtype", K::Int},
                {"saturate", K::Int}}});
  t.push_back({"DequantizeLinear", 21, false, 2, 3, 1, 1,
               {{"axis", K::Int}, {"block_size", K::Int, false, {}, 0}}});
  // Opset 20: GridSample's N-D form and its modes' new names.
  t.push_back({"GridSample", 20, false, 2, 2, 1, 1,
               {{"align_corners", K::Int},
                {"mode", K::String, false, {"linear", "nearest", "cubic"}},
                {"padding_mode", K::String, false,
                 {"zeros", "border", "reflection"}}}});
  // Opset 20: Gelu; DFT takes its axis as an optional third input.
  t.push_back({"Gelu", 20, false, 1, 1, 1, 1,
               {{"approximate", K::String, false, {"none", "tanh"}}}});
  t.push_back({"DFT", 20, false, 1, 3, 1, 1,
               {{"inverse", K::Int}, {"onesided", K::Int}}});

  // Versions that only admit more element types (float8 at 19, strings in
  // Equal at 19, float8 and 16-bit floats in IsNaN/IsInf at 20, int4/uint4 at
  // 21): same inputs, outputs and attributes as the op's last version up
  // to opset 17, which ONNX's checker checks.
  for (const char *op : {"Equal", "Constant", "Identity", "If", "Loop",
                         "Scan", "Reshape", "Shape", "Size",
                         "DequantizeLinear"})
    t.push_back({op, 19, true});
  for (const char *op : {"ConstantOfShape", "IsInf", "IsNaN"})
    t.push_back({op, 20, true});
  for (const char *op : {"Constant", "ConstantOfShape", "Identity", "If",
                         "Loop", "Scan", "Reshape", "Shape", "Size",
                         "Flatten", "Squeeze", "Transpose", "Unsqueeze",
                         "QLinearMatMul"})
    t.push_back({op, 21, true});
  return t;
}

const std::vector<OpVersion> &table() {
  static const std::vector<OpVersion> t = buildTable();
  return t;
}

const char *kindName(AttrKind k) {
  switch (k) {
  case K::Int:
    return "an int";
  case K::Float:
    return "a float";
  case K::String:
    return "a string";
  case K::Ints:
    return "a list of ints";
  case K::Floats:
    return "a list of floats";
  }
  return "?";
}

bool hasKind(const onnx::AttributeProto &a, AttrKind k) {
  using A = onnx::AttributeProto;
  switch (k) {
  case K::Int:
    return a.type() == A::INT;
  case K::Float:
    return a.type() == A::FLOAT;
  case K::String:
    return a.type() == A::STRING;
  case K::Ints:
    return a.type() == A::INTS;
  case K::Floats:
    return a.type() == A::FLOATS;
  }
  return false;
}
} // namespace

const OpVersion *opscope::onnx_import::newerVersion(std::string_view op,
                                                    int64_t opset) {
  const OpVersion *best = nullptr;
  for (const OpVersion &v : table())
    if (op == v.op && v.since <= opset && (!best || v.since > best->since))
      best = &v;
  return best;
}

bool opscope::onnx_import::isNewerOp(std::string_view op) {
  // Ops whose first version is newer than libonnx's opset.
  for (const char *o : {"Mish", "GroupNormalization", "Gelu"})
    if (op == o)
      return true;
  return false;
}

bool opscope::onnx_import::needsOwnCheck(std::string_view op, int64_t opset) {
  if (opset <= kLibOnnxOpset)
    return false;
  if (const OpVersion *v = newerVersion(op, opset))
    return !v->typesOnly;
  return isNewerOp(op);
}

/// "2", "1 to 3" or "at least 1": a count's allowed range in a message.
static std::string countRange(int lo, int hi) {
  if (lo == hi)
    return std::to_string(lo);
  if (hi == INT_MAX)
    return "at least " + std::to_string(lo);
  return std::to_string(lo) + " to " + std::to_string(hi);
}

std::string opscope::onnx_import::checkNode(const onnx::NodeProto &node,
                                            const OpVersion &v) {
  std::string version = std::string(v.op) + "-" + std::to_string(v.since);
  int inputs = node.input_size();
  if (inputs < v.minInputs || inputs > v.maxInputs)
    return "has " + std::to_string(inputs) + " inputs; " + version +
           " takes " + countRange(v.minInputs, v.maxInputs);
  for (int i = 0; i < v.minInputs; ++i)
    if (node.input(i).empty())
      return "input " + std::to_string(i) + " is required by " + version +
             " but empty";
  int outputs = node.output_size();
  if (outputs < v.minOutputs || outputs > v.maxOutputs)
    return "has " + std::to_string(outputs) + " outputs; " + version +
           " produces " + countRange(v.minOutputs, v.maxOutputs);
  for (const onnx::AttributeProto &a : node.attribute()) {
    auto rule = std::find_if(v.attrs.begin(), v.attrs.end(),
                             [&](const AttrRule &r) { return a.name() == r.name; });
    if (rule == v.attrs.end()) {
      std::string known;
      for (const AttrRule &r : v.attrs)
        known += (known.empty() ? "" : ", ") + std::string(r.name);
      return "attribute '" + a.name() + "' is not an attribute of " + version +
             (known.empty() ? " (it has none)" : " (" + known + ")");
    }
    if (!hasKind(a, rule->kind))
      return "attribute '" + a.name() + "' must be " + kindName(rule->kind) +
             " in " + version;
    if (rule->kind == K::String && !rule->values.empty() &&
        std::find(rule->values.begin(), rule->values.end(), a.s()) ==
            rule->values.end()) {
      std::string allowed;
      for (const std::string &s : rule->values)
        allowed += (allowed.empty() ? "'" : ", '") + s + "'";
      return "attribute '" + a.name() + "' is '" + a.s() + "'; " + version +
             " allows " + allowed;
    }
    if (rule->kind == K::Int && a.i() < rule->min)
      return "attribute '" + a.name() + "' is " + std::to_string(a.i()) +
             "; " + version + " requires at least " +
             std::to_string(rule->min);
  }
  for (const AttrRule &r : v.attrs)
    if (r.required &&
        std::none_of(node.attribute().begin(), node.attribute().end(),
                     [&](const onnx::AttributeProto &a) {
                       return a.name() == r.name;
                     }))
      return "attribute '" + std::string(r.name) + "' is required by " +
             version;
  return "";
}
