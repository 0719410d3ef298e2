//===- opscope-compile.cpp - compile a model to a native library ----------===//
//
// Part of opscope. `opscope-compile MODEL --input-shape NAME=DIMS ... -o
// OUT.so` writes OUT.so and OUT.weights; `--print-fusion[=json]` prints the
// ops after fusion without compiling (unless -o is also given);
// Probes go around every op by default (they cost one branch per run while
// profiling is off); `--profile=REGEX` / `--profile-types=KINDS` select ops,
// `--no-probes` leaves them out.
// This file only parses the command line; the work is in CompileTool.cpp.
//
//===----------------------------------------------------------------------===//

#include "CompileTool.h"

#include "ToolCommon.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

int main(int argc, char **argv) {
  CLI::App app{"opscope-compile: compile an ONNX or osc model to model.so + "
               "model.weights"};
  opscope::tools::compile::Options options;
  opscope::tools::compile::addOptions(app, options);
  // Options with an optional value take it only after '=' (see
  // rewriteCommandLine).
  std::vector<std::string> args;
  if (int code = opscope::tools::compile::rewriteCommandLine(argc, argv,
                                                             options, args);
      code >= 0)
    return code;
  std::vector<char *> argvFixed;
  for (std::string &a : args)
    argvFixed.push_back(a.data());
  opscope::tools::addVersionFlag(app, "opscope-compile");
  if (int code = opscope::tools::parseCommandLine(
          app, static_cast<int>(argvFixed.size()), argvFixed.data());
      code >= 0)
    return code;
  return opscope::tools::compile::run(app, options);
}
