//===- opscope-analyze.cpp - answers from a trace -------------------------===//
//
// Part of opscope. `opscope-analyze TRACE.json [options]`: per-op tables,
// the run summary, a two-trace diff, roofline columns and the what-if of
// pruning (with --check against a measured trace). See
// docs/opscope-analyze.md.
//
//===----------------------------------------------------------------------===//

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

static int fail(const std::string &message, int code = 1) {
  std::cerr << "opscope-analyze: error: " << message << "\n";
  return code;
}

int main(int argc, char **argv) {
  CLI::App app{"opscope-analyze: per-op tables, summaries, diffs and rooflines "
               "from an opscope trace"};
  std::string tracePath, diffPath, orderBy = "time", aggregateBy,
                                    aggregate = "sum", minTime, maxTime, label,
                                    printOnly, format = "table", name,
                                    machineFile = defaultMachineFile();
  std::vector<std::string> types;
  size_t top = 0;
  int64_t skip = 0;
  bool calibrate = false, roofline = false, includeWarmUp = false,
       wide = false;
  app.add_option("trace", tracePath, "trace file (opscope-run --trace)");
  app.add_option("-t,--top", top, "show the first N rows (0: all)");
  app.add_option("--type", types, "only ops of this type (repeatable)")
      ->take_all();
  app.add_option("--name", name, "only ops whose name matches this regex");
  app.add_option("--order-by", orderBy,
                 "sort key, descending; '+KEY' ascending (time count flops "
                 "bytes gflops bandwidth name id type mean p50 p99 peak)");
  app.add_option("--aggregate-by", aggregateBy,
                 "group rows by type, name, kernel or shape")
      ->check(CLI::IsMember({"type", "name", "kernel", "shape"}));
  app.add_option("--aggregate", aggregate,
                 "how grouped times combine: sum, mean, max or min")
      ->check(CLI::IsMember({"sum", "mean", "max", "min"}));
  app.add_option("--min-time", minTime,
                 "only ops taking at least this per iteration (s, ms, us, ns; "
                 "a bare number is ms)");
  app.add_option("--max-time", maxTime, "only ops taking at most this");
  app.add_option("--label", label,
                 "only events recorded under this label (opscope-run records "
                 "'warm up' and 'measure'); without it, all but warm-up");
  app.add_flag("--wide", wide,
               "tables: long names and diff groups in full (default: cut to "
               "fit a terminal)");
  app.add_flag("--include-warmup", includeWarmUp,
               "without --label, count the 'warm up' iterations too");
  app.add_option("--skip-iterations", skip,
                 "drop iterations numbered below N (warm-up)")
      ->check(opscope::tools::nonNegativeInteger());
  app.add_option("--print-only", printOnly, "summary or ops")
      ->check(CLI::IsMember({"summary", "ops"}));
  app.add_option("--format", format, "table, csv, json or markdown")
      ->check(CLI::IsMember({"table", "csv", "json", "markdown"}));
  app.add_option("--diff", diffPath,
                 "compare with another trace (this one is 'before')");
  app.add_flag("--roofline", roofline,
               "add roofline columns (needs --calibrate once)");
  app.add_flag("--calibrate", calibrate,
               "measure peak FLOP/s and memory bandwidth, store them in "
               "--machine, and exit");
  app.add_option("--machine", machineFile, "machine figures file");
  std::string whatIf, block = "1x4", precision, dbPath, checkPath;
  app.add_option("--what-if", whatIf,
                 "project latencies with every sparse-capable op pruned to "
                 "this block sparsity in (0, 1), or to the ratios of a "
                 "per-layer FILE.json (opscope-prune --per-layer's format)");
  app.add_option("--block", block,
                 "with --what-if: the sparse block the pruning would use, "
                 "1x4 (default) or 4x4 (opscope-prune --block 4x4; the "
                 "runtime's 4x4 kernels)");
  opscope::tools::addWhatIfDatabaseOptions(app, precision, dbPath);
  bool forceSparse = false;
  app.add_flag("--force-sparse", forceSparse,
               "with --what-if: project every sparse-capable op on the "
               "sparse kernel (default: the kernel --sparse auto would "
               "choose with the database, the faster of dense and sparse)");
  app.add_option("--check", checkPath,
                 "with --what-if: compare the projection with a measured "
                 "trace of the pruned model (compiled with --sparse)");
  opscope::tools::addVersionFlag(app, "opscope-analyze");
  if (int code = opscope::tools::parseCommandLine(app, argc, argv); code >= 0)
    return code;

  if (calibrate) {
    std::cerr << "calibrating with 1 to N threads (a few seconds)...\n";
    Machine m = calibrateMachine(
        static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    std::error_code ec;
    std::filesystem::path parent = std::filesystem::path(machineFile).parent_path();
    if (!parent.empty())
      std::filesystem::create_directories(parent, ec);
    if (ec)
      return fail(parent.string() + ": " + ec.message());
    std::string err = saveMachine(machineFile, m);
    if (!err.empty())
      return fail(err);
    std::cout << "peak " << m.peakGflops << " GFLOP/s (fp32 FMA, all cores), "
              << "bandwidth " << m.bandwidthGBs << " GB/s (triad); saved to "
              << machineFile << "\n";
    for (const auto &[t, p] : m.byThreads)
      std::cout << "  " << t << (t == 1 ? " thread:  " : " threads: ")
                << p.gflops << " GFLOP/s, " << p.bandwidthGBs << " GB/s\n";
    return 0;
  }
  if (tracePath.empty())
    return fail("a trace file is required (or --calibrate)", 2);

  bool projecting = app.count("--what-if") > 0;
  for (const char *flag :
       {"--block", "--precision", "--db", "--check", "--force-sparse"})
    if (!projecting && app.count(flag))
      return fail(std::string(flag) + " needs --what-if", kUsage);
  if (projecting) {
    for (const char *flag :
         {"--diff", "--aggregate-by", "--aggregate", "--roofline",
          "--print-only", "--type", "--name", "--order-by", "--min-time",
          "--max-time"})
      if (app.count(flag))
        return fail(std::string(flag) +
                        " does not combine with --what-if (the projection "
                        "covers every op)",
                    kUsage);
    if (block != "1x4" && block != "4x4")
      return fail("--block " + block +
                      ": the runtime's sparse kernels and the tuning "
                      "database support 1x4 and 4x4 blocks",
                  kUsage);
  }
  WhatIfRequest request;
  request.precision = precision;
  request.block = block;
  request.forceSparse = forceSparse;
  if (projecting) {
    std::string err = parseWhatIf(whatIf, "--what-if", request);
    if (!err.empty())
      return fail(err, kUsage);
  }

  Options options;
  options.top = top;
  options.wide = wide;
  options.types = types;
  if (!name.empty()) {
    try {
      options.name = std::regex(name);
    } catch (const std::regex_error &e) {
      return fail("--name: invalid regex '" + name + "': " + e.what(), 2);
    }
  }
  std::string err = parseOrderBy(orderBy, options);
  if (!err.empty())
    return fail("--order-by: " + err, 2);
  if (!aggregateBy.empty())
    options.aggregateBy = aggregateBy;
  options.aggregate = aggregate == "mean"  ? Aggregate::Mean
                      : aggregate == "max" ? Aggregate::Max
                      : aggregate == "min" ? Aggregate::Min
                                           : Aggregate::Sum;
  for (auto [text, slot, flag] :
       {std::tuple{&minTime, &options.minTimeUs, "--min-time"},
        std::tuple{&maxTime, &options.maxTimeUs, "--max-time"}}) {
    if (text->empty())
      continue;
    *slot = parseTimeUs(*text);
    if (!*slot)
      return fail(std::string(flag) + ": expected a time like 2ms, 150us or "
                                      "0.5s, got '" + *text + "'",
                  2);
  }
  options.printSummary = printOnly != "ops";
  options.printOps = printOnly != "summary";
  options.format = format == "csv"        ? Format::Csv
                   : format == "json"     ? Format::Json
                   : format == "markdown" ? Format::Markdown
                                          : Format::Table;
  if (roofline) {
    Machine m;
    err = loadMachine(machineFile, m);
    if (!err.empty())
      return fail(err);
    options.roofline = m;
  }

  EventFilter filter;
  if (!label.empty())
    filter.label = label;
  filter.includeWarmUp = includeWarmUp;
  filter.skipIterations = skip;
  Profile profile;
  err = loadProfile(tracePath, filter, profile);
  if (!err.empty())
    return fail(err);
  // Compare with what the trace's thread count can reach, not all cores.
  if (options.roofline)
    options.roofline = options.roofline->forThreads(
        static_cast<int>(profile.header.machine.threads));

  // Render into memory first: a failure never leaves half a table.
  std::ostringstream out;
  if (projecting) {
    WhatIf projection;
    err = projectWithDatabase(profile, tracePath, dbPath, request, projection);
    if (!err.empty())
      return fail(err, kFailure);
    Check check;
    if (!checkPath.empty()) {
      Profile measured;
      err = loadProfile(checkPath, filter, measured);
      if (!err.empty())
        return fail("--check " + err, kFailure);
      err = checkWhatIf(projection, measured, checkPath, check);
      if (!err.empty())
        return fail(err, kFailure);
    }
    renderWhatIf(projection, request, dbPath,
                 checkPath.empty() ? nullptr : &check, options, out);
  } else if (!diffPath.empty()) {
    Profile after;
    err = loadProfile(diffPath, filter, after);
    if (!err.empty())
      return fail(err);
    renderDiff(profile, after, diffProfiles(profile, after, options), options,
               out);
  } else {
    render(profile, buildRows(profile, options), options, out);
  }
  std::cout << out.str();
  return 0;
}
