//===- FusionReport.cpp - osc-fusion-report -------------------------------===//
//
// Part of opscope. What the compiler did, before anything runs: one row per
// op with its provenance, shapes, cost and kernel. opscope-compile's
// --print-fusion prints the same report.
//
//===----------------------------------------------------------------------===//

#include "opscope/Dialect/Osc/IR/OscOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "opscope/Dialect/Osc/IR/OscShapes.h"
#include "opscope/Dialect/Osc/IR/OscUtils.h"
#include "opscope/Dialect/Osc/Transforms/Passes.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace opscope::osc {
#define GEN_PASS_DEF_OSCFUSIONREPORT
#include "opscope/Dialect/Osc/Transforms/Passes.h.inc"
} // namespace opscope::osc

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;

namespace {
struct FusionReportPass : osc::impl::OscFusionReportBase<FusionReportPass> {
  using OscFusionReportBase::OscFusionReportBase;

  void runOnOperation() override {
    if (format != "table" && format != "json") {
      mlir::emitError(getOperation()->getLoc(), "osc-fusion-report: format must be table or json, got '")
          << format << "'";
      return signalPassFailure();
    }
    // The report is only as good as its input: say when the IR cannot show
    // provenance or was fused without its weights.
    auto module = getOperation()->getParentOfType<ModuleOp>();
    if (module && module->hasAttr(kWeightsElidedAttr))
      getOperation().emitWarning(
          "osc-fusion-report: this IR was printed with --elide-weights; "
          "fusions that read weight data (matmul to inner_product) did not "
          "run, so this report differs from compiling the model");
    bool anySource = false;
    getOperation().walk([&](Operation *op) {
      if (isa_and_nonnull<OscDialect>(op->getDialect()) &&
          !sourceNodes(op->getLoc()).empty())
        anySource = true;
    });
    if (!anySource)
      getOperation().emitWarning(
          "osc-fusion-report: the IR carries no source locations (printed "
          "with --mlir-print-debuginfo=false or --strip-locations?); the "
          "sources column is empty");
    llvm::json::Array rows;
    std::vector<std::vector<std::string>> table;
    int64_t id = 0;
    getOperation().walk([&](Operation *op) {
      if (op->getDialect() == nullptr ||
          op->getDialect()->getNamespace() != "osc" || isa<ConstantOp, ProbeOp, YieldOp>(op))
        return;
      OpCost cost = estimateCost(op);
      Value weight = weightOperand(op);
      std::vector<std::string> sources = sourceNodes(op->getLoc());
      std::vector<std::string> post = postOpsOf(op);
      llvm::json::Array inputs, sourceArr, postArr;
      std::string inputText;
      for (Value v : op->getOperands()) {
        // Weights and biases are reported as the weight, not as inputs.
        if (v == weight || (weight && v.getDefiningOp<ConstantOp>()))
          continue;
        auto t = cast<RankedTensorType>(v.getType());
        inputs.push_back(formatShape(t.getShape()));
        inputText += (inputText.empty() ? "" : ",") + formatShape(t.getShape());
      }
      for (const auto &s : sources)
        sourceArr.push_back(s);
      for (const auto &p : post)
        postArr.push_back(p);
      auto outType = cast<RankedTensorType>(op->getResult(0).getType());
      std::optional<double> sparsity;
      if (weight)
        sparsity = zeroFraction(weight);
      std::string weightShape =
          weight ? formatShape(cast<RankedTensorType>(weight.getType()).getShape()) : "";
      llvm::json::Object row{
          {"id", id},
          {"kind", kindOf(op)},
          {"post_ops", std::move(postArr)},
          {"source_nodes", std::move(sourceArr)},
          {"input_shapes", std::move(inputs)},
          {"output_shape", formatShape(outType.getShape())},
          {"weight_shape", weight ? llvm::json::Value(weightShape) : nullptr},
          {"weight_sparsity", sparsity ? llvm::json::Value(*sparsity) : nullptr},
          {"flops", cost.flops ? llvm::json::Value(*cost.flops) : nullptr},
          {"bytes", cost.bytes},
          {"kernel", kernelFor(op)}};
      rows.push_back(std::move(row));
      std::string srcText = std::to_string(sources.size());
      if (!sources.empty()) {
        srcText += ": " + sources.front();
        for (size_t i = 1; i < sources.size(); ++i)
          srcText += ", " + sources[i];
      }
      std::string postText;
      for (const auto &p : post)
        postText += (postText.empty() ? "" : "+") + p;
      char flops[32] = "-", bytes[32], sp[32] = "-";
      if (cost.flops)
        std::snprintf(flops, sizeof flops, "%.0f", *cost.flops);
      std::snprintf(bytes, sizeof bytes, "%.0f", cost.bytes);
      if (sparsity)
        std::snprintf(sp, sizeof sp, "%.3f", *sparsity);
      table.push_back({std::to_string(id), kindOf(op), postText.empty() ? "-" : postText,
                       inputText, formatShape(outType.getShape()),
                       weight ? weightShape : "-", sp, flops, bytes, kernelFor(op),
                       srcText});
      ++id;
    });
    if (format == "json") {
      llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(rows))) << "\n";
      return;
    }
    std::vector<std::string> header = {"id",     "kind",   "post_ops", "inputs",
                                       "output", "weight", "sparsity", "flops",
                                       "bytes",  "kernel", "sources"};
    std::vector<size_t> width(header.size());
    for (size_t i = 0; i < header.size(); ++i) {
      width[i] = header[i].size();
      for (const auto &r : table)
        width[i] = std::max(width[i], r[i].size());
    }
    auto line = [&](const std::vector<std::string> &cells) {
      std::string out;
      for (size_t i = 0; i < cells.size(); ++i) {
        out += cells[i];
        if (i + 1 < cells.size())
          out += std::string(width[i] - cells[i].size() + 2, ' ');
      }
      llvm::outs() << out << "\n";
    };
    line(header);
    for (const auto &r : table)
      line(r);
  }
};
} // namespace
