//===- TuneTool.h - opscope-tune's flags and measurement --------*- C++ -*-===//
//
// Part of opscope. What opscope-tune does, as a library (IREE's
// tooling/run_module over iree-run-module-main): the flags as plain data,
// their declarations on a CLI11 app, and the run over parsed flags (the
// dense/sparse perf-ratio table and the tuning database). The tool's
// main() only parses; unit tests can link this.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_TUNE_TUNETOOL_H
#define OPSCOPE_TOOLS_TUNE_TUNETOOL_H

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace opscope::tools::tune {

/// Every flag of opscope-tune, as parsed.
struct Options {
  std::string modelPath;
  std::vector<std::string> shapeArgs;
  std::vector<int64_t> mArgs;
  std::vector<double> ratios;
  std::vector<std::string> precisionArgs;
  std::string block = "1x4";
  std::string dbPath;
  bool noSave = false;
  bool warmWeights = false;
  int rounds = 5, threads = 1;
  double minMs = 250;
  std::vector<std::string> inputShapes;
};

/// Declares opscope-tune's flags on `app`, bound to `o` (the help texts as
/// before).
void addOptions(CLI::App &app, Options &o);

/// Runs opscope-tune on parsed options: the exit code (0, 1 failure, 2
/// usage). Fills in the defaults of --sparsity, --m and --db in `o`.
int run(const CLI::App &app, Options &o);

} // namespace opscope::tools::tune

#endif // OPSCOPE_TOOLS_TUNE_TUNETOOL_H
