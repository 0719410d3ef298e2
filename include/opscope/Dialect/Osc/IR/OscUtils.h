//===- OscUtils.h - facts about osc ops for passes and reports --*- C++ -*-===//
//
// Part of opscope. Weight access for passes that rewrite constants, and the
// static facts reports and the probe table show: cost, kernel, provenance.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_DIALECT_OSC_IR_OSCUTILS_H
#define OPSCOPE_DIALECT_OSC_IR_OSCUTILS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/JSON.h"

#include "opscope/runtime/kinds.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::osc {

/// The values of `v` when it is an osc.constant of f32 elements (dense or
/// dense_resource), else nullopt.
std::optional<std::vector<float>> readF32Constant(mlir::Value v);

/// The values of a constant weight as f32: f32 as `readF32Constant`, bf16
/// (a `--precision bf16` weight, dense_resource) widened exactly, i8 (a
/// `--precision int8` weight) dequantized with its per-row `rowScales`.
std::optional<std::vector<float>>
readWeightValues(mlir::Value v, llvm::ArrayRef<float> rowScales = {});

/// A new i8 weight attribute (a dense_resource blob named `name`).
mlir::ElementsAttr makeS8Weight(mlir::RankedTensorType type,
                                llvm::ArrayRef<int8_t> values,
                                llvm::StringRef name);

/// A new bf16 weight attribute from f32 values (rounded to nearest even): a
/// dense_resource blob named `name`.
mlir::ElementsAttr makeBf16Weight(mlir::RankedTensorType type,
                                  llvm::ArrayRef<float> values,
                                  llvm::StringRef name);

/// A name for a weight derived from constant `weight` (a converted or
/// packed copy): its resource's key, or its tensor name, plus `suffix`.
std::string derivedWeightName(mlir::Value weight, llvm::StringRef suffix);

/// A new f32 weight attribute: a dense_resource blob named `name`.
mlir::ElementsAttr makeF32Weight(mlir::RankedTensorType type,
                                 llvm::ArrayRef<float> values,
                                 llvm::StringRef name);

/// The splat value of a constant scalar-like operand (all elements equal),
/// as double.
std::optional<double> splatConstant(mlir::Value v);

/// Whether `op` executes a runtime kernel (false for constants, reshapes,
/// probes and terminators, which are data, aliases or structure).
bool isExecuted(mlir::Operation *op);

struct OpCost {
  std::optional<double> flops; // per execution; nullopt when unknown
  double bytes = 0;            // operands + results, weights included
};
/// Cost as the op declares it (ExecutableOpInterface); constants and
/// reshapes cost nothing.
OpCost estimateCost(mlir::Operation *op);

/// The runtime kernel an op lowers to (`onednn:inner_product`,
/// `opscope:layer_norm`, ...).
std::string kernelFor(mlir::Operation *op);

/// Printable kind: the op name without `osc.`, with its kind keyword
/// (`binary.add`, `unary.relu`, `gelu.erf`).
std::string kindOf(mlir::Operation *op);

class PostOpAttr;
/// The plan's spelling of a post-op (`relu`, `leaky_relu(0.100000001)`:
/// rt::postOpName).
std::string postOpName(PostOpAttr post);
/// Post-op names of a fusible op (empty for others), as postOpName.
std::vector<std::string> postOpsOf(mlir::Operation *op);

/// ONNX node names an op came from: the names in its NameLoc / FusedLoc.
/// Fusion lists the op's own node first (the name reports give the op),
/// then the nodes it absorbed in graph order.
std::vector<std::string> sourceNodes(mlir::Location loc);

/// Tag of a FusedLoc grouping nodes a fused op absorbed on its input side
/// (a transpose folded into a matmul operand, a mask add folded into a
/// softmax): they are sources, but their values are not the op's result.
inline constexpr const char *kInputSideLocTag = "osc.input";

/// The ONNX node that produced the op's result: the last source node that
/// is not on the input side. Output tensors are named after it.
std::optional<std::string> resultSourceNode(mlir::Location loc);

/// A readable name for a tensor: the graph input's ONNX name, or the source
/// node that produced it (resultSourceNode), or the op's kind.
std::string tensorName(mlir::Value v);

/// The location of an op fused from `anchor` (its own node) and nodes it
/// absorbed on its input side.
mlir::Location fuseWithInputs(mlir::Location anchor,
                              llvm::ArrayRef<mlir::Location> inputs);

/// The op's weight operand (ExecutableOpInterface) when it is a constant.
mlir::Value weightOperand(mlir::Operation *op);

/// Bytes a tensor of type `t` takes in the runtime (i1 as one byte per
/// element), or nullopt when the element or byte count overflows int64 or a
/// dimension is dynamic. Every size check against --max-tensor-bytes uses it.
std::optional<int64_t> tensorByteSize(mlir::Type t);

/// The default limit on one tensor's bytes (--max-tensor-bytes): 4 GiB.
inline constexpr int64_t kDefaultMaxTensorBytes = int64_t(4) << 30;

/// The runtime's element type (kinds.def) of a ranked tensor type.
rt::DType runtimeDType(mlir::Type t);

/// A tensor type's shape as a JSON array of integers.
llvm::json::Array shapeJson(mlir::Type t);

/// The static facts about an op that the probe table and the fusion report
/// both show, in one vocabulary: name (first source node), type, post_ops,
/// source_nodes, inputs and outputs ({name, dtype, shape}), weight_shape,
/// weight_sparsity, sparse_support, flops, bytes, kernel (docs/profiling.md).
llvm::json::Object opFacts(mlir::Operation *op);

/// Where a value's run-time extent lives (docs/architecture.md,
/// "Data-dependent output shapes"): the tensor<i64> its producer writes, and
/// the axis of the value it applies to.
struct Extent {
  mlir::Value count;
  int64_t axis = -1;
};

/// The run-time extent of `v`: from the op that produces it
/// (getExtentAxis), or carried through the ops that run on a prefix
/// (propagateExtent); nullopt when `v` is fully valid. Answers are
/// memoized in `cache` (a residual network's values share ancestors: the
/// walk without it is exponential in the depth); callers that ask of many
/// values of one unchanged function pass one cache to all the calls.
using ExtentCache = llvm::DenseMap<mlir::Value, std::optional<Extent>>;
std::optional<Extent> extentOf(mlir::Value v, ExtentCache &cache);
std::optional<Extent> extentOf(mlir::Value v);

/// Checks every use of a value with a run-time extent in `fn`: each user
/// must carry it (propagateExtent) or be the function's return. Emits an
/// error naming the first user that cannot, and the producer.
mlir::LogicalResult checkExtents(mlir::Operation *fn);

} // namespace opscope::osc

#endif // OPSCOPE_DIALECT_OSC_IR_OSCUTILS_H
