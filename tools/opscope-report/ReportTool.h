//===- ReportTool.h - opscope-report's flags and pages ----------*- C++ -*-===//
//
// Part of opscope. What opscope-report does, as a library (IREE's
// tooling/run_module over iree-run-module-main): the flags as plain data,
// their declarations on a CLI11 app, and the run over parsed flags. The
// tool's main() only parses; unit tests can link this.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_REPORT_REPORTTOOL_H
#define OPSCOPE_TOOLS_REPORT_REPORTTOOL_H

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace opscope::tools::report {

/// Every flag of opscope-report, as parsed.
struct Options {
  std::string tracePath, diffPath, outPath, label, machineFile;
  bool includeWarmUp = false;
  int64_t skip = 0;
  size_t top = 20;
  std::string benchPath;
  std::string sweepDir;
  std::string whatIf, precision, dbPath;
};

/// Declares opscope-report's flags on `app`, bound to `o` (the help texts
/// as before).
void addOptions(CLI::App &app, Options &o);

/// Runs opscope-report on parsed options: the exit code (0, 1 failure, 2
/// usage). Reads from `app` which of --what-if and the trace-only flags
/// were given.
int run(const CLI::App &app, Options &o);

} // namespace opscope::tools::report

#endif // OPSCOPE_TOOLS_REPORT_REPORTTOOL_H
