//===- OscOps.h - osc dialect operations ------------------------*- C++ -*-===//
//
// Part of opscope.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_DIALECT_OSC_IR_OSCOPS_H
#define OPSCOPE_DIALECT_OSC_IR_OSCOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "opscope/Dialect/Osc/IR/OscDialect.h"
#include "opscope/Dialect/Osc/IR/OscEnums.h.inc"
#define GET_ATTRDEF_CLASSES
#include "opscope/Dialect/Osc/IR/OscAttrs.h.inc"
// The MLIR-free table of runtime kinds the op contract names.
#include "opscope/runtime/kinds.h"

namespace opscope::osc {
/// Bytes of a ranked tensor value (i1 counts one byte), 0 for other types.
double tensorBytes(mlir::Value v);
/// Bytes of every operand and result of `op`, weights included (what an
/// op that reads and writes each tensor once moves).
double operandAndResultBytes(mlir::Operation *op);
/// How an operand's layout relates to the result's under osc-conv-layout
/// (ChannelsLastOpInterface::getChannelsLastOperand).
enum class ChannelsLastOperand {
  Free,  ///< read in either layout (a convolution's input: it reorders)
  Tied,  ///< in the result's layout (element-wise operands, a sum input)
  Fixed, ///< NCHW only (weights, biases)
};
} // namespace opscope::osc

#include "opscope/Dialect/Osc/IR/OscInterfaces.h.inc"

namespace opscope::osc {
/// Module attribute marking IR printed without its weight blobs
/// (`opscope-translate --elide-weights`): readable, not compilable.
inline constexpr const char kWeightsElidedAttr[] = "osc.weights_elided";
} // namespace opscope::osc

#define GET_OP_CLASSES
#include "opscope/Dialect/Osc/IR/OscOps.h.inc"

namespace opscope::osc {
/// Gates per direction of an osc.rnn cell (LSTM 4, GRU 3, RNN 1).
inline int64_t rnnGates(RnnCell cell) {
  return cell == RnnCell::lstm ? 4 : cell == RnnCell::gru ? 3 : 1;
}
/// Activation functions per direction (LSTM f g h, GRU f g, RNN f).
inline int64_t rnnActivations(RnnCell cell) {
  return cell == RnnCell::lstm ? 3 : cell == RnnCell::gru ? 2 : 1;
}
/// A nearest or linear resize of H and W of a 4-D tensor, N and C kept: the
/// runtime's planned 2-D kernel, which also runs channels-last (`nhwc`).
bool isSpatialResize2D(ResizeOp op);
/// Whether the runtime's row-wise kernel can write this softmax's result in
/// bf16 (osc-bf16-chains): over the last axis, with no mask or one that
/// varies only over leading dimensions and the last one.
bool softmaxCanWriteBf16(SoftmaxOp op);
/// What is wrong with an osc.tfidf_vectorizer's n-gram configuration, or
/// "" when nothing is; on success `columns` is its output's row length
/// (max(ngram_indexes) + 1). The importer and the verifier both ask.
std::string tfidfConfigError(int64_t minGram, int64_t maxGram,
                             int64_t maxSkip,
                             llvm::ArrayRef<int64_t> ngramCounts,
                             llvm::ArrayRef<int64_t> ngramIndexes,
                             llvm::ArrayRef<int64_t> pool,
                             std::optional<llvm::ArrayRef<float>> weights,
                             int64_t &columns);
} // namespace opscope::osc

#endif // OPSCOPE_DIALECT_OSC_IR_OSCOPS_H
