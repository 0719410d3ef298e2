//===- ImportControlFlow.cpp - If (decided at run time) and Loop ----------===//
//
// Part of opscope. An `If` whose condition is known only at run time becomes
// osc.if with both branches as regions; a `Loop` becomes osc.loop with its
// body as a region. Shapes stay static: branches must yield the same types,
// and a loop-carried value must keep its type across iterations. Errors
// name the node.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "opscope/Dialect/Osc/IR/OscShapes.h"

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

static std::string typeText(Type type) {
  auto t = cast<RankedTensorType>(type);
  std::string s;
  llvm::raw_string_ostream os(s);
  os << osc::formatShape(t.getShape()) << "x" << t.getElementType();
  return s;
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
  for (int64_t j = 0; j < scans; ++j)
    if (c.outputUsed(carried + j)) {
      c.error() << "scan output " << j << " ('" << c.node.output(carried + j)
                << "') is used; opscope runs Loop with loop-carried values "
                   "only: a scan output grows with the number of "
                   "iterations, known only at run time, and plans have "
                   "static shapes";
      return failure();
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
  yields.resize(carried + 1); // unused scan outputs are dropped

  // The body's outputs must keep the carried types; a reshape to the same
  // element count (a [1] condition for a scalar one) is fine.
  OpBuilder at(c.b.getContext());
  at.setInsertionPointToEnd(block.get());
  for (int64_t i = 0; i <= carried; ++i) {
    Type want = block->getArgument(i + 1).getType();
    Value &v = yields[i];
    if (v.getType() == want)
      continue;
    auto have = cast<RankedTensorType>(v.getType());
    auto wantT = cast<RankedTensorType>(want);
    if (have.getElementType() == wantT.getElementType() &&
        have.getNumElements() == wantT.getNumElements()) {
      v = at.create<osc::ReshapeOp>(c.loc, want, v);
      continue;
    }
    std::string what = i == 0 ? std::string("the body's condition")
                              : "loop-carried value " + std::to_string(i - 1) +
                                    " ('" + body.output(i).name() + "')";
    c.error() << what << " is " << typeText(v.getType())
              << " after an iteration but " << typeText(want)
              << " before it; opscope plans static shapes, so a loop-carried "
                 "value must keep its shape and type";
    return failure();
  }
  at.create<osc::YieldOp>(c.loc, yields);
  SmallVector<Type> types;
  for (Value v : inits)
    types.push_back(v.getType());
  auto op = c.b.create<osc::LoopOp>(c.loc, types, maxTrip, cond, inits);
  op.getBody().push_back(block.release());
  outputs.append(op.getResults().begin(), op.getResults().end());
  outputs.resize(carried + scans); // scan outputs: none (unused)
  return success();
}
