//===- ImportChecks.cpp - ONNX's checker and opscope's own checks ---------===//
//
// Part of opscope. ONNX's checker over a model, run at libonnx's newest
// opset, and opscope's checks of the op versions of opsets 18-21 it does not
// know (NewerOpsets.h), with what checked which nodes for `osc.checks`.
//
//===----------------------------------------------------------------------===//

#include "ImportChecks.h"
#include "NewerOpsets.h"

#include "opscope/Target/ONNX/GraphOrder.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <onnx/checker.h>

#include <unordered_map>
#include <utility>
#include <vector>

using namespace opscope;
using namespace opscope::onnx_import;
using llvm::StringRef;
using onnx_model::forEachNode;

/// The domain the checker sees nodes opscope checks itself in: libonnx
/// knows no schema there and checks only their names, inputs, outputs and
/// attributes' well-formedness.
static constexpr const char *kOwnCheckDomain = "opscope.checked-by-opscope";

std::string onnx_import::runChecker(onnx::ModelProto &model, int64_t opset,
                                    bool runLibOnnx,
                                    const std::string &modelDir,
                                    NodeChecks &checks) {
  // libonnx knows schemas up to opset 17. For a newer model its checker
  // runs at opset 17, whose schema of an op is the model's for every op
  // that did not change since (or only admits more element types, which
  // its schema check does not see). Nodes of ops that changed otherwise,
  // or did not exist, move for the checker's run into a domain it has no
  // schemas for: it still checks their names, the graph's order and their
  // attributes' form. opscope checks them here against NewerOpsets.h, every
  // node of every subgraph, with the checker or without: importNode sees
  // only the branch a constant If takes.
  std::vector<std::pair<onnx::NodeProto *, std::string>> moved;
  std::string problem;
  // A node without outputs, named by its path (the checker names an
  // unnamed one by nothing, "Node ()"; issue 54's fuzzed model is one), with
  // the checker or without.
  forEachNode(*model.mutable_graph(), [&](onnx::NodeProto &node,
                                          const std::string &label) {
    if (problem.empty() && node.output_size() == 0)
      problem = "node '" + label + "' (" + node.op_type() + "): has no outputs";
  });
  if (!problem.empty())
    return problem;
  if (opset > kLibOnnxOpset)
    forEachNode(*model.mutable_graph(), [&](onnx::NodeProto &node,
                                            const std::string &label) {
      if (!problem.empty() ||
          (!node.domain().empty() && node.domain() != "ai.onnx"))
        return;
      if (!needsOwnCheck(node.op_type(), opset)) {
        ++checks.checkerNodes;
        return;
      }
      const OpVersion *v = newerVersion(node.op_type(), opset);
      std::string what = v ? checkNode(node, *v)
                           : "is not defined in opset " +
                                 std::to_string(opset) +
                                 " (the model's opset for the default domain)";
      if (!what.empty()) {
        problem = "node '" + label + "' (" + node.op_type() + "): " + what;
        if (v)
          problem += " (model opset " + std::to_string(opset) +
                     "; checked by opscope, as libonnx 1.12 knows opsets up "
                     "to " +
                     std::to_string(kLibOnnxOpset) + ")";
        return;
      }
      ++checks.ownChecked[std::string(v->op) + "-" + std::to_string(v->since)];
      moved.emplace_back(&node, node.domain());
    });
  if (!problem.empty())
    return problem;
  if (!runLibOnnx)
    return "";
  onnx::checker::CheckerContext checkerCtx;
  checkerCtx.set_ir_version(static_cast<int>(model.ir_version()));
  std::unordered_map<std::string, int> opsets;
  for (const auto &imp : model.opset_import())
    opsets[imp.domain()] = static_cast<int>(imp.version());
  if (opset > kLibOnnxOpset) {
    for (const char *d : {"", "ai.onnx"})
      if (opsets.count(d))
        opsets[d] = static_cast<int>(kLibOnnxOpset);
    opsets[kOwnCheckDomain] = 1;
  }
  checkerCtx.set_opset_imports(opsets);
  checkerCtx.set_model_dir(modelDir);
  for (auto &[node, domain] : moved)
    node->set_domain(kOwnCheckDomain);
  auto restore = llvm::make_scope_exit([&] {
    for (auto &[node, domain] : moved)
      node->set_domain(domain);
  });
  onnx::checker::LexicalScopeContext lex;
  try {
    onnx::checker::check_graph(model.graph(), checkerCtx, lex);
  } catch (const std::exception &e) {
    std::string msg = e.what();
    std::string diag;
    llvm::raw_string_ostream os(diag);
    os << "the ONNX checker rejects the model: " << StringRef(msg).rtrim();
    if (opset > kLibOnnxOpset)
      os << " (ONNX 1.12's checker, run with the schemas of opset "
         << kLibOnnxOpset << " for the model's opset " << opset << ")";
    return diag;
  }
  return "";
}

std::string onnx_import::checksSummary(const NodeChecks &checks,
                                       bool ranLibOnnx) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "ONNX checker ";
  if (ranLibOnnx)
    os << "(libonnx 1.12, opset-" << kLibOnnxOpset << " schemas)";
  else
    os << "skipped (--no-check)";
  os << ": " << checks.checkerNodes << " node"
     << (checks.checkerNodes == 1 ? "" : "s") << "; opscope's opset "
     << kLibOnnxOpset + 1 << "-" << kMaxOpset << " checks: ";
  if (checks.ownChecked.empty())
    os << "none";
  bool first = true;
  for (const auto &[version, n] : checks.ownChecked) {
    os << (first ? "" : ", ") << version << " x" << n;
    first = false;
  }
  return s;
}
