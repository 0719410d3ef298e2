//===- per_layer.h - per-layer sparsity ratios from a JSON file -*- C++ -*-===//
//
// Part of opscope. The per-layer file `opscope-prune --per-layer` prunes by
// and `opscope-analyze --what-if` projects from: `{"layers": {NAME: RATIO,
// ...}}`, RATIO a number in (0, 1) or `{"sparsity": RATIO, ...}`. One
// reader, so the two tools cannot disagree on the format. JSON only (in
// opscope_tuning), no exceptions escape. Format: docs/sparsity.md.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_PER_LAYER_H
#define OPSCOPE_RUNTIME_PER_LAYER_H

#include <map>
#include <string>

namespace opscope::tuning {

/// Parses a per-layer file's text into ratios by layer name. Other keys,
/// in a layer's object and at the top level, are ignored (a sensitivity
/// profile can carry its measurements beside the ratio). Returns "" or an
/// error that starts with `what` (e.g. "--per-layer FILE") and names the
/// keys at fault.
std::string parsePerLayer(const std::string &text, const std::string &what,
                          std::map<std::string, double> &ratios);

/// Reads `path` and parses it; errors start with `flag + " " + path`.
std::string readPerLayer(const std::string &path, const std::string &flag,
                         std::map<std::string, double> &ratios);

} // namespace opscope::tuning

#endif // OPSCOPE_RUNTIME_PER_LAYER_H
