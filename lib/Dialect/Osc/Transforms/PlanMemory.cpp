//===- PlanMemory.cpp - osc-plan-memory -----------------------------------===//
//
// Part of opscope. Liveness-based static memory planning: every tensor the
// function computes gets a fixed byte offset in one activation arena, so a
// run allocates nothing. Buffers are placed first-fit in definition order
// among those still live; a buffer is free after the last op that reads it
// or any of its aliases. Reshapes and probe results alias their source.
// Elementwise ops (and a `sum` post-op: inner_product's, sparse_inner_
// product's, conv's when it comes first) write in place into an operand of
// the same size whose last reader they are. Function arguments
// and results are never overwritten (a benchmark writes inputs once and
// runs many times). Control flow (osc.if, osc.loop): ops in regions are
// planned in place, in the order the schedule runs them (then before else);
// a value read inside a loop body but defined outside lives until the loop
// ends. Constants are laid out 64-byte aligned in the
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

/// Bytes of a tensor; callers have checked it against the limits
/// (checkSizes), so it neither overflows nor is dynamic.
static int64_t bytesOf(Type t) { return tensorByteSize(t).value_or(0); }

static int64_t elementBytes(Type t) {
  Type e = cast<RankedTensorType>(t).getElementType();
  return e.isInteger(1) ? 1 : e.getIntOrFloatBitWidth() / 8;
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
    // Function arguments, and an osc.loop body's (iteration, condition and
    // carried values): the owner records their offsets.
    Operation *owner = arg.getOwner()->getParentOp();
    auto offsets = owner ? owner->getAttrOfType<DenseI64ArrayAttr>(kArgOffsetsAttr)
                         : DenseI64ArrayAttr();
    if (!offsets || arg.getArgNumber() >= offsets.size())
      return std::nullopt;
    return PlannedBuffer{PlannedBuffer::Arena, offsets[arg.getArgNumber()]};
  }
  Operation *def = root.getDefiningOp();
  if (isa<ConstantOp>(def) && !isArenaSplat(def)) {
    auto off = def->getAttrOfType<IntegerAttr>(kWeightOffsetAttr);
    if (!off)
      return std::nullopt;
    return PlannedBuffer{PlannedBuffer::Weight, off.getInt()};
  }
  if (auto offs = def->getAttrOfType<DenseI64ArrayAttr>(kOffsetsAttr)) {
    unsigned n = cast<OpResult>(root).getResultNumber();
    if (n >= offs.size())
      return std::nullopt;
    return PlannedBuffer{PlannedBuffer::Arena, offs[n]};
  }
  auto off = def->getAttrOfType<IntegerAttr>(kOffsetAttr);
  if (!off)
    return std::nullopt;
  return PlannedBuffer{PlannedBuffer::Arena, off.getInt()};
}

bool osc::isArenaSplat(Operation *constant) {
  return isa<ConstantOp>(constant) && constant->hasAttr(kOffsetAttr);
}

std::optional<ArrayRef<char>> osc::constantData(Operation *constant,
                                                std::vector<char> &storage) {
  auto c = cast<ConstantOp>(constant);
  auto type = cast<RankedTensorType>(c.getType());
  int64_t bytes = bytesOf(type);
  if (isArenaSplat(c)) {
    auto dense = cast<DenseElementsAttr>(c.getValue());
    int64_t es = elementBytes(type);
    storage.assign(es, 0);
    if (type.getElementType().isInteger(1))
      storage[0] = dense.getSplatValue<bool>();
    else
      std::memcpy(storage.data(), dense.getRawData().data(), es);
    return ArrayRef<char>(storage);
  }
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
    // Values with a run-time extent reach only ops that run on a prefix
    // (docs/architecture.md, "Data-dependent output shapes").
    if (failed(checkExtents(funcs[0])) || failed(checkSizes(funcs[0])) ||
        failed(planArena(funcs[0])) ||
        failed(planWeights(funcs[0])))
      return signalPassFailure();
  }

  /// Every tensor fits --max-tensor-bytes (which also means its byte count
  /// does not overflow): the planner's arithmetic relies on it.
  LogicalResult checkSizes(func::FuncOp fn) {
    auto check = [&](Value v, Location loc) -> LogicalResult {
      std::optional<int64_t> bytes = tensorByteSize(v.getType());
      if (bytes && *bytes <= maxTensorBytes)
        return success();
      mlir::emitError(loc)
          << "tensor '" << tensorName(v) << "' (" << v.getType() << ") needs "
          << (bytes ? std::to_string(*bytes) + " bytes, more than the"
                    : std::string("more bytes than opscope can address, over the"))
          << " per-tensor limit of " << static_cast<int64_t>(maxTensorBytes)
          << " bytes (raise it with --max-tensor-bytes)";
      return failure();
    };
    for (BlockArgument a : fn.getArguments())
      if (failed(check(a, a.getLoc())))
        return failure();
    WalkResult r = fn.walk([&](Operation *op) {
      for (Value v : op->getResults())
        if (isa<RankedTensorType>(v.getType()) && failed(check(v, op->getLoc())))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return failure(r.wasInterrupted());
  }

  /// A splat constant big enough to keep out of the `.weights` file.
  bool keepsSplat(ConstantOp c) {
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    return dense && dense.isSplat() && !c->use_empty() &&
           bytesOf(c.getType()) >= splatMinBytes;
  }

  LogicalResult checkTotal(StringRef what, int64_t bytes, StringRef largest) {
    if (bytes <= maxTotalBytes)
      return success();
    mlir::emitError(getOperation().getLoc())
        << "the " << what << " needs " << bytes << " bytes, more than the "
        << "limit of " << static_cast<int64_t>(maxTotalBytes)
        << " bytes (raise it with "
        << "--max-total-bytes); its largest tensor is '" << largest << "'";
    return failure();
  }

  /// Sets `osc.live_bytes` on every executed op: the arena bytes in use
  /// while it runs (its result, its operands, and every buffer defined
  /// before it and read after it; inputs, outputs and arena splats always).
  /// A difference array over op indices keeps it linear in the op count.
  template <typename Lifetimes>
  void recordLiveBytes(ArrayRef<Operation *> order,
                       const Lifetimes &lifetimes) {
    int64_t n = static_cast<int64_t>(order.size());
    std::vector<int64_t> delta(n + 1, 0);
    int64_t always = 0;
    for (const auto &l : lifetimes) {
      if (l.start < 0) { // arguments and splats: the whole run
        always += l.size;
        continue;
      }
      delta[l.start] += l.size;
      if (l.end < n)
        delta[l.end + 1] -= l.size;
    }
    Builder b(getOperation().getContext());
    int64_t running = always;
    for (int64_t i = 0; i < n; ++i) {
      running += delta[i];
      if (isExecuted(order[i]))
        order[i]->setAttr(kLiveBytesAttr, b.getI64IntegerAttr(running));
    }
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

    // The last op nested in each control-flow op (itself when empty).
    llvm::DenseMap<Operation *, int64_t> lastNested;
    for (Operation *op : llvm::reverse(order))
      if (isa<IfOp, LoopOp>(op)) {
        int64_t last = index[op];
        op->walk([&](Operation *inner) { last = std::max(last, index[inner]); });
        lastNested[op] = last;
      }

    // Last use of each root buffer (over all its aliases). A value defined
    // outside a loop and read in its body is read again by every iteration:
    // it lives until the loop's last nested op.
    llvm::DenseMap<Value, int64_t> lastUse;
    auto noteRead = [&](Value v, Operation *reader) {
      Value root = aliasRoot(v);
      int64_t use = index[reader];
      for (Operation *p = reader->getParentOp(); p && p != fn.getOperation();
           p = p->getParentOp())
        if (isa<LoopOp>(p) && !p->getRegion(0).isAncestor(root.getParentRegion()))
          use = std::max(use, lastNested[p]);
      int64_t &e = lastUse[root];
      e = std::max(e, use);
    };
    ExtentCache extents;
    for (Operation *op : order) {
      for (Value v : op->getOperands())
        noteRead(v, op);
      // A probe reads the run-time extent of its op's result at its end,
      // for the trace (docs/trace-format.md): the extent buffer must outlive
      // the probed op, which need not read it (a transpose of NonZero's
      // indices). The yield, the body's last op, stands for the probe's end.
      if (auto probe = dyn_cast<ProbeOp>(op))
        for (Value r : probe.getResults())
          if (std::optional<Extent> e = extentOf(r, extents)) {
            noteRead(e->count, probe.getBody().front().getTerminator());
            break;
          }
    }
    for (BlockArgument a : fn.getArguments())
      lastUse[a] = kForever;
    for (Value v : body.getTerminator()->getOperands()) {
      lastUse[aliasRoot(v)] = kForever;
      // The run-time extent of an output is read after the run.
      if (std::optional<Extent> e = extentOf(v))
        lastUse[aliasRoot(e->count)] = kForever;
    }

    std::vector<Interval> live;
    // Every allocation with the op index that defines it, for the live
    // bytes of each op (the arena counter of the trace).
    struct Lifetime {
      int64_t offset, size, start, end;
    };
    std::vector<Lifetime> lifetimes;
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
      lifetimes.push_back({offset, size, now, end});
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
    // Large splats live in the arena for the whole run: filled once per
    // session, never reused or written in place.
    fn.walk([&](ConstantOp c) {
      if (!keepsSplat(c))
        return;
      lastUse[c.getResult()] = kForever;
      c->setAttr(kOffsetAttr,
                 b.getI64IntegerAttr(allocate(alignUp(bytesOf(c.getType())),
                                              -1, kForever)));
      ++numSplats;
    });
    for (Operation *op : order) {
      int64_t now = index[op];
      if (isa<IfOp, LoopOp>(op)) {
        // Results: written when a branch or the loop ends, live from the
        // start (the regions' buffers must not overlap them). A loop's body
        // arguments: live through every iteration.
        SmallVector<int64_t> offsets, argOffsets;
        for (Value r : op->getResults())
          offsets.push_back(allocate(alignUp(bytesOf(r.getType())), now,
                                     std::max(lastUse.lookup(r), lastNested[op])));
        op->setAttr(kOffsetsAttr, b.getDenseI64ArrayAttr(offsets));
        if (auto loop = dyn_cast<LoopOp>(op)) {
          for (BlockArgument a : loop.getBody().getArguments())
            argOffsets.push_back(allocate(alignUp(bytesOf(a.getType())), now,
                                          lastNested[op]));
          op->setAttr(kArgOffsetsAttr, b.getDenseI64ArrayAttr(argOffsets));
        }
        continue;
      }
      if (!isExecuted(op))
        continue;
      if (op->getNumResults() != 1) {
        // Several results (osc.rnn's sequence and last states): each its
        // own buffer, none written in place.
        SmallVector<int64_t> offsets;
        for (Value r : op->getResults())
          offsets.push_back(allocate(alignUp(bytesOf(r.getType())), now,
                                     lastUse.count(r) ? lastUse[r] : now));
        op->setAttr(kOffsetsAttr, b.getDenseI64ArrayAttr(offsets));
        continue;
      }
      Value result = op->getResult(0);
      int64_t end = lastUse.count(result) ? lastUse[result] : now;
      int inPlace = inPlaceOperand(op);
      if (inPlace >= 0) {
        Value src = aliasRoot(op->getOperand(inPlace));
        auto buf = plannedBuffer(src);
        bool own = !isa<BlockArgument>(src) && buf &&
                   buf->kind == PlannedBuffer::Arena;
        // Another operand reading the same buffer (the same value, a
        // reshape or probe of it): only an element-wise op, which reads
        // each element before writing it, may overwrite it then; a sum
        // post-op's kernel still reads its input while it writes.
        bool readElsewhere = llvm::any_of(
            llvm::enumerate(op->getOperands()), [&](auto o) {
              return static_cast<int>(o.index()) != inPlace &&
                     aliasRoot(o.value()) == src;
            });
        if (readElsewhere && !isa<UnaryOp, BinaryOp, GeluOp>(op))
          own = false;
        if (own && lastUse[src] == now) {
          // Take over the operand's buffer and its interval.
          for (Interval &i : live)
            if (i.offset == buf->offset && i.end == now)
              i.end = end;
          for (Lifetime &l : lifetimes)
            if (l.offset == buf->offset && l.end == now)
              l.end = end;
          op->setAttr(kOffsetAttr, b.getI64IntegerAttr(buf->offset));
          ++numInPlace;
          continue;
        }
      }
      op->setAttr(kOffsetAttr, b.getI64IntegerAttr(allocate(
                                   alignUp(bytesOf(result.getType())), now,
                                   end)));
    }
    recordLiveBytes(order, lifetimes);
    int64_t total = 0;
    std::string largest;
    int64_t largestBytes = -1;
    for (Operation *op : order)
      if (isExecuted(op) || isArenaSplat(op) || isa<IfOp, LoopOp>(op))
        for (Value r : op->getResults()) {
          int64_t bytes = alignUp(bytesOf(r.getType()));
          total += bytes;
          if (bytes > largestBytes) {
            largestBytes = bytes;
            largest = tensorName(r);
          }
        }
    for (BlockArgument a : fn.getArguments())
      if (alignUp(bytesOf(a.getType())) > largestBytes) {
        largestBytes = alignUp(bytesOf(a.getType()));
        largest = tensorName(a);
      }
    if (failed(checkTotal("activation arena", peak, largest)))
      return failure();
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
    std::string largest;
    int64_t largestBytes = -1;
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
      if (static_cast<int64_t>(data->size()) > largestBytes) {
        largestBytes = data->size();
        largest = tensorName(c.getResult());
      }
      // Checked as it grows: the sum of many tensors under the per-tensor
      // limit must not overflow either.
      if (offset > maxTotalBytes)
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (offset > maxTotalBytes)
      return checkTotal(".weights file", offset, largest);
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
