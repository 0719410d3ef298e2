//===- RunTool.h - opscope-run's flags and modes ----------------*- C++ -*-===//
//
// Part of opscope. What opscope-run does, as a library (IREE's
// tooling/run_module over iree-run-module-main): the flags as plain data,
// their declarations on a CLI11 app, and the run over parsed flags. The
// tool's main() only parses; unit tests can link this.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_RUN_RUNTOOL_H
#define OPSCOPE_TOOLS_RUN_RUNTOOL_H

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace opscope::tools::run {

/// Every flag of opscope-run, as parsed.
struct Options {
  std::string modelPath, outputDir, tracePath, csvPath;
  std::vector<std::string> inputs, expects, shapes;
  uint64_t seed = 0;
  int64_t intMax = 2;
  double rtol = 1e-4, atol = 1e-5;
  int iterations = 10, warmup = 2, threads = 0, top = 10, instances = 1;
  size_t probeCapacity = 0;
  bool printPlan = false, printProbes = false, profile = false,
       noFuse = false, quiet = false;
  /// "" when --mode is not given: run() derives it from the other flags.
  std::string mode;
  int coresPerInstance = 0;
  std::string compareTo, inputsDir, calibratePath;
  int randomSets = 0;
  double minCosine = -1.0;
};

/// Declares opscope-run's flags on `app`, bound to `o`.
void addOptions(CLI::App &app, Options &o);

/// Runs opscope-run on parsed options: the exit code (0, 1 failure, 2
/// usage). Reads from `app` which of --mode and --instances were given.
int run(const CLI::App &app, Options &o);

} // namespace opscope::tools::run

#endif // OPSCOPE_TOOLS_RUN_RUNTOOL_H
