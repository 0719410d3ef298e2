//===- opscope-translate.cpp - models into the osc dialect ----------------===//
//
// Part of opscope. `opscope-translate --import-onnx MODEL --input-shape
// NAME=DIMS ... -o OUT.mlir`.
// This file only parses the command line; the work is in TranslateTool.cpp.
//
//===----------------------------------------------------------------------===//

#include "TranslateTool.h"

#include "ToolCommon.h"

#include <CLI/CLI.hpp>

int main(int argc, char **argv) {
  CLI::App app{"opscope-translate: import models into the osc dialect"};
  opscope::tools::translate::Options options;
  opscope::tools::translate::addOptions(app, options);
  opscope::tools::addVersionFlag(app, "opscope-translate");
  if (int code = opscope::tools::parseCommandLine(app, argc, argv); code >= 0)
    return code;
  return opscope::tools::translate::run(app, options);
}
