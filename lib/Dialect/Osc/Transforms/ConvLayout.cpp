//===- ConvLayout.cpp - osc-conv-layout -----------------------------------===//
//
// Part of opscope. Channels-last activations along chains of convolutions:
// the values that only convolutions (transposed ones too), layout-agnostic
// element-wise ops, spatial resizes, pooling, concats, depth-to-space
// shuffles and slices produce and read keep oneDNN's NHWC layout, so
// reorders happen at the chain's boundaries instead of around every
// convolution. Which ops those are, how each operand's layout relates to
// the result's and which flags record the decision, the ops say through
// ChannelsLastOpInterface (OscChannelsLast.cpp). The decision is a fixed
// point: start from every candidate value and drop those with a producer or
// reader that needs NCHW until nothing changes.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

namespace opscope::osc {
#define GEN_PASS_DEF_OSCCONVLAYOUT
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"
} // namespace opscope::osc

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

namespace {
/// The op as a channels-last candidate, or null: an op of the interface
/// whose types allow it.
ChannelsLastOpInterface candidate(Operation *op) {
  auto cl = dyn_cast_or_null<ChannelsLastOpInterface>(op);
  return cl && cl.canRunChannelsLast() ? cl : nullptr;
}

struct ConvLayoutPass : osc::impl::OscConvLayoutBase<ConvLayoutPass> {
  using OscConvLayoutBase::OscConvLayoutBase;

  /// Whether `v` (in `nhwc`) can stay channels-last given the others: its
  /// producer's operands tied to its layout are channels-last too, and each
  /// reader either takes any layout for it (a convolution's input) or ties
  /// it to a result that stays channels-last.
  static bool keeps(Value v, const llvm::SetVector<Value> &nhwc) {
    auto def = cast<ChannelsLastOpInterface>(v.getDefiningOp());
    for (OpOperand &o : def->getOpOperands())
      if (def.getChannelsLastOperand(o.getOperandNumber()) ==
              ChannelsLastOperand::Tied &&
          !nhwc.contains(o.get()))
        return false;
    for (OpOperand &use : v.getUses()) {
      ChannelsLastOpInterface user = candidate(use.getOwner());
      if (!user)
        return false;
      switch (user.getChannelsLastOperand(use.getOperandNumber())) {
      case ChannelsLastOperand::Free:
        continue;
      case ChannelsLastOperand::Tied:
        if (nhwc.contains(user->getResult(0)))
          continue;
        return false;
      case ChannelsLastOperand::Fixed:
        return false;
      }
    }
    return true;
  }

  void runOnOperation() override {
    llvm::SetVector<Value> nhwc;
    SmallVector<ChannelsLastOpInterface> ops;
    int64_t convs = 0;
    getOperation().walk([&](Operation *op) {
      if (ChannelsLastOpInterface cl = candidate(op)) {
        ops.push_back(cl);
        convs += cl.convertsLayout();
        nhwc.insert(op->getResult(0));
      }
    });
    for (bool changed = true; changed;) {
      changed = false;
      for (Value v : SmallVector<Value>(nhwc.begin(), nhwc.end()))
        if (!keeps(v, nhwc)) {
          nhwc.remove(v);
          changed = true;
        }
    }
    int64_t removed = 0;
    for (ChannelsLastOpInterface cl : ops)
      removed += cl.setChannelsLast([&](Value v) { return nhwc.contains(v); });
    numRemoved += removed;
    numKept += 2 * convs - removed;
    if (report && convs)
      llvm::outs() << "osc-conv-layout: " << removed << " of " << 2 * convs
                   << " convolution activation reorders removed (" << convs
                   << " convolutions; NHWC kept across " << nhwc.size()
                   << " values)\n";
  }
};
} // namespace
