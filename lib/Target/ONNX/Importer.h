//===- Importer.h - internals of the ONNX importer --------------*- C++ -*-===//
//
// Part of opscope. Private to lib/Target/ONNX: the per-node context that op
// converters (ONNXElementwise.cpp, ONNXCompute.cpp, ...) work against, and
// the converter table. Only this library includes protobuf/ONNX headers.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_LIB_TARGET_ONNX_IMPORTER_H
#define OPSCOPE_LIB_TARGET_ONNX_IMPORTER_H

#include "opscope/Dialect/Osc/IR/OscOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <optional>
#include <string>

namespace opscope::onnx_import {

/// Maps an ONNX TensorProto data type to the MLIR element type the graph
/// computes in (null when the type has no osc equivalent). FLOAT16 maps to
/// f32: an fp16 model's weights are widened as they are decoded, and its
/// values and Casts to FLOAT16 are f32 (docs/precision.md, "fp16 models").
mlir::Type elementTypeFor(int32_t onnxType, mlir::MLIRContext *context);

/// The element type of a graph input or output: as elementTypeFor, but
/// FLOAT16 stays f16; the importer casts such inputs to f32 and such outputs
/// back to f16, so the compiled model takes and returns what the ONNX model
/// declares.
mlir::Type boundaryTypeFor(int32_t onnxType, mlir::MLIRContext *context);

/// Name of an ONNX data type for messages (`FLOAT`, `INT64`, ...).
std::string onnxTypeName(int32_t onnxType);

/// Decodes a TensorProto (typed fields, raw_data or external data relative to
/// `modelDir`) into an attribute: DenseElementsAttr for small tensors, which
/// folders can evaluate, and a 64-byte aligned dense_resource blob for
/// weights. Returns null with `error` set on failure. With `steal`, a
/// weight's raw_data buffer moves into the blob instead of being copied
/// (the tensor loses its data).
mlir::ElementsAttr decodeTensor(const onnx::TensorProto &tensor,
                                llvm::StringRef modelDir,
                                mlir::MLIRContext *context, std::string &error,
                                onnx::TensorProto *steal = nullptr);

/// Looks up graph values for converters; implemented by the graph importer.
class ValueSource {
public:
  virtual ~ValueSource() = default;
  /// The value named `name` (materializing an initializer on first use), or
  /// null when the name is unknown.
  virtual mlir::Value lookup(const std::string &name) = 0;
  /// Whether any node or graph output consumes `name`.
  virtual bool isUsed(const std::string &name) const = 0;
  /// The directory external data is read from (the model's).
  virtual llvm::StringRef modelDirectory() const = 0;
};

/// Everything a converter needs to turn one ONNX node into osc ops.
class NodeContext {
public:
  /// `label`: how messages name the node (onnx_model::nodeLabel).
  NodeContext(ValueSource &values, const onnx::NodeProto &node,
              std::string label, int64_t opset, mlir::Location loc,
              mlir::OpBuilder &builder)
      : node(node), opset(opset), loc(loc), b(builder), values(values),
        label(std::move(label)) {}

  const onnx::NodeProto &node;
  /// Opset version of the default domain.
  const int64_t opset;
  /// NameLoc of the node: every op built for it carries this.
  const mlir::Location loc;
  mlir::OpBuilder &b;

  // Inputs. Optional inputs may be absent (fewer inputs, or an empty name).
  unsigned numInputs() const { return node.input_size(); }
  bool hasInput(unsigned i) const {
    return i < numInputs() && !node.input(i).empty();
  }
  mlir::Value input(unsigned i) {
    return hasInput(i) ? values.lookup(node.input(i)) : mlir::Value();
  }
  mlir::RankedTensorType inputType(unsigned i) {
    return mlir::cast<mlir::RankedTensorType>(input(i).getType());
  }
  bool outputUsed(unsigned i) const {
    return i < static_cast<unsigned>(node.output_size()) &&
           !node.output(i).empty() && values.isUsed(node.output(i));
  }

  // Attributes.
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  int64_t intAttr(llvm::StringRef name, int64_t def) const;
  float floatAttr(llvm::StringRef name, float def) const;
  std::string stringAttr(llvm::StringRef name, llvm::StringRef def) const;
  std::optional<llvm::SmallVector<int64_t>> intsAttr(llvm::StringRef name) const;
  std::optional<llvm::SmallVector<float>> floatsAttr(llvm::StringRef name) const;

  // Compile-time constants: the value of input `i` when it is a (folded)
  // constant. `require*` emits an error naming `what` when it is not.
  std::optional<llvm::SmallVector<int64_t>> constInts(unsigned i);
  std::optional<llvm::SmallVector<double>> constFloats(unsigned i);
  mlir::FailureOr<llvm::SmallVector<int64_t>> requireConstInts(unsigned i,
                                                            llvm::StringRef what);

  /// Emits an error prefixed with the node's name and op type.
  mlir::InFlightDiagnostic error();

  /// Builds op `OpTy`, folding it right away when its operands are constant.
  template <typename OpTy, typename... Args>
  mlir::Value create(mlir::Type resultType, Args &&...args) {
    return b.createOrFold<OpTy>(loc, resultType, std::forward<Args>(args)...);
  }

  /// Normalizes a possibly negative axis against `rank`; errors when out of
  /// range.
  mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                         llvm::StringRef what = "axis");
  /// Each axis normalized (normalizeAxis), in the order given; errors when
  /// one is out of range or named twice.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  normalizeAxes(llvm::ArrayRef<int64_t> axes, int64_t rank,
                llvm::StringRef what = "axis");

  /// The node's name, else its first output's, else `#index` in its graph.
  const std::string &name() const { return label; }

  /// The model's directory, which external data must stay inside.
  llvm::StringRef modelDirectory() const { return values.modelDirectory(); }

private:
  ValueSource &values;
  std::string label;
};

/// Converts one node; pushes one value per ONNX output (null for outputs it
/// does not produce, which must then be unused).
/// `name` inside the subgraph at `path` (`if/then_branch/name`); one slash
/// between them even when torch-style names begin with one.
std::string subgraphPath(llvm::StringRef path, llvm::StringRef name);

/// Imports subgraphs (If's branches, Loop's body); the graph importer
/// implements it.
class SubgraphImporter {
public:
  virtual ~SubgraphImporter() = default;
  /// Imports `graph` into `block`: its nodes named under `path`, `args`
  /// bound to the graph's inputs in order; `outputs` receives the values of
  /// its outputs. Names the subgraph defines do not leak out of it. Errors
  /// go to `c` (the node that owns the subgraph), naming `what`.
  virtual mlir::LogicalResult
  importSubgraph(const onnx::GraphProto &graph, const std::string &path,
                 mlir::Block *block, mlir::ValueRange args,
                 llvm::SmallVectorImpl<mlir::Value> &outputs, NodeContext &c,
                 llvm::StringRef what) = 0;
};

/// ONNX `If` (ImportControlFlow.cpp): a compile-time constant condition
/// inlines the taken branch; one known only at run time makes an osc.if.
mlir::LogicalResult importIf(NodeContext &c, SubgraphImporter &sub,
                             const std::string &nodeName,
                             llvm::SmallVectorImpl<mlir::Value> &outputs);
/// ONNX `Loop` -> osc.loop (loop-carried values; scan outputs when the trip
/// count is constant and the condition cannot end the loop early, dropped
/// when unused, refused otherwise).
mlir::LogicalResult importLoop(NodeContext &c, SubgraphImporter &sub,
                               const std::string &nodeName,
                               llvm::SmallVectorImpl<mlir::Value> &outputs);

/// ONNX `Scan` (opset 9 and later) -> osc.loop over the scan length: scan
/// inputs gathered a row per iteration, scan outputs stacked, reversed and
/// transposed to their axes as the attributes ask.
mlir::LogicalResult importScan(NodeContext &c, SubgraphImporter &sub,
                               const std::string &nodeName,
                               llvm::SmallVectorImpl<mlir::Value> &outputs);

using Converter = std::function<mlir::LogicalResult(
    NodeContext &, llvm::SmallVectorImpl<mlir::Value> &)>;

/// The converter table, keyed by ONNX op type (default domain).
const llvm::StringMap<Converter> &converters();

// The converter families converters() is built from, one file each.
void addElementwiseConverters(llvm::StringMap<Converter> &m);
void addComputeConverters(llvm::StringMap<Converter> &m);
void addReductionConverters(llvm::StringMap<Converter> &m);
void addDataMovementConverters(llvm::StringMap<Converter> &m);
void addIndexingConverters(llvm::StringMap<Converter> &m);
void addPadResizeConverters(llvm::StringMap<Converter> &m);
void addConstantConverters(llvm::StringMap<Converter> &m);
void addRecurrentConverters(llvm::StringMap<Converter> &m);
void addLossConverters(llvm::StringMap<Converter> &m);
void addQuantConverters(llvm::StringMap<Converter> &m);
void addVisionConverters(llvm::StringMap<Converter> &m);
void addLinalgConverters(llvm::StringMap<Converter> &m);
void addSignalConverters(llvm::StringMap<Converter> &m);
void addRandomConverters(llvm::StringMap<Converter> &m);

} // namespace opscope::onnx_import

#endif // OPSCOPE_LIB_TARGET_ONNX_IMPORTER_H
