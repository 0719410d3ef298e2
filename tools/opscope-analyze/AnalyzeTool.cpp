//===- AnalyzeTool.cpp - opscope-analyze's flags and modes ----------------===//
//
// Part of opscope. See AnalyzeTool.h and docs/opscope-analyze.md: the
// calibration, the per-op tables and summary, the two-trace diff, the
// roofline columns and the what-if of pruning (with --check against a
// measured trace).
//
//===----------------------------------------------------------------------===//

#include "AnalyzeTool.h"

#include "opscope/runtime/analysis.h"
#include "opscope/runtime/per_layer.h"
#include "opscope/runtime/tuning.h"
#include "opscope/runtime/whatif.h"

#include "ToolCommon.h"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

using namespace opscope::analysis;
using opscope::tools::kFailure;
using opscope::tools::kUsage;

namespace {

const opscope::tools::ErrorReporter fail{"opscope-analyze"};

} // namespace

namespace opscope::tools::analyze {

void addOptions(CLI::App &app, Options &o) {
  app.add_option("trace", o.tracePath, "trace file (opscope-run --trace)");
  app.add_option("-t,--top", o.top, "show the first N rows (0: all)");
  app.add_option("--type", o.types, "only ops of this type (repeatable)")
      ->take_all();
  app.add_option("--name", o.name, "only ops whose name matches this regex");
  app.add_option("--order-by", o.orderBy,
                 "sort key, descending; '+KEY' ascending (time count flops "
                 "bytes gflops bandwidth name id type mean p50 p99 peak)");
  app.add_option("--aggregate-by", o.aggregateBy,
                 "group rows by type, name, kernel or shape")
      ->check(CLI::IsMember({"type", "name", "kernel", "shape"}));
  app.add_option("--aggregate", o.aggregate,
                 "how grouped times combine: sum, mean, max or min")
      ->check(CLI::IsMember({"sum", "mean", "max", "min"}));
  app.add_option("--min-time", o.minTime,
                 "only ops taking at least this per iteration (s, ms, us, ns; "
                 "a bare number is ms)");
  app.add_option("--max-time", o.maxTime, "only ops taking at most this");
  app.add_option("--label", o.label,
                 "only events recorded under this label (opscope-run records "
                 "'warm up' and 'measure'); without it, all but warm-up");
  app.add_flag("--wide", o.wide,
               "tables: long names and diff groups in full (default: cut to "
               "fit a terminal)");
  app.add_flag("--include-warmup", o.includeWarmUp,
               "without --label, count the 'warm up' iterations too");
  app.add_option("--skip-iterations", o.skip,
                 "drop iterations numbered below N (warm-up)")
      ->check(opscope::tools::nonNegativeInteger());
  app.add_option("--print-only", o.printOnly, "summary or ops")
      ->check(CLI::IsMember({"summary", "ops"}));
  app.add_option("--format", o.format, "table, csv, json or markdown")
      ->check(CLI::IsMember({"table", "csv", "json", "markdown"}));
  app.add_option("--diff", o.diffPath,
                 "compare with another trace (this one is 'before')");
  app.add_flag("--roofline", o.roofline,
               "add roofline columns (needs --calibrate once)");
  app.add_flag("--calibrate", o.calibrate,
               "measure peak FLOP/s and memory bandwidth, store them in "
               "--machine, and exit");
  app.add_option("--machine", o.machineFile, "machine figures file");
  app.add_option("--what-if", o.whatIf,
                 "project latencies with every sparse-capable op pruned to "
                 "this block sparsity in (0, 1), or to the ratios of a "
                 "per-layer FILE.json (opscope-prune --per-layer's format)");
  app.add_option("--block", o.block,
                 "with --what-if: the sparse block the pruning would use, "
                 "1x4 (default) or 4x4 (opscope-prune --block 4x4; the "
                 "runtime's 4x4 kernels)");
  opscope::tools::addWhatIfDatabaseOptions(app, o.precision, o.dbPath);
  app.add_flag("--force-sparse", o.forceSparse,
               "with --what-if: project every sparse-capable op on the "
               "sparse kernel (default: the kernel --sparse auto would "
               "choose with the database, the faster of dense and sparse)");
  app.add_option("--check", o.checkPath,
                 "with --what-if: compare the projection with a measured "
                 "trace of the pruned model (compiled with --sparse)");
}

/// --calibrate: measures the machine, stores its figures in --machine and
/// prints them.
static int calibrateAndSave(const std::string &machineFile) {
  std::cerr << "calibrating with 1 to N threads (a few seconds)...\n";
  Machine m = calibrateMachine(
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  std::error_code ec;
  std::filesystem::path parent =
      std::filesystem::path(machineFile).parent_path();
  if (!parent.empty())
    std::filesystem::create_directories(parent, ec);
  if (ec)
    return fail(parent.string() + ": " + ec.message());
  std::string err = saveMachine(machineFile, m);
  if (!err.empty())
    return fail(err);
  std::cout << "peak " << m.peakGflops << " GFLOP/s (fp32 "
            << opscope::analysis::peakOperation() << ", all cores), int8 "
            << m.peakInt8Gops << " GOP/s ("
            << opscope::analysis::int8Operation() << "), bandwidth "
            << m.bandwidthGBs << " GB/s (triad); saved to " << machineFile
            << "\n";
  for (const auto &[t, p] : m.byThreads)
    std::cout << "  " << t << (t == 1 ? " thread:  " : " threads: ") << p.gflops
              << " GFLOP/s, " << p.int8Gops << " int8 GOP/s, " << p.bandwidthGBs
              << " GB/s\n";
  return 0;
}

/// The what-if request from --what-if, --block, --precision and
/// --force-sparse, after checking which flags combine with --what-if: -1
/// when they do, else the exit code.
static int whatIfRequest(const CLI::App &app, const Options &o, bool projecting,
                         WhatIfRequest &request) {
  for (const char *flag :
       {"--block", "--precision", "--db", "--check", "--force-sparse"})
    if (!projecting && app.count(flag))
      return fail(std::string(flag) + " needs --what-if", kUsage);
  if (projecting) {
    for (const char *flag : {"--diff", "--aggregate-by", "--aggregate",
                             "--roofline", "--print-only", "--type", "--name",
                             "--order-by", "--min-time", "--max-time"})
      if (app.count(flag))
        return fail(std::string(flag) +
                        " does not combine with --what-if (the projection "
                        "covers every op)",
                    kUsage);
    if (o.block != "1x4" && o.block != "4x4")
      return fail("--block " + o.block +
                      ": the runtime's sparse kernels and the tuning "
                      "database support 1x4 and 4x4 blocks",
                  kUsage);
  }
  request.precision = o.precision;
  request.block = o.block;
  request.forceSparse = o.forceSparse;
  if (projecting) {
    std::string err = parseWhatIf(o.whatIf, "--what-if", request);
    if (!err.empty())
      return fail(err, kUsage);
  }
  return -1;
}

/// The analysis options of the table flags (and the machine figures for
/// --roofline): -1, else the exit code.
static int analysisOptions(const Options &o, analysis::Options &options) {
  options.top = o.top;
  options.wide = o.wide;
  options.types = o.types;
  if (!o.name.empty()) {
    try {
      options.name = std::regex(o.name);
    } catch (const std::regex_error &e) {
      return fail("--name: invalid regex '" + o.name + "': " + e.what(), 2);
    }
  }
  std::string err = parseOrderBy(o.orderBy, options);
  if (!err.empty())
    return fail("--order-by: " + err, 2);
  if (!o.aggregateBy.empty())
    options.aggregateBy = o.aggregateBy;
  options.aggregate = o.aggregate == "mean"  ? Aggregate::Mean
                      : o.aggregate == "max" ? Aggregate::Max
                      : o.aggregate == "min" ? Aggregate::Min
                                             : Aggregate::Sum;
  for (auto [text, slot, flag] :
       {std::tuple{&o.minTime, &options.minTimeUs, "--min-time"},
        std::tuple{&o.maxTime, &options.maxTimeUs, "--max-time"}}) {
    if (text->empty())
      continue;
    *slot = parseTimeUs(*text);
    if (!*slot)
      return fail(std::string(flag) +
                      ": expected a time like 2ms, 150us or "
                      "0.5s, got '" +
                      *text + "'",
                  2);
  }
  options.printSummary = o.printOnly != "ops";
  options.printOps = o.printOnly != "summary";
  options.format = o.format == "csv"        ? Format::Csv
                   : o.format == "json"     ? Format::Json
                   : o.format == "markdown" ? Format::Markdown
                                            : Format::Table;
  if (o.roofline) {
    Machine m;
    err = loadMachine(o.machineFile, m);
    if (!err.empty())
      return fail(err);
    options.roofline = m;
  }
  return -1;
}

/// --what-if: the projection of `profile` (checked against --check's trace
/// when given), rendered into `out`: -1, else the exit code. An empty --db
/// receives the default database's path, which the rendering names.
static int renderProjection(Options &o, const Profile &profile,
                            const EventFilter &filter, WhatIfRequest &request,
                            const analysis::Options &options,
                            std::ostream &out) {
  WhatIf projection;
  std::string err =
      projectWithDatabase(profile, o.tracePath, o.dbPath, request, projection);
  if (!err.empty())
    return fail(err, kFailure);
  Check check;
  if (!o.checkPath.empty()) {
    Profile measured;
    err = loadProfile(o.checkPath, filter, measured);
    if (!err.empty())
      return fail("--check " + err, kFailure);
    err = checkWhatIf(projection, measured, o.checkPath, check);
    if (!err.empty())
      return fail(err, kFailure);
  }
  renderWhatIf(projection, request, o.dbPath,
               o.checkPath.empty() ? nullptr : &check, options, out);
  return -1;
}

/// --diff: `profile` against --diff's trace, rendered into `out`: -1, else
/// the exit code.
static int renderComparison(const Options &o, const Profile &profile,
                            const EventFilter &filter,
                            const analysis::Options &options,
                            std::ostream &out) {
  Profile after;
  std::string err = loadProfile(o.diffPath, filter, after);
  if (!err.empty())
    return fail(err);
  renderDiff(profile, after, diffProfiles(profile, after, options), options,
             out);
  return -1;
}

int run(const CLI::App &app, Options &o) {
  if (o.calibrate)
    return calibrateAndSave(o.machineFile);
  if (o.tracePath.empty())
    return fail("a trace file is required (or --calibrate)", 2);

  bool projecting = app.count("--what-if") > 0;
  WhatIfRequest request;
  if (int code = whatIfRequest(app, o, projecting, request); code >= 0)
    return code;
  analysis::Options options;
  if (int code = analysisOptions(o, options); code >= 0)
    return code;

  EventFilter filter;
  if (!o.label.empty())
    filter.label = o.label;
  filter.includeWarmUp = o.includeWarmUp;
  filter.skipIterations = o.skip;
  Profile profile;
  std::string err = loadProfile(o.tracePath, filter, profile);
  if (!err.empty())
    return fail(err);
  // Compare with what the trace's thread count can reach, not all cores.
  if (options.roofline)
    options.roofline = options.roofline->forThreads(
        static_cast<int>(profile.header.machine.threads));

  // Render into memory first: a failure never leaves half a table.
  std::ostringstream out;
  if (projecting) {
    if (int code = renderProjection(o, profile, filter, request, options, out);
        code >= 0)
      return code;
  } else if (!o.diffPath.empty()) {
    if (int code = renderComparison(o, profile, filter, options, out);
        code >= 0)
      return code;
  } else {
    render(profile, buildRows(profile, options), options, out);
  }
  std::cout << out.str();
  return 0;
}

} // namespace opscope::tools::analyze
