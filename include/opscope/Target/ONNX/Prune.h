//===- Prune.h - block-magnitude pruning of ONNX weights --------*- C++ -*-===//
//
// Part of opscope. What `opscope-prune` does, as a library (no MLIR): find
// the layers of an ONNX model whose weights can be pruned, and zero the
// lowest-magnitude blocks of each weight in place. docs/sparsity.md
// ("Pruning with opscope-prune") describes the rules.
//
// A layer is a MatMul or Gemm of the main graph whose weight B is a constant
// (an initializer or a Constant node) 2-D FLOAT tensor used by no other node,
// and whose A is not a constant. Blocks are oriented in the [N, K] view of
// the weight (N outputs, K the reduction), as osc.inner_product holds it:
// an R x C block is R consecutive outputs by C consecutive reduction
// elements, so 1x4 is four consecutive input features of one output.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TARGET_ONNX_PRUNE_H
#define OPSCOPE_TARGET_ONNX_PRUNE_H

#include "opscope/runtime/block_prune.h"

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace onnx {
class ModelProto;
class TensorProto;
} // namespace onnx

namespace opscope::prune {

/// R consecutive outputs (along N) by C consecutive reduction elements
/// (along K): the runtime's sparse format's definition, so that a pruned
/// block and a packed block mean the same thing.
using BlockShape = rt::sparse::BlockShape;

/// Parses `RxC` (positive integers of up to six digits, e.g. `1x4`);
/// nullopt otherwise.
std::optional<BlockShape> parseBlockShape(std::string_view text);

/// Block counts, weight views and the pruning itself are the runtime's
/// (opscope/runtime/block_prune.h): opscope-profile prunes a session's copy
/// of a weight with the same code.
using rt::sparse::BlockCounts;
using rt::sparse::countZeroBlocks;
using rt::sparse::pruneBlocks;
using rt::sparse::WeightView;

/// A prunable layer of a model.
struct Layer {
  /// The node's name, or its first output's when it has none.
  std::string name;
  std::string opType;
  /// The weight tensor's name (the node's input B).
  std::string weight;
  /// The weight's dims as stored: K x N, or N x K for Gemm with transB=1.
  int64_t dims[2] = {0, 0};
  int64_t n = 0, k = 0;
  bool nk = false;
  onnx::TensorProto *tensor = nullptr;
};

/// A MatMul or Gemm with a constant weight that cannot be pruned.
struct NotPrunable {
  std::string name, opType, weight;
  /// Why, completing "its weight 'W' ..." (e.g. "is FLOAT16").
  std::string reason;
  std::string str() const;
};

/// The prunable layers of `model`, in node order; `notPrunable` receives
/// the MatMul/Gemm nodes with a constant weight that are not (not FLOAT,
/// not 2-D, empty, shared with another node).
std::vector<Layer> findLayers(onnx::ModelProto &model,
                              std::vector<NotPrunable> &notPrunable);

/// What to prune.
struct Options {
  /// The ratio of layers `perLayer` does not name; without it, those stay
  /// as they are.
  std::optional<double> sparsity;
  BlockShape block;
  /// Only layers whose node or weight name this matches (regex_search).
  std::optional<std::regex> ops;
  std::string opsText;
  /// Ratios by node name (or weight name), from readPerLayerFile.
  std::map<std::string, double> perLayer;
  std::string perLayerFile;
};

/// One layer's outcome.
struct LayerReport {
  std::string name, opType, weight;
  int64_t dims[2] = {0, 0};
  /// Stored as N x K (Gemm with transB=1), else K x N.
  bool nk = false;
  /// 0 when the block shape does not fit a layer left as it was.
  int64_t blocks = 0, zeroBefore = 0, zeroAfter = 0;
  /// A pruned weight's whole 1x4 blocks and its zero ones after pruning,
  /// close to what the compiler's detection measures (which also counts a
  /// trailing partial block when 4 does not divide K).
  int64_t blocks1x4 = 0, zero1x4 = 0;
  /// The requested ratio; nullopt when the layer was left as it was.
  std::optional<double> target;
};

struct Report {
  BlockShape block;
  /// The selected layers (all prunable ones without --ops), in node order.
  std::vector<LayerReport> layers;
  /// How many layers are prunable, selected or not.
  size_t prunable = 0;
  std::vector<NotPrunable> notPrunable;
};

/// Prunes `model` in place. Returns "" on success, else an error naming
/// the flag, layer or file (and the model is then unchanged).
std::string pruneModel(onnx::ModelProto &model, const Options &options,
                       Report &report);

/// Reads a per-layer file: `{"layers": {NAME: RATIO, ...}}`, where RATIO is
/// a number in (0, 1) or an object with one, `{"sparsity": RATIO, ...}`
/// (other keys, here and at the top level, are ignored: a sensitivity
/// profile can carry its measurements). Returns "" or an error naming the
/// file.
std::string readPerLayerFile(const std::string &path,
                             std::map<std::string, double> &ratios);

/// Prints the per-layer table and the total.
void printReport(std::ostream &os, const Report &report);

} // namespace opscope::prune

#endif // OPSCOPE_TARGET_ONNX_PRUNE_H
