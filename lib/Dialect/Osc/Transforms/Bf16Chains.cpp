//===- Bf16Chains.cpp - osc-bf16-chains -----------------------------------===//
//
// Part of opscope. bf16 activations between the ops of a bf16 model: where
// every reader of a value rounds it to bf16 on entry anyway (a bf16 inner
// product's or convolution's input, a compute_bf16 matmul's operand), seen
// through reshapes, transposes and depth-to-space shuffles, its producer
// writes it in bf16 and the readers read it as it is: with native bf16
// they compute with the same bf16 values, and the f32 tensor and their
// rounding passes go. See Passes.td for the rules.
//
//===----------------------------------------------------------------------===//

#include "FusionPatterns.h"

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"
#include "opscope/runtime/tuning.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace opscope::osc {
#define GEN_PASS_DEF_OSCBF16CHAINS
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"
} // namespace opscope::osc

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using opscope::osc::fusion::typeOf;

namespace {
/// Whether `op`'s operand `i` is rounded to bf16 by its kernel on entry.
bool roundsOperand(Operation *op, unsigned i) {
  if (auto ip = dyn_cast<InnerProductOp>(op))
    return typeOf(ip.getWeight()).getElementType().isBF16() &&
           i == ip.getInputMutable().getOperandNumber();
  if (auto conv = dyn_cast<ConvOp>(op))
    return typeOf(conv.getWeight()).getElementType().isBF16() &&
           i == conv.getInputMutable().getOperandNumber();
  if (auto mm = dyn_cast<MatMulOp>(op))
    return mm.getComputeBf16() && i < 2;
  return false;
}

/// Ops that move elements without computing on them: a bf16 input gives a
/// bf16 result with the same values.
bool passesThrough(Operation *op, unsigned i) {
  return isa<ReshapeOp, TransposeOp, DepthToSpaceOp>(op) && i == 0;
}

/// Whether every reader of `v` rounds it to bf16 on entry, seen through
/// the ops that only move it (whose results must qualify in turn).
bool roundedByAllReaders(Value v) {
  if (v.use_empty())
    return false;
  for (OpOperand &use : v.getUses()) {
    Operation *reader = use.getOwner();
    unsigned i = use.getOperandNumber();
    if (roundsOperand(reader, i))
      continue;
    if (passesThrough(reader, i) && roundedByAllReaders(reader->getResult(0)))
      continue;
    return false;
  }
  return true;
}

/// The kinds that can write their f32 result in bf16 (rounded after the
/// f32 computation): the index of the report's counters, or -1.
enum Producer {
  InnerProduct,
  Conv,
  MatMul,
  Softmax,
  LayerNorm,
  NumProducers
};
int producerKind(Operation *op) {
  if (auto conv = dyn_cast<ConvOp>(op))
    return typeOf(conv.getWeight()).getElementType().isBF16() &&
                   !conv.getSumInput()
               ? Conv
               : -1;
  if (auto ip = dyn_cast<InnerProductOp>(op))
    return typeOf(ip.getWeight()).getElementType().isBF16() &&
                   !ip.getSumInput()
               ? InnerProduct
               : -1;
  if (auto mm = dyn_cast<MatMulOp>(op))
    return mm.getComputeBf16() ? MatMul : -1;
  if (auto sm = dyn_cast<SoftmaxOp>(op))
    return softmaxCanWriteBf16(sm) ? Softmax : -1;
  if (auto ln = dyn_cast<LayerNormOp>(op))
    return !ln.getTransposed() ? LayerNorm : -1;
  return -1;
}

struct Bf16ChainsPass : osc::impl::OscBf16ChainsBase<Bf16ChainsPass> {
  using OscBf16ChainsBase::OscBf16ChainsBase;

  /// Makes `v` bf16, and the results of the ops that move it; returns the
  /// bytes of the buffers that became bf16 (a reshape's is a view).
  static int64_t makeBf16(Value v) {
    auto t = typeOf(v);
    v.setType(RankedTensorType::get(t.getShape(),
                                    BFloat16Type::get(v.getContext())));
    int64_t bytes = isa_and_nonnull<ReshapeOp>(v.getDefiningOp())
                        ? 0
                        : t.getNumElements() * 2;
    for (OpOperand &use : v.getUses())
      if (passesThrough(use.getOwner(), use.getOperandNumber()))
        bytes += makeBf16(use.getOwner()->getResult(0));
    return bytes;
  }

  void runOnOperation() override {
    if (mode != "auto" && mode != "always" && mode != "never") {
      getOperation().emitError("osc-bf16-chains: mode must be auto, always "
                               "or never, got '")
          << mode << "'";
      return signalPassFailure();
    }
    // Operands a kernel rounds to bf16 on entry, of the given element type
    // (f32 before the pass: each is a rounding; bf16 after: carried).
    auto roundingOperands = [&](auto isType) {
      unsigned n = 0;
      getOperation().walk([&](Operation *op) {
        for (OpOperand &use : op->getOpOperands())
          n += roundsOperand(op, use.getOperandNumber()) &&
               isType(typeOf(use.get()).getElementType());
      });
      return n;
    };
    unsigned rounding = roundingOperands([](Type t) { return t.isF32(); });
    if (!rounding)
      return;
    bool native = false;
    if (mode == "auto") {
      tuning::MachineKey m = tuning::thisMachine("");
      native = m.bf16 || m.amx;
    }
    if (mode == "never" || (mode == "auto" && !native)) {
      if (report)
        llvm::outs() << "osc-bf16-chains: off ("
                     << (mode == "never"
                             ? "mode never"
                             : "auto: this CPU has no native bf16, where a "
                               "hand-over adds a rounding pass to its "
                               "producer; --bf16-chains always forces them")
                     << "); " << rounding << " f32-to-bf16 rounding"
                     << (rounding == 1 ? "" : "s")
                     << " on entry, f32 between ops\n";
      return;
    }
    unsigned produced[NumProducers] = {};
    int64_t bytes = 0;
    getOperation().walk([&](Operation *op) {
      int kind = producerKind(op);
      if (kind < 0 || op->getNumResults() != 1)
        return;
      Value y = op->getResult(0);
      if (!typeOf(y).getElementType().isF32() || !roundedByAllReaders(y))
        return;
      bytes += makeBf16(y);
      ++produced[kind];
    });
    unsigned carried = roundingOperands([](Type t) { return t.isBF16(); });
    unsigned values = 0;
    for (unsigned n : produced)
      values += n;
    numValues += values;
    numCarried += carried;
    if (!report)
      return;
    llvm::outs() << "osc-bf16-chains: " << carried << " of " << rounding
                 << " bf16 op inputs read in bf16 as their producer wrote "
                    "them; "
                 << values << " results written in bf16 ("
                 << produced[InnerProduct] << " inner products, "
                 << produced[Conv] << " convolutions, "
                 << produced[MatMul] << " matmuls, " << produced[Softmax]
                 << " softmax, " << produced[LayerNorm] << " layer norms), "
                 << (bytes >= (1 << 20)
                         ? llvm::format("%.1f MiB", bytes / double(1 << 20))
                         : llvm::format("%.1f KiB", bytes / 1024.0))
                 << " of activations in bf16 instead of f32; "
                 << rounding - carried << " f32-to-bf16 rounding"
                 << (rounding - carried == 1 ? "" : "s")
                 << " left on entry at chain boundaries\n";
  }
};
} // namespace
