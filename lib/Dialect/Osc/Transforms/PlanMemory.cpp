//===- PlanMemory.cpp - osc-plan-memory -----------------------------------===//
//
// Part of opscope. Liveness-based static memory planning: every tensor the
// function computes gets a fixed byte offset in one activation arena, so a
// run allocates nothing. Buffers are placed first-fit in definition order
// among those still live; a buffer is free after the last op that reads it
// or any of its aliases. Reshapes and probe results alias their source.
// Elementwise ops (and inner_product's `sum` post-op) write in place into an
// operand of the same size whose last reader they are. Function arguments
// and results are never overwritten (a benchmark writes inputs once and
// runs many times). Constants are laid out 64-byte aligned in the
// `.weights` file, whose id is a hash of their contents.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/IR/OscUtils.h"
#include "opscope/Dialect/Osc/Transforms/PlanMemory.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace opscope::osc {
#define GEN_PASS_DEF_OSCPLANMEMORY
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"
} // namespace opscope::osc

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

static constexpr int64_t kAlign = 64;

static int64_t alignUp(int64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

static int64_t bytesOf(Type t) {
  auto tensor = cast<RankedTensorType>(t);
  Type e = tensor.getElementType();
  int64_t width = e.isInteger(1) ? 8 : e.getIntOrFloatBitWidth();
  return tensor.getNumElements() * (width / 8);
}

/// The value whose buffer `v` uses (through reshapes and probes).
static Value aliasRoot(Value v) {
  while (true) {
    if (auto r = v.getDefiningOp<ReshapeOp>()) {
      v = r.getInput();
      continue;
    }
    if (auto p = v.getDefiningOp<ProbeOp>()) {
      auto yield = cast<YieldOp>(p.getBody().front().getTerminator());
      v = yield.getValues()[cast<OpResult>(v).getResultNumber()];
      continue;
    }
    return v;
  }
}

std::optional<PlannedBuffer> osc::plannedBuffer(Value v) {
  Value root = aliasRoot(v);
  if (auto arg = dyn_cast<BlockArgument>(root)) {
    auto fn = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    auto offsets = fn ? fn->getAttrOfType<DenseI64ArrayAttr>(kArgOffsetsAttr)
                      : DenseI64ArrayAttr();
    if (!offsets || arg.getArgNumber() >= offsets.size())
      return std::nullopt;
    return PlannedBuffer{PlannedBuffer::Arena, offsets[arg.getArgNumber()]};
  }
  Operation *def = root.getDefiningOp();
  if (isa<ConstantOp>(def)) {
    auto off = def->getAttrOfType<IntegerAttr>(kWeightOffsetAttr);
    if (!off)
      return std::nullopt;
    return PlannedBuffer{PlannedBuffer::Weight, off.getInt()};
  }
  auto off = def->getAttrOfType<IntegerAttr>(kOffsetAttr);
  if (!off)
    return std::nullopt;
  return PlannedBuffer{PlannedBuffer::Arena, off.getInt()};
}

std::optional<ArrayRef<char>> osc::constantData(Operation *constant,
                                                std::vector<char> &storage) {
  auto c = cast<ConstantOp>(constant);
  auto type = cast<RankedTensorType>(c.getType());
  int64_t bytes = bytesOf(type);
  if (auto res = dyn_cast<DenseResourceElementsAttr>(c.getValue())) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob || static_cast<int64_t>(blob->getData().size()) != bytes)
      return std::nullopt;
    return blob->getData();
  }
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  if (!dense)
    return std::nullopt;
  storage.assign(bytes, 0);
  if (type.getElementType().isInteger(1)) {
    int64_t i = 0;
    for (bool b : dense.getValues<bool>())
      storage[i++] = b;
    return ArrayRef<char>(storage);
  }
  ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat()) {
    size_t es = bytes / std::max<int64_t>(type.getNumElements(), 1);
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      std::memcpy(storage.data() + i * es, raw.data(), es);
  } else {
    std::memcpy(storage.data(), raw.data(), std::min<size_t>(raw.size(), bytes));
  }
  return ArrayRef<char>(storage);
}

namespace {
/// The operand whose buffer `op`'s result may take over (the op declares
/// which; ExecutableOpInterface::getInPlaceOperand), or -1. The sizes must
/// match exactly.
int inPlaceOperand(Operation *op) {
  auto exec = dyn_cast<ExecutableOpInterface>(op);
  int i = exec ? exec.getInPlaceOperand() : -1;
  if (i < 0 || i >= static_cast<int>(op->getNumOperands()))
    return -1;
  auto a = cast<RankedTensorType>(op->getOperand(i).getType());
  auto r = cast<RankedTensorType>(op->getResult(0).getType());
  return a.getShape() == r.getShape() && bytesOf(a) == bytesOf(r) ? i : -1;
}

struct Interval {
  int64_t offset, size, end;
};

struct PlanMemoryPass : osc::impl::OscPlanMemoryBase<PlanMemoryPass> {
  using OscPlanMemoryBase::OscPlanMemoryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    if (funcs.size() != 1 || funcs[0].getBody().getBlocks().size() != 1) {
      mlir::emitError(module.getLoc(), "osc-plan-memory expects one function with one block");
      return signalPassFailure();
    }
    if (module->hasAttr(kWeightsElidedAttr)) {
      mlir::emitError(module.getLoc(), "osc-plan-memory needs the weights; this module was "
                       "printed with --elide-weights");
      return signalPassFailure();
    }
    if (failed(planArena(funcs[0])) || failed(planWeights(funcs[0])))
      return signalPassFailure();
  }

  LogicalResult planArena(func::FuncOp fn) {
    Block &body = fn.getBody().front();
    // Execution order: top-level ops, probe bodies in place.
    SmallVector<Operation *> order;
    body.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!isa<func::FuncOp>(op))
        order.push_back(op);
    });
    llvm::DenseMap<Operation *, int64_t> index;
    for (auto [i, op] : llvm::enumerate(order))
      index[op] = static_cast<int64_t>(i);
    constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

    // Last use of each root buffer (over all its aliases).
    llvm::DenseMap<Value, int64_t> lastUse;
    for (Operation *op : order)
      for (Value v : op->getOperands()) {
        Value root = aliasRoot(v);
        int64_t &e = lastUse[root];
        e = std::max(e, index[op]);
      }
    for (BlockArgument a : fn.getArguments())
      lastUse[a] = kForever;
    for (Value v : body.getTerminator()->getOperands())
      lastUse[aliasRoot(v)] = kForever;

    std::vector<Interval> live;
    int64_t peak = 0;
    auto allocate = [&](int64_t size, int64_t now, int64_t end) {
      // Free everything whose last reader ran before `now`.
      live.erase(std::remove_if(live.begin(), live.end(),
                                [&](const Interval &i) { return i.end < now; }),
                 live.end());
      std::sort(live.begin(), live.end(),
                [](const Interval &a, const Interval &b) {
                  return a.offset < b.offset;
                });
      int64_t offset = 0;
      for (const Interval &i : live) {
        if (i.offset - offset >= size)
          break;
        offset = std::max(offset, alignUp(i.offset + i.size));
      }
      live.push_back({offset, size, end});
      peak = std::max(peak, offset + size);
      return offset;
    };

    SmallVector<int64_t> argOffsets;
    for (BlockArgument a : fn.getArguments())
      argOffsets.push_back(
          allocate(alignUp(bytesOf(a.getType())), -1, kForever));
    fn->setAttr(kArgOffsetsAttr,
                DenseI64ArrayAttr::get(fn.getContext(), argOffsets));

    Builder b(fn.getContext());
    for (Operation *op : order) {
      if (!isExecuted(op))
        continue;
      if (op->getNumResults() != 1) {
        op->emitError("osc-plan-memory: expected one result");
        return failure();
      }
      Value result = op->getResult(0);
      int64_t now = index[op];
      int64_t end = lastUse.count(result) ? lastUse[result] : now;
      int inPlace = inPlaceOperand(op);
      if (inPlace >= 0) {
        Value src = aliasRoot(op->getOperand(inPlace));
        auto buf = plannedBuffer(src);
        bool own = !isa<BlockArgument>(src) && buf &&
                   buf->kind == PlannedBuffer::Arena;
        if (own && lastUse[src] == now) {
          // Take over the operand's buffer and its interval.
          for (Interval &i : live)
            if (i.offset == buf->offset && i.end == now)
              i.end = end;
          op->setAttr(kOffsetAttr, b.getI64IntegerAttr(buf->offset));
          ++numInPlace;
          continue;
        }
      }
      op->setAttr(kOffsetAttr, b.getI64IntegerAttr(allocate(
                                   alignUp(bytesOf(result.getType())), now,
                                   end)));
    }
    int64_t total = 0;
    for (Operation *op : order)
      if (isExecuted(op))
        total += alignUp(bytesOf(op->getResult(0).getType()));
    peakBytes = peak;
    unplannedBytes = total;
    fn->getParentOfType<ModuleOp>()->setAttr(kArenaBytesAttr,
                                             b.getI64IntegerAttr(peak));
    return success();
  }

  LogicalResult planWeights(func::FuncOp fn) {
    Builder b(fn.getContext());
    int64_t offset = kWeightsHeaderBytes;
    uint64_t hash = 0;
    std::vector<char> storage;
    WalkResult r = fn.walk([&](ConstantOp c) {
      auto data = constantData(c, storage);
      if (!data) {
        c.emitError("osc-plan-memory: constant has no data (elided or "
                    "missing blob)");
        return WalkResult::interrupt();
      }
      c->setAttr(kWeightOffsetAttr, b.getI64IntegerAttr(offset));
      hash = llvm::xxh3_64bits(ArrayRef<uint8_t>(
                 reinterpret_cast<const uint8_t *>(data->data()),
                 data->size())) ^
             (hash * 0x9E3779B97F4A7C15ull + offset);
      offset = alignUp(offset + static_cast<int64_t>(data->size()));
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return failure();
    weightBytes = offset;
    ModuleOp module = fn->getParentOfType<ModuleOp>();
    module->setAttr(kWeightsBytesAttr, b.getI64IntegerAttr(offset));
    module->setAttr(kWeightsIdAttr,
                    b.getStringAttr(llvm::utohexstr(hash, /*LowerCase=*/true)));
    return success();
  }
};
} // namespace
