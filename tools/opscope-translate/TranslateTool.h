//===- TranslateTool.h - opscope-translate's flags and import ---*- C++ -*-===//
//
// Part of opscope. What opscope-translate does, as a library (IREE's
// tooling/run_module over iree-run-module-main): the flags as plain data,
// their declarations on a CLI11 app, and the run over parsed flags (the
// ONNX import into the osc dialect, printed as .mlir). The tool's main()
// only parses; unit tests can link this.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_TRANSLATE_TRANSLATETOOL_H
#define OPSCOPE_TOOLS_TRANSLATE_TRANSLATETOOL_H

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace opscope::tools::translate {

/// Every flag of opscope-translate, as parsed.
struct Options {
  std::string model, output = "-";
  bool listOps = false;
  std::vector<std::string> shapes, frozen;
  bool elideWeights = false, noCheck = false, printLocations = false,
       timing = false;
  std::string maxTensorBytes = "4G";
  bool stripLocations = false;
};

/// Declares opscope-translate's flags on `app`, bound to `o` (the help
/// texts as before).
void addOptions(CLI::App &app, Options &o);

/// Runs opscope-translate on parsed options: the exit code (0, 1 failure,
/// 2 usage).
int run(const CLI::App &app, Options &o);

} // namespace opscope::tools::translate

#endif // OPSCOPE_TOOLS_TRANSLATE_TRANSLATETOOL_H
