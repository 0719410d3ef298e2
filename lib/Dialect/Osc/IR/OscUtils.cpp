//===- OscUtils.cpp - facts about osc ops for passes and reports ----------===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscUtils.h"

#include "opscope/runtime/sparse_format.h"
#include "opscope/Dialect/Osc/IR/OscOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cstring>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

std::optional<std::vector<float>> osc::readF32Constant(Value v) {
  auto c = v ? v.getDefiningOp<ConstantOp>() : ConstantOp();
  if (!c)
    return std::nullopt;
  auto type = cast<RankedTensorType>(c.getType());
  if (!type.getElementType().isF32())
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue())) {
    auto values = dense.getValues<float>();
    return std::vector<float>(values.begin(), values.end());
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(c.getValue())) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    // Missing or elided blobs (--elide-weights) have no usable data.
    if (!blob || blob->getData().size() !=
                     static_cast<size_t>(type.getNumElements()) * sizeof(float))
      return std::nullopt;
    ArrayRef<char> data = blob->getData();
    std::vector<float> out(data.size() / sizeof(float));
    std::memcpy(out.data(), data.data(), out.size() * sizeof(float));
    return out;
  }
  return std::nullopt;
}

std::optional<std::vector<float>> osc::readWeightValues(
    Value v, ArrayRef<float> rowScales) {
  auto c = v ? v.getDefiningOp<ConstantOp>() : ConstantOp();
  if (!c)
    return std::nullopt;
  auto type = cast<RankedTensorType>(c.getType());
  bool bf16 = type.getElementType().isBF16();
  bool s8 = type.getElementType().isInteger(8) && type.getRank() >= 2 &&
            static_cast<int64_t>(rowScales.size()) == type.getDimSize(0);
  if (!bf16 && !s8)
    return readF32Constant(v);
  auto resource = dyn_cast<DenseResourceElementsAttr>(c.getValue());
  AsmResourceBlob *blob = resource ? resource.getRawHandle().getBlob() : nullptr;
  size_t width = bf16 ? 2 : 1;
  if (!blob || blob->getData().size() !=
                   static_cast<size_t>(type.getNumElements()) * width)
    return std::nullopt;
  ArrayRef<char> data = blob->getData();
  std::vector<float> out(type.getNumElements());
  if (s8) {
    // int8 (--precision int8): w[n, k] = scale[n] * w8[n, k], a
    // convolution's output channel as n.
    int64_t k = type.getNumElements() / type.getDimSize(0);
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = rowScales[i / k] * static_cast<float>(
                                      static_cast<int8_t>(data[i]));
    return out;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    uint16_t b;
    std::memcpy(&b, data.data() + 2 * i, 2);
    out[i] = rt::sparse::fromBf16(b);
  }
  return out;
}

std::string osc::derivedWeightName(Value weight, StringRef suffix) {
  if (auto c = weight.getDefiningOp<ConstantOp>())
    if (auto res = dyn_cast<DenseResourceElementsAttr>(c.getValue()))
      return (res.getRawHandle().getKey() + suffix).str();
  return tensorName(weight) + suffix.str();
}

ElementsAttr osc::makeBf16Weight(RankedTensorType type, ArrayRef<float> values,
                                 StringRef name) {
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    bits[i] = rt::sparse::toBf16(values[i]);
  ArrayRef<char> bytes(reinterpret_cast<const char *>(bits.data()),
                       bits.size() * 2);
  return DenseResourceElementsAttr::get(
      type, name, HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, 64));
}

ElementsAttr osc::makeS8Weight(RankedTensorType type, ArrayRef<int8_t> values,
                               StringRef name) {
  ArrayRef<char> bytes(reinterpret_cast<const char *>(values.data()),
                       values.size());
  return DenseResourceElementsAttr::get(
      type, name, HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, 64));
}

ElementsAttr osc::makeF32Weight(RankedTensorType type, ArrayRef<float> values,
                                StringRef name) {
  ArrayRef<char> bytes(reinterpret_cast<const char *>(values.data()),
                       values.size() * sizeof(float));
  return DenseResourceElementsAttr::get(
      type, name, HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, 64));
}

std::optional<double> osc::splatConstant(Value v) {
  auto c = v ? v.getDefiningOp<ConstantOp>() : ConstantOp();
  if (!c)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  if (!dense || (!dense.isSplat() && dense.getNumElements() != 1))
    return std::nullopt;
  Attribute a = dense.getValues<Attribute>()[0];
  if (auto f = dyn_cast<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(a))
    return static_cast<double>(i.getValue().getSExtValue());
  return std::nullopt;
}

std::optional<int64_t> osc::tensorByteSize(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  if (!tensor)
    return std::nullopt;
  Type e = tensor.getElementType();
  if (!e.isIntOrFloat())
    return std::nullopt;
  int64_t bytes = e.isInteger(1) ? 1 : (e.getIntOrFloatBitWidth() + 7) / 8;
  for (int64_t d : tensor.getShape())
    if (d < 0 || __builtin_mul_overflow(bytes, d, &bytes))
      return std::nullopt;
  return bytes;
}

bool osc::isExecuted(Operation *op) { return isa<ExecutableOpInterface>(op); }

OpCost osc::estimateCost(Operation *op) {
  OpCost cost;
  if (auto exec = dyn_cast<ExecutableOpInterface>(op)) {
    cost.flops = exec.getFlops();
    cost.bytes = exec.getBytesMoved();
  } else {
    cost.bytes = operandAndResultBytes(op);
    if (isa<ConstantOp, ReshapeOp>(op))
      cost.flops = 0.0; // data and views compute nothing
  }
  return cost;
}

std::string osc::kernelFor(Operation *op) {
  // The kinds table names the 1x4 family; a weight packed in 4x4 blocks
  // runs the same op's 4x4 kernels.
  if (auto s = dyn_cast<SparseInnerProductOp>(op); s && s.getBlockRows() == 4)
    return "opscope:sparse_4x4";
  if (auto exec = dyn_cast<ExecutableOpInterface>(op))
    return exec.getKernelFamily();
  if (isa<ReshapeOp>(op))
    return "none (view)";
  // Branches and loops run as the plan's control steps around their
  // regions' kernels (runtime.md).
  if (isa<IfOp, LoopOp>(op))
    return "control (plan)";
  return "none";
}

std::string osc::kindOf(Operation *op) {
  std::string name = op->getName().stripDialect().str();
  auto exec = dyn_cast<ExecutableOpInterface>(op);
  StringRef suffix = exec ? exec.getKindSuffix() : StringRef();
  return suffix.empty() ? name : name + "." + suffix.str();
}

std::string osc::postOpName(PostOpAttr post) {
  auto kind = rt::parseKind<rt::PostOpKind>(
      stringifyPostOpKind(post.getKind()).str());
  assert(kind && "the dialect's post-op names are the runtime's");
  rt::PostOp p(*kind);
  if (post.getAlpha())
    p.alpha = static_cast<float>(post.getAlpha().getValueAsDouble());
  if (post.getBeta())
    p.beta = static_cast<float>(post.getBeta().getValueAsDouble());
  return rt::postOpName(p);
}

std::vector<std::string> osc::postOpsOf(Operation *op) {
  auto list = op->getAttrOfType<ArrayAttr>("post_ops");
  std::vector<std::string> out;
  if (!list)
    return out;
  for (Attribute a : list)
    out.push_back(postOpName(cast<PostOpAttr>(a)));
  return out;
}

/// The node names of `loc` in order; with `skipInputs`, not those under a
/// FusedLoc tagged kInputSideLocTag.
static void collectNames(Location loc, std::vector<std::string> &names,
                         bool skipInputs) {
  if (auto n = dyn_cast<NameLoc>(loc)) {
    std::string s = n.getName().str();
    if (std::find(names.begin(), names.end(), s) == names.end())
      names.push_back(s);
  } else if (auto f = dyn_cast<FusedLoc>(loc)) {
    auto tag = dyn_cast_or_null<StringAttr>(f.getMetadata());
    if (skipInputs && tag && tag.getValue() == kInputSideLocTag)
      return;
    for (Location l : f.getLocations())
      collectNames(l, names, skipInputs);
  } else if (auto c = dyn_cast<CallSiteLoc>(loc)) {
    collectNames(c.getCallee(), names, skipInputs);
  }
}

std::vector<std::string> osc::sourceNodes(Location loc) {
  std::vector<std::string> names;
  collectNames(loc, names, /*skipInputs=*/false);
  return names;
}

std::optional<std::string> osc::resultSourceNode(Location loc) {
  std::vector<std::string> names;
  collectNames(loc, names, /*skipInputs=*/true);
  if (names.empty())
    return std::nullopt;
  return names.back();
}

std::string osc::tensorName(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto fn = dyn_cast_or_null<FunctionOpInterface>(parent))
      if (auto n = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "osc.name"))
        return n.str();
    return "arg" + std::to_string(arg.getArgNumber());
  }
  // The node that produced the value, not one a fusion absorbed on the
  // op's input side (a folded transpose, a mask add).
  std::optional<std::string> src = resultSourceNode(v.getDefiningOp()->getLoc());
  return src ? *src : kindOf(v.getDefiningOp());
}

Location osc::fuseWithInputs(Location anchor, ArrayRef<Location> inputs) {
  if (inputs.empty())
    return anchor;
  MLIRContext *ctx = anchor.getContext();
  Location tagged =
      FusedLoc::get(ctx, inputs, StringAttr::get(ctx, kInputSideLocTag));
  return FusedLoc::get(ctx, {anchor, tagged});
}

Value osc::weightOperand(Operation *op) {
  auto exec = dyn_cast<ExecutableOpInterface>(op);
  Value w = exec ? exec.getWeightOperand() : Value();
  return w && w.getDefiningOp<ConstantOp>() ? w : Value();
}

rt::DType osc::runtimeDType(Type t) {
  Type e = cast<RankedTensorType>(t).getElementType();
  if (e.isF16())
    return rt::DType::F16;
  if (e.isBF16())
    return rt::DType::BF16;
  if (e.isF32())
    return rt::DType::F32;
  if (e.isF64())
    return rt::DType::F64;
  if (e.isInteger(1))
    return rt::DType::I1;
  if (e.isUnsignedInteger()) {
    switch (e.getIntOrFloatBitWidth()) {
    case 8:
      return rt::DType::U8;
    case 16:
      return rt::DType::U16;
    case 32:
      return rt::DType::U32;
    default:
      return rt::DType::U64;
    }
  }
  switch (e.getIntOrFloatBitWidth()) {
  case 8:
    return rt::DType::I8;
  case 16:
    return rt::DType::I16;
  case 32:
    return rt::DType::I32;
  default:
    return rt::DType::I64; // the dialect's type constraints allow no other
  }
}

llvm::json::Array osc::shapeJson(Type t) {
  llvm::json::Array a;
  for (int64_t d : cast<RankedTensorType>(t).getShape())
    a.push_back(d);
  return a;
}

static llvm::json::Object tensorFacts(Value v) {
  return llvm::json::Object{{"name", osc::tensorName(v)},
                            {"dtype", rt::kindName(osc::runtimeDType(v.getType()))},
                            {"shape", osc::shapeJson(v.getType())}};
}

llvm::json::Object osc::opFacts(Operation *op) {
  OpCost cost = estimateCost(op);
  Value weight = weightOperand(op);
  llvm::json::Array inputs, outputs, post, sources;
  // Weights and biases (constants) are reported as the weight, not inputs.
  for (Value v : op->getOperands())
    if (v != weight && !v.getDefiningOp<ConstantOp>())
      inputs.push_back(tensorFacts(v));
  for (Value v : op->getResults())
    outputs.push_back(tensorFacts(v));
  for (auto &p : postOpsOf(op))
    post.push_back(p);
  std::vector<std::string> src = sourceNodes(op->getLoc());
  for (auto &s : src)
    sources.push_back(s);
  // Sparsity: element zeros and all-zero 1x4 blocks of the weight, and
  // whether a sparse kernel exists for the op (docs/sparsity.md).
  std::optional<double> sparsity, blockSparsity;
  llvm::json::Array weightShape =
      weight ? shapeJson(weight.getType()) : llvm::json::Array();
  bool sparseSupport = false, sparseKernel = false;
  std::string sparseBlock = "1x4";
  if (auto s = dyn_cast<SparseInnerProductOp>(op)) {
    sparseBlock = std::to_string(s.getBlockRows()) + "x4";
    sparsity = s.getWeightSparsity().convertToDouble();
    blockSparsity = s.getBlockSparsity().convertToDouble();
    weightShape = llvm::json::Array(s.getWeightShape());
    sparseSupport = sparseKernel = true;
  } else if (weight) {
    // One read of the weight for both fractions.
    ArrayRef<float> rowScales;
    if (auto ip = dyn_cast<InnerProductOp>(op); ip && ip.getWeightScales())
      rowScales = *ip.getWeightScales();
    else if (auto cv = dyn_cast<ConvOp>(op); cv && cv.getWeightScales())
      rowScales = *cv.getWeightScales();
    auto values = readWeightValues(weight, rowScales);
    if (values && !values->empty()) {
      sparsity = static_cast<double>(
                     std::count(values->begin(), values->end(), 0.0f)) /
                 values->size();
      if (isa<InnerProductOp>(op)) {
        auto wt = cast<RankedTensorType>(weight.getType());
        sparseSupport = true;
        blockSparsity = rt::sparse::measure(values->data(), wt.getDimSize(0),
                                            wt.getDimSize(1),
                                            {1, rt::sparse::kBlockCols})
                            .ratio();
      }
    }
  }
  auto optional = [](std::optional<double> v) {
    return v ? llvm::json::Value(*v) : llvm::json::Value(nullptr);
  };
  // Precision: what the op computes in, and an int8 op's input quantization.
  std::string precision = "fp32";
  std::optional<double> inScale, inZero, outScale, outZero;
  FloatAttr scaleAttr;
  IntegerAttr zeroAttr;
  FloatAttr outScaleAttr;
  IntegerAttr outZeroAttr;
  if (auto ip = dyn_cast<InnerProductOp>(op)) {
    scaleAttr = ip.getInputScaleAttr();
    zeroAttr = ip.getInputZeroPointAttr();
    outScaleAttr = ip.getOutputScaleAttr();
    outZeroAttr = ip.getOutputZeroPointAttr();
  } else if (auto sp = dyn_cast<SparseInnerProductOp>(op)) {
    scaleAttr = sp.getInputScaleAttr();
    zeroAttr = sp.getInputZeroPointAttr();
  } else if (auto conv = dyn_cast<ConvOp>(op)) {
    scaleAttr = conv.getInputScaleAttr();
    zeroAttr = conv.getInputZeroPointAttr();
    outScaleAttr = conv.getOutputScaleAttr();
    outZeroAttr = conv.getOutputZeroPointAttr();
  } else if (auto ct = dyn_cast<ConvTransposeOp>(op)) {
    scaleAttr = ct.getInputScaleAttr();
    zeroAttr = ct.getInputZeroPointAttr();
  }
  // A u8 result inside an int8 chain: the consumer's quantization.
  if (outScaleAttr && outZeroAttr) {
    outScale = outScaleAttr.getValueAsDouble();
    outZero = static_cast<double>(outZeroAttr.getInt());
  }
  if (scaleAttr && zeroAttr) {
    precision = "int8";
    inScale = scaleAttr.getValueAsDouble();
    inZero = static_cast<double>(zeroAttr.getInt());
  } else if (isa<ConvIntegerOp, MatMulIntegerOp>(op) ||
             (isa<MatMulOp>(op) && cast<MatMulOp>(op).getComputeInt8())) {
    precision = "int8"; // u8/i8 operands, i32 sums
  } else if ((weight && cast<RankedTensorType>(weight.getType())
                            .getElementType()
                            .isBF16()) ||
             (isa<MatMulOp>(op) && cast<MatMulOp>(op).getComputeBf16())) {
    precision = "bf16";
  }
  return llvm::json::Object{
      {"name", src.empty() ? kindOf(op) : src.front()},
      {"type", kindOf(op)},
      {"post_ops", std::move(post)},
      {"source_nodes", std::move(sources)},
      {"inputs", std::move(inputs)},
      {"outputs", std::move(outputs)},
      {"weight_shape", std::move(weightShape)},
      {"weight_sparsity", optional(sparsity)},
      {"block_sparsity", optional(blockSparsity)},
      {"sparse_block", sparseSupport ? llvm::json::Value(sparseBlock)
                                     : llvm::json::Value(nullptr)},
      {"sparse_support", sparseSupport},
      {"sparse_kernel", sparseKernel},
      {"precision", precision},
      {"input_scale", optional(inScale)},
      {"input_zero_point", optional(inZero)},
      {"output_scale", optional(outScale)},
      {"output_zero_point", optional(outZero)},
      {"flops", cost.flops ? *cost.flops : 0.0},
      {"bytes", cost.bytes},
      {"kernel", kernelFor(op)}};
}
