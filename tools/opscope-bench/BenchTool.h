//===- BenchTool.h - opscope-bench's flags and grid -------------*- C++ -*-===//
//
// Part of opscope. What opscope-bench does, as a library (IREE's
// tooling/run_module over iree-run-module-main): the flags as plain data,
// their declarations on a CLI11 app, and the run over parsed flags (compile
// the grid, run it in rounds, print the table, write the CSV and HTML). The
// tool's main() only parses; unit tests can link this.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_BENCH_BENCHTOOL_H
#define OPSCOPE_TOOLS_BENCH_BENCHTOOL_H

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace opscope::tools::bench {

/// --ort-runner's default: the source tree's scripts/ort_run.js
/// (OPSCOPE_ORT_RUNNER, which CMake defines for BenchTool.cpp).
std::string defaultOrtRunner();

/// Every flag of opscope-bench, as parsed.
struct Options {
  std::string modelPath, csvPath, htmlPath, workDir, calibration,
      ortRunner = defaultOrtRunner();
  std::vector<std::string> templates, precisions = {"fp32"};
  std::vector<int64_t> batches = {1}, seqs;
  /// Kernel thread counts: a grid dimension (the scaling curve).
  std::vector<int> threads = {1};
  int rounds = 3, iterations = 10, warmup = 2, cpu = -1, intMax = 2;
  bool compareOrt = false;
};

/// Declares opscope-bench's flags on `app`, bound to `o` (the help texts as
/// before).
void addOptions(CLI::App &app, Options &o);

/// Runs opscope-bench on parsed options: the exit code (0, 1 failure, 2
/// usage). Fills in the defaults of --seq and --work in `o`.
int run(const CLI::App &app, Options &o);

} // namespace opscope::tools::bench

#endif // OPSCOPE_TOOLS_BENCH_BENCHTOOL_H
