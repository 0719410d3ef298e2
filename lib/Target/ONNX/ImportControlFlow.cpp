//===- ImportControlFlow.cpp - If (decided at run time) and Loop ----------===//
//
// Part of opscope. An `If` whose condition is known only at run time becomes
// osc.if with both branches as regions; a `Loop` becomes osc.loop with its
// body as a region, and so does a `Scan` (its static length the trip count,
// its scan inputs gathered row by row, its scan outputs stacked). Shapes
// stay static: branches must yield the same types,
// and a loop-carried value must keep its type across iterations. Errors
// name the node.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "ONNXHelpers.h"

#include "opscope/Dialect/Osc/IR/OscShapes.h"

#include "mlir/IR/Matchers.h"

#include <memory>

using namespace mlir;
using namespace opscope;
using namespace opscope::onnx_import;

/// `v` as a one-element tensor of `element`, or an error naming `what`.
static LogicalResult checkScalar(NodeContext &c, Value v, Type element,
                                 StringRef what) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getElementType() == element && t.getNumElements() == 1)
    return success();
  c.error() << what << " must be a one-element " << element
            << " tensor, got " << osc::formatShape(t.getShape()) << "x"
            << t.getElementType();
  return failure();
}

/// `row`'s type with a new leading dimension of `length`.
static RankedTensorType stacked(Type row, int64_t length) {
  auto t = cast<RankedTensorType>(row);
  SmallVector<int64_t> shape{length};
  llvm::append_range(shape, t.getShape());
  return RankedTensorType::get(shape, t.getElementType());
}

/// A constant whose elements are all true (nonzero).
static bool isConstantTrue(Value v) {
  DenseElementsAttr a;
  if (!matchPattern(v, m_Constant(&a)))
    return false;
  for (APInt x : a.getValues<APInt>())
    if (x.isZero())
      return false;
  return true;
}

static std::string typeText(Type type) {
  auto t = cast<RankedTensorType>(type);
  std::string s;
  llvm::raw_string_ostream os(s);
  os << osc::formatShape(t.getShape()) << "x" << t.getElementType();
  return s;
}

/// A value a loop body yields for the next iteration must keep the type it
/// came in with (`want`); a reshape to the same element count (a [1]
/// condition for a scalar one) is fine. Otherwise an error naming `what`.
static LogicalResult keepType(NodeContext &c, OpBuilder &at, Value &v,
                              Type want, const std::string &what,
                              StringRef after, StringRef kind) {
  if (v.getType() == want)
    return success();
  auto have = cast<RankedTensorType>(v.getType());
  auto wantT = cast<RankedTensorType>(want);
  if (have.getElementType() == wantT.getElementType() &&
      have.getNumElements() == wantT.getNumElements()) {
    v = at.create<osc::ReshapeOp>(c.loc, want, v);
    return success();
  }
  c.error() << what << " is " << typeText(v.getType()) << " after " << after
            << " but " << typeText(want)
            << " before it; opscope plans static shapes, so " << kind
            << " must keep its shape and type";
  return failure();
}

/// An If whose condition is a compile-time constant (an initializer, a
/// --freeze-input value, or a folded expression of them) is inlined: the
/// taken branch's nodes are imported in place, named under the If's path,
/// and the branch's outputs become the If's.
static LogicalResult importConstantIf(NodeContext &c, SubgraphImporter &sub,
                                      const std::string &nodeName,
                                      ArrayRef<int64_t> cond,
                                      SmallVectorImpl<Value> &outputs) {
  if (cond.size() != 1) {
    c.error() << "its condition has " << cond.size()
              << " elements; If takes a single boolean";
    return failure();
  }
  const char *branchName = cond[0] ? "then_branch" : "else_branch";
  const onnx::AttributeProto *branchAttr = c.attr(branchName);
  if (!branchAttr || !branchAttr->has_g()) {
    c.error() << "has no " << branchName << " graph";
    return failure();
  }
  const onnx::GraphProto &branch = branchAttr->g();
  if (branch.output_size() != c.node.output_size()) {
    c.error() << branchName << " has " << branch.output_size()
              << " outputs; the If has " << c.node.output_size();
    return failure();
  }
  return sub.importSubgraph(branch, subgraphPath(nodeName, branchName),
                            c.b.getInsertionBlock(), {}, outputs, c,
                            branchName);
}

LogicalResult onnx_import::importIf(NodeContext &c, SubgraphImporter &sub,
                                    const std::string &nodeName,
                                    SmallVectorImpl<Value> &outputs) {
  if (std::optional<SmallVector<int64_t>> cond = c.constInts(0))
    return importConstantIf(c, sub, nodeName, *cond, outputs);
  Value cond = c.input(0);
  if (failed(checkScalar(c, cond, c.b.getI1Type(), "its condition")))
    return failure();
  static constexpr const char *kBranches[2] = {"then_branch", "else_branch"};
  std::unique_ptr<Block> blocks[2];
  SmallVector<Value> yields[2];
  for (int b = 0; b < 2; ++b) {
    const onnx::AttributeProto *attr = c.attr(kBranches[b]);
    if (!attr || !attr->has_g()) {
      c.error() << "has no " << kBranches[b] << " graph";
      return failure();
    }
    if (attr->g().output_size() != c.node.output_size()) {
      c.error() << kBranches[b] << " has " << attr->g().output_size()
                << " outputs; the If has " << c.node.output_size();
      return failure();
    }
    blocks[b] = std::make_unique<Block>();
    if (failed(sub.importSubgraph(attr->g(),
                                  subgraphPath(nodeName, kBranches[b]),
                                  blocks[b].get(), {}, yields[b], c,
                                  kBranches[b])))
      return failure();
  }
  SmallVector<Type> types;
  for (auto [i, t, e] : llvm::enumerate(yields[0], yields[1])) {
    if (t.getType() != e.getType()) {
      c.error() << "output " << i << " ('" << c.node.output(i)
                << "') is " << typeText(t.getType()) << " in then_branch but "
                << typeText(e.getType())
                << " in else_branch; opscope plans static shapes, so both "
                   "branches of an If decided at run time must yield the "
                   "same shapes and types";
      return failure();
    }
    types.push_back(t.getType());
  }
  auto op = c.b.create<osc::IfOp>(c.loc, types, cond);
  for (int b = 0; b < 2; ++b) {
    Block *block = blocks[b].release();
    op->getRegion(b).push_back(block);
    OpBuilder::atBlockEnd(block).create<osc::YieldOp>(c.loc, yields[b]);
  }
  outputs.append(op.getResults().begin(), op.getResults().end());
  return success();
}

LogicalResult onnx_import::importLoop(NodeContext &c, SubgraphImporter &sub,
                                      const std::string &nodeName,
                                      SmallVectorImpl<Value> &outputs) {
  Type i64 = c.b.getI64Type(), i1 = c.b.getI1Type();
  Value maxTrip = c.input(0), cond = c.input(1);
  if (maxTrip && failed(checkScalar(c, maxTrip, i64, "its trip count M")))
    return failure();
  if (cond && failed(checkScalar(c, cond, i1, "its condition")))
    return failure();
  SmallVector<Value> inits;
  for (unsigned i = 2; i < c.numInputs(); ++i) {
    if (!c.hasInput(i)) {
      c.error() << "loop-carried input " << i - 2 << " is empty";
      return failure();
    }
    inits.push_back(c.input(i));
  }
  const onnx::AttributeProto *attr = c.attr("body");
  if (!attr || !attr->has_g()) {
    c.error() << "has no body graph";
    return failure();
  }
  const onnx::GraphProto &body = attr->g();
  int64_t carried = inits.size();
  int64_t scans = body.output_size() - 1 - carried;
  if (scans < 0) {
    c.error() << "body has " << body.output_size() << " outputs; a Loop with "
              << carried << " carried values needs at least " << carried + 1;
    return failure();
  }
  // Scan outputs stack one row per iteration: opscope plans static shapes,
  // so a used one needs a constant trip count the condition cannot cut.
  bool scansUsed = false;
  for (int64_t j = 0; j < scans; ++j)
    scansUsed |= c.outputUsed(carried + j);
  std::optional<int64_t> length;
  if (scansUsed) {
    std::optional<SmallVector<int64_t>> trip = c.constInts(0);
    std::optional<SmallVector<int64_t>> initialCond = c.constInts(1);
    const char *why = nullptr;
    if (!trip || trip->size() != 1)
      why = "its trip count M is not a compile-time constant";
    else if (cond && !(initialCond && initialCond->size() == 1 &&
                       (*initialCond)[0]))
      why = "its condition is not constant true";
    if (why) {
      for (int64_t j = 0; j < scans; ++j)
        if (c.outputUsed(carried + j)) {
          c.error() << "scan output " << j << " ('"
                    << c.node.output(carried + j) << "') is used but " << why
                    << "; a scan output grows with the number of iterations, "
                       "and plans have static shapes (freeze the inputs it "
                       "depends on with --freeze-input)";
          break;
        }
      return failure();
    }
    length = std::max<int64_t>((*trip)[0], 0);
  }

  auto block = std::make_unique<Block>();
  auto scalar = [](Type e) { return RankedTensorType::get({}, e); };
  SmallVector<Type> argTypes{scalar(i64), scalar(i1)};
  for (Value v : inits)
    argTypes.push_back(v.getType());
  for (auto [i, t] : llvm::enumerate(argTypes)) {
    // Named as the body's inputs (`loop/body/x`): reports show the name.
    std::string name = i < static_cast<size_t>(body.input_size())
                           ? body.input(i).name()
                           : std::string();
    Location loc = name.empty() ? c.loc
                                : NameLoc::get(c.b.getStringAttr(subgraphPath(
                                                   nodeName + "/body", name)),
                                               c.loc);
    block->addArgument(t, loc);
  }
  SmallVector<Value> yields;
  if (failed(sub.importSubgraph(body, subgraphPath(nodeName, "body"),
                                block.get(), block->getArguments(), yields, c,
                                "body")))
    return failure();
  if (!length)
    yields.resize(carried + 1); // unused scan outputs are dropped
  else if (yields[0] != block->getArgument(1) && !isConstantTrue(yields[0])) {
    c.error() << "its body computes the condition ('" << body.output(0).name()
              << "'), which may end the loop early while scan output(s) are "
                 "used; opscope plans static shapes, so a Loop with used "
                 "scan outputs must run its whole constant trip count";
    return failure();
  }

  // The body's outputs must keep the carried types; a reshape to the same
  // element count (a [1] condition for a scalar one) is fine.
  OpBuilder at(c.b.getContext());
  at.setInsertionPointToEnd(block.get());
  for (int64_t i = 0; i <= carried; ++i)
    if (failed(keepType(c, at, yields[i], block->getArgument(i + 1).getType(),
                        i == 0 ? std::string("the body's condition")
                               : "loop-carried value " + std::to_string(i - 1) +
                                     " ('" + body.output(i).name() + "')",
                        "an iteration", "a loop-carried value")))
      return failure();
  at.create<osc::YieldOp>(c.loc, yields);
  SmallVector<Type> types;
  for (Value v : inits)
    types.push_back(v.getType());
  if (length)
    for (int64_t j = 0; j < scans; ++j)
      types.push_back(stacked(yields[carried + 1 + j].getType(), *length));
  auto op = c.b.create<osc::LoopOp>(c.loc, types, maxTrip, cond, inits);
  op.getBody().push_back(block.release());
  outputs.append(op.getResults().begin(), op.getResults().end());
  outputs.resize(carried + scans); // unused scan outputs: none
  return success();
}

/// An attribute of `n` integers (`scan_input_axes` and the like), zeros when
/// absent.
static FailureOr<SmallVector<int64_t>> scanInts(NodeContext &c, StringRef name,
                                                int64_t n) {
  std::optional<SmallVector<int64_t>> v = c.intsAttr(name);
  if (!v)
    return SmallVector<int64_t>(n, 0);
  if (static_cast<int64_t>(v->size()) != n) {
    c.error() << name << " has " << v->size() << " entries; expected " << n;
    return failure();
  }
  return *v;
}

/// Scan 8's batch of one, as Scan 9's operands: each state and scan input
/// without its batch axis. Refuses larger batches and sequence_lens that cut
/// a sequence short (a per-row length is a run-time extent).
static LogicalResult dropScanBatch(NodeContext &c, int64_t states,
                                   SmallVectorImpl<Value> &inits,
                                   SmallVectorImpl<Value> &scanned) {
  int64_t batch = -1, steps = -1;
  for (auto [k, v] : llvm::enumerate(llvm::concat<Value>(inits, scanned))) {
    auto t = cast<RankedTensorType>(v.getType());
    bool isScan = static_cast<int64_t>(k) >= states;
    if (t.getRank() < (isScan ? 2 : 1)) {
      c.error() << "input '" << c.node.input(1 + k) << "' has rank "
                << t.getRank() << "; Scan 8's "
                << (isScan ? "scan inputs are [batch, sequence, ...]"
                           : "state variables are [batch, ...]");
      return failure();
    }
    if (batch >= 0 && t.getDimSize(0) != batch) {
      c.error() << "input '" << c.node.input(1 + k) << "' has batch "
                << t.getDimSize(0) << "; the first has " << batch;
      return failure();
    }
    batch = t.getDimSize(0);
    if (isScan)
      steps = t.getDimSize(1);
  }
  if (batch != 1) {
    c.error() << "Scan of opset " << c.opset << " over a batch of " << batch
              << " is not supported (a batch of one is); export the model at "
                 "opset 9 or later, where the batch is a scan input's axis";
    return failure();
  }
  if (c.hasInput(0)) {
    std::optional<SmallVector<int64_t>> lens = c.constInts(0);
    if (!lens || lens->size() != 1 || (*lens)[0] != steps) {
      c.error() << "sequence_lens ('" << c.node.input(0)
                << "') must be a constant equal to the sequence length ("
                << steps << "); shorter sequences end at a run-time extent";
      return failure();
    }
  }
  for (Value &v : llvm::concat<Value>(inits, scanned))
    v = reshape(c, v, cast<RankedTensorType>(v.getType()).getShape().drop_front());
  return success();
}

LogicalResult onnx_import::importScan(NodeContext &c, SubgraphImporter &sub,
                                      const std::string &nodeName,
                                      SmallVectorImpl<Value> &outputs) {
  // Scan 8 has a leading batch axis on every state and scan input (the scan
  // axis is 1), optional sequence_lens first, and `directions` for its scan
  // inputs. A batch of one whose every sequence runs the whole length is
  // Scan 9's scan over the batch's only row: the batch axis is dropped
  // before and restored after.
  const bool batched = c.opset < 9;
  const int64_t first = batched ? 1 : 0;
  const onnx::AttributeProto *attr = c.attr("body");
  if (!attr || !attr->has_g()) {
    c.error() << "has no body graph";
    return failure();
  }
  const onnx::GraphProto &body = attr->g();
  int64_t numScans = c.intAttr("num_scan_inputs", 0);
  int64_t numInputs = c.numInputs() - first;
  if (numScans < 1 || numScans > numInputs) {
    c.error() << "num_scan_inputs is " << numScans << " with " << numInputs
              << " inputs; it must be between 1 and the number of inputs";
    return failure();
  }
  int64_t states = numInputs - numScans;
  int64_t scanOuts = body.output_size() - states;
  if (scanOuts < 0 || c.node.output_size() > body.output_size()) {
    c.error() << "body has " << body.output_size() << " outputs for "
              << states << " state variables and the node's "
              << c.node.output_size() << " outputs";
    return failure();
  }
  FailureOr<SmallVector<int64_t>> inAxes =
      scanInts(c, "scan_input_axes", numScans);
  FailureOr<SmallVector<int64_t>> inDirs = scanInts(
      c, batched ? "directions" : "scan_input_directions", numScans);
  FailureOr<SmallVector<int64_t>> outAxes =
      scanInts(c, "scan_output_axes", scanOuts);
  FailureOr<SmallVector<int64_t>> outDirs =
      scanInts(c, "scan_output_directions", scanOuts);
  if (failed(inAxes) || failed(inDirs) || failed(outAxes) || failed(outDirs))
    return failure();
  for (auto [name, dirs] : {std::pair{"scan_input_directions", &*inDirs},
                            std::pair{"scan_output_directions", &*outDirs}})
    for (int64_t d : *dirs)
      if (d != 0 && d != 1) {
        c.error() << name << " has " << d << "; a direction is 0 or 1";
        return failure();
      }

  SmallVector<Value> inits, scanned;
  for (int64_t i = 0; i < numInputs; ++i) {
    if (!c.hasInput(first + i)) {
      c.error() << (i < states ? "state variable " : "scan input ")
                << (i < states ? i : i - states) << " is empty";
      return failure();
    }
    (i < states ? inits : scanned).push_back(c.input(first + i));
  }
  if (batched && failed(dropScanBatch(c, states, inits, scanned)))
    return failure();
  // The scan length: the scan axis of every scan input, the same for all.
  int64_t length = -1;
  for (auto [k, x] : llvm::enumerate(scanned)) {
    auto t = cast<RankedTensorType>(x.getType());
    FailureOr<int64_t> axis =
        c.normalizeAxis((*inAxes)[k], t.getRank(), "scan_input_axes");
    if (failed(axis))
      return failure();
    (*inAxes)[k] = *axis;
    int64_t n = t.getDimSize(*axis);
    if (length >= 0 && n != length) {
      c.error() << "scan input " << k << " ('" << c.node.input(first + states + k)
                << "') has " << n << " steps along its scan axis; scan input "
                << "0 has " << length;
      return failure();
    }
    length = n;
  }
  if (length == 0) {
    c.error() << "its scan inputs have no steps (a scan axis of length 0)";
    return failure();
  }

  // The body: iteration and condition arguments (osc.loop's), the state
  // variables, and each scan input's row for this iteration, gathered at
  // the iteration (or, reversed, at length - 1 - iteration).
  auto block = std::make_unique<Block>();
  Type i64 = c.b.getI64Type(), i1 = c.b.getI1Type();
  SmallVector<Type> argTypes{RankedTensorType::get({}, i64),
                             RankedTensorType::get({}, i1)};
  for (Value v : inits)
    argTypes.push_back(v.getType());
  for (auto [i, t] : llvm::enumerate(argTypes)) {
    std::string name = i >= 2 ? body.input(i - 2).name() : std::string();
    block->addArgument(
        t, name.empty() ? c.loc
                        : NameLoc::get(c.b.getStringAttr(subgraphPath(
                                           nodeName + "/body", name)),
                                       c.loc));
  }
  SmallVector<Value> args(block->getArguments().drop_front(2));
  {
    OpBuilder::InsertionGuard guard(c.b);
    c.b.setInsertionPointToEnd(block.get());
    Value iteration = block->getArgument(0), reversed;
    for (auto [k, x] : llvm::enumerate(scanned)) {
      Value index = iteration;
      if ((*inDirs)[k]) {
        if (!reversed)
          reversed = c.b.create<osc::BinaryOp>(
              c.loc, iteration.getType(), osc::BinaryKind::sub,
              splat(c, {}, i64, static_cast<double>(length - 1)), iteration);
        index = reversed;
      }
      auto t = cast<RankedTensorType>(x.getType());
      SmallVector<int64_t> shape(t.getShape());
      shape.erase(shape.begin() + (*inAxes)[k]);
      args.push_back(c.b.create<osc::GatherOp>(
          c.loc, tensorOf(shape, t.getElementType()), x, index,
          c.b.getI64IntegerAttr((*inAxes)[k])));
    }
  }
  SmallVector<Value> yields;
  if (failed(sub.importSubgraph(body, subgraphPath(nodeName, "body"),
                                block.get(), args, yields, c, "body")))
    return failure();
  OpBuilder at(c.b.getContext());
  at.setInsertionPointToEnd(block.get());
  for (int64_t i = 0; i < states; ++i)
    if (failed(keepType(c, at, yields[i], inits[i].getType(),
                        "state variable " + std::to_string(i) + " ('" +
                            body.output(i).name() + "')",
                        "a step", "a state variable")))
      return failure();
  SmallVector<Value> yielded{block->getArgument(1)};
  llvm::append_range(yielded, yields);
  at.create<osc::YieldOp>(c.loc, yielded);

  SmallVector<Type> types;
  for (Value v : inits)
    types.push_back(v.getType());
  for (int64_t j = 0; j < scanOuts; ++j)
    types.push_back(stacked(yields[states + j].getType(), length));
  Value trip = splat(c, {}, i64, static_cast<double>(length));
  auto op = c.b.create<osc::LoopOp>(c.loc, types, trip, Value(), inits);
  op.getBody().push_back(block.release());
  outputs.append(op.getResults().begin(),
                 op.getResults().begin() + states);
  // Each scan output: rows in iteration order along a new leading axis;
  // reversed and moved to scan_output_axes as asked.
  for (int64_t j = 0; j < scanOuts; ++j) {
    Value r = op.getResult(states + j);
    auto t = cast<RankedTensorType>(r.getType());
    int64_t rank = t.getRank();
    if ((*outDirs)[j]) {
      SmallVector<int64_t> starts(rank, 0), steps(rank, 1);
      starts[0] = length - 1;
      steps[0] = -1;
      r = c.create<osc::SliceOp>(t, r, i64Array(c, starts),
                                 i64Array(c, t.getShape()), i64Array(c, steps));
    }
    FailureOr<int64_t> axis =
        c.normalizeAxis((*outAxes)[j], rank, "scan_output_axes");
    if (failed(axis))
      return failure();
    if (*axis != 0) {
      SmallVector<int64_t> perm, shape;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t from = d < *axis ? d + 1 : d == *axis ? 0 : d;
        perm.push_back(from);
        shape.push_back(t.getDimSize(from));
      }
      r = c.create<osc::TransposeOp>(tensorOf(shape, t.getElementType()), r,
                                     i64Array(c, perm));
    }
    outputs.push_back(r);
  }
  outputs.resize(c.node.output_size());
  if (batched)
    for (Value &v : outputs) {
      SmallVector<int64_t> shape{1};
      llvm::append_range(shape, cast<RankedTensorType>(v.getType()).getShape());
      v = reshape(c, v, shape);
    }
  return success();
}
