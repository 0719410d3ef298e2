//===- OscToRuntime.cpp - convert-osc-to-runtime --------------------------===//
//
// Part of opscope. The model function becomes data plus a schedule: the plan
// (JSON, embedded as a global) tells the runtime how to build one kernel per
// op at init, and `opscope_model_run` calls them in order, with and without
// probes. The op-specific knowledge lives in the runtime's kernel factory;
// this pass only records what each op is, where its buffers are, and what
// the reports need to know about it.
//
//===----------------------------------------------------------------------===//

#include "opscope/Conversion/Passes.h"
#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "opscope/Dialect/Osc/IR/OscUtils.h"
#include "opscope/Dialect/Osc/Transforms/PlanMemory.h"
#include "opscope/runtime/kinds.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <cmath>

// The runtime's side of the contract; the lowering uses only its symbols.
#include "opscope/runtime/abi.h"

namespace opscope {
#define GEN_PASS_DEF_CONVERTOSCTORUNTIME
#include "opscope/Conversion/Passes.h.inc"
} // namespace opscope

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
namespace json = llvm::json;

namespace {
std::string dtypeName(Type t) { return rt::kindName(runtimeDType(t)); }

json::Value bufferRef(Value v) {
  if (!v)
    return json::Object{{"mem", "none"}};
  auto buf = plannedBuffer(v);
  assert(buf && "checked before conversion");
  return json::Object{
      {"mem", buf->kind == PlannedBuffer::Arena ? "arena" : "weight"},
      {"offset", buf->offset},
      {"dtype", dtypeName(v.getType())},
      {"shape", shapeJson(v.getType())}};
}

/// JSON has no infinities or NaN: those are written as the strings "inf",
/// "-inf" and "nan" (the runtime reads both forms).
json::Value floatJson(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return v;
}

/// Attributes as JSON: enums by name, arrays as lists, units as true.
json::Object attributesOf(Operation *op) {
  json::Object attrs;
  for (NamedAttribute na : op->getAttrs()) {
    StringRef name = na.getName().strref();
    if (name.starts_with("osc.") || name == "operandSegmentSizes")
      continue;
    Attribute a = na.getValue();
    if (isa<UnitAttr>(a))
      attrs[name] = true;
    else if (auto f = dyn_cast<FloatAttr>(a))
      attrs[name] = floatJson(f.getValueAsDouble());
    else if (auto i = dyn_cast<IntegerAttr>(a))
      attrs[name] = i.getInt();
    else if (auto arr = dyn_cast<DenseI64ArrayAttr>(a))
      attrs[name] = json::Array(arr.asArrayRef());
    else if (auto arr = dyn_cast<DenseF32ArrayAttr>(a)) {
      json::Array v;
      for (float x : arr.asArrayRef())
        v.push_back(floatJson(x));
      attrs[name] = std::move(v);
    } else if (auto s = dyn_cast<StringAttr>(a)) {
      attrs[name] = s.str();
    } else if (auto arr = dyn_cast<ArrayAttr>(a);
               arr && name != "post_ops" &&
               llvm::all_of(arr, [](Attribute e) { return isa<StringAttr>(e); })) {
      json::Array v; // a list of names (osc.rnn's activations)
      for (Attribute e : arr)
        v.push_back(cast<StringAttr>(e).str());
      attrs[name] = std::move(v);
    }
  }
  // Enumerations by their kinds.def names (the plan carries no numbers).
  SmallVector<std::pair<StringRef, StringRef>> enums;
  cast<ExecutableOpInterface>(op).getRuntimeEnums(enums);
  for (auto [name, value] : enums)
    attrs[name] = value.str();
  std::vector<std::string> post = postOpsOf(op);
  if (!post.empty()) {
    json::Array p;
    for (auto &s : post)
      p.push_back(s);
    attrs["post_ops"] = std::move(p);
  }
  return attrs;
}

json::Object tensorEntry(Value v) {
  return json::Object{{"name", tensorName(v)},
                      {"dtype", dtypeName(v.getType())},
                      {"shape", shapeJson(v.getType())}};
}

/// The probe table entry of a probe around `op`: the op's facts, its probe
/// id and name, and its index in the plan's op list.
json::Object probeEntry(int64_t id, StringRef name, Operation *op,
                        int64_t opIndex) {
  json::Object entry = opFacts(op);
  entry["id"] = id;
  entry["name"] = name.str();
  entry["op"] = opIndex;
  if (auto live = op->getAttrOfType<IntegerAttr>(kLiveBytesAttr))
    entry["live_bytes"] = live.getInt();
  // Why osc-sparse-layout chose this kernel, and the tuning database entry
  // that decided (tuning::Choice::reason).
  if (auto choice = op->getAttrOfType<StringAttr>("osc.kernel_choice"))
    entry["kernel_choice"] = choice.str();
  // Results with a run-time extent (docs/architecture.md, "Data-dependent
  // output shapes"): each such output names its axis, and the probe the i64
  // buffer its end reads (one per op: every bounded result of an op shares
  // its producer's extent).
  ExtentCache cache;
  json::Array *outputs = entry.getArray("outputs");
  for (auto [i, r] : llvm::enumerate(op->getResults())) {
    std::optional<Extent> e = extentOf(r, cache);
    if (!e || !outputs || i >= outputs->size())
      continue;
    (*outputs)[i].getAsObject()->try_emplace("extent_axis", e->axis);
    if (!entry.get("extent"))
      entry["extent"] = json::Object{{"buffer", bufferRef(e->count)}};
  }
  return entry;
}

struct ConvertOscToRuntimePass
    : opscope::impl::ConvertOscToRuntimeBase<ConvertOscToRuntimePass> {
  using ConvertOscToRuntimeBase::ConvertOscToRuntimeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    if (funcs.size() != 1) {
      mlir::emitError(module.getLoc(), "convert-osc-to-runtime expects exactly one function");
      return signalPassFailure();
    }
    func::FuncOp fn = funcs.front();
    auto arena = module->getAttrOfType<IntegerAttr>(kArenaBytesAttr);
    auto wBytes = module->getAttrOfType<IntegerAttr>(kWeightsBytesAttr);
    auto wId = module->getAttrOfType<StringAttr>(kWeightsIdAttr);
    if (!arena || !wBytes || !wId) {
      mlir::emitError(module.getLoc(), "convert-osc-to-runtime needs a planned module: run "
                       "osc-plan-memory first");
      return signalPassFailure();
    }

    // Execution order and op indices.
    SmallVector<Operation *> ops;
    llvm::DenseMap<Operation *, int64_t> opIndex;
    bool unplanned = false;
    fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == fn.getOperation() || !isExecuted(op))
        return;
      SmallVector<Value> values(op->getOperands());
      values.append(op->result_begin(), op->result_end());
      for (Value v : values)
        if (!plannedBuffer(v)) {
          op->emitError("convert-osc-to-runtime: value has no planned buffer");
          unplanned = true;
          break;
        }
      opIndex[op] = static_cast<int64_t>(ops.size());
      ops.push_back(op);
    });
    if (unplanned)
      return signalPassFailure();

    // Control flow decided at run time, in schedule order.
    json::Array controls;
    llvm::DenseMap<Operation *, int64_t> controlIndex;
    auto bufferList = [&](ValueRange values) {
      json::Array list;
      for (Value v : values)
        list.push_back(bufferRef(v));
      return list;
    };
    auto yielded = [](Region &r) {
      return cast<YieldOp>(r.front().getTerminator()).getValues();
    };
    WalkResult controlsPlanned = fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!isa<IfOp, LoopOp>(op))
        return WalkResult::advance();
      SmallVector<Value> values(op->getOperands());
      values.append(op->result_begin(), op->result_end());
      for (Region &r : op->getRegions()) {
        llvm::append_range(values, r.getArguments());
        llvm::append_range(values, yielded(r));
      }
      for (Value v : values)
        if (!plannedBuffer(v)) {
          op->emitError("convert-osc-to-runtime: value has no planned buffer");
          return WalkResult::interrupt();
        }
      std::vector<std::string> src = sourceNodes(op->getLoc());
      json::Object entry{{"name", src.empty() ? kindOf(op) : src.front()},
                         {"results", bufferList(op->getResults())}};
      if (auto i = dyn_cast<IfOp>(op)) {
        entry["kind"] = "if";
        entry["cond"] = bufferRef(i.getCond());
        entry["then_yields"] = bufferList(yielded(i.getThenRegion()));
        entry["else_yields"] = bufferList(yielded(i.getElseRegion()));
      } else {
        auto l = cast<LoopOp>(op);
        entry["kind"] = "loop";
        entry["cond"] = bufferRef(l.getCond());
        entry["max_trip_count"] = bufferRef(l.getMaxTripCount());
        entry["inits"] = bufferList(l.getInits());
        entry["args"] = bufferList(l.getBody().getArguments());
        entry["yields"] = bufferList(yielded(l.getBody()));
      }
      controlIndex[op] = static_cast<int64_t>(controls.size());
      controls.push_back(std::move(entry));
      return WalkResult::advance();
    });
    if (controlsPlanned.wasInterrupted())
      return signalPassFailure();

    json::Array opList, probeList, inputs, outputs, splats;
    // Arena splats: the runtime fills each from its one element in the
    // .weights file when a session is created.
    fn.walk([&](ConstantOp c) {
      if (!isArenaSplat(c))
        return;
      auto w = c->getAttrOfType<IntegerAttr>(kWeightOffsetAttr);
      splats.push_back(json::Object{{"buffer", bufferRef(c.getResult())},
                                    {"value_offset", w ? w.getInt() : -1}});
    });
    for (Operation *op : ops) {
      json::Array operands, results;
      auto exec = cast<ExecutableOpInterface>(op);
      for (Value v : exec.getRuntimeOperands())
        operands.push_back(bufferRef(v));
      for (Value v : op->getResults())
        results.push_back(bufferRef(v));
      std::vector<std::string> src = sourceNodes(op->getLoc());
      json::Object entry{{"kind", rt::kindName(exec.getRuntimeKind())},
                         {"name", src.empty() ? kindOf(op) : src.front()},
                         {"operands", std::move(operands)},
                         {"results", std::move(results)},
                         {"attrs", attributesOf(op)}};
      if (auto live = op->getAttrOfType<IntegerAttr>(kLiveBytesAttr))
        entry["live_bytes"] = live.getInt();
      opList.push_back(std::move(entry));
    }
    fn.walk([&](ProbeOp p) {
      Operation *inner = nullptr;
      for (Operation &o : p.getBody().front())
        if (isExecuted(&o) && !inner)
          inner = &o;
      if (!inner)
        inner = &p.getBody().front().front();
      probeList.push_back(probeEntry(p.getIdAttr().getInt(), p.getName(), inner,
                                     opIndex.lookup(inner)));
      ++numProbes;
    });
    for (BlockArgument a : fn.getArguments()) {
      json::Object in = tensorEntry(a);
      in["offset"] = plannedBuffer(a)->offset;
      inputs.push_back(std::move(in));
    }
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      json::Object out{{"dtype", dtypeName(v.getType())},
                       {"shape", shapeJson(v.getType())},
                       {"buffer", bufferRef(v)}};
      // A data-dependent extent: the output's shape is its bound with the
      // extent, read from this buffer after the run, along `axis`.
      if (std::optional<Extent> e = extentOf(v))
        out["extent"] = json::Object{{"buffer", bufferRef(e->count)},
                                     {"axis", e->axis}};
      auto n = fn.getResultAttrOfType<StringAttr>(i, "osc.name");
      out["name"] = n ? n.str() : "output" + std::to_string(i);
      outputs.push_back(std::move(out));
    }
    std::string name = modelName;
    if (name.empty())
      if (auto m = module->getAttrOfType<StringAttr>("osc.model"))
        name = m.str();
    json::Object plan{{"abi", OPSCOPE_ABI_VERSION},
                      {"model", name.empty() ? "model" : name},
                      {"arena_bytes", arena.getInt()},
                      {"weights", json::Object{{"file_bytes", wBytes.getInt()},
                                               {"id", wId.str()}}},
                      {"inputs", std::move(inputs)},
                      {"outputs", std::move(outputs)},
                      {"ops", std::move(opList)},
                      {"splats", std::move(splats)},
                      {"controls", std::move(controls)},
                      {"probes", std::move(probeList)}};
    if (auto tier = module->getAttrOfType<StringAttr>("osc.target_tier"))
      plan["target_tier"] = tier.str();
    if (auto db = module->getAttrOfType<StringAttr>("osc.tuning_db"))
      plan["tuning_db"] = db.str();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << json::Value(std::move(plan));
    os.flush();
    text.push_back('\0');

    emitModule(module, fn, text, opIndex, controlIndex);
    numOps = ops.size();
  }

  /// Replaces `fn` with the ABI globals and the schedule.
  void emitModule(ModuleOp module, func::FuncOp fn, StringRef planText,
                  const llvm::DenseMap<Operation *, int64_t> &opIndex,
                  const llvm::DenseMap<Operation *, int64_t> &controlIndex) {
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    Location loc = fn.getLoc();
    b.setInsertionPointToEnd(module.getBody());
    auto i32 = b.getI32Type();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    b.create<LLVM::GlobalOp>(loc, i32, /*isConstant=*/true,
                             LLVM::Linkage::External, OPSCOPE_SYM_ABI_VERSION,
                             b.getI32IntegerAttr(OPSCOPE_ABI_VERSION));
    auto planType = LLVM::LLVMArrayType::get(b.getI8Type(), planText.size());
    b.create<LLVM::GlobalOp>(loc, planType, /*isConstant=*/true,
                             LLVM::Linkage::External, OPSCOPE_SYM_PLAN,
                             b.getStringAttr(planText));
    auto declare = [&](StringRef name) {
      auto f = b.create<func::FuncOp>(loc, name,
                                      b.getFunctionType({ptr, i32}, {}));
      f.setPrivate();
      return f;
    };
    declare(OPSCOPE_SYM_EXEC);
    declare(OPSCOPE_SYM_PROBE_BEGIN);
    declare(OPSCOPE_SYM_PROBE_END);
    b.create<func::FuncOp>(loc, OPSCOPE_SYM_CONTROL,
                           b.getFunctionType({ptr, i32, i32}, {i32}))
        .setPrivate();

    auto run = b.create<func::FuncOp>(loc, OPSCOPE_SYM_RUN,
                                      b.getFunctionType({ptr, i32}, {}));
    Block *entry = run.addEntryBlock();
    Value ctxArg = entry->getArgument(0);
    Block *plain = b.createBlock(&run.getBody());
    Block *profiled = b.createBlock(&run.getBody());
    b.setInsertionPointToEnd(entry);
    Value zero = b.create<arith::ConstantIntOp>(loc, 0, 32);
    Value on = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                       entry->getArgument(1), zero);
    b.create<cf::CondBranchOp>(loc, on, profiled, ValueRange{}, plain,
                               ValueRange{});

    auto call = [&](StringRef callee, int64_t arg) {
      Value v = b.create<arith::ConstantIntOp>(loc, arg, 32);
      b.create<func::CallOp>(loc, callee, TypeRange{}, ValueRange{ctxArg, v});
    };
    // One step of a control op; returns its i32 answer.
    auto step = [&](int64_t control, int32_t what) {
      Value c = b.create<arith::ConstantIntOp>(loc, control, 32);
      Value s = b.create<arith::ConstantIntOp>(loc, what, 32);
      return b.create<func::CallOp>(loc, OPSCOPE_SYM_CONTROL, TypeRange{i32},
                                    ValueRange{ctxArg, c, s})
          .getResult(0);
    };
    auto nonZero = [&](Value v) {
      return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v, zero);
    };
    Region &code = run.getBody();
    // Straight-line calls; an osc.if becomes a diamond of blocks, an
    // osc.loop a header that asks whether to iterate, a body and an exit.
    // Scheduling leaves the insertion point where the next op goes.
    std::function<void(Block &, bool)> schedule = [&](Block &block,
                                                      bool withProbes) {
      for (Operation &op : block) {
        if (auto p = dyn_cast<ProbeOp>(op)) {
          if (withProbes)
            call(OPSCOPE_SYM_PROBE_BEGIN, p.getIdAttr().getInt());
          schedule(p.getBody().front(), withProbes);
          if (withProbes)
            call(OPSCOPE_SYM_PROBE_END, p.getIdAttr().getInt());
        } else if (auto i = dyn_cast<IfOp>(op)) {
          int64_t c = controlIndex.lookup(&op);
          Value taken = nonZero(step(c, OPSCOPE_CONTROL_IF_COND));
          Block *from = b.getInsertionBlock();
          Block *thenB = b.createBlock(&code), *elseB = b.createBlock(&code),
                *join = b.createBlock(&code);
          b.setInsertionPointToEnd(from);
          b.create<cf::CondBranchOp>(loc, taken, thenB, ValueRange{}, elseB,
                                     ValueRange{});
          b.setInsertionPointToEnd(thenB);
          schedule(i.getThenRegion().front(), withProbes);
          step(c, OPSCOPE_CONTROL_IF_THEN_END);
          b.create<cf::BranchOp>(loc, join);
          b.setInsertionPointToEnd(elseB);
          schedule(i.getElseRegion().front(), withProbes);
          step(c, OPSCOPE_CONTROL_IF_ELSE_END);
          b.create<cf::BranchOp>(loc, join);
          b.setInsertionPointToEnd(join);
        } else if (auto l = dyn_cast<LoopOp>(op)) {
          int64_t c = controlIndex.lookup(&op);
          step(c, OPSCOPE_CONTROL_LOOP_BEGIN);
          Block *from = b.getInsertionBlock();
          Block *header = b.createBlock(&code), *body = b.createBlock(&code),
                *exit = b.createBlock(&code);
          b.setInsertionPointToEnd(from);
          b.create<cf::BranchOp>(loc, header);
          b.setInsertionPointToEnd(header);
          Value again = nonZero(step(c, OPSCOPE_CONTROL_LOOP_TEST));
          b.create<cf::CondBranchOp>(loc, again, body, ValueRange{}, exit,
                                     ValueRange{});
          b.setInsertionPointToEnd(body);
          schedule(l.getBody().front(), withProbes);
          step(c, OPSCOPE_CONTROL_LOOP_NEXT);
          b.create<cf::BranchOp>(loc, header);
          b.setInsertionPointToEnd(exit);
          step(c, OPSCOPE_CONTROL_LOOP_END);
        } else if (isExecuted(&op)) {
          call(OPSCOPE_SYM_EXEC, opIndex.lookup(&op));
        }
      }
    };
    b.setInsertionPointToEnd(plain);
    schedule(fn.getBody().front(), false);
    b.create<func::ReturnOp>(loc);
    b.setInsertionPointToEnd(profiled);
    schedule(fn.getBody().front(), true);
    b.create<func::ReturnOp>(loc);

    fn.erase();
    for (StringRef attr : {kArenaBytesAttr, kWeightsBytesAttr, kWeightsIdAttr})
      module->removeAttr(attr);
  }
};
} // namespace
