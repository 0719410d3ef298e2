//===- Provenance.h - matching ops of two traces by source nodes -*- C++
//-*-===//
//
// Part of opscope's runtime (internal to opscope_analysis). Ops of one or
// two traces that share any ONNX source node are one group, so a fused
// inner_product lines up with the MatMul, Add and Erf it replaced; ops
// without source nodes match by name. Used by --diff and --check.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_ANALYSIS_PROVENANCE_H
#define OPSCOPE_RUNTIME_LIB_ANALYSIS_PROVENANCE_H

#include "opscope/runtime/trace.h"

#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace opscope::analysis {

/// The group of each probe: the index of the first probe of its group, so
/// groups come in the order of their first member.
inline std::vector<size_t>
groupByProvenance(const std::vector<const trace::ProbeInfo *> &probes) {
  std::vector<size_t> parent(probes.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](size_t x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  };
  std::map<std::string, size_t> firstByKey;
  for (size_t i = 0; i < probes.size(); ++i) {
    std::vector<std::string> keys;
    for (const auto &s : probes[i]->sourceNodes)
      keys.push_back("node:" + s);
    if (keys.empty())
      keys.push_back("name:" + probes[i]->name);
    for (const auto &k : keys) {
      auto [it, inserted] = firstByKey.emplace(k, i);
      if (!inserted) {
        // The smaller index becomes the root: a group is named by its
        // first member.
        size_t a = find(i), b = find(it->second);
        if (a != b)
          parent[std::max(a, b)] = std::min(a, b);
      }
    }
  }
  std::vector<size_t> group(probes.size());
  for (size_t i = 0; i < probes.size(); ++i)
    group[i] = find(i);
  return group;
}

} // namespace opscope::analysis

#endif // OPSCOPE_RUNTIME_LIB_ANALYSIS_PROVENANCE_H
