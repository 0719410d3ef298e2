//===- ImportOptions.cpp - parsing the importer's command-line specs ------===//
//
// Part of opscope. `--input-shape NAME=DIMS` and `--freeze-input
// NAME=FILE.pb` as every tool that imports ONNX parses them.
//
//===----------------------------------------------------------------------===//

#include "opscope/Target/ONNX/ImportONNX.h"

#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace opscope;

std::string opscope::parseInputShapeSpec(StringRef spec,
                                         ImportOptions &options) {
  auto [name, dims] = spec.rsplit('=');
  if (name.empty() || !spec.contains('='))
    return "expected NAME=DIMS (e.g. input_ids=1x128), got '" + spec.str() +
           "'";
  std::vector<int64_t> shape;
  if (!dims.empty() && dims != "scalar") {
    SmallVector<StringRef> parts;
    dims.split(parts, 'x');
    for (StringRef p : parts) {
      int64_t d;
      if (p.trim().getAsInteger(10, d) || d < 0)
        return "bad dimension '" + p.str() + "' in '" + spec.str() +
               "' (DIMS are non-negative integers joined by 'x', e.g. 1x128)";
      shape.push_back(d);
    }
  }
  // Even at one byte per element the shape must fit the tensor limit; the
  // importer checks the bytes again once the element type is known.
  int64_t elements = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(elements, d, &elements) ||
        elements > options.maxTensorBytes)
      return "'" + spec.str() + "' has more elements than the per-tensor " +
             "limit allows (" + std::to_string(options.maxTensorBytes) +
             " bytes; raise it with --max-tensor-bytes)";
  if (options.inputShapes.count(name.str()))
    return "--input-shape given twice for '" + name.str() + "'";
  options.inputShapes[name.str()] = std::move(shape);
  return "";
}

std::string opscope::parseFreezeInputSpec(StringRef spec,
                                          ImportOptions &options) {
  auto [name, file] = spec.split('=');
  if (name.empty() || file.empty())
    return "expected NAME=FILE.pb, got '" + spec.str() + "'";
  options.frozenInputs[name.str()] = file.str();
  return "";
}
