//===- ImportONNX.cpp - ONNX graph to osc module --------------------------===//
//
// Part of opscope. Validation (opset range, unsupported ops listed
// together, the nodes' order, ONNX's checker), binding of input shapes, the
// node walk, and the check of declared output shapes. Tensor decoding and
// NodeContext are in ONNXTensors.cpp (model files and external data are read
// and checked by ModelFile.h); op conversion is in the converter families
// (ONNXOps.cpp lists them).
//
//===----------------------------------------------------------------------===//

#include "opscope/Target/ONNX/ImportONNX.h"
#include "opscope/Dialect/Osc/IR/OscUtils.h"
#include "Importer.h"
#include "ImportChecks.h"
#include "NewerOpsets.h"

#include "opscope/Target/ONNX/GraphOrder.h"
#include "opscope/Target/ONNX/ModelFile.h"

#include "opscope/Dialect/Osc/IR/OscDialect.h"
#include "opscope/Dialect/Osc/IR/OscShapes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <onnx/defs/schema.h>

#include <cstring>
#include <map>

using namespace mlir;
using namespace opscope;
using namespace opscope::onnx_import;
using onnx_model::forEachSubgraph;

/// Opsets the converters implement (up to kMaxOpset, NewerOpsets.h). Models
/// declaring an older opset import too when their ops kept their semantics;
/// nodes with attributes that only existed before opset 7 (legacy
/// broadcasting, consumed_inputs) are rejected.
static constexpr int64_t kMinOpset = 1;


//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

namespace {
class GraphImporter : public ValueSource, public SubgraphImporter {
public:
  GraphImporter(MLIRContext *ctx, onnx::ModelProto &model,
                StringRef path, const ImportOptions &options)
      : ctx(ctx), model(model), path(path.str()), options(options),
        builder(ctx), fileLoc(FileLineColLoc::get(ctx, path, 0, 0)) {
    modelDir = onnx_model::modelDirectory(path.str());
  }

  OwningOpRef<ModuleOp> run();

  Value lookup(const std::string &name) override {
    auto it = values.find(name);
    if (it != values.end())
      return it->second;
    auto init = initializers.find(name);
    if (init == initializers.end())
      return {};
    std::string error;
    ElementsAttr attr =
        decodeTensor(*init->second, modelDir, ctx, error, init->second);
    if (!attr) {
      fileError() << error;
      failedConstant = true;
      return {};
    }
    if (auto tooBig = checkSize(attr.getType(), "initializer '" + name + "'")) {
      fileError() << *tooBig;
      failedConstant = true;
      return {};
    }
    Value v = builder.create<osc::ConstantOp>(
        NameLoc::get(builder.getStringAttr(name), fileLoc), attr);
    values[name] = v;
    return v;
  }

  bool isUsed(const std::string &name) const override {
    return used.contains(name);
  }
  StringRef modelDirectory() const override { return modelDir; }

  LogicalResult importSubgraph(const onnx::GraphProto &graph,
                               const std::string &path, Block *block,
                               ValueRange args, SmallVectorImpl<Value> &outputs,
                               NodeContext &c, StringRef what) override;

  /// Whether a value of `type` fits --max-tensor-bytes; otherwise the
  /// message naming `what` (the tensor) that the caller emits.
  std::optional<std::string> checkSize(Type type, StringRef what) const {
    std::optional<int64_t> bytes = osc::tensorByteSize(type);
    if (bytes && *bytes <= options.maxTensorBytes)
      return std::nullopt;
    auto t = cast<RankedTensorType>(type);
    std::string s;
    llvm::raw_string_ostream os(s);
    os << what << " of shape " << osc::formatShape(t.getShape()) << "x"
       << t.getElementType() << " needs "
       << (bytes ? std::to_string(*bytes) + " bytes, more than the"
                 : std::string("more bytes than opscope can address, over the"))
       << " per-tensor limit of " << options.maxTensorBytes
       << " bytes (raise it with --max-tensor-bytes)";
    return s;
  }

private:
  InFlightDiagnostic fileError() { return emitError(fileLoc) << path << ": "; }
  LogicalResult checkOpset();
  LogicalResult checkSupported();
  LogicalResult sortNodes();
  LogicalResult bindInputs(SmallVectorImpl<Type> &types,
                           SmallVectorImpl<std::string> &names);
  LogicalResult importNode(const onnx::NodeProto &node, int index);
  LogicalResult checkOutput(const onnx::ValueInfoProto &info, Value v);


  MLIRContext *ctx;
  /// Mutable so that weight buffers can move into blobs.
  onnx::ModelProto &model;
  std::string path, modelDir;
  const ImportOptions &options;
  OpBuilder builder;
  Location fileLoc;
  int64_t opset = 0;
  bool failedConstant = false;
  std::map<std::string, Value> values;
  std::map<std::string, onnx::TensorProto *> initializers;
  std::map<std::string, ElementsAttr> frozen;
  llvm::StringSet<> used;
  /// Path of the subgraph being inlined (`if_node/then_branch/`), which
  /// prefixes the names of its nodes.
  std::string scope;
  /// What validated the nodes, for the module's `osc.checks` (models of
  /// opsets past kLibOnnxOpset).
  NodeChecks checks;
};

/// Names `graph` and its subgraphs consume: node inputs, and graph outputs
/// (a subgraph's outputs feed its node's results).
void collectUsed(const onnx::GraphProto &graph, llvm::StringSet<> &used) {
  for (const auto &node : graph.node()) {
    for (const auto &in : node.input())
      used.insert(in);
    forEachSubgraph(node, [&](const onnx::GraphProto &g, const std::string &) {
      collectUsed(g, used);
    });
  }
  for (const auto &out : graph.output())
    used.insert(out.name());
}
} // namespace

std::string onnx_import::subgraphPath(StringRef path, StringRef name) {
  return onnx_model::scopedName(std::string_view(path.data(), path.size()),
                                std::string_view(name.data(), name.size()));
}

LogicalResult GraphImporter::checkOpset() {
  for (const auto &imp : model.opset_import())
    if (imp.domain().empty() || imp.domain() == "ai.onnx")
      opset = imp.version();
  if (opset == 0) {
    fileError() << "the model imports no version of the default ONNX opset";
    return failure();
  }
  if (opset < kMinOpset || opset > kMaxOpset) {
    fileError() << "opset " << opset << " is not supported (opscope imports "
                << "opsets up to " << kMaxOpset << "; export the model at "
                << "opset " << kMaxOpset << " or lower)";
    return failure();
  }
  return success();
}

namespace {
using MissingOps = std::map<std::string, std::vector<std::string>>;

/// Unsupported ops of `graph` and of every subgraph its nodes carry (If's
/// branches, Loop's and Scan's bodies), named by their path:
/// `node/attribute/node`.
void collectUnsupported(const onnx::GraphProto &graph, const std::string &path,
                        const llvm::StringMap<Converter> &table,
                        MissingOps &missing) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &node = graph.node(i);
    std::string type = node.op_type();
    bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
    if (!defaultDomain)
      type = node.domain() + "." + type;
    // Whether or not anything reads its outputs (it may have none).
    std::string qualified = subgraphPath(path, onnx_model::nodeLabel(node, i));
    if (!defaultDomain || !table.count(node.op_type()))
      missing[type].push_back(qualified);
    forEachSubgraph(node, [&](const onnx::GraphProto &g,
                              const std::string &attr) {
      collectUnsupported(g, qualified + "/" + attr, table, missing);
    });
  }
}
} // namespace

LogicalResult GraphImporter::checkSupported() {
  // Every unsupported op type, with its nodes, in one message: users fix a
  // model (or file an issue) once, not one op at a time. Nodes inside
  // subgraphs count too, named by their path.
  MissingOps missing;
  collectUnsupported(model.graph(), "", converters(), missing);
  if (missing.empty())
    return success();
  auto diag = fileError();
  diag << missing.size() << " unsupported op type"
       << (missing.size() == 1 ? "" : "s") << " (model opset " << opset
       << "):";
  for (const auto &[type, nodes] : missing) {
    diag << "\n  " << type << " (" << nodes.size() << " node"
         << (nodes.size() == 1 ? "" : "s") << ": ";
    for (size_t i = 0; i < nodes.size() && i < 5; ++i)
      diag << (i ? ", " : "") << "'" << nodes[i] << "'";
    if (nodes.size() > 5)
      diag << ", and " << nodes.size() - 5 << " more";
    diag << ")";
  }
  return failure();
}

LogicalResult GraphImporter::sortNodes() {
  // ONNX requires sorted nodes, but ONNX Runtime sorts them itself and fp16
  // converters write graphs that are not: sort before the checker and the
  // node walk, which imports each node once its inputs exist.
  std::string error;
  if (onnx_model::sortTopologically(*model.mutable_graph(), error))
    return success();
  fileError() << error;
  return failure();
}

static std::string describeDims(const onnx::TensorShapeProto &shape) {
  std::string s;
  for (int i = 0; i < shape.dim_size(); ++i) {
    if (i)
      s += 'x';
    const auto &d = shape.dim(i);
    s += d.has_dim_value() ? std::to_string(d.dim_value())
                           : (d.has_dim_param() ? d.dim_param() : "?");
  }
  return s.empty() ? "scalar" : s;
}

LogicalResult
GraphImporter::bindInputs(SmallVectorImpl<Type> &types,
                          SmallVectorImpl<std::string> &names) {
  const auto &graph = model.graph();
  std::vector<const onnx::ValueInfoProto *> inputs;
  for (const auto &in : graph.input())
    if (!initializers.count(in.name()))
      inputs.push_back(&in);

  auto isInput = [&](const std::string &name) {
    return llvm::any_of(inputs, [&](const onnx::ValueInfoProto *in) {
      return in->name() == name;
    });
  };
  for (const auto &[name, file] : options.frozenInputs) {
    if (!isInput(name)) {
      fileError() << "--freeze-input names '" << name
                  << "', which is not a graph input";
      return failure();
    }
    auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    onnx::TensorProto tensor;
    if (!buffer) {
      fileError() << "--freeze-input " << name << ": cannot read '" << file
                  << "': " << buffer.getError().message();
      return failure();
    }
    if (!tensor.ParseFromArray((*buffer)->getBufferStart(),
                               static_cast<int>((*buffer)->getBufferSize()))) {
      fileError() << "--freeze-input " << name << ": '" << file
                  << "' is not an ONNX TensorProto";
      return failure();
    }
    tensor.set_name(name);
    std::string error;
    // External data a frozen tensor names is relative to its own file.
    ElementsAttr attr = decodeTensor(
        tensor, llvm::sys::path::parent_path(file), ctx, error);
    if (!attr) {
      fileError() << "--freeze-input " << name << ": " << error;
      return failure();
    }
    frozen[name] = attr;
  }
  llvm::erase_if(inputs, [&](const onnx::ValueInfoProto *in) {
    return frozen.count(in->name()) != 0;
  });

  for (const auto &[name, dims] : options.inputShapes) {
    bool found = llvm::any_of(
        inputs, [&](const onnx::ValueInfoProto *in) { return in->name() == name; });
    if (!found) {
      auto diag = fileError();
      diag << "--input-shape names '" << name
           << "', which is not a graph input (inputs:";
      for (const auto *in : inputs)
        diag << " '" << in->name() << "'";
      diag << ")";
      return failure();
    }
  }

  // Symbolic dimensions (e.g. "batch", "sequence") bound by one input's
  // --input-shape apply to every input that uses them.
  std::map<std::string, int64_t> params;
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto *in : inputs) {
      bool given = options.inputShapes.count(in->name());
      if ((pass == 0) != given)
        continue;
      if (!in->type().has_tensor_type()) {
        fileError() << "input '" << in->name() << "' is not a tensor";
        return failure();
      }
      const auto &tt = in->type().tensor_type();
      if (!elementTypeFor(tt.elem_type(), ctx)) {
        fileError() << "input '" << in->name() << "' has unsupported type "
                    << onnxTypeName(tt.elem_type());
        return failure();
      }
      if (given) {
        const auto &dims = options.inputShapes.at(in->name());
        if (tt.has_shape()) {
          const auto &shape = tt.shape();
          if (shape.dim_size() != static_cast<int>(dims.size())) {
            fileError() << "input '" << in->name() << "': --input-shape "
                        << osc::formatShape(dims) << " has rank "
                        << dims.size() << " but the model declares "
                        << describeDims(shape) << " (rank "
                        << shape.dim_size() << ")";
            return failure();
          }
          for (int i = 0; i < shape.dim_size(); ++i) {
            const auto &d = shape.dim(i);
            if (d.has_dim_value() && d.dim_value() != dims[i]) {
              fileError() << "input '" << in->name() << "': --input-shape "
                          << osc::formatShape(dims)
                          << " contradicts the model's static dimension " << i
                          << " (" << d.dim_value() << ") in "
                          << describeDims(shape);
              return failure();
            }
            if (d.has_dim_param() && !d.dim_param().empty()) {
              auto [it, inserted] = params.emplace(d.dim_param(), dims[i]);
              if (!inserted && it->second != dims[i]) {
                fileError() << "input '" << in->name() << "': dimension '"
                            << d.dim_param() << "' is " << dims[i]
                            << " here but " << it->second
                            << " in another --input-shape";
                return failure();
              }
            }
          }
        }
        types.push_back(RankedTensorType::get(
            dims, boundaryTypeFor(tt.elem_type(), ctx)));
      } else {
        if (!tt.has_shape()) {
          fileError() << "input '" << in->name()
                      << "' has no shape in the model; give --input-shape "
                      << in->name() << "=DIMS";
          return failure();
        }
        SmallVector<int64_t> dims;
        for (const auto &d : tt.shape().dim()) {
          if (d.has_dim_value() && d.dim_value() >= 0) {
            dims.push_back(d.dim_value());
          } else if (d.has_dim_param() && params.count(d.dim_param())) {
            dims.push_back(params[d.dim_param()]);
          } else {
            fileError() << "input '" << in->name()
                        << "' has dynamic dimensions ("
                        << describeDims(tt.shape()) << "); give --input-shape "
                        << in->name() << "=DIMS";
            return failure();
          }
        }
        types.push_back(RankedTensorType::get(
            dims, boundaryTypeFor(tt.elem_type(), ctx)));
      }
      names.push_back(in->name());
      if (auto tooBig = checkSize(types.back(), "input '" + in->name() + "'")) {
        fileError() << *tooBig
                    << (given ? " (its shape comes from --input-shape)" : "");
        return failure();
      }
    }
  }
  return success();
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &node,
                                        int index) {
  std::string label = onnx_model::nodeLabel(node, index);
  std::string nodeName = subgraphPath(scope, label);
  Location loc = NameLoc::get(builder.getStringAttr(nodeName), fileLoc);
  NodeContext c(*this, node, label, opset, loc, builder);
  for (const auto &a : node.attribute()) {
    if (a.name() == "broadcast" || a.name() == "consumed_inputs") {
      c.error() << "attribute '" << a.name()
                << "' is from before opset 7 and is not supported; convert "
                   "the model to opset 9 or newer";
      return failure();
    }
  }
  // Arity against the op's schema, whether or not the checker ran
  // (--no-check): converters may then take every required input as present.
  if (node.output_size() == 0) {
    c.error() << "has no outputs";
    return failure();
  }
  // Op versions libonnx does not know (opsets 18-21): runChecker checked
  // them against opscope's own record of the spec, which stands in for
  // libonnx's schema.
  bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
  bool ownCheck = defaultDomain && needsOwnCheck(node.op_type(), opset);
  const onnx::OpSchema *schema =
      ownCheck ? nullptr
               : onnx::OpSchemaRegistry::Schema(
                     node.op_type(), static_cast<int>(opset), node.domain());
  if (!ownCheck && !schema && node.op_type() != "Constant") {
    // An op newer than the model's opset (e.g. LessOrEqual, opset 12, in
    // an opset-11 model): without a schema nothing vouches for its arity,
    // and the converters assume it.
    c.error() << "is not defined in opset " << opset
              << " (the model's opset for the default domain)";
    return failure();
  }
  if (schema) {
    const auto &formal = schema->inputs();
    if (node.input_size() < schema->min_input() ||
        node.input_size() > schema->max_input()) {
      c.error() << "has " << node.input_size() << " inputs; " << node.op_type()
                << " takes " << schema->min_input() << " to "
                << schema->max_input();
      return failure();
    }
    for (int i = 0; i < node.input_size() && !formal.empty(); ++i) {
      const auto &param = formal[std::min<size_t>(i, formal.size() - 1)];
      if (node.input(i).empty() &&
          param.GetOption() != onnx::OpSchema::FormalParameterOption::Optional) {
        c.error() << "input " << i << " ('" << param.GetName()
                  << "') is required but empty";
        return failure();
      }
    }
    if (node.output_size() < schema->min_output()) {
      c.error() << "has " << node.output_size() << " outputs; "
                << node.op_type() << " produces at least "
                << schema->min_output();
      return failure();
    }
  }
  for (int i = 0; i < node.input_size(); ++i) {
    if (node.input(i).empty() || lookup(node.input(i)))
      continue;
    if (failedConstant)
      return failure();
    c.error() << "input '" << node.input(i)
              << "' is not produced by any earlier node, graph input or "
                 "initializer (the graph is malformed or produces it twice)";
    return failure();
  }

  SmallVector<Value> outputs;
  if (node.op_type() == "Constant") {
    const onnx::AttributeProto *value = nullptr;
    for (const auto &a : node.attribute())
      value = &a;
    if (!value) {
      c.error() << "has no value attribute";
      return failure();
    }
    onnx::TensorProto t;
    StringRef kind = value->name();
    if (kind == "value") {
      t = value->t();
    } else if (kind == "value_float") {
      t.set_data_type(onnx::TensorProto::FLOAT);
      t.add_float_data(value->f());
    } else if (kind == "value_floats") {
      t.set_data_type(onnx::TensorProto::FLOAT);
      t.add_dims(value->floats_size());
      *t.mutable_float_data() = value->floats();
    } else if (kind == "value_int") {
      t.set_data_type(onnx::TensorProto::INT64);
      t.add_int64_data(value->i());
    } else if (kind == "value_ints") {
      t.set_data_type(onnx::TensorProto::INT64);
      t.add_dims(value->ints_size());
      *t.mutable_int64_data() = value->ints();
    } else {
      c.error() << "constant of kind '" << kind.str() << "' is not supported";
      return failure();
    }
    if (t.name().empty())
      t.set_name(node.output(0));
    std::string error;
    ElementsAttr attr = decodeTensor(t, modelDir, ctx, error);
    if (!attr) {
      c.error() << error;
      return failure();
    }
    outputs.push_back(builder.create<osc::ConstantOp>(loc, attr));
  } else if (node.op_type() == "If") {
    if (failed(importIf(c, *this, nodeName, outputs)))
      return failure();
  } else if (node.op_type() == "Loop") {
    if (failed(importLoop(c, *this, nodeName, outputs)))
      return failure();
  } else if (node.op_type() == "Scan") {
    if (failed(importScan(c, *this, nodeName, outputs)))
      return failure();
  } else {
    const Converter &convert = converters().find(node.op_type())->second;
    if (failed(convert(c, outputs)))
      return failure();
  }

  for (int i = 0; i < node.output_size(); ++i) {
    const std::string &name = node.output(i);
    if (name.empty())
      continue;
    Value v = i < static_cast<int>(outputs.size()) ? outputs[i] : Value();
    if (!v) {
      if (isUsed(name)) {
        c.error() << "output " << i << " ('" << name
                  << "') is not supported";
        return failure();
      }
      continue;
    }
    if (auto tooBig = checkSize(v.getType(), "output '" + name + "'")) {
      c.error() << *tooBig;
      return failure();
    }
    values[name] = v;
  }
  return success();
}

LogicalResult GraphImporter::importSubgraph(const onnx::GraphProto &graph,
                                            const std::string &path,
                                            Block *block, ValueRange args,
                                            SmallVectorImpl<Value> &outputs,
                                            NodeContext &c, StringRef what) {
  if (graph.input_size() != static_cast<int>(args.size())) {
    c.error() << what << " has " << graph.input_size() << " inputs; "
              << args.size() << " expected";
    return failure();
  }
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  // Values defined in the subgraph (initializers materialized there
  // included) stay in it: restore the outer names afterwards.
  std::map<std::string, Value> outer = values;
  std::string outerScope = scope;
  auto restore = llvm::make_scope_exit([&] {
    values = std::move(outer);
    scope = outerScope;
  });
  for (auto [in, v] : llvm::zip(graph.input(), args))
    if (!in.name().empty())
      values[in.name()] = v;
  for (const auto &init : graph.initializer())
    initializers[init.name()] = const_cast<onnx::TensorProto *>(&init);
  scope = path;
  for (int i = 0; i < graph.node_size(); ++i)
    if (failed(importNode(graph.node(i), i)))
      return failure();
  for (const auto &out : graph.output()) {
    Value v = lookup(out.name());
    if (!v) {
      c.error() << what << " output '" << out.name()
                << "' is not produced by any node of the " << what;
      return failure();
    }
    outputs.push_back(v);
  }
  return success();
}

LogicalResult GraphImporter::checkOutput(const onnx::ValueInfoProto &info,
                                         Value v) {
  if (!info.type().has_tensor_type())
    return success();
  const auto &tt = info.type().tensor_type();
  auto type = cast<RankedTensorType>(v.getType());
  Type declared = boundaryTypeFor(tt.elem_type(), ctx);
  if (tt.elem_type() && declared && declared != type.getElementType()) {
    fileError() << "output '" << info.name() << "' is declared "
                << onnxTypeName(tt.elem_type()) << " but the graph computes "
                << type.getElementType();
    return failure();
  }
  if (!tt.has_shape())
    return success();
  const auto &shape = tt.shape();
  // A run-time extent: the declared size (one run's) may be anything up to
  // the bound the graph computes.
  std::optional<osc::Extent> extent = osc::extentOf(v);
  bool mismatch = shape.dim_size() != type.getRank();
  for (int i = 0; !mismatch && i < shape.dim_size(); ++i)
    mismatch = shape.dim(i).has_dim_value() &&
               (extent && extent->axis == i
                    ? shape.dim(i).dim_value() > type.getDimSize(i)
                    : shape.dim(i).dim_value() != type.getDimSize(i));
  if (mismatch) {
    fileError() << "output '" << info.name() << "' is declared "
                << describeDims(shape) << " but with the given input shapes "
                << "the graph computes " << osc::formatShape(type.getShape());
    return failure();
  }
  return success();
}

OwningOpRef<ModuleOp> GraphImporter::run() {
  if (!model.has_graph() || model.ir_version() <= 0) {
    fileError() << "not an ONNX model (no graph or IR version)";
    return {};
  }
  if (failed(checkOpset()) || failed(checkSupported()) || failed(sortNodes()))
    return {};
  std::string checkError =
      runChecker(model, opset, options.runChecker, modelDir, checks);
  if (!checkError.empty()) {
    fileError() << checkError;
    return {};
  }
  const auto &graph = model.graph();
  for (auto &init : *model.mutable_graph()->mutable_initializer())
    initializers[init.name()] = &init;
  collectUsed(graph, used);

  SmallVector<Type> inputTypes;
  SmallVector<std::string> inputNames;
  if (failed(bindInputs(inputTypes, inputNames)))
    return {};

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  Builder b(ctx);
  (*module)->setAttr("osc.source", b.getStringAttr(path));
  (*module)->setAttr("osc.opset", b.getI64IntegerAttr(opset));
  if (opset > kLibOnnxOpset)
    (*module)->setAttr("osc.checks", b.getStringAttr(checksSummary(
                                         checks, options.runChecker)));
  if (!model.producer_name().empty())
    (*module)->setAttr("osc.producer",
                       b.getStringAttr(model.producer_name() + " " +
                                       model.producer_version()));
  builder.setInsertionPointToEnd(module->getBody());
  auto func = builder.create<func::FuncOp>(
      fileLoc, options.functionName, builder.getFunctionType(inputTypes, {}));
  Block *entry = func.addEntryBlock();
  for (auto [i, name] : llvm::enumerate(inputNames)) {
    entry->getArgument(i).setLoc(NameLoc::get(b.getStringAttr(name), fileLoc));
    func.setArgAttr(i, "osc.name", b.getStringAttr(name));
    values[name] = entry->getArgument(i);
  }
  builder.setInsertionPointToEnd(entry);
  // An f16 input: the graph computes in f32 (elementTypeFor).
  for (auto [i, name] : llvm::enumerate(inputNames)) {
    Value arg = entry->getArgument(i);
    auto type = cast<RankedTensorType>(arg.getType());
    if (type.getElementType().isF16())
      values[name] = builder.create<osc::CastOp>(
          NameLoc::get(b.getStringAttr(name + "/to_f32"), fileLoc),
          type.clone(b.getF32Type()), arg);
  }
  for (const auto &[name, attr] : frozen)
    values[name] = builder.create<osc::ConstantOp>(
        NameLoc::get(b.getStringAttr(name), fileLoc), attr);

  for (int i = 0; i < graph.node_size(); ++i)
    if (failed(importNode(graph.node(i), i)))
      return {};

  SmallVector<Value> results;
  // ONNX requires graph output names to be unique; a repeated one would
  // give the compiled model two outputs of one name.
  llvm::StringSet<> outputNames;
  for (const auto &out : graph.output()) {
    if (!outputNames.insert(out.name()).second) {
      fileError() << "graph output '" << out.name()
                  << "' is listed twice (ONNX requires unique output names)";
      return {};
    }
    Value v = lookup(out.name());
    if (!v) {
      fileError() << "graph output '" << out.name()
                  << "' is not produced by any node";
      return {};
    }
    // An f16 output: computed in f32 (elementTypeFor), returned as the
    // model declares it.
    auto computed = cast<RankedTensorType>(v.getType());
    if (out.type().has_tensor_type() &&
        out.type().tensor_type().elem_type() == onnx::TensorProto::FLOAT16 &&
        computed.getElementType().isF32())
      v = builder.create<osc::CastOp>(
          NameLoc::get(b.getStringAttr(out.name() + "/to_f16"), fileLoc),
          computed.clone(b.getF16Type()), v);
    if (failed(checkOutput(out, v)))
      return {};
    results.push_back(v);
  }
  builder.create<func::ReturnOp>(fileLoc, results);
  func.setFunctionType(
      builder.getFunctionType(inputTypes, ValueRange(results).getTypes()));
  for (auto [i, out] : llvm::enumerate(graph.output()))
    func.setResultAttr(i, "osc.name", b.getStringAttr(out.name()));

  // Shape sub-graphs folded during import leave their constants behind
  // (and a Loop's dropped scan outputs their ops), in regions too.
  func.walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
    if (op != func.getOperation() && isOpTriviallyDead(op))
      op->erase();
  });

  if (failed(verify(*module)))
    return {};
  return module;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

static OwningOpRef<ModuleOp> importModel(onnx::ModelProto &model,
                                         StringRef path,
                                         const ImportOptions &options,
                                         MLIRContext *context) {
  GraphImporter importer(context, model, path, options);
  return importer.run();
}

OwningOpRef<ModuleOp>
opscope::importONNXBuffer(StringRef buffer, StringRef path, bool isText,
                          const ImportOptions &options, MLIRContext *context) {
  context->loadDialect<osc::OscDialect, func::FuncDialect>();
  onnx::ModelProto model;
  std::string error;
  if (!onnx_model::parseModel(std::string_view(buffer.data(), buffer.size()),
                              std::string_view(path.data(), path.size()),
                              isText, model, error)) {
    emitError(FileLineColLoc::get(context, path, 0, 0)) << error;
    return {};
  }
  return importModel(model, path, options, context);
}

OwningOpRef<ModuleOp> opscope::importONNXFile(StringRef path,
                                              const ImportOptions &options,
                                              MLIRContext *context) {
  context->loadDialect<osc::OscDialect, func::FuncDialect>();
  onnx::ModelProto model;
  std::string error;
  if (!onnx_model::readModelFile(path.str(), model, error)) {
    emitError(FileLineColLoc::get(context, path, 0, 0)) << error;
    return {};
  }
  return importModel(model, path, options, context);
}

std::vector<std::string> opscope::supportedONNXOps() {
  std::vector<std::string> ops;
  for (const auto &entry : converters())
    ops.push_back(entry.getKey().str());
  llvm::sort(ops);
  return ops;
}
