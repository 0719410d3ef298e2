//===- ConvLayout.cpp - osc-conv-layout -----------------------------------===//
//
// Part of opscope. Channels-last activations along chains of convolutions:
// the values that only convolutions (transposed ones too), layout-agnostic
// element-wise ops, spatial resizes, pooling, concats, depth-to-space
// shuffles and slices produce and read
// keep oneDNN's NHWC layout, so reorders happen at the chain's boundaries
// instead of around every convolution. The decision is a
// fixed point: start from every candidate value and drop those with a
// producer or reader that needs NCHW until nothing changes.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

namespace opscope::osc {
#define GEN_PASS_DEF_OSCCONVLAYOUT
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"
} // namespace opscope::osc

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

namespace {
bool isActivation4d(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getRank() == 4 && t.getElementType().isF32();
}

/// An f32 activation, or a u8 or bf16 one carried between int8 or bf16
/// convolutions (osc-int8-chains, osc-bf16-chains): only convolutions
/// produce and read those here.
bool isConvActivation4d(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getRank() == 4 &&
         (t.getElementType().isF32() || t.getElementType().isBF16() ||
          t.getElementType().isUnsignedInteger(8));
}

bool is2dConv(Operation *op) {
  auto c = dyn_cast<ConvOp>(op);
  return c && isConvActivation4d(c.getInput()) &&
         isConvActivation4d(c.getOutput());
}

/// A 2-D transposed convolution (a decoder's upsampling): f32 activations
/// only (no int8 or bf16 chains pass through it).
bool is2dConvTranspose(Operation *op) {
  auto c = dyn_cast<ConvTransposeOp>(op);
  return c && isActivation4d(c.getInput()) && isActivation4d(c.getOutput());
}

/// A convolution of either kind whose activations can be channels-last.
bool isChainConv(Operation *op) {
  return is2dConv(op) || is2dConvTranspose(op);
}

/// A nearest or linear upsampling of H and W (an FPN's): the runtime's 2-D
/// resize kernel also runs channels-last.
bool isSpatialResize(Operation *op) {
  auto r = dyn_cast<ResizeOp>(op);
  return r && r.getOutput().getType().getElementType().isF32() &&
         isSpatialResize2D(r);
}

/// An op that computes element by element with every operand shaped like
/// its result: the order of elements in memory does not matter to it, as
/// long as all of them share it. Or a resize of H and W, which has a
/// channels-last kernel, a channel concat, a 2-D max or average pooling,
/// a depth-to-space shuffle or a slice.
bool isLayoutAgnostic(Operation *op) {
  if (isSpatialResize(op))
    return true;
  // A concat of 4-D activations (an FPN's channel concat): the runtime
  // concatenates channels-last buffers along the matching memory axis.
  if (auto concat = dyn_cast<ConcatOp>(op))
    return isActivation4d(concat.getOutput());
  // 2-D max or average pooling: oneDNN pools channels-last as it is.
  if (auto pool = dyn_cast<PoolOp>(op))
    return isActivation4d(pool.getInput()) && isActivation4d(pool.getOutput());
  // A depth-to-space shuffle (a transposed convolution's sub-pixel form, a
  // pixel shuffle): channels-last it moves rows of blocksize*C values, of
  // any element type (a bf16 chain passes through it).
  if (auto d2s = dyn_cast<DepthToSpaceOp>(op))
    return isConvActivation4d(d2s.getInput()) &&
           isConvActivation4d(d2s.getOutput());
  // A slice of 4-D activations (the crop after a sub-pixel shuffle): the
  // same strided copy in memory order.
  if (auto slice = dyn_cast<SliceOp>(op))
    return isActivation4d(slice.getInput()) && isActivation4d(slice.getOutput());
  if (!isa<UnaryOp, BinaryOp>(op) || op->getNumResults() != 1 ||
      !isActivation4d(op->getResult(0)))
    return false;
  return llvm::all_of(op->getOperandTypes(), [&](Type t) {
    return t == op->getResult(0).getType();
  });
}

struct ConvLayoutPass : osc::impl::OscConvLayoutBase<ConvLayoutPass> {
  using OscConvLayoutBase::OscConvLayoutBase;

  /// Whether `v` (in `nhwc`) can stay channels-last given the others.
  static bool keeps(Value v, const llvm::SetVector<Value> &nhwc) {
    Operation *def = v.getDefiningOp();
    if (auto conv = dyn_cast<ConvOp>(def)) {
      // The residual is accumulated into the output buffer in place.
      if (conv.getSumInput() && !nhwc.contains(conv.getSumInput()))
        return false;
    } else if (isa<ConvTransposeOp>(def)) {
      // No residual: its input decides nothing about its output.
    } else if (!llvm::all_of(def->getOperands(),
                             [&](Value o) { return nhwc.contains(o); })) {
      return false;
    }
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto conv = dyn_cast<ConvOp>(user); conv && is2dConv(user)) {
        if (use.get() == conv.getInput())
          continue;
        if (use.get() == conv.getSumInput() && nhwc.contains(conv.getOutput()))
          continue;
        return false;
      }
      if (auto ct = dyn_cast<ConvTransposeOp>(user);
          ct && is2dConvTranspose(user) && use.get() == ct.getInput())
        continue;
      if (isLayoutAgnostic(user) && nhwc.contains(user->getResult(0)))
        continue;
      return false;
    }
    return true;
  }

  void runOnOperation() override {
    llvm::SetVector<Value> nhwc;
    int64_t convs = 0;
    getOperation().walk([&](Operation *op) {
      if (isChainConv(op)) {
        ++convs;
        nhwc.insert(op->getResult(0));
      } else if (isLayoutAgnostic(op)) {
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
    auto mark = [&](auto conv) {
      if (!isChainConv(conv))
        return;
      if (nhwc.contains(conv.getInput())) {
        conv.setInputNhwc(true);
        ++removed;
      }
      if (nhwc.contains(conv.getOutput())) {
        conv.setOutputNhwc(true);
        ++removed;
      }
    };
    getOperation().walk([&](Operation *op) {
      llvm::TypeSwitch<Operation *>(op)
          .Case<ConvOp, ConvTransposeOp>(mark)
          // The ops between convolutions with an `nhwc` flag of their own.
          .Case<ResizeOp, PoolOp, ConcatOp, DepthToSpaceOp, SliceOp>(
              [&](auto flagged) {
                if (nhwc.contains(flagged.getOutput()))
                  flagged.setNhwc(true);
              });
    });
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
