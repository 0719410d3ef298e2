//===- ProfileTool.h - opscope-profile's flags and steps --------*- C++ -*-===//
//
// Part of opscope (docs/sparsify-profiles.md). What opscope-profile does,
// as a library: the flags as plain data, their declarations on a CLI11
// app, and the profile over parsed flags. The tool's main() only parses.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_PROFILE_PROFILETOOL_H
#define OPSCOPE_TOOLS_PROFILE_PROFILETOOL_H

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace opscope::tools::profile {

/// Every flag of opscope-profile, as parsed.
struct Options {
  std::string modelPath, outPath, csvPath, perLayerPath, inputsDir, dbPath,
      machineFile, layersArg;
  std::vector<std::string> shapes;
  std::vector<double> sparsities = {0.7, 0.8, 0.9};
  bool perf = false, flopsOnly = false, loss = false, verify = false;
  int randomSets = 0, iterations = 20, threads = 1;
  double budget = 0.01;
  uint64_t seed = 0;
  int64_t intMax = 2;
};

/// Declares opscope-profile's flags on `app`, bound to `o`.
void addOptions(CLI::App &app, Options &o);

/// Profiles the model of parsed options: the exit code (0, 1 failure, 2
/// usage).
int run(Options &o);

} // namespace opscope::tools::profile

#endif // OPSCOPE_TOOLS_PROFILE_PROFILETOOL_H
