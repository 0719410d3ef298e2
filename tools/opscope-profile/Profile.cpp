//===- Profile.cpp - Sparsify-style per-layer profiles --------------------===//
//
// Part of opscope (Profile.h).
//
//===----------------------------------------------------------------------===//

#include "Profile.h"

#include "opscope/runtime/block_prune.h"
#include "opscope/runtime/tooling/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace opscope;
using namespace opscope::profile;

std::vector<Layer> profile::findLayers(const Model &model) {
  std::vector<Layer> layers;
  for (const ProbeInfo &p : model.probes()) {
    if (p.type != "inner_product" || p.op < 0 || p.weightShape.size() != 2)
      continue;
    int w = model.weightOperand(static_cast<size_t>(p.op));
    if (w < 0)
      continue;
    Layer l;
    l.name = p.name;
    l.type = p.type;
    l.probe = p.id;
    l.op = p.op;
    l.weightOperand = w;
    l.n = p.weightShape[0];
    l.k = p.weightShape[1];
    l.params = l.n * l.k;
    l.flops = p.flops;
    layers.push_back(std::move(l));
  }
  return layers;
}

Outputs profile::runSets(Session &session, const Model &model,
                         const std::vector<std::vector<rt::HostTensor>> &sets) {
  Outputs out;
  for (const auto &set : sets) {
    for (size_t i = 0; i < set.size(); ++i)
      if (!set[i].data.empty())
        std::memcpy(session.input(i), set[i].data.data(), set[i].data.size());
    session.run();
    std::vector<std::vector<double>> ys;
    for (size_t o = 0; o < model.outputs().size(); ++o) {
      const TensorInfo &info = model.outputs()[o];
      ys.push_back(tooling::asDoubles(info.dtype, session.output(o),
                                      info.elements()));
    }
    out.push_back(std::move(ys));
  }
  return out;
}

std::vector<int64_t> profile::outputRows(const Model &model) {
  std::vector<int64_t> rows;
  for (const TensorInfo &o : model.outputs())
    rows.push_back(o.shape.empty() ? 1 : o.shape.back());
  return rows;
}

Sensitivity profile::compareOutputs(const Outputs &got, const Outputs &want,
                                    const std::vector<int64_t> &rows) {
  Sensitivity s;
  double relSum = 0;
  int64_t agree = 0, total = 0;
  for (size_t set = 0; set < want.size(); ++set) {
    double diff = 0, norm = 0;
    for (size_t o = 0; o < want[set].size(); ++o) {
      const auto &y = got[set][o], &y0 = want[set][o];
      double dot = 0, a = 0, b = 0;
      for (size_t i = 0; i < y0.size(); ++i) {
        diff += (y[i] - y0[i]) * (y[i] - y0[i]);
        norm += y0[i] * y0[i];
        dot += y[i] * y0[i];
        a += y[i] * y[i];
        b += y0[i] * y0[i];
      }
      double cosine = a > 0 && b > 0 ? dot / std::sqrt(a * b) : (a == b ? 1 : 0);
      s.cosineMin = std::min(s.cosineMin, cosine);
      int64_t last = std::max<int64_t>(rows[o], 1);
      for (size_t r = 0; r + last <= y0.size(); r += last) {
        auto am = [&](const std::vector<double> &v) {
          return std::max_element(v.begin() + r, v.begin() + r + last) -
                 v.begin();
        };
        agree += am(y) == am(y0);
        ++total;
      }
    }
    relSum += norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  }
  s.relL2 = want.empty() ? 0 : relSum / want.size();
  s.top1 = total ? static_cast<double>(agree) / total : 1;
  return s;
}

std::string profile::lossProfile(
    Session &session, const Model &model,
    const std::vector<std::vector<rt::HostTensor>> &sets, const Outputs &dense,
    Profile &p, const std::function<void(size_t, size_t)> &onStep) {
  std::vector<int64_t> rows = outputRows(model);
  size_t total = p.layers.size() * p.sparsities.size(), done = 0;
  rt::sparse::BlockShape block; // 1x4, the sparse kernels' block
  for (Layer &l : p.layers) {
    if (l.k % block.cols != 0 || l.n % block.rows != 0) {
      l.basis = "no 1x4 blocks (K " + std::to_string(l.k) + ")";
      done += p.sparsities.size();
      continue;
    }
    const float *mapped = static_cast<const float *>(
        session.operand(static_cast<size_t>(l.op), l.weightOperand));
    std::vector<float> copy(static_cast<size_t>(l.n * l.k));
    for (double s : p.sparsities) {
      std::memcpy(copy.data(), mapped, copy.size() * sizeof(float));
      rt::sparse::WeightView view{copy.data(), l.n, l.k, /*nk=*/true};
      rt::sparse::pruneBlocks(view, block, s);
      session.overrideWeight(static_cast<size_t>(l.op), l.weightOperand,
                             copy.data(), copy.size() * sizeof(float));
      l.loss[s] = compareOutputs(runSets(session, model, sets), dense, rows);
      if (onStep)
        onStep(++done, total);
    }
    session.clearWeightOverrides();
  }
  return "";
}

Recommendation profile::recommend(const Profile &p, double budget) {
  Recommendation r;
  r.budget = budget;
  r.denseMs = p.modelMs.value_or(0);
  // Per layer: the index of its chosen ratio in p.sparsities (-1: dense).
  std::vector<int> chosen(p.layers.size(), -1);
  auto msAt = [&](const Layer &l, int i) {
    return i < 0 ? l.denseMs.value_or(0)
                 : l.projectedMs.count(p.sparsities[i])
                       ? l.projectedMs.at(p.sparsities[i])
                       : l.denseMs.value_or(0);
  };
  auto lossAt = [&](const Layer &l, int i) {
    return i < 0 || !l.loss.count(p.sparsities[i])
               ? 0.0
               : l.loss.at(p.sparsities[i]).relL2;
  };
  double used = 0;
  // Each step moves one layer from its ratio to any higher measured one
  // (not only the next: on some CPUs 0.7 is slower than dense while 0.9
  // is faster, and a one-step walk would never get past 0.7), taking the
  // move with the most ms gained per unit of added sensitivity.
  while (true) {
    int best = -1, bestTo = -1;
    double bestScore = 0, bestCost = 0;
    for (size_t li = 0; li < p.layers.size(); ++li) {
      const Layer &l = p.layers[li];
      if (!l.denseMs)
        continue;
      for (int to = chosen[li] + 1; to < static_cast<int>(p.sparsities.size());
           ++to) {
        if (!l.loss.count(p.sparsities[to]) ||
            !l.projectedMs.count(p.sparsities[to]))
          continue;
        double gain = msAt(l, chosen[li]) - msAt(l, to);
        double cost = std::max(lossAt(l, to) - lossAt(l, chosen[li]), 1e-12);
        if (gain <= 0 || used + cost > budget)
          continue;
        double score = gain / cost;
        if (score > bestScore) {
          best = static_cast<int>(li);
          bestTo = to;
          bestScore = score;
          bestCost = cost;
        }
      }
    }
    if (best < 0)
      break;
    chosen[best] = bestTo;
    used += bestCost;
  }
  r.projectedMs = r.denseMs;
  for (size_t li = 0; li < p.layers.size(); ++li) {
    if (chosen[li] < 0)
      continue;
    const Layer &l = p.layers[li];
    r.sparsity[l.name] = p.sparsities[chosen[li]];
    r.projectedMs -= msAt(l, -1) - msAt(l, chosen[li]);
    r.deviation += lossAt(l, chosen[li]);
  }
  return r;
}
