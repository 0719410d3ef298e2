//===- CompileTool.h - opscope-compile's flags and compilation --*- C++ -*-===//
//
// Part of opscope. What opscope-compile does, as a library (IREE's
// tooling/run_module over iree-run-module-main): the flags as plain data,
// their declarations on a CLI11 app, the command-line rewrite for the
// options whose value is optional, and the run over parsed flags (checks,
// int8 calibration, compilation). The tool's main() only parses; unit
// tests can link this.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_COMPILE_COMPILETOOL_H
#define OPSCOPE_TOOLS_COMPILE_COMPILETOOL_H

#include "opscope/Compiler/Compiler.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace opscope::tools::compile {

/// Every flag of opscope-compile, as parsed.
struct Options {
  /// The flags that are compiler options, bound to their fields (the model,
  /// -o, --fuse-options, --profile-types, --precision, --calibration,
  /// --calibration-method, --keep-fp32, --sparse, --sparse-threshold,
  /// --no-sparse-chains, --no-conv-layout, --no-int8-chains, --bf16-chains,
  /// --timing), with the compiler's defaults. run() fills in the rest.
  CompileOptions compile;
  std::vector<std::string> shapes, frozen;
  std::string emit = "lib";
  bool noFuse = false, noCheck = false, noProbes = false;
  std::string profile, printFusion;
  std::string calibrationInputs;
  std::string kernels;
  std::string maxTensorBytes = "4G", maxTotalBytes = "16G";
  /// A bare --profile (every op), which rewriteCommandLine takes out of the
  /// command line.
  bool bareProfile = false;
};

/// Declares opscope-compile's flags on `app`, bound to `o` (the help texts
/// as before).
void addOptions(CLI::App &app, Options &o);

/// The command line `argv` as it is to be parsed, into `args`: options with
/// an optional value take it only after '=' (a bare `--print-fusion
/// model.onnx` must not read the model as the value), so a bare
/// --print-fusion becomes --print-fusion=table and a bare --profile is taken
/// out (`o.bareProfile`). Returns -1 to go on, else the exit code (2 after
/// `--profile REGEX`, with a message).
int rewriteCommandLine(int argc, char **argv, Options &o,
                       std::vector<std::string> &args);

/// Runs opscope-compile on parsed options: the exit code (0, 1 failure, 2
/// usage). Fills in the rest of `o.compile`.
int run(const CLI::App &app, Options &o);

} // namespace opscope::tools::compile

#endif // OPSCOPE_TOOLS_COMPILE_COMPILETOOL_H
