//===- Profile.h - Sparsify-style per-layer profiles ------------*- C++ -*-===//
//
// Part of opscope (docs/sparsify-profiles.md). The measurements behind
// opscope-profile: per prunable layer its parameters and FLOPs, its dense
// latency and the latency projected at each sparsity (tuning database) or
// estimated from FLOPs, its loss sensitivity at each sparsity (that layer
// alone pruned, through Session::overrideWeight), and the greedy
// recommendation under a deviation budget.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_PROFILE_PROFILE_H
#define OPSCOPE_TOOLS_PROFILE_PROFILE_H

#include "opscope/runtime/model.h"
#include "opscope/runtime/npy.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opscope::profile {

/// How far outputs moved from the dense model's, over the sample inputs.
struct Sensitivity {
  double relL2 = 0;     ///< ||y - y0|| / ||y0||, mean over input sets
  double cosineMin = 1; ///< lowest cosine over sets and outputs
  double top1 = 1;      ///< argmax agreement of the last dimension's rows
};

struct Layer {
  std::string name; ///< the probe's name: the op's first ONNX source node
  std::string type;
  int64_t probe = -1, op = -1;
  int weightOperand = -1;
  int64_t n = 0, k = 0;
  int64_t params = 0;
  double flops = 0;
  /// Dense latency (ms per iteration) and, per sparsity, the projected one;
  /// `estimate` when both come from FLOPs and the machine's peak.
  std::optional<double> denseMs;
  std::map<double, double> projectedMs;
  bool estimate = false;
  std::string basis;
  std::map<double, Sensitivity> loss;
};

struct Profile {
  std::string model;
  std::vector<double> sparsities;
  int64_t modelParams = 0;
  double modelFlops = 0;
  std::optional<double> modelMs; ///< measured op time per iteration
  std::vector<Layer> layers;
  int inputSets = 0;
  std::string inputSource;
  double lossSeconds = 0;
};

/// The prunable layers of a compiled model: probed inner products with a
/// constant N x K fp32 weight.
std::vector<Layer> findLayers(const Model &model);

/// Runs every input set through `session` and returns the outputs, as
/// doubles, per set and output.
using Outputs = std::vector<std::vector<std::vector<double>>>;
Outputs runSets(Session &session, const Model &model,
                const std::vector<std::vector<rt::HostTensor>> &sets);

/// How far `got` moved from `want` (same sets and outputs); `rows` is each
/// output's last dimension, for top-1.
Sensitivity compareOutputs(const Outputs &got, const Outputs &want,
                           const std::vector<int64_t> &rows);
/// Each output's last dimension (the rows top-1 compares).
std::vector<int64_t> outputRows(const Model &model);

/// The loss profile: each layer alone pruned to each sparsity (1x4 blocks,
/// opscope-prune's magnitude rule) in `session`'s private copy, against
/// `dense`. `onStep` reports progress (done, total).
std::string lossProfile(Session &session, const Model &model,
                        const std::vector<std::vector<rt::HostTensor>> &sets,
                        const Outputs &dense, Profile &profile,
                        const std::function<void(size_t, size_t)> &onStep);

/// The recommendation: per-layer sparsities chosen greedily by projected
/// ms gained per unit of sensitivity (mean relative L2), each step moving a
/// layer to any higher measured ratio, the sum of the chosen sensitivities
/// within `budget`.
struct Recommendation {
  double budget = 0;
  std::map<std::string, double> sparsity; ///< layer -> ratio (pruned only)
  double denseMs = 0, projectedMs = 0, deviation = 0;
};
Recommendation recommend(const Profile &profile, double budget);

} // namespace opscope::profile

#endif // OPSCOPE_TOOLS_PROFILE_PROFILE_H
