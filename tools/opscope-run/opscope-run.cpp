//===- opscope-run.cpp - run a compiled model -----------------------------===//
//
// Part of opscope. Links the runtime only (no MLIR): loads model.so +
// model.weights (or compiles an .onnx into a cache by running
// opscope-compile), feeds inputs, checks outputs, measures latency and
// profiles. The work is in RunTool.cpp (the opscope_run_tool library) over
// the runtime tooling library; this file parses flags.
//
//===----------------------------------------------------------------------===//

#include "RunTool.h"
#include "ToolCommon.h"

int main(int argc, char **argv) {
  CLI::App app{"opscope-run: run a compiled model (model.so + model.weights)"};
  opscope::tools::run::Options options;
  opscope::tools::run::addOptions(app, options);
  opscope::tools::addVersionFlag(app, "opscope-run");
  if (int code = opscope::tools::parseCommandLine(app, argc, argv); code >= 0)
    return code;
  return opscope::tools::run::run(app, options);
}
