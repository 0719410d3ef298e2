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
    // Ids are the probe ids of a default compile, where every executed op
    // is probed in execution order; reshapes (views) have none.
    int64_t id = 0;
    // osc-sparse-layout{tuning-db} records why each inner product got its
    // kernel; the column appears when a compile used a tuning database.
    bool anyChoice = false;
    // Pre-order: an osc.if or osc.loop row comes before its regions' ops.
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op->getDialect() == nullptr ||
          op->getDialect()->getNamespace() != "osc" || isa<ConstantOp, ProbeOp, YieldOp>(op))
        return;
      std::optional<int64_t> probeId;
      if (isExecuted(op))
        probeId = id++;
      llvm::json::Object row = opFacts(op);
      row["id"] = probeId ? llvm::json::Value(*probeId) : llvm::json::Value(nullptr);
      // The table: shapes as 1x128x768, sources as "N: first, ...".
      auto shapes = [](const llvm::json::Array *tensors) {
        std::string out;
        for (const llvm::json::Value &t : *tensors) {
          std::string shape;
          for (const llvm::json::Value &d : *t.getAsObject()->getArray("shape"))
            shape += (shape.empty() ? "" : "x") + std::to_string(*d.getAsInteger());
          out += (out.empty() ? "" : ",") + (shape.empty() ? "scalar" : shape);
        }
        return out.empty() ? std::string("-") : out;
      };
      std::vector<std::string> sources = sourceNodes(op->getLoc());
      std::string srcText = std::to_string(sources.size());
      for (size_t i = 0; i < sources.size(); ++i)
        srcText += (i ? ", " : ": ") + sources[i];
      std::string postText;
      for (const auto &p : postOpsOf(op))
        postText += (postText.empty() ? "" : "+") + p;
      std::string weightShape;
      for (const llvm::json::Value &d : *row.getArray("weight_shape"))
        weightShape += (weightShape.empty() ? "" : "x") + std::to_string(*d.getAsInteger());
      char flops[32], bytes[32], sp[32] = "-", blocks[32] = "-";
      std::snprintf(flops, sizeof flops, "%.0f", *row.getNumber("flops"));
      std::snprintf(bytes, sizeof bytes, "%.0f", *row.getNumber("bytes"));
      // Zero elements, and all-zero 1x4 blocks where a sparse kernel exists.
      if (auto s = row.getNumber("weight_sparsity"))
        std::snprintf(sp, sizeof sp, "%.3f", *s);
      if (auto s = row.getNumber("block_sparsity"))
        std::snprintf(blocks, sizeof blocks, "%.3f", *s);
      std::string sparse = "-";
      if (*row.getBoolean("sparse_kernel"))
        sparse = "yes";
      else if (*row.getBoolean("sparse_support"))
        sparse = "no";
      table.push_back({probeId ? std::to_string(*probeId) : "-",
                       row.getString("type")->str(),
                       postText.empty() ? "-" : postText,
                       shapes(row.getArray("inputs")),
                       shapes(row.getArray("outputs")),
                       weightShape.empty() ? "-" : weightShape, sp, blocks,
                       sparse,
                       flops, bytes, row.getString("kernel")->str(),
                       srcText});
      if (auto choice = op->getAttrOfType<StringAttr>("osc.kernel_choice")) {
        anyChoice = true;
        row["choice"] = choice.getValue().str();
        table.back().insert(table.back().end() - 1, choice.getValue().str());
      } else {
        table.back().insert(table.back().end() - 1, "-");
      }
      rows.push_back(std::move(row));
    });
    if (!anyChoice)
      for (auto &r : table)
        r.erase(r.end() - 2);
    if (format == "json") {
      llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(rows))) << "\n";
      return;
    }
    std::vector<std::string> header = {
        "id",       "type",        "post_ops", "inputs", "output",
        "weight",   "sparsity",    "blocks1x4", "sparse", "flops",
        "bytes",    "kernel",      "sources"};
    if (anyChoice)
      header.insert(header.end() - 1, "choice");
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
    // The database behind the choice column (opscope-compile records it
    // on the module; opscope-opt{tuning-db=...} runs do not).
    if (anyChoice && module)
      if (auto db = module->getAttrOfType<StringAttr>("osc.tuning_db"))
        llvm::outs() << "kernel choices from the tuning database "
                     << db.getValue() << "\n";
    line(header);
    for (const auto &r : table)
      line(r);
  }
};
} // namespace
