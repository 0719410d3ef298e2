//===- OscChannelsLast.cpp - ChannelsLastOpInterface ----------------------===//
//
// Part of opscope. Which ops osc-conv-layout may run channels-last, and how
// each one keeps its layout flags: convolutions (transposed ones too)
// convert between the layouts themselves; spatial resizes, channel concats,
// 2-D pooling, depth-to-space shuffles and slices have a channels-last
// kernel behind an `nhwc` flag; element-wise ops whose operands are all
// shaped like the result compute in whatever order their buffers hold.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"

using namespace mlir;
using namespace opscope::osc;

namespace {
/// A 4-D f32 activation.
bool isActivation4d(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getRank() == 4 && t.getElementType().isF32();
}

/// An f32 activation, or a u8 or bf16 one carried between int8 or bf16
/// convolutions (osc-int8-chains, osc-bf16-chains): only convolutions (and
/// the depth-to-space shuffles between them) produce and read those.
bool isConvActivation4d(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getRank() == 4 &&
         (t.getElementType().isF32() || t.getElementType().isBF16() ||
          t.getElementType().isUnsignedInteger(8));
}

/// Sets `nhwc` on an op with one flag for its operands and result.
template <typename Op>
unsigned setNhwcFlag(Op op, function_ref<bool(Value)> isChannelsLast) {
  if (isChannelsLast(op.getOutput()))
    op.setNhwc(true);
  return 0;
}

/// Sets a convolution's flag per side: each one removes a reorder.
template <typename Op>
unsigned setConvFlags(Op op, function_ref<bool(Value)> isChannelsLast) {
  unsigned removed = 0;
  if (isChannelsLast(op.getInput())) {
    op.setInputNhwc(true);
    ++removed;
  }
  if (isChannelsLast(op.getOutput())) {
    op.setOutputNhwc(true);
    ++removed;
  }
  return removed;
}

/// An element-wise op computing a 4-D f32 result from operands of its own
/// type: the order of elements in memory does not matter to it, as long as
/// all of them share it.
bool isSameShapedElementwise(Operation *op) {
  return op->getNumResults() == 1 && isActivation4d(op->getResult(0)) &&
         llvm::all_of(op->getOperandTypes(), [&](Type t) {
           return t == op->getResult(0).getType();
         });
}
} // namespace

// Convolutions: 2-D ones (oneDNN computes channels-last and reorders at the
// sides it is told are NCHW). The input converts; a residual (`sum`) is
// accumulated into the output buffer in place, so it shares its layout.

bool ConvOp::canRunChannelsLast() {
  return isConvActivation4d(getInput()) && isConvActivation4d(getOutput());
}
bool ConvOp::convertsLayout() { return true; }
ChannelsLastOperand ConvOp::getChannelsLastOperand(unsigned operand) {
  // By position: one value can be both the input and the residual.
  if (operand == getInputMutable().getOperandNumber())
    return ChannelsLastOperand::Free;
  MutableOperandRange sum = getSumInputMutable();
  if (!sum.empty() && operand == sum[0].getOperandNumber())
    return ChannelsLastOperand::Tied;
  return ChannelsLastOperand::Fixed;
}
unsigned ConvOp::setChannelsLast(function_ref<bool(Value)> isChannelsLast) {
  return setConvFlags(*this, isChannelsLast);
}

// A transposed convolution (a decoder's upsampling): f32 activations only
// (no int8 or bf16 chains pass through it), and no residual.

bool ConvTransposeOp::canRunChannelsLast() {
  return isActivation4d(getInput()) && isActivation4d(getOutput());
}
bool ConvTransposeOp::convertsLayout() { return true; }
ChannelsLastOperand ConvTransposeOp::getChannelsLastOperand(unsigned operand) {
  return operand == getInputMutable().getOperandNumber()
             ? ChannelsLastOperand::Free
             : ChannelsLastOperand::Fixed;
}
unsigned
ConvTransposeOp::setChannelsLast(function_ref<bool(Value)> isChannelsLast) {
  return setConvFlags(*this, isChannelsLast);
}

// A nearest or linear upsampling of H and W (an FPN's): the runtime's 2-D
// resize kernel also runs channels-last.
bool ResizeOp::canRunChannelsLast() {
  return getOutput().getType().getElementType().isF32() &&
         isSpatialResize2D(*this);
}
unsigned ResizeOp::setChannelsLast(function_ref<bool(Value)> isChannelsLast) {
  return setNhwcFlag(*this, isChannelsLast);
}

// A concat of 4-D activations (an FPN's channel concat): the runtime
// concatenates channels-last buffers along the matching memory axis.
bool ConcatOp::canRunChannelsLast() { return isActivation4d(getOutput()); }
unsigned ConcatOp::setChannelsLast(function_ref<bool(Value)> isChannelsLast) {
  return setNhwcFlag(*this, isChannelsLast);
}

// 2-D max or average pooling: oneDNN pools channels-last as it is.
bool PoolOp::canRunChannelsLast() {
  return isActivation4d(getInput()) && isActivation4d(getOutput());
}
unsigned PoolOp::setChannelsLast(function_ref<bool(Value)> isChannelsLast) {
  return setNhwcFlag(*this, isChannelsLast);
}

// A depth-to-space shuffle (a transposed convolution's sub-pixel form, a
// pixel shuffle): channels-last it moves rows of blocksize*C values, of any
// element type (a bf16 chain passes through it).
bool DepthToSpaceOp::canRunChannelsLast() {
  return isConvActivation4d(getInput()) && isConvActivation4d(getOutput());
}
unsigned
DepthToSpaceOp::setChannelsLast(function_ref<bool(Value)> isChannelsLast) {
  return setNhwcFlag(*this, isChannelsLast);
}

// A slice of 4-D activations (the crop after a sub-pixel shuffle): the same
// strided copy in memory order.
bool SliceOp::canRunChannelsLast() {
  return isActivation4d(getInput()) && isActivation4d(getOutput());
}
unsigned SliceOp::setChannelsLast(function_ref<bool(Value)> isChannelsLast) {
  return setNhwcFlag(*this, isChannelsLast);
}

// Element-wise ops: no flag, the kernel follows its buffers.
bool UnaryOp::canRunChannelsLast() {
  return isSameShapedElementwise(getOperation());
}
bool BinaryOp::canRunChannelsLast() {
  return isSameShapedElementwise(getOperation());
}
