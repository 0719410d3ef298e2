//===- AnalyzeTool.h - opscope-analyze's flags and modes --------*- C++ -*-===//
//
// Part of opscope. What opscope-analyze does, as a library (IREE's
// tooling/run_module over iree-run-module-main): the flags as plain data,
// their declarations on a CLI11 app, and the run over parsed flags. The
// tool's main() only parses; unit tests can link this.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_ANALYZE_ANALYZETOOL_H
#define OPSCOPE_TOOLS_ANALYZE_ANALYZETOOL_H

#include "opscope/runtime/analysis.h"

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace opscope::tools::analyze {

/// Every flag of opscope-analyze, as parsed.
struct Options {
  std::string tracePath, diffPath, orderBy = "time", aggregateBy,
                                   aggregate = "sum", minTime, maxTime, label,
                                   printOnly, format = "table", name,
                                   machineFile = analysis::defaultMachineFile();
  std::vector<std::string> types;
  size_t top = 0;
  int64_t skip = 0;
  bool calibrate = false, roofline = false, includeWarmUp = false, wide = false;
  std::string whatIf, block = "1x4", precision, dbPath, checkPath;
  bool forceSparse = false;
};

/// Declares opscope-analyze's flags on `app`, bound to `o` (the help texts
/// as before).
void addOptions(CLI::App &app, Options &o);

/// Runs opscope-analyze on parsed options: the exit code (0, 1 failure, 2
/// usage). Reads from `app` which of --what-if and the flags that need it
/// or exclude it were given.
int run(const CLI::App &app, Options &o);

} // namespace opscope::tools::analyze

#endif // OPSCOPE_TOOLS_ANALYZE_ANALYZETOOL_H
