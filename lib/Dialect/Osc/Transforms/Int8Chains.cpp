//===- Int8Chains.cpp - osc-int8-chains -----------------------------------===//
//
// Part of opscope. u8 activations handed from one int8 op to the next:
// where an int8 convolution or inner product's result is read only by
// another int8 op of the same kind, as its input, the producer writes it
// quantized with the consumer's input quantization and the consumer reads
// it as it is, so the f32 tensor between them and the consumer's
// quantization pass go. See Passes.td for the rules.
//
//===----------------------------------------------------------------------===//

#include "FusionPatterns.h"

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

namespace opscope::osc {
#define GEN_PASS_DEF_OSCINT8CHAINS
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"
} // namespace opscope::osc

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using opscope::osc::fusion::typeOf;

namespace {

/// An op of kind OpT that quantizes its input to u8 inside its kernel: an
/// i8 weight with the input's scale and zero point (osc-precision, or a
/// model's QDQ pair).
template <typename OpT> bool quantizesInput(OpT op) {
  return op && typeOf(op.getWeight()).getElementType().isInteger(8) &&
         op.getInputScaleAttr() &&
         op.getInputZeroPointAttr();
}

struct Int8ChainsPass : osc::impl::OscInt8ChainsBase<Int8ChainsPass> {
  using OscInt8ChainsBase::OscInt8ChainsBase;

  /// Hands `op`'s result over in u8 when its only reader is another int8
  /// op of the same kind, as its input, and `op` has no residual sum (the
  /// sum post-op reads f32). Returns whether it did.
  template <typename OpT> static bool carry(OpT op) {
    Value y = op.getOutput();
    if (!quantizesInput(op) || op.getSumInput() || !y.hasOneUse() ||
        !typeOf(y).getElementType().isF32())
      return false;
    OpOperand &use = *y.getUses().begin();
    auto next = dyn_cast<OpT>(use.getOwner());
    if (!quantizesInput(next) || use.get() != next.getInput())
      return false;
    op.setOutputScaleAttr(next.getInputScaleAttr());
    op.setOutputZeroPointAttr(next.getInputZeroPointAttr());
    auto t = cast<RankedTensorType>(y.getType());
    y.setType(RankedTensorType::get(
        t.getShape(), IntegerType::get(op.getContext(), 8,
                                       IntegerType::Unsigned)));
    return true;
  }

  void runOnOperation() override {
    unsigned quantizing = 0, convs = 0, ips = 0;
    getOperation().walk([&](Operation *op) {
      if (auto conv = dyn_cast<ConvOp>(op)) {
        quantizing += quantizesInput(conv);
        convs += carry(conv);
      } else if (auto ip = dyn_cast<InnerProductOp>(op)) {
        quantizing += quantizesInput(ip);
        ips += carry(ip);
      } else if (auto sp = dyn_cast<SparseInnerProductOp>(op)) {
        // Block-sparse int8 kernels quantize into their own VNNI tiles.
        quantizing += sp.getInputScaleAttr() != nullptr;
      }
    });
    unsigned carried = convs + ips;
    numCarried += carried;
    if (!report || !quantizing)
      return;
    llvm::outs() << "osc-int8-chains: " << carried << " of " << quantizing
                 << " int8 op inputs handed over in u8 by their producer ("
                 << convs << " between convolutions, " << ips
                 << " between inner products); " << quantizing - carried
                 << " f32-to-u8 quantization"
                 << (quantizing - carried == 1 ? "" : "s")
                 << " left at chain boundaries\n";
  }
};
} // namespace
