//===- Render.cpp - opscope-analyze output formats ------------------------===//
//
// Part of opscope's runtime. One column list drives all four formats, so
// table, CSV, JSON and markdown cannot disagree. Every column names its unit.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/analysis.h"

#include "Table.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <functional>
#include <ostream>

using nlohmann::json;
using namespace opscope;
using namespace opscope::analysis;

using namespace opscope::analysis::table;

namespace {
struct SummaryItem {
  std::string metric;
  std::optional<double> value;
  std::string unit;
  int precision;
  std::string textValue;
};

std::vector<SummaryItem> summaryOf(const Profile &p,
                                   const std::optional<Machine> &roofline) {
  std::vector<SummaryItem> s;
  const Distribution &it = p.iterations;
  double iterations = it.count() ? static_cast<double>(it.count()) : 0.0;
  s.push_back({"model", std::nullopt, "", 0, p.header.model});
  s.push_back({"iterations", static_cast<double>(it.count()), "", 0, ""});
  auto ms = [&](std::optional<double> us) -> std::optional<double> {
    if (!us)
      return std::nullopt;
    return *us / 1e3;
  };
  bool has = it.count() > 0;
  s.push_back({"latency_min", ms(has ? std::optional(it.min()) : std::nullopt), "ms", 3, ""});
  s.push_back({"latency_mean", ms(has ? std::optional(it.mean()) : std::nullopt), "ms", 3, ""});
  for (double q : {50.0, 90.0, 95.0, 99.0, 99.9}) {
    char name[32];
    std::snprintf(name, sizeof name, "latency_p%g", q);
    s.push_back({name, ms(has ? std::optional(it.percentile(q)) : std::nullopt), "ms", 3, ""});
  }
  s.push_back({"latency_max", ms(has ? std::optional(it.max()) : std::nullopt), "ms", 3, ""});
  std::optional<double> opTime;
  if (iterations > 0)
    opTime = p.opTimeUs / iterations / 1e3;
  s.push_back({"op_time_per_iteration", opTime, "ms", 3, ""});
  std::optional<double> coverage;
  if (opTime && has && it.mean() > 0)
    coverage = 100.0 * *opTime * 1e3 / it.mean();
  s.push_back({"coverage_of_wall_time", coverage, "%", 1, ""});
  s.push_back({"op_events", static_cast<double>(p.opEvents), "", 0, ""});
  s.push_back({"probe_cost", p.header.probeCostNs, "ns", 1, ""});
  std::optional<double> overhead, net;
  if (iterations > 0) {
    overhead = p.header.probeCostNs * p.opEvents / iterations / 1e6;
    // Never negative: a cost estimate above the measured time means the op
    // is too short to measure, not that it took negative time.
    net = std::max(0.0, *opTime - *overhead);
  }
  s.push_back({"probe_overhead_per_iteration", overhead, "ms", 3, ""});
  s.push_back({"op_time_without_probe_cost", net, "ms", 3, ""});
  s.push_back({"dropped_events", static_cast<double>(p.header.droppedEvents), "", 0, ""});
  // Start-up and memory, when the trace records them.
  const trace::StartupInfo &st = p.header.startup;
  auto startup = [&](const char *name, std::optional<double> v) {
    if (v)
      s.push_back({name, v, "ms", 2, ""});
  };
  startup("startup_load", st.loadMs);
  startup("startup_map_weights", st.mapWeightsMs);
  startup("startup_create_kernels", st.createKernelsMs);
  if (!st.slowestKernel.empty())
    s.push_back({"startup_slowest_kernel", std::nullopt, "", 0, st.slowestKernel});
  startup("startup_slowest_kernel_time", st.slowestKernelMs);
  startup("startup_first_run", st.firstRunMs);
  const trace::MemoryInfo &mem = p.header.memory;
  auto mib = [&](const char *name, std::optional<int64_t> v) {
    if (v)
      s.push_back({name, *v / 1048576.0, "MiB", 2, ""});
  };
  mib("arena_planned", mem.arenaBytes);
  mib("arena_peak_live", mem.peakLiveBytes);
  if (!mem.peakOp.empty())
    s.push_back({"arena_peak_op", std::nullopt, "", 0, mem.peakOp});
  mib("weights_mapped", mem.weightBytes);
  if (roofline) {
    // The peaks the roofline columns use: those measured with the trace's
    // thread count (opscope-analyze --calibrate measures each count).
    s.push_back({"trace_threads", static_cast<double>(p.header.machine.threads), "", 0, ""});
    s.push_back({"roofline_threads", static_cast<double>(roofline->threads), "", 0, ""});
    s.push_back({"roofline_peak", roofline->peakGflops, "GFLOP/s", 1, ""});
    if (roofline->peakInt8Gops > 0)
      s.push_back(
          {"roofline_peak_int8", roofline->peakInt8Gops, "GOP/s", 1, ""});
    s.push_back({"roofline_bandwidth", roofline->bandwidthGBs, "GB/s", 1, ""});
  }
  return s;
}

void renderSummary(const Profile &p, const std::optional<Machine> &roofline,
                   Format format, std::ostream &os, size_t maxCellWidth) {
  auto items = summaryOf(p, roofline);
  std::vector<Column<SummaryItem>> cols = {
      {"metric", false, [](const SummaryItem &i) { return text(i.metric); }},
      {"value", true,
       [](const SummaryItem &i) {
         if (!i.textValue.empty() || (!i.value && i.unit.empty()))
           return text(i.textValue);
         return number(i.value, i.precision);
       }},
      {"unit", false, [](const SummaryItem &i) { return text(i.unit); }}};
  renderTable(cols, items, format, os, maxCellWidth);
}

std::vector<Column<Row>> opColumns(bool roofline) {
  std::vector<Column<Row>> cols = {
      {"id", true, [](const Row &r) { return integer(r.id); }},
      {"name", false, [](const Row &r) { return text(r.name); }},
      {"type", false, [](const Row &r) { return text(r.type); }},
      {"post_ops", false, [](const Row &r) { return text(r.postOps); }},
      {"count", true, [](const Row &r) { return integer(r.count); }},
      {"self_ms", true, [](const Row &r) { return number(r.timeUs / 1e3, 3); }},
      {"self_%", true, [](const Row &r) { return number(r.percent, 1); }},
      {"cum_ms", true, [](const Row &r) { return number(r.cumUs / 1e3, 3); }},
      {"cum_%", true, [](const Row &r) { return number(r.cumPercent, 1); }},
      {"mean_us", true, [](const Row &r) { return number(r.meanUs, 1); }},
      {"p50_us", true, [](const Row &r) { return number(r.p50Us, 1); }},
      {"p99_us", true, [](const Row &r) { return number(r.p99Us, 1); }},
      {"gflop", true,
       [](const Row &r) {
         return number(r.flops ? std::optional(*r.flops / 1e9) : std::nullopt, 4);
       }},
      {"gflop/s", true, [](const Row &r) { return number(r.gflops, 1); }},
      {"mb", true,
       [](const Row &r) {
         return number(r.bytes ? std::optional(*r.bytes / 1e6) : std::nullopt, 3);
       }},
      {"gb/s", true, [](const Row &r) { return number(r.gbs, 1); }},
      {"inputs", false, [](const Row &r) { return text(r.inputs); }},
      {"outputs", false, [](const Row &r) { return text(r.outputs); }},
  };
  if (roofline) {
    cols.push_back(
        {"precision", false, [](const Row &r) { return text(r.precision); }});
    cols.push_back({"flop/byte", true, [](const Row &r) { return number(r.intensity, 2); }});
    cols.push_back({"attainable_gflop/s", true,
                    [](const Row &r) { return number(r.attainableGflops, 1); }});
    cols.push_back({"peak_%", true, [](const Row &r) { return number(r.peakPercent, 1); }});
    cols.push_back({"bound", false, [](const Row &r) { return text(r.bound); }});
  }
  return cols;
}
} // namespace

void analysis::render(const Profile &profile, const std::vector<Row> &rows,
                      const Options &options, std::ostream &os) {
  auto cols = opColumns(options.roofline.has_value());
  if (options.aggregateBy)
    cols.erase(cols.begin()); // ids do not survive aggregation
  if (options.format == Format::Json) {
    // One JSON document: {"summary": [...], "ops": [...]}.
    os << "{";
    if (options.printSummary) {
      os << "\"summary\": ";
      renderSummary(profile, options.roofline, Format::Json, os, 0);
    }
    if (options.printOps) {
      os << (options.printSummary ? ", " : "") << "\"ops\": ";
      renderTable(cols, rows, Format::Json, os);
    }
    os << "}\n";
    return;
  }
  // CSV holds one table: the ops, or the summary with --print-only summary.
  bool summary = options.printSummary &&
                 (options.format != Format::Csv || !options.printOps);
  if (summary) {
    renderSummary(profile, options.roofline, options.format, os,
                  options.wide ? 0 : kMaxCellWidth);
    if (options.printOps)
      os << "\n";
  }
  if (options.printOps)
    renderTable(cols, rows, options.format, os,
                options.wide ? 0 : kMaxCellWidth);
}

void analysis::renderDiff(const Profile &before, const Profile &after,
                          const std::vector<DiffRow> &rows,
                          const Options &options, std::ostream &os) {
  // A group lists every op it matched ("fc1/MatMul + fc1/Add + gelu/Erf");
  // terminal tables show the first and a count unless --wide.
  bool wide = options.wide || options.format == Format::Csv ||
              options.format == Format::Json;
  auto names = [wide](const std::string &all) {
    if (wide)
      return text(all);
    size_t n = 0, pos = 0;
    while ((pos = all.find(" + ", pos)) != std::string::npos)
      ++n, pos += 3;
    if (n == 0)
      return text(all);
    Cell c = text(all.substr(0, all.find(" + ")) + " (+" + std::to_string(n) +
                  ")");
    c.value = all;
    return c;
  };
  std::vector<Column<DiffRow>> cols = {
      {"before", false, [&](const DiffRow &r) { return names(r.before); }},
      {"after", false, [&](const DiffRow &r) { return names(r.after); }},
      {"type", false, [](const DiffRow &r) { return text(r.type); }},
      {"before_ms", true,
       [](const DiffRow &r) {
         return number(r.beforeUs ? std::optional(*r.beforeUs / 1e3) : std::nullopt, 3);
       }},
      {"after_ms", true,
       [](const DiffRow &r) {
         return number(r.afterUs ? std::optional(*r.afterUs / 1e3) : std::nullopt, 3);
       }},
      {"delta_ms", true, [](const DiffRow &r) { return number(r.deltaUs / 1e3, 3); }},
      {"delta_%", true, [](const DiffRow &r) { return number(r.deltaPercent, 1); }}};
  size_t cut = wide ? 0 : kMaxCellWidth;
  if (options.format == Format::Table || options.format == Format::Markdown) {
    os << "before: " << shorten(before.header.model, cut)
       << "  after: " << shorten(after.header.model, cut)
       << "  (times per iteration)\n";
  }
  renderTable(cols, rows, options.format, os, cut);
  if (options.format == Format::Json)
    os << "\n";
}
