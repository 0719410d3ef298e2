//===- WhatIfRender.cpp - the what-if tables and profile CSV parts --------===//
//
// Part of opscope's runtime. Renders a projection (whatif.h) in the four
// formats from one column list per table: the measured perf-ratio table
// (part 1 of the profile CSV, docs/profile-csv.md), the ops with their
// projection (part 2), the network totals (part 3) and --check's errors.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/whatif.h"

#include "Table.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

using namespace opscope;
using namespace opscope::analysis;
using namespace opscope::analysis::table;

namespace {
std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

template <typename F>
std::string joined(const std::vector<trace::TensorInfo> &ts, F &&f) {
  std::string out;
  for (size_t i = 0; i < ts.size(); ++i)
    out += (i ? ";" : "") + f(ts[i]);
  return out;
}

/// A text cell that is empty in CSV (as opscope-run's profile CSV) and
/// null in JSON when there is nothing to say; "-" in tables.
Cell field(const std::string &s) {
  if (s.empty())
    return {"-", nullptr};
  return {s, s};
}

std::optional<double> ms(std::optional<double> us) {
  if (!us)
    return std::nullopt;
  return *us / 1e3;
}

/// `ratio_0.80`; more digits only when the sparsity has them
/// (`ratio_0.825`).
std::string ratioName(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  if (std::fabs(std::strtod(buf, nullptr) - s) > 1e-9)
    std::snprintf(buf, sizeof buf, "%g", s);
  return std::string("ratio_") + buf;
}

/// Part 1: one row per database entry used, one column per measured
/// sparsity (the union over the entries), cells dense ms / sparse ms.
std::vector<Column<tuning::Entry>>
perfRatioColumns(const std::vector<tuning::Entry> &entries) {
  std::vector<Column<tuning::Entry>> cols = {
      {"weight_shape", false,
       [](const tuning::Entry &e) {
         return field(std::to_string(e.n) + "x" + std::to_string(e.k));
       }},
      {"m", true, [](const tuning::Entry &e) { return integer(e.m); }},
      {"precision", false,
       [](const tuning::Entry &e) { return field(e.precision); }},
      {"threads", true,
       [](const tuning::Entry &e) { return integer(e.threads); }},
      {"dense_ms", true,
       [](const tuning::Entry &e) { return number(e.denseMs, 4); }},
  };
  std::set<double> sparsities;
  for (const auto &e : entries)
    for (const auto &p : e.sparse)
      sparsities.insert(std::round(p.sparsity * 1e6) / 1e6);
  for (double s : sparsities)
    cols.push_back({ratioName(s), true, [s](const tuning::Entry &e) {
                      for (const auto &p : e.sparse)
                        if (std::fabs(p.sparsity - s) < 1e-6 && p.ms > 0)
                          return number(e.denseMs / p.ms, 3);
                      return missing();
                    }});
  return cols;
}

/// Part 2. The CSV carries opscope-run's profile CSV columns first (the
/// same names and units), then the projection's; the other formats a
/// narrower set that fits a terminal.
std::vector<Column<WhatIfOp>> opColumns(bool csv) {
  auto capable = [](const WhatIfOp &o) -> Cell {
    return {o.sparseCapable ? "true" : "false", o.sparseCapable};
  };
  auto ratio = [](std::optional<double> r) { return number(r, 4); };
  std::vector<Column<WhatIfOp>> cols;
  if (csv) {
    cols = {
        {"operator_type", false,
         [](const WhatIfOp &o) { return field(o.probe->type); }},
        {"post_op", false,
         [](const WhatIfOp &o) {
           std::string s;
           for (size_t i = 0; i < o.probe->postOps.size(); ++i)
             s += (i ? ";" : "") + o.probe->postOps[i];
           return field(s);
         }},
        {"operator_name", false,
         [](const WhatIfOp &o) { return field(o.probe->name); }},
        {"input_tensor_names", false,
         [](const WhatIfOp &o) {
           return field(
               joined(o.probe->inputs, [](auto &t) { return t.name; }));
         }},
        {"input_shapes", false,
         [](const WhatIfOp &o) {
           return field(joined(o.probe->inputs,
                               [](auto &t) { return shapeText(t.shape); }));
         }},
        {"input_dtypes", false,
         [](const WhatIfOp &o) {
           return field(
               joined(o.probe->inputs, [](auto &t) { return t.dtype; }));
         }},
        {"output_tensor_names", false,
         [](const WhatIfOp &o) {
           return field(
               joined(o.probe->outputs, [](auto &t) { return t.name; }));
         }},
        {"output_shapes", false,
         [](const WhatIfOp &o) {
           return field(joined(o.probe->outputs,
                               [](auto &t) { return shapeText(t.shape); }));
         }},
        {"output_dtypes", false,
         [](const WhatIfOp &o) {
           return field(
               joined(o.probe->outputs, [](auto &t) { return t.dtype; }));
         }},
        {"weight_shape", false,
         [](const WhatIfOp &o) {
           return field(shapeText(o.probe->weightShape));
         }},
        {"weight_sparse_ratio", true,
         [=](const WhatIfOp &o) { return ratio(o.probe->weightSparsity); }},
        {"weight_block_sparse_ratio", true,
         [=](const WhatIfOp &o) { return ratio(o.probe->blockSparsity); }},
        {"sparse_block", false,
         [](const WhatIfOp &o) { return field(o.probe->sparseBlock); }},
        {"sparse_support", false, capable},
        {"kernel", false,
         [](const WhatIfOp &o) { return field(o.probe->kernel); }},
        {"count", true, [](const WhatIfOp &o) { return integer(o.count); }},
        {"latency_mean_ms", true,
         [](const WhatIfOp &o) { return number(o.meanUs / 1e3, 4); }},
        {"latency_p50_ms", true,
         [](const WhatIfOp &o) { return number(o.p50Us / 1e3, 4); }},
        {"latency_p99_ms", true,
         [](const WhatIfOp &o) { return number(o.p99Us / 1e3, 4); }},
        {"gflops_per_s", true,
         [](const WhatIfOp &o) {
           return number(o.probe->flops && o.meanUs > 0
                             ? std::optional(*o.probe->flops / (o.meanUs * 1e3))
                             : std::nullopt,
                         2);
         }},
        {"target_sparse_ratio", true,
         [=](const WhatIfOp &o) { return ratio(o.targetRatio); }},
        {"perf_ratio", true,
         [](const WhatIfOp &o) { return number(o.perfRatio, 3); }},
        {"perf_ratio_basis", false,
         [](const WhatIfOp &o) { return field(o.basis); }},
        {"projected_latency_mean_ms", true,
         [](const WhatIfOp &o) { return number(o.projectedMeanUs / 1e3, 4); }},
        {"time_per_iteration_ms", true,
         [](const WhatIfOp &o) { return number(o.measuredUs / 1e3, 4); }},
        {"projected_time_per_iteration_ms", true,
         [](const WhatIfOp &o) { return number(o.projectedUs / 1e3, 4); }},
    };
    return cols;
  }
  cols = {
      {"id", true, [](const WhatIfOp &o) { return integer(o.probe->id); }},
      {"name", false, [](const WhatIfOp &o) { return field(o.probe->name); }},
      {"type", false, [](const WhatIfOp &o) { return field(o.probe->type); }},
      {"weight_shape", false,
       [](const WhatIfOp &o) {
         return field(shapeText(o.probe->weightShape));
       }},
      {"m", true,
       [](const WhatIfOp &o) {
         return o.sparseCapable ? integer(o.m) : missing();
       }},
      {"precision", false,
       [](const WhatIfOp &o) { return field(o.precision); }},
      {"sparse_support", false, capable},
      {"current_ratio", true,
       [=](const WhatIfOp &o) { return ratio(o.currentRatio); }},
      {"target_ratio", true,
       [=](const WhatIfOp &o) { return ratio(o.targetRatio); }},
      {"perf_ratio", true,
       [](const WhatIfOp &o) { return number(o.perfRatio, 3); }},
      {"basis", false, [](const WhatIfOp &o) { return field(o.basis); }},
      {"self_ms", true,
       [](const WhatIfOp &o) { return number(o.measuredUs / 1e3, 4); }},
      {"projected_ms", true,
       [](const WhatIfOp &o) { return number(o.projectedUs / 1e3, 4); }},
  };
  return cols;
}

/// Part 3: the network totals, one row.
struct TotalsRow {
  std::string network;
  WhatIfTotals totals;
  std::optional<double> target;
  std::string targetText;
};
std::vector<Column<TotalsRow>> totalsColumns() {
  return {
      {"network", false, [](const TotalsRow &t) { return field(t.network); }},
      {"measured_total_ms", true,
       [](const TotalsRow &t) { return number(t.totals.measuredUs / 1e3, 4); }},
      {"sparse_capable_ms", true,
       [](const TotalsRow &t) {
         return number(t.totals.sparseCapableUs / 1e3, 4);
       }},
      {"sparse_capable_%", true,
       [](const TotalsRow &t) {
         return number(t.totals.measuredUs > 0
                           ? std::optional(100.0 * t.totals.sparseCapableUs /
                                           t.totals.measuredUs)
                           : std::nullopt,
                       1);
       }},
      {"target_sparse_ratio", true,
       [](const TotalsRow &t) {
         if (t.target)
           return number(t.target, 4);
         return field(t.targetText);
       }},
      {"projected_total_ms", true,
       [](const TotalsRow &t) {
         return number(t.totals.projectedUs / 1e3, 4);
       }},
      {"projected_speedup", true,
       [](const TotalsRow &t) { return number(t.totals.speedup(), 3); }},
  };
}

std::vector<Column<CheckRow>> checkColumns() {
  return {
      {"projected", false,
       [](const CheckRow &r) { return field(r.projected); }},
      {"measured", false, [](const CheckRow &r) { return field(r.measured); }},
      {"type", false, [](const CheckRow &r) { return field(r.type); }},
      {"target_ratio", true,
       [](const CheckRow &r) { return number(r.targetRatio, 4); }},
      {"measured_ratio", true,
       [](const CheckRow &r) { return number(r.measuredRatio, 4); }},
      {"projected_ms", true,
       [](const CheckRow &r) { return number(ms(r.projectedUs), 4); }},
      {"measured_ms", true,
       [](const CheckRow &r) { return number(ms(r.measuredUs), 4); }},
      {"error_ms", true,
       [](const CheckRow &r) {
         return number(
             (r.projectedUs.value_or(0.0) - r.measuredUs.value_or(0.0)) / 1e3,
             4);
       }},
      {"error_%", true,
       [](const CheckRow &r) { return number(r.errorPercent, 1); }},
  };
}

template <typename RowT>
json asJson(const std::vector<Column<RowT>> &cols,
            const std::vector<RowT> &rows) {
  std::ostringstream s;
  renderTable(cols, rows, Format::Json, s);
  return json::parse(s.str());
}
} // namespace

void analysis::renderWhatIf(const WhatIf &w, const WhatIfRequest &request,
                            const std::string &dbPath, const Check *check,
                            const Options &options, std::ostream &os) {
  TotalsRow totals{w.model, w.totals, request.sparsity, ""};
  if (!request.sparsity)
    totals.targetText = "per-layer " + request.perLayerFile;
  std::vector<WhatIfOp> ops = w.ops;
  if (options.top && ops.size() > options.top)
    ops.resize(options.top);
  auto perfCols = perfRatioColumns(w.entries);
  auto opCols = opColumns(options.format == Format::Csv);
  size_t width = options.wide ? 0 : kMaxCellWidth;

  if (options.format == Format::Json) {
    json whatIf = {
        {"model", w.model},
        {"target_sparse_ratio",
         request.sparsity ? json(*request.sparsity) : json()},
        {"per_layer_file",
         request.sparsity ? json() : json(request.perLayerFile)},
        {"block", request.block},
        {"database", dbPath},
        {"threads", w.threads},
        {"perf_ratios", asJson(perfCols, w.entries)},
        {"ops", asJson(opCols, ops)},
        {"totals", asJson(totalsColumns(), std::vector<TotalsRow>{totals})[0]}};
    if (check) {
      whatIf["check"] = asJson(checkColumns(), check->rows);
      whatIf["check_medians"] = {
          {"projected_ms", check->medianProjectedUs / 1e3},
          {"measured_ms", check->medianMeasuredUs / 1e3},
          {"error_%", check->medianErrorPercent()
                          ? json(*check->medianErrorPercent())
                          : json()}};
    }
    os << json{{"opscope", {{"what_if", whatIf}}}}.dump(2) << "\n";
    return;
  }
  bool csv = options.format == Format::Csv;
  bool md = options.format == Format::Markdown;
  auto heading = [&](const std::string &title) {
    if (md)
      os << "### " << title.substr(0, title.rfind(':')) << "\n\n";
    else if (!csv)
      os << title << "\n";
  };
  if (!csv) {
    std::string target = request.sparsity
                             ? "every sparse-capable op pruned to " +
                                   std::to_string(static_cast<int>(
                                       std::round(*request.sparsity * 100))) +
                                   "%"
                             : "the ratios of " + request.perLayerFile;
    size_t keptDense = 0;
    for (const WhatIfOp &op : w.ops)
      keptDense += op.perfRatio && !op.projectedSparse;
    os << (md ? "" : "what-if: ") << w.model << ", " << target
       << " in " << request.block << " blocks, "
       << (request.forceSparse
               ? std::string("every such op on the sparse kernel "
                             "(--force-sparse)")
               : "each op on the kernel --sparse auto would choose with "
                 "this database (the faster; " +
                     std::to_string(keptDense) +
                     " kept dense; --force-sparse projects them sparse)")
       << "; tuning database " << dbPath << ", threads " << w.threads << "\n"
       << "perf ratio = dense ms / sparse ms measured for the op's weight "
          "shape, M and precision; linear between measured ratios, never "
          "beyond them\n\n";
  }
  heading("perf ratios measured (dense ms / sparse ms):");
  renderTable(perfCols, w.entries, options.format, os, width);
  os << "\n";
  heading("ops (times per iteration):");
  renderTable(opCols, ops, options.format, os, width);
  os << "\n";
  heading("totals:");
  renderTable(totalsColumns(), std::vector<TotalsRow>{totals}, options.format,
              os, width);
  if (check) {
    os << "\n";
    heading("check against the measured trace (error = projected - measured):");
    renderTable(checkColumns(), check->rows, options.format, os, width);
    // Not a CSV part: the CSV keeps its four tables.
    if (auto medianError = check->medianErrorPercent(); !csv && medianError) {
      char line[256];
      std::snprintf(line, sizeof line,
                    "on per-op medians: projected %.4f ms, measured %.4f ms, "
                    "error %+.1f%% (each op's median execution x its "
                    "executions per iteration: robust to iterations the "
                    "host slows)",
                    check->medianProjectedUs / 1e3,
                    check->medianMeasuredUs / 1e3, *medianError);
      os << "\n" << line << "\n";
    }
  }
}
