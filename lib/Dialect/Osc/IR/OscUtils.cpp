//===- OscUtils.cpp - facts about osc ops for passes and reports ----------===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscUtils.h"
#include "opscope/Dialect/Osc/IR/OscOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/TypeSwitch.h"

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

static int64_t elems(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}

static double bytesOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  int64_t width = std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
  return static_cast<double>(t.getNumElements() * width);
}

OpCost osc::estimateCost(Operation *op) {
  OpCost cost;
  for (Value v : op->getOperands())
    if (isa<RankedTensorType>(v.getType()))
      cost.bytes += bytesOf(v);
  for (Value v : op->getResults())
    if (isa<RankedTensorType>(v.getType()))
      cost.bytes += bytesOf(v);
  if (op->getNumResults() == 0)
    return cost;
  double out = static_cast<double>(elems(op->getResult(0)));
  cost.flops =
      llvm::TypeSwitch<Operation *, std::optional<double>>(op)
          .Case([&](MatMulOp m) -> std::optional<double> {
            auto lhs = cast<RankedTensorType>(m.getLhs().getType());
            int64_t k = lhs.getDimSize(lhs.getRank() - (m.getTransposeA() ? 2 : 1));
            return 2.0 * out * k;
          })
          .Case([&](InnerProductOp m) -> std::optional<double> {
            int64_t k = cast<RankedTensorType>(m.getWeight().getType()).getDimSize(1);
            return 2.0 * out * k + out * (m.getBias() ? 1 : 0) +
                   out * m.getPostOps().size();
          })
          .Case([&](ConvOp m) -> std::optional<double> {
            auto w = cast<RankedTensorType>(m.getWeight().getType());
            double perOut = 2.0 * w.getNumElements() / w.getDimSize(0);
            return out * perOut + out * m.getPostOps().size();
          })
          .Case([&](ConvTransposeOp m) -> std::optional<double> {
            auto w = cast<RankedTensorType>(m.getWeight().getType());
            double perIn = 2.0 * w.getNumElements() / w.getDimSize(0);
            return elems(m.getInput()) * perIn;
          })
          .Case([&](PoolOp m) -> std::optional<double> {
            double k = 1;
            for (int64_t d : m.getKernel())
              k *= d;
            return out * k;
          })
          .Case([&](GlobalPoolOp m) -> std::optional<double> {
            return static_cast<double>(elems(m.getInput()));
          })
          .Case([&](BatchNormOp) -> std::optional<double> { return 2.0 * out; })
          // mean, variance, normalize, scale, shift
          .Case([&](LayerNormOp) -> std::optional<double> { return 8.0 * out; })
          // max, subtract, exp, sum, divide (+ mask add)
          .Case([&](SoftmaxOp m) -> std::optional<double> {
            return (m.getMask() ? 6.0 : 5.0) * out;
          })
          .Case([&](GeluOp) -> std::optional<double> { return 8.0 * out; })
          .Case<UnaryOp, BinaryOp, CompareOp, WhereOp, CastOp>(
              [&](Operation *) -> std::optional<double> { return out; })
          .Case([&](ReduceOp m) -> std::optional<double> {
            return static_cast<double>(elems(m.getInput()));
          })
          .Case([&](ResizeOp m) -> std::optional<double> {
            return out * (m.getMode() == ResizeMode::nearest ? 0.0
                          : m.getMode() == ResizeMode::linear
                              ? 4.0
                              : 16.0);
          })
          // Data movement computes nothing.
          .Case<ReshapeOp, TransposeOp, BroadcastToOp, GatherOp, ConcatOp,
                SliceOp, PadOp, ConstantOp>(
              [&](Operation *) -> std::optional<double> { return 0.0; })
          .Default([](Operation *) { return std::nullopt; });
  return cost;
}

std::string osc::kernelFor(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case([](InnerProductOp) { return "onednn:inner_product"; })
      .Case([](MatMulOp) { return "onednn:matmul"; })
      .Case([](ConvOp) { return "onednn:convolution"; })
      .Case([](ConvTransposeOp) { return "onednn:deconvolution"; })
      .Case<PoolOp, GlobalPoolOp>([](Operation *) { return "onednn:pooling"; })
      .Case<ReshapeOp>([](Operation *) { return "none (view)"; })
      .Default([](Operation *op) {
        return "opscope:" + op->getName().stripDialect().str();
      });
}

std::string osc::kindOf(Operation *op) {
  std::string name = op->getName().stripDialect().str();
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case([&](UnaryOp u) { return name + "." + stringifyUnaryKind(u.getKind()).str(); })
      .Case([&](BinaryOp b) { return name + "." + stringifyBinaryKind(b.getKind()).str(); })
      .Case([&](CompareOp c) { return name + "." + stringifyCompareKind(c.getKind()).str(); })
      .Case([&](ReduceOp r) { return name + "." + stringifyReduceKind(r.getKind()).str(); })
      .Case([&](PoolOp p) { return name + "." + stringifyPoolKind(p.getKind()).str(); })
      .Case([&](GlobalPoolOp p) { return name + "." + stringifyPoolKind(p.getKind()).str(); })
      .Case([&](GeluOp g) { return name + "." + stringifyGeluApproximation(g.getApproximation()).str(); })
      .Default([&](Operation *) { return name; });
}

std::vector<std::string> osc::postOpsOf(Operation *op) {
  auto list = op->getAttrOfType<ArrayAttr>("post_ops");
  std::vector<std::string> out;
  if (!list)
    return out;
  for (Attribute a : list)
    out.push_back(stringifyPostOpKind(cast<PostOpKindAttr>(a).getValue()).str());
  return out;
}

static void collectNames(Location loc, std::vector<std::string> &names) {
  if (auto n = dyn_cast<NameLoc>(loc)) {
    std::string s = n.getName().str();
    if (std::find(names.begin(), names.end(), s) == names.end())
      names.push_back(s);
  } else if (auto f = dyn_cast<FusedLoc>(loc)) {
    for (Location l : f.getLocations())
      collectNames(l, names);
  } else if (auto c = dyn_cast<CallSiteLoc>(loc)) {
    collectNames(c.getCallee(), names);
  }
}

std::vector<std::string> osc::sourceNodes(Location loc) {
  std::vector<std::string> names;
  collectNames(loc, names);
  return names;
}

Value osc::weightOperand(Operation *op) {
  Value w = llvm::TypeSwitch<Operation *, Value>(op)
                .Case<InnerProductOp, ConvOp, ConvTransposeOp>(
                    [](auto o) { return o.getWeight(); })
                .Case([](MatMulOp m) { return m.getRhs(); })
                .Default([](Operation *) { return Value(); });
  return w && w.getDefiningOp<ConstantOp>() ? w : Value();
}

std::optional<double> osc::zeroFraction(Value v) {
  auto values = readF32Constant(v);
  if (!values || values->empty())
    return std::nullopt;
  size_t zeros = std::count(values->begin(), values->end(), 0.0f);
  return static_cast<double>(zeros) / values->size();
}
