//===- Prune.cpp - block-magnitude pruning of ONNX weights ----------------===//
//
// Part of opscope. Finding prunable layers, choosing the blocks to zero,
// the per-layer file, and the report opscope-prune prints. No MLIR.
//
//===----------------------------------------------------------------------===//

#include "opscope/Target/ONNX/Prune.h"

#include "opscope/runtime/per_layer.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>

using namespace opscope;
using namespace opscope::prune;

//===----------------------------------------------------------------------===//
// Blocks
//===----------------------------------------------------------------------===//

std::optional<BlockShape> prune::parseBlockShape(std::string_view text) {
  BlockShape b;
  if (!rt::sparse::parseBlockShape(std::string(text), b))
    return std::nullopt;
  return b;
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

static bool isDefaultDomain(const onnx::NodeProto &node) {
  return node.domain().empty() || node.domain() == "ai.onnx";
}

static std::string nodeName(const onnx::NodeProto &node) {
  return node.name().empty() ? (node.output_size() ? node.output(0) : "")
                             : node.name();
}

/// Counts every use of a value by name: node inputs, here and in
/// subgraphs (which may use outer values), and graph outputs.
static void countUses(const onnx::GraphProto &graph,
                      std::map<std::string, int> &uses) {
  for (const auto &node : graph.node()) {
    for (const auto &in : node.input())
      ++uses[in];
    for (const auto &a : node.attribute()) {
      if (a.has_g())
        countUses(a.g(), uses);
      for (const auto &g : a.graphs())
        countUses(g, uses);
    }
  }
  for (const auto &out : graph.output())
    ++uses[out.name()];
}

static std::string onnxTypeName(int32_t t) {
  return onnx::TensorProto::DataType_IsValid(t)
             ? onnx::TensorProto::DataType_Name(
                   static_cast<onnx::TensorProto::DataType>(t))
             : "type " + std::to_string(t);
}

std::string NotPrunable::str() const {
  return opType + " '" + name + "' not pruned: its weight '" + weight + "' " +
         reason;
}

std::vector<Layer> prune::findLayers(onnx::ModelProto &model,
                                     std::vector<NotPrunable> &notPrunable) {
  std::vector<Layer> layers;
  if (!model.has_graph())
    return layers;
  onnx::GraphProto &graph = *model.mutable_graph();
  std::map<std::string, onnx::TensorProto *> constants;
  for (auto &t : *graph.mutable_initializer())
    constants[t.name()] = &t;
  for (auto &node : *graph.mutable_node())
    if (node.op_type() == "Constant" && isDefaultDomain(node) &&
        node.output_size() == 1)
      for (auto &a : *node.mutable_attribute())
        if (a.name() == "value" && a.has_t())
          constants[node.output(0)] = a.mutable_t();
  std::map<std::string, int> uses;
  countUses(graph, uses);

  for (const auto &node : graph.node()) {
    if ((node.op_type() != "MatMul" && node.op_type() != "Gemm") ||
        !isDefaultDomain(node) || node.input_size() < 2)
      continue;
    auto b = constants.find(node.input(1));
    // A constant A makes the node a constant computation, not a layer.
    if (b == constants.end() || constants.count(node.input(0)))
      continue;
    onnx::TensorProto *t = b->second;
    auto skip = [&](std::string reason) {
      notPrunable.push_back(
          {nodeName(node), node.op_type(), node.input(1), std::move(reason)});
    };
    if (t->data_type() != onnx::TensorProto::FLOAT) {
      skip("is " + onnxTypeName(t->data_type()) +
           " (opscope-prune prunes FLOAT weights)");
      continue;
    }
    if (t->dims_size() != 2) {
      skip("has rank " + std::to_string(t->dims_size()) + ", not 2");
      continue;
    }
    if (t->dims(0) <= 0 || t->dims(1) <= 0) {
      skip("is empty");
      continue;
    }
    if (uses[node.input(1)] > 1) {
      skip("is also used elsewhere (" + std::to_string(uses[node.input(1)]) +
           " uses)");
      continue;
    }
    bool transB = false;
    if (node.op_type() == "Gemm")
      for (const auto &a : node.attribute())
        if (a.name() == "transB")
          transB = a.i() != 0;
    Layer l;
    l.name = nodeName(node);
    l.opType = node.op_type();
    l.weight = node.input(1);
    l.dims[0] = t->dims(0);
    l.dims[1] = t->dims(1);
    l.nk = transB;
    l.n = transB ? l.dims[0] : l.dims[1];
    l.k = transB ? l.dims[1] : l.dims[0];
    l.tensor = t;
    layers.push_back(std::move(l));
  }
  return layers;
}

//===----------------------------------------------------------------------===//
// Pruning a model
//===----------------------------------------------------------------------===//

static std::string quoteList(const std::vector<std::string> &names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i ? ", '" : "'") + names[i] + "'";
  return s;
}

static std::string shapeText(const int64_t dims[2]) {
  return std::to_string(dims[0]) + "x" + std::to_string(dims[1]);
}

/// Why the weight cannot be pruned as `block`, or "".
static std::string checkLayer(const Layer &l, BlockShape block) {
  std::string what = "layer '" + l.name + "' (weight '" + l.weight + "', " +
                     shapeText(l.dims) + (l.nk ? ", N x K" : ", K x N") + ")";
  if (l.k % block.cols)
    return "--block " + block.str() + " does not divide " + what +
           ": its reduction dimension K=" + std::to_string(l.k) +
           " is not a multiple of " + std::to_string(block.cols);
  if (l.n % block.rows)
    return "--block " + block.str() + " does not divide " + what +
           ": its output dimension N=" + std::to_string(l.n) +
           " is not a multiple of " + std::to_string(block.rows);
  const onnx::TensorProto &t = *l.tensor;
  uint64_t count = static_cast<uint64_t>(l.n) * static_cast<uint64_t>(l.k);
  bool ok = t.has_raw_data()
                ? t.raw_data().size() == count * sizeof(float)
                : static_cast<uint64_t>(t.float_data_size()) == count;
  if (!ok)
    return what + ": the tensor holds " +
           std::to_string(t.has_raw_data() ? t.raw_data().size()
                                           : t.float_data_size() * 4) +
           " bytes, its shape needs " + std::to_string(count * 4) +
           " (truncated or malformed model?)";
  return "";
}

std::string prune::pruneModel(onnx::ModelProto &model, const Options &options,
                              Report &report) {
  report = Report();
  report.block = options.block;
  std::vector<Layer> layers = findLayers(model, report.notPrunable);
  report.prunable = layers.size();
  if (layers.empty()) {
    std::string error = "nothing to prune: the model has no MatMul or Gemm "
                        "with a constant 2-D FLOAT weight";
    for (const auto &n : report.notPrunable)
      error += "\n  " + n.str();
    return error;
  }

  std::vector<bool> selected(layers.size(), true);
  if (options.ops) {
    size_t count = 0;
    for (size_t i = 0; i < layers.size(); ++i) {
      selected[i] = std::regex_search(layers[i].name, *options.ops) ||
                    std::regex_search(layers[i].weight, *options.ops);
      count += selected[i];
    }
    if (!count)
      return "--ops '" + options.opsText + "' matches none of the " +
             std::to_string(layers.size()) +
             " prunable layers (node or weight names, e.g. '" +
             layers.front().name + "', '" + layers.front().weight + "')";
  }

  // Targets: the per-layer file's, else --sparsity.
  std::vector<std::optional<double>> target(layers.size());
  for (size_t i = 0; i < layers.size(); ++i)
    if (selected[i])
      target[i] = options.sparsity;
  std::vector<std::string> unknown, excluded;
  std::map<size_t, std::string> keyOf;
  for (const auto &[key, ratio] : options.perLayer) {
    bool found = false;
    for (size_t i = 0; i < layers.size(); ++i) {
      if (layers[i].name != key && layers[i].weight != key)
        continue;
      found = true;
      if (!selected[i]) {
        excluded.push_back(key);
        continue;
      }
      auto [it, fresh] = keyOf.emplace(i, key);
      if (!fresh)
        return "--per-layer " + options.perLayerFile + " gives layer '" +
               layers[i].name + "' twice ('" + it->second + "' and '" + key +
               "')";
      target[i] = ratio;
    }
    if (!found)
      unknown.push_back(key);
  }
  if (!unknown.empty()) {
    std::string error =
        "--per-layer " + options.perLayerFile + " names " +
        std::to_string(unknown.size()) + " unknown layer" +
        (unknown.size() > 1 ? "s" : "") + ": " + quoteList(unknown) +
        " (a layer is a MatMul or Gemm with a constant weight, named by its "
        "node or its weight; the model has " +
        std::to_string(layers.size()) + ", e.g. '" + layers.front().name + "')";
    // Those that are MatMul/Gemm nodes (or their weights) say why not.
    for (const auto &key : unknown)
      for (const auto &n : report.notPrunable)
        if (n.name == key || n.weight == key)
          error += "\n  " + n.str();
    return error;
  }
  if (!excluded.empty())
    return "--per-layer " + options.perLayerFile +
           " names layers that --ops '" + options.opsText +
           "' excludes: " + quoteList(excluded);

  // Everything is checked before any weight changes.
  std::vector<std::string> errors;
  size_t pruned = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    if (!target[i])
      continue;
    ++pruned;
    if (std::string e = checkLayer(layers[i], options.block); !e.empty())
      errors.push_back(e);
  }
  if (!errors.empty()) {
    std::string error = errors.front();
    if (errors.size() > 1)
      error += " (and " + std::to_string(errors.size() - 1) + " more layer" +
               (errors.size() > 2 ? "s" : "") + ")";
    return error;
  }
  if (!pruned)
    return "nothing to prune: --per-layer " + options.perLayerFile +
           " names no layer and --sparsity is not given";

  for (size_t i = 0; i < layers.size(); ++i) {
    if (!selected[i])
      continue;
    const Layer &l = layers[i];
    LayerReport r;
    r.name = l.name;
    r.opType = l.opType;
    r.weight = l.weight;
    r.dims[0] = l.dims[0];
    r.dims[1] = l.dims[1];
    r.target = target[i];
    r.nk = l.nk;
    // A layer left as it is may not fit the block shape (or be malformed):
    // it is listed without counts.
    if (checkLayer(l, options.block).empty()) {
      // Copied out and back with memcpy: untouched elements keep their
      // bits (NaN payloads included) whatever the storage form.
      onnx::TensorProto &t = *l.tensor;
      std::vector<float> values(static_cast<size_t>(l.n * l.k));
      size_t bytes = values.size() * sizeof(float);
      if (t.has_raw_data())
        std::memcpy(values.data(), t.raw_data().data(), bytes);
      else
        std::memcpy(values.data(), t.float_data().data(), bytes);
      WeightView w{values.data(), l.n, l.k, l.nk};
      BlockCounts before = countZeroBlocks(w, options.block);
      r.blocks = before.blocks;
      r.zeroBefore = r.zeroAfter = before.zeroBlocks;
      if (r.target) {
        r.zeroAfter = pruneBlocks(w, options.block, *r.target).zeroBlocks;
        if (t.has_raw_data())
          std::memcpy(t.mutable_raw_data()->data(), values.data(), bytes);
        else
          std::memcpy(t.mutable_float_data()->mutable_data(), values.data(),
                      bytes);
      }
      if (r.target) {
        BlockCounts k14 = countZeroBlocks(w, BlockShape{1, 4});
        r.blocks1x4 = k14.blocks;
        r.zero1x4 = k14.zeroBlocks;
      }
    }
    report.layers.push_back(std::move(r));
  }
  return "";
}

//===----------------------------------------------------------------------===//
// The per-layer file
//===----------------------------------------------------------------------===//

std::string prune::readPerLayerFile(const std::string &path,
                                    std::map<std::string, double> &ratios) {
  // One reader for opscope-prune and opscope-analyze --what-if.
  return tuning::readPerLayer(path, "--per-layer", ratios);
}

//===----------------------------------------------------------------------===//
// The report
//===----------------------------------------------------------------------===//

static std::string ratioText(double r) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(4) << r;
  return s.str();
}

void prune::printReport(std::ostream &os, const Report &report) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"layer", "op", "weight", "shape", "layout", "blocks",
                  "before", "target", "reached"});
  int64_t blocks = 0, before = 0, after = 0, pruned = 0;
  for (const auto &l : report.layers) {
    BlockCounts b{l.blocks, l.zeroBefore}, a{l.blocks, l.zeroAfter};
    bool counted = l.blocks > 0;
    rows.push_back({l.name, l.opType, l.weight, shapeText(l.dims),
                    l.nk ? "NxK" : "KxN",
                    counted ? std::to_string(l.blocks) : "-",
                    counted ? ratioText(b.ratio()) : "-",
                    l.target ? ratioText(*l.target) : "-",
                    counted ? ratioText(a.ratio()) : "-"});
    blocks += l.blocks;
    before += l.zeroBefore;
    after += l.zeroAfter;
    pruned += l.target.has_value();
  }
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto &row : rows)
    for (size_t c = 0; c < row.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  for (const auto &row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      // Names left, numbers right.
      size_t pad = width[c] - row[c].size();
      bool left = c < 5;
      line += (c ? "  " : "") + (left ? "" : std::string(pad, ' ')) + row[c] +
              (left && c + 1 < row.size() ? std::string(pad, ' ') : "");
    }
    os << line << "\n";
  }
  int64_t perBlock = report.block.rows * report.block.cols;
  BlockCounts b{blocks, before}, a{blocks, after};
  os << "total: " << report.layers.size()
     << (report.layers.size() == 1 ? " layer (" : " layers (") << pruned
     << " pruned; the model has " << report.prunable << " prunable), " << blocks
     << " blocks of " << report.block.str() << ", before "
     << ratioText(b.ratio()) << ", reached " << ratioText(a.ratio()) << " ("
     << after * perBlock << " of " << blocks * perBlock
     << " weights in zero blocks)\n";
  for (const auto &n : report.notPrunable)
    os << "note: " << n.str() << "\n";
  // Shapes the kernels do not run as such go to the 1x4 ones with the 1x4
  // sparsity they leave (docs/sparsity.md, Blocks); those made of whole 4x4
  // blocks (4x4, 8x4, 4x8, ...) pack as 4x4 at their own sparsity.
  if (report.block == BlockShape{1, 4} ||
      (report.block.rows % 4 == 0 && report.block.cols % 4 == 0))
    return;
  int64_t blocks14 = 0, zero14 = 0;
  double lo = 1, hi = 0;
  for (const auto &l : report.layers) {
    if (!l.target || !l.blocks1x4)
      continue;
    BlockCounts c{l.blocks1x4, l.zero1x4};
    blocks14 += c.blocks;
    zero14 += c.zeroBlocks;
    lo = std::min(lo, c.ratio());
    hi = std::max(hi, c.ratio());
  }
  if (!blocks14)
    return;
  BlockCounts all{blocks14, zero14};
  os << "note: opscope's sparse kernels run 1x4 and 4x4 blocks; after "
     << report.block.str() << " pruning the pruned weights' 1x4 block "
     << "sparsity is " << ratioText(all.ratio()) << " ("
     << (ratioText(lo) == ratioText(hi) ? ratioText(lo)
                                        : ratioText(lo) + "-" + ratioText(hi))
     << " per layer), and opscope-compile runs a weight sparse from "
        "--sparse-threshold (0.7 by default) up\n";
}
