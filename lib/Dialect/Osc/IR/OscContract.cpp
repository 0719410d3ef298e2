//===- OscContract.cpp - each executed op's facts for the runtime ---------===//
//
// Part of opscope. The ExecutableOpInterface methods ops implement beyond
// the interface's defaults (OscInterfaces.td): operand order with optional
// operands, enumerations by name, the weight, FLOPs that are not a fixed
// count per output element, and in-place rules. Adding an op means adding
// its few facts here, next to nothing else on the compiler side.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

#include "opscope/Dialect/Osc/IR/OscInterfaces.cpp.inc"

double osc::tensorBytes(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t)
    return 0.0;
  return static_cast<double>(t.getNumElements()) *
         std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
}

double osc::operandAndResultBytes(Operation *op) {
  double bytes = 0;
  for (Value v : op->getOperands())
    bytes += tensorBytes(v);
  for (Value v : op->getResults())
    bytes += tensorBytes(v);
  return bytes;
}

namespace {
using EnumList = SmallVectorImpl<std::pair<StringRef, StringRef>>;

int64_t elements(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}

double outputElements(Operation *op) {
  return static_cast<double>(elements(op->getResult(0)));
}

/// Whether the result can take over `operand`'s buffer: the same shape and
/// element width.
bool sameBuffer(Operation *op, Value operand) {
  auto a = cast<RankedTensorType>(operand.getType());
  auto r = cast<RankedTensorType>(op->getResult(0).getType());
  return a.getShape() == r.getShape() &&
         a.getElementTypeBitWidth() == r.getElementTypeBitWidth();
}

/// A sum post-op's residual (`sum`) as the buffer the result takes over,
/// the kernel accumulating into it in place: its operand index, or -1 when
/// the sizes differ. (osc-plan-memory refuses it when the op also reads
/// that buffer through its input: the kernel would overwrite what it
/// still reads.)
int sumInPlaceOperand(Operation *op, Value sum) {
  if (!sum || !sameBuffer(op, sum))
    return -1;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (v == sum)
      return static_cast<int>(i);
  return -1;
}

/// Elementwise ops read each element before writing it: the result may
/// overwrite the first operand of its own size.
int firstSameSizedOperand(Operation *op) {
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (sameBuffer(op, v))
      return static_cast<int>(i);
  return -1;
}
} // namespace

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

Value MatMulOp::getWeightOperand() { return getRhs(); }

std::optional<double> MatMulOp::getFlops() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  int64_t k = lhs.getDimSize(lhs.getRank() - (getTransposeA() ? 2 : 1));
  return 2.0 * outputElements(*this) * k;
}

// Quantization ops: absent zero points stay in their slots (mem "none").
SmallVector<Value> QuantizeLinearOp::getRuntimeOperands() {
  return {getInput(), getScale(), getZeroPoint()};
}
SmallVector<Value> DequantizeLinearOp::getRuntimeOperands() {
  return {getInput(), getScale(), getZeroPoint()};
}
SmallVector<Value> ConvIntegerOp::getRuntimeOperands() {
  return {getInput(),      getWeight(),      getInputZeroPoint(),
          getWeightZeroPoint(), getInputScale(), getWeightScale(),
          getBias()};
}
std::optional<double> ConvIntegerOp::getFlops() {
  // 2 x outputs x (C/groups x kernel...): the weight's elements per OC.
  auto w = cast<RankedTensorType>(getWeight().getType());
  return 2.0 * outputElements(*this) * (w.getNumElements() / w.getDimSize(0));
}
SmallVector<Value> MatMulIntegerOp::getRuntimeOperands() {
  return {getLhs(),      getRhs(),      getLhsZeroPoint(), getRhsZeroPoint(),
          getLhsScale(), getRhsScale(), getBias()};
}
std::optional<double> MatMulIntegerOp::getFlops() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  return 2.0 * outputElements(*this) * lhs.getDimSize(lhs.getRank() - 1);
}

SmallVector<Value> InnerProductOp::getRuntimeOperands() {
  return {getInput(), getWeight(), getBias(), getSumInput()};
}
Value InnerProductOp::getWeightOperand() { return getWeight(); }
std::optional<double> InnerProductOp::getFlops() {
  double out = outputElements(*this);
  int64_t k = cast<RankedTensorType>(getWeight().getType()).getDimSize(1);
  return 2.0 * out * k + out * (getBias() ? 1 : 0) + out * getPostOps().size();
}
int InnerProductOp::getInPlaceOperand() {
  // The sum post-op reads the residual element before the output element
  // at the same position is written.
  return sumInPlaceOperand(*this, getSumInput());
}

SmallVector<Value> SparseInnerProductOp::getRuntimeOperands() {
  return {getInput(), getPacked(), getBias(), getSumInput()};
}
Value SparseInnerProductOp::getWeightOperand() { return getPacked(); }
/// What the kernel executes: 4 multiply-adds per non-zero block and token.
std::optional<double> SparseInnerProductOp::getFlops() {
  double out = outputElements(*this);
  double tokens = out / getWeightShape()[0];
  return 2.0 * 4.0 * getNonzeroBlocks() * tokens +
         out * (getBias() ? 1 : 0) + out * getPostOps().size();
}
double SparseInnerProductOp::getBytesMoved() {
  return operandAndResultBytes(*this);
}
int SparseInnerProductOp::getInPlaceOperand() {
  return sumInPlaceOperand(*this, getSumInput());
}

SmallVector<Value> ConvOp::getRuntimeOperands() {
  return {getInput(), getWeight(), getBias(), getSumInput()};
}
Value ConvOp::getWeightOperand() { return getWeight(); }
int ConvOp::getInPlaceOperand() {
  // oneDNN's sum post-op accumulates into the destination: in place, no
  // copy of the residual. Only when the sum comes first: after an
  // element-wise post-op oneDNN 2.6 below AVX-512 has no kernel for a sum
  // (DenseConv.cpp), and the runtime reads the residual as a binary add
  // from its own buffer instead, which in place would need a copy.
  auto post = getPostOps();
  if (post.empty() ||
      cast<PostOpAttr>(post[0]).getKind() != PostOpKind::sum)
    return -1;
  return sumInPlaceOperand(*this, getSumInput());
}
std::optional<double> ConvOp::getFlops() {
  auto w = cast<RankedTensorType>(getWeight().getType());
  double perOut = 2.0 * w.getNumElements() / w.getDimSize(0);
  double out = outputElements(*this);
  return out * perOut + out * getPostOps().size();
}

SmallVector<Value> ConvTransposeOp::getRuntimeOperands() {
  return {getInput(), getWeight(), getBias()};
}
Value ConvTransposeOp::getWeightOperand() { return getWeight(); }
std::optional<double> ConvTransposeOp::getFlops() {
  auto w = cast<RankedTensorType>(getWeight().getType());
  double perIn = 2.0 * w.getNumElements() / w.getDimSize(0);
  return elements(getInput()) * perIn;
}

//===----------------------------------------------------------------------===//
// Pooling and normalisation
//===----------------------------------------------------------------------===//

void PoolOp::getRuntimeEnums(EnumList &enums) {
  enums.push_back({"kind", stringifyPoolKind(getKind())});
}
StringRef PoolOp::getKindSuffix() { return stringifyPoolKind(getKind()); }
std::optional<double> PoolOp::getFlops() {
  double k = 1;
  for (int64_t d : getKernel())
    k *= d;
  return outputElements(*this) * k;
}

void GlobalPoolOp::getRuntimeEnums(EnumList &enums) {
  enums.push_back({"kind", stringifyPoolKind(getKind())});
}
StringRef GlobalPoolOp::getKindSuffix() {
  return stringifyPoolKind(getKind());
}
std::optional<double> GlobalPoolOp::getFlops() {
  return static_cast<double>(elements(getInput()));
}

SmallVector<Value> LayerNormOp::getRuntimeOperands() {
  return {getInput(), getScale(), getBias()};
}

SmallVector<Value> SoftmaxOp::getRuntimeOperands() {
  return {getInput(), getMask()};
}
std::optional<double> SoftmaxOp::getFlops() {
  // max, subtract, exp, sum, divide (+ the mask add)
  return (getMask() ? 6.0 : 5.0) * outputElements(*this);
}

void GeluOp::getRuntimeEnums(EnumList &enums) {
  enums.push_back(
      {"approximation", stringifyGeluApproximation(getApproximation())});
}
StringRef GeluOp::getKindSuffix() {
  return stringifyGeluApproximation(getApproximation());
}
int GeluOp::getInPlaceOperand() { return 0; }

//===----------------------------------------------------------------------===//
// Elementwise and reductions
//===----------------------------------------------------------------------===//

void UnaryOp::getRuntimeEnums(EnumList &enums) {
  enums.push_back({"kind", stringifyUnaryKind(getKind())});
}
StringRef UnaryOp::getKindSuffix() { return stringifyUnaryKind(getKind()); }
int UnaryOp::getInPlaceOperand() { return 0; }

void BinaryOp::getRuntimeEnums(EnumList &enums) {
  enums.push_back({"kind", stringifyBinaryKind(getKind())});
}
StringRef BinaryOp::getKindSuffix() { return stringifyBinaryKind(getKind()); }
int BinaryOp::getInPlaceOperand() { return firstSameSizedOperand(*this); }

void CompareOp::getRuntimeEnums(EnumList &enums) {
  enums.push_back({"kind", stringifyCompareKind(getKind())});
}
StringRef CompareOp::getKindSuffix() {
  return stringifyCompareKind(getKind());
}

void ReduceOp::getRuntimeEnums(EnumList &enums) {
  enums.push_back({"kind", stringifyReduceKind(getKind())});
}
StringRef ReduceOp::getKindSuffix() { return stringifyReduceKind(getKind()); }
std::optional<double> ReduceOp::getFlops() {
  return static_cast<double>(elements(getInput()));
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

double GatherOp::getBytesMoved() {
  // The indices, the rows they select (read once each), and the output; not
  // the whole table (an embedding lookup reads 128 rows of 30522).
  return tensorBytes(getIndices()) + 2.0 * tensorBytes(getOutput());
}

void PadOp::getRuntimeEnums(EnumList &enums) {
  enums.push_back({"mode", stringifyPadMode(getMode())});
}

void GridSampleOp::getRuntimeEnums(EnumList &enums) {
  enums.push_back({"mode", stringifyResizeMode(getMode())});
  enums.push_back({"padding_mode", stringifyPadMode(getPaddingMode())});
}

void ResizeOp::getRuntimeEnums(EnumList &enums) {
  enums.push_back({"mode", stringifyResizeMode(getMode())});
  enums.push_back({"coordinate_transformation_mode",
                   stringifyCoordinateTransform(
                       getCoordinateTransformationMode())});
  enums.push_back({"nearest_mode", stringifyNearestMode(getNearestMode())});
}
void TfIdfVectorizerOp::getRuntimeEnums(EnumList &enums) {
  enums.push_back({"mode", stringifyTfIdfMode(getMode())});
}
void ScatterNDOp::getRuntimeEnums(EnumList &enums) {
  enums.push_back({"reduction", stringifyScatterReduction(getReduction())});
}

void ScatterElementsOp::getRuntimeEnums(EnumList &enums) {
  enums.push_back({"reduction", stringifyScatterReduction(getReduction())});
}

std::optional<double> ResizeOp::getFlops() {
  double perOut = getMode() == ResizeMode::nearest  ? 0.0
                  : getMode() == ResizeMode::linear ? 4.0
                                                    : 16.0;
  return outputElements(*this) * perOut;
}

//===----------------------------------------------------------------------===//
// Recurrent layers
//===----------------------------------------------------------------------===//

SmallVector<Value> RnnOp::getRuntimeOperands() {
  return {getInput(),    getWeight(),   getRecurrence(),
          getBias(),     getSequenceLens(), getInitialH(),
          getInitialC(), getPeepholes()};
}
void RnnOp::getRuntimeEnums(EnumList &enums) {
  enums.push_back({"cell", stringifyRnnCell(getCell())});
}
StringRef RnnOp::getKindSuffix() { return stringifyRnnCell(getCell()); }
Value RnnOp::getWeightOperand() { return getWeight(); }
std::optional<double> RnnOp::getFlops() {
  // Both products per step and direction, plus about 8 elementwise
  // operations per gate element.
  auto w = cast<RankedTensorType>(getWeight().getType()).getShape();
  auto x = cast<RankedTensorType>(getInput().getType()).getShape();
  double steps = static_cast<double>(x[0]) * x[1]; // seq * batch
  double gates = static_cast<double>(w[1]);        // gates * hidden
  return w[0] * steps * gates * (2.0 * (w[2] + getHiddenSize()) + 8.0);
}

std::optional<double> ArgReduceOp::getFlops() {
  return static_cast<double>(elements(getInput()));
}
