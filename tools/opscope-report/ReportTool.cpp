//===- ReportTool.cpp - opscope-report's flags and pages ------------------===//
//
// Part of opscope. See ReportTool.h and docs/report.md. The trace page: the
// run header, time by op type, the top ops, the iteration latency
// histogram, a timeline of one iteration, the roofline when the machine is
// calibrated and, with --diff, the per-op change. Every figure is rendered
// by the analyzer's library (the same calls opscope-analyze makes, as JSON
// for the charts and as its markdown tables for the text), so the page and
// opscope-analyze cannot disagree. Two other pages: `--bench GRID.csv` (an
// opscope-bench grid) and `--sweep DIR` (an opscope-sweep results
// directory, Sweep.cpp; docs/sweep.md).
//
//===----------------------------------------------------------------------===//

#include "ReportTool.h"

#include "opscope/runtime/file_output.h"
#include "opscope/runtime/analysis.h"
#include "opscope/runtime/whatif.h"

#include "Sweep.h"
#include "ToolCommon.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {
#include "ReportAssets.inc"
/// An embedded file as text.
std::string asset(const unsigned char *bytes) {
  return reinterpret_cast<const char *>(bytes);
}
} // namespace

using namespace opscope;
using namespace opscope::analysis;
using nlohmann::json;

namespace {

const opscope::tools::ErrorReporter fail{"opscope-report"};

/// What opscope-analyze prints for `profile` with `options`.
std::string analyzed(const Profile &profile, const Options &options) {
  std::ostringstream os;
  render(profile, buildRows(profile, options), options, os);
  return os.str();
}

/// The precision a kernel runs in, from the suffix its name carries.
std::string precisionOf(const std::string &kernel) {
  auto endsWith = [&](const char *s) {
    size_t n = std::strlen(s);
    return kernel.size() >= n && kernel.compare(kernel.size() - n, n, s) == 0;
  };
  if (endsWith(":bf16"))
    return "bf16";
  if (endsWith(":s8"))
    return "int8";
  return "fp32";
}

/// Durations of the selected iterations (µs, for the histogram) and the op
/// events of the one whose duration is closest to the median (the timeline).
struct Iterations {
  std::vector<double> durUs;
  json timeline = nullptr;
};

std::string readIterations(const std::string &path, const EventFilter &filter,
                           const Profile &profile, Iterations &out) {
  trace::ReadCallbacks first;
  struct Span {
    int64_t iteration;
    double ts, dur;
    std::string label;
  };
  std::vector<Span> spans;
  first.onIteration = [&](const trace::IterationEvent &e) {
    if (filter.keeps(*e.label, e.iteration)) {
      out.durUs.push_back(e.durUs);
      spans.push_back({e.iteration, e.tsUs, e.durUs, *e.label});
    }
  };
  trace::ReadResult r = trace::readTrace(path, first);
  if (!r.error.empty())
    return r.error;
  if (spans.empty())
    return "";
  double median = profile.iterations.percentile(50);
  const Span *chosen = &spans[0];
  for (const Span &s : spans)
    if (std::fabs(s.dur - median) < std::fabs(chosen->dur - median))
      chosen = &s;
  // Concurrent instances share iteration numbers: keep the thread of the
  // first op event inside the chosen span.
  json ops = json::array();
  std::optional<int64_t> tid;
  trace::ReadCallbacks second;
  second.onOp = [&](const trace::OpEvent &e) {
    if (e.iteration != chosen->iteration || *e.label != chosen->label ||
        e.tsUs < chosen->ts || e.tsUs > chosen->ts + chosen->dur)
      return;
    if (!tid)
      tid = e.tid;
    if (e.tid != *tid)
      return;
    const trace::ProbeInfo &p = profile.header.probes[e.probe];
    ops.push_back({{"id", e.probe},
                   {"name", p.name},
                   {"type", p.type},
                   {"start_us", e.tsUs - chosen->ts},
                   {"dur_us", e.durUs},
                   {"live_bytes", p.liveBytes ? json(*p.liveBytes)
                                              : json(nullptr)}});
  };
  r = trace::readTrace(path, second);
  if (!r.error.empty())
    return r.error;
  out.timeline = {{"iteration", chosen->iteration},
                  {"label", chosen->label},
                  {"dur_us", chosen->dur},
                  {"ops", ops}};
  return "";
}

/// "12.50 MiB while 'name' runs, of 14.00 MiB planned", or "" when the
/// trace does not record it.
std::string peakMemoryText(const trace::MemoryInfo &m) {
  if (!m.peakLiveBytes)
    return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f MiB", *m.peakLiveBytes / 1048576.0);
  std::string text = std::string(buf) + " while '" + m.peakOp + "' runs";
  if (m.arenaBytes) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", *m.arenaBytes / 1048576.0);
    text += ", of " + std::string(buf) + " planned";
  }
  return text;
}

/// "load 1.20 ms, map weights ..., first run ...", or "".
std::string startupText(const trace::StartupInfo &s) {
  std::string text;
  auto add = [&](const char *what, const std::optional<double> &v) {
    if (!v)
      return;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s %.2f ms", what, *v);
    text += (text.empty() ? "" : ", ") + std::string(buf);
  };
  add("load", s.loadMs);
  add("map weights", s.mapWeightsMs);
  add("create kernels", s.createKernelsMs);
  add("first run", s.firstRunMs);
  return text;
}

json headerOf(const Profile &p, const std::string &path) {
  const trace::TraceHeader &h = p.header;
  std::map<std::string, int> precisions;
  for (const trace::ProbeInfo &probe : h.probes)
    ++precisions[precisionOf(probe.kernel)];
  std::string precision;
  for (const auto &[name, n] : precisions)
    precision += (precision.empty() ? "" : ", ") + name + " (" +
                 std::to_string(n) + (n == 1 ? " op)" : " ops)");
  json run = json::object();
  for (const auto &[k, v] : h.run)
    run[k] = v;
  return {{"trace", path},
          {"model", h.model},
          {"cpu", h.machine.cpu},
          {"isa", h.machine.isa},
          {"tier", h.machine.tier},
          {"amx", h.machine.amxUsed        ? "used"
                  : h.machine.amxAvailable ? "available, not used"
                                           : "not available"},
          {"threads", h.machine.threads},
          {"precision", precision.empty() ? "-" : precision},
          {"probes", h.probes.size()},
          {"probe_cost_ns", h.probeCostNs},
          {"dropped_events", h.droppedEvents},
          {"labels", h.labels},
          {"run", run},
          {"peak_memory", peakMemoryText(h.memory)},
          {"startup", startupText(h.startup)}};
}

/// `text` safe inside <script> and <style> elements.
std::string inlineSafe(std::string text) {
  for (size_t pos = 0; (pos = text.find("</", pos)) != std::string::npos;)
    text.replace(pos, 2, "<\\/"), pos += 3;
  return text;
}

std::string htmlEscape(const std::string &s) {
  std::string out;
  for (char c : s)
    out += c == '<'   ? "&lt;"
           : c == '>' ? "&gt;"
           : c == '&' ? "&amp;"
           : c == '"' ? "&quot;"
                      : std::string(1, c);
  return out;
}

std::string chartJs() {
  // The bundle's last line points at a source map that is not shipped.
  std::string js = asset(kChartJs);
  size_t map = js.rfind("//# sourceMappingURL=");
  if (map != std::string::npos)
    js.erase(map);
  return js;
}

std::string page(const json &data, const unsigned char *script = kReportJs) {
  std::string title = (script == kBenchJs   ? "opscope bench: "
                       : script == kSweepJs ? "opscope sweep: "
                                            : "opscope report: ") +
                      data["header"]["model"].get<std::string>();
  std::ostringstream os;
  os << "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta "
        "charset=\"utf-8\">\n"
     << "<title>" << htmlEscape(title) << "</title>\n"
     << "<style>\n"
     << inlineSafe(asset(kReportCss)) << "</style>\n"
     << "<script>\n"
     << inlineSafe(chartJs()) << "\n</script>\n"
     << "</head>\n<body>\n<h1>" << htmlEscape(title) << "</h1>\n"
     << "<main id=\"report\"></main>\n"
     << "<script type=\"application/json\" id=\"opscope-data\">\n"
     << inlineSafe(data.dump()) << "\n</script>\n"
     << "<script>\n"
     << inlineSafe(asset(kPageJs)) << "\n" << inlineSafe(asset(script))
     << "</script>\n"
     << "</body>\n</html>\n";
  return os.str();
}

/// Splits one CSV line (RFC 4180 quotes).
std::vector<std::string> csvCells(const std::string &line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        cells.back() += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        cells.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

/// An opscope-bench grid CSV as the page's data; "" or an error naming the
/// file.
std::string readBenchCsv(const std::string &path, json &data) {
  std::ifstream in(path);
  if (!in)
    return path + ": cannot open the grid CSV";
  std::string line;
  if (!std::getline(in, line))
    return path + ": empty; expected an opscope-bench CSV";
  std::vector<std::string> columns = csvCells(line);
  for (const char *need : {"model", "precision", "batch", "seq", "opscope_ms",
                           "samples_per_s", "ort_ms", "ratio"})
    if (std::find(columns.begin(), columns.end(), need) == columns.end())
      return path + ": not an opscope-bench CSV (no '" + need + "' column)";
  json rows = json::array();
  for (size_t n = 2; std::getline(in, line); ++n) {
    if (line.empty())
      continue;
    std::vector<std::string> cells = csvCells(line);
    if (cells.size() != columns.size())
      return path + ":" + std::to_string(n) + ": " +
             std::to_string(cells.size()) + " cells, the header has " +
             std::to_string(columns.size());
    json row = json::object();
    for (size_t i = 0; i < cells.size(); ++i)
      row[columns[i]] = cells[i];
    rows.push_back(std::move(row));
  }
  if (rows.empty())
    return path + ": the grid has no rows";
  data["header"] = {{"model", rows[0]["model"]}};
  data["bench"] = {{"file", path}, {"columns", columns}, {"rows", rows}};
  return "";
}

} // namespace

namespace opscope::tools::report {

void addOptions(CLI::App &app, Options &o) {
  auto *traceOpt =
      app.add_option("trace", o.tracePath, "trace file (opscope-run --trace)");
  auto *benchOpt = app.add_option(
      "--bench", o.benchPath,
      "instead of a trace: chart an opscope-bench grid (its --csv file)");
  traceOpt->excludes(benchOpt);
  auto *sweepOpt = app.add_option(
      "--sweep", o.sweepDir,
      "instead of a trace: chart an opscope-sweep results directory");
  sweepOpt->excludes(traceOpt)->excludes(benchOpt);
  app.add_option("-o,--output", o.outPath, "the HTML file to write")
      ->required();
  app.add_option("--diff", o.diffPath,
                 "compare with another trace (this one is 'before')");
  app.add_option("-t,--top", o.top, "ops in the top-ops chart and table")
      ->check(tools::positiveInteger());
  app.add_option("--label", o.label,
                 "only events recorded under this label; without it, all but "
                 "warm-up (as opscope-analyze)");
  app.add_flag("--include-warmup", o.includeWarmUp,
               "without --label, count the 'warm up' iterations too");
  app.add_option("--skip-iterations", o.skip,
                 "drop iterations numbered below N")
      ->check(tools::nonNegativeInteger());
  app.add_option("--machine", o.machineFile,
                 "machine figures for the roofline (default: the file "
                 "opscope-analyze --calibrate wrote, when it exists)");
  app.add_option("--what-if", o.whatIf,
                 "add the what-if table: every sparse-capable op pruned to "
                 "this block sparsity in (0, 1), or a per-layer FILE.json "
                 "(as opscope-analyze --what-if)");
  tools::addWhatIfDatabaseOptions(app, o.precision, o.dbPath);
}

namespace {

/// The same option sets opscope-analyze is run with; the test compares.
struct AnalyzeOptions {
  analysis::Options asJson, markdown;
  AnalyzeOptions() {
    asJson.format = Format::Json;
    markdown.format = Format::Markdown;
    markdown.wide = true;
  }
};

} // namespace

/// --bench GRID.csv or --sweep DIR: their page instead of a trace's.
static int writeBenchOrSweepPage(const CLI::App &app, const Options &o) {
  const char *mode = o.benchPath.empty() ? "--sweep" : "--bench";
  for (const char *flag : {"--diff", "--what-if", "--machine", "--label",
                           "--include-warmup", "--skip-iterations", "-t"})
    if (app.count(flag))
      return fail(std::string(flag) + " applies to traces, not to " + mode,
                  tools::kUsage);
  json data;
  std::string err = o.benchPath.empty()
                        ? opscope::report::readSweep(o.sweepDir, data)
                        : readBenchCsv(o.benchPath, data);
  if (!err.empty())
    return fail(err);
  err = writeFileAtomically(
      o.outPath, page(data, o.benchPath.empty() ? kSweepJs : kBenchJs));
  if (!err.empty())
    return fail(err);
  std::cout << "wrote " << o.outPath << "\n";
  return 0;
}

/// The what-if request of --what-if and --precision, after checking that
/// --precision and --db come with --what-if: -1, else the exit code.
static int whatIfRequest(const CLI::App &app, const Options &o, bool projecting,
                         WhatIfRequest &request) {
  for (const char *flag : {"--precision", "--db"})
    if (!projecting && app.count(flag))
      return fail(std::string(flag) + " needs --what-if", tools::kUsage);
  request.precision = o.precision;
  if (projecting)
    if (std::string err = parseWhatIf(o.whatIf, "--what-if", request);
        !err.empty())
      return fail(err, tools::kUsage);
  return -1;
}

/// The run header, the analysis, the summary, the top ops and the time by
/// op type.
static void addAnalysis(const Profile &profile, const Options &o,
                        const AnalyzeOptions &with, json &data) {
  data["header"] = headerOf(profile, o.tracePath);
  data["analysis"] = json::parse(analyzed(profile, with.asJson));
  analysis::Options summaryMd = with.markdown;
  summaryMd.printOps = false;
  data["summary_markdown"] = analyzed(profile, summaryMd);
  analysis::Options topMd = with.markdown;
  topMd.printSummary = false;
  topMd.top = o.top;
  data["top_markdown"] = analyzed(profile, topMd);
  data["top"] = o.top;
  analysis::Options byType = with.asJson, byTypeMd = with.markdown;
  for (analysis::Options *opts : {&byType, &byTypeMd}) {
    opts->aggregateBy = "type";
    opts->printSummary = false;
  }
  data["by_type"] = json::parse(analyzed(profile, byType))["ops"];
  data["by_type_markdown"] = analyzed(profile, byTypeMd);
}

/// The roofline, when the machine is calibrated (an explicit --machine
/// must load): -1, else the exit code.
static int addRoofline(const Profile &profile, const Options &o,
                       const AnalyzeOptions &with, json &data) {
  bool explicitMachine = !o.machineFile.empty();
  std::string machineFile =
      explicitMachine ? o.machineFile : defaultMachineFile();
  Machine machine;
  std::string machineErr = loadMachine(machineFile, machine);
  if (!machineErr.empty() && explicitMachine)
    return fail(machineErr);
  data["roofline"] = nullptr;
  if (machineErr.empty()) {
    analysis::Options roof = with.asJson;
    roof.printSummary = false;
    roof.roofline =
        machine.forThreads(static_cast<int>(profile.header.machine.threads));
    data["roofline"] = {{"machine", machineFile},
                        {"threads", roof.roofline->threads},
                        {"peak_gflops", roof.roofline->peakGflops},
                        {"peak_int8_gops", roof.roofline->peakInt8Gops},
                        {"bandwidth_gbs", roof.roofline->bandwidthGBs},
                        {"ops", json::parse(analyzed(profile, roof))["ops"]}};
  }
  return -1;
}

/// The iteration latencies and the timeline of the median iteration: -1,
/// else the exit code.
static int addIterations(const Profile &profile, const Options &o,
                         const EventFilter &filter, json &data) {
  Iterations iterations;
  if (std::string err =
          readIterations(o.tracePath, filter, profile, iterations);
      !err.empty())
    return fail(err);
  data["iterations_us"] = iterations.durUs;
  data["timeline"] = iterations.timeline;
  return -1;
}

/// With --diff, the per-op change against its trace: -1, else the exit
/// code.
static int addDiff(const Profile &profile, const Options &o,
                   const EventFilter &filter, const AnalyzeOptions &with,
                   json &data) {
  data["diff"] = nullptr;
  if (o.diffPath.empty())
    return -1;
  Profile after;
  if (std::string err = loadProfile(o.diffPath, filter, after); !err.empty())
    return fail(err);
  std::ostringstream js, md;
  renderDiff(profile, after, diffProfiles(profile, after, with.asJson),
             with.asJson, js);
  renderDiff(profile, after, diffProfiles(profile, after, with.markdown),
             with.markdown, md);
  data["diff"] = {{"after", headerOf(after, o.diffPath)},
                  {"rows", json::parse(js.str())},
                  {"markdown", md.str()}};
  return -1;
}

/// With --what-if, the projection as opscope-analyze --what-if prints it
/// (JSON for the chart, markdown for the table): -1, else the exit code.
/// An empty --db receives the default database's path.
static int addWhatIf(const Profile &profile, Options &o, bool projecting,
                     WhatIfRequest &request, const AnalyzeOptions &with,
                     json &data) {
  data["what_if"] = nullptr;
  if (!projecting)
    return -1;
  WhatIf projection;
  if (std::string err = projectWithDatabase(profile, o.tracePath, o.dbPath,
                                            request, projection);
      !err.empty())
    return fail(err);
  std::ostringstream js, md;
  renderWhatIf(projection, request, o.dbPath, nullptr, with.asJson, js);
  renderWhatIf(projection, request, o.dbPath, nullptr, with.markdown, md);
  data["what_if"] = json::parse(js.str())["opscope"]["what_if"];
  data["what_if"]["markdown"] = md.str();
  return -1;
}

/// The page of the trace: every figure of it, in the order they are read.
static int writeTracePage(const CLI::App &app, Options &o) {
  if (o.tracePath.empty())
    return fail(
        "a trace file is required (or --bench GRID.csv, or --sweep DIR)",
        tools::kUsage);
  bool projecting = app.count("--what-if") > 0;
  WhatIfRequest request;
  if (int code = whatIfRequest(app, o, projecting, request); code >= 0)
    return code;

  EventFilter filter;
  if (!o.label.empty())
    filter.label = o.label;
  filter.includeWarmUp = o.includeWarmUp;
  filter.skipIterations = o.skip;
  Profile profile;
  if (std::string err = loadProfile(o.tracePath, filter, profile); !err.empty())
    return fail(err);

  AnalyzeOptions with;
  json data;
  addAnalysis(profile, o, with, data);
  if (int code = addRoofline(profile, o, with, data); code >= 0)
    return code;
  if (int code = addIterations(profile, o, filter, data); code >= 0)
    return code;
  if (int code = addDiff(profile, o, filter, with, data); code >= 0)
    return code;
  if (int code = addWhatIf(profile, o, projecting, request, with, data);
      code >= 0)
    return code;

  if (std::string err = writeFileAtomically(o.outPath, page(data));
      !err.empty())
    return fail(err);
  std::cout << "wrote " << o.outPath << "\n";
  return 0;
}

int run(const CLI::App &app, Options &o) {
  if (!o.benchPath.empty() || !o.sweepDir.empty())
    return writeBenchOrSweepPage(app, o);
  return writeTracePage(app, o);
}

} // namespace opscope::tools::report
