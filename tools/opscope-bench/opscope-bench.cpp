//===- opscope-bench.cpp - compile and run a grid of shapes and precisions -===//
//
// Part of opscope (docs/benchmark-modes.md, "opscope-bench"). MegEngine's
// load_and_run sweeps its run settings; this sweeps what a model is
// compiled for: batch sizes, sequence lengths and precisions. Each cell is
// compiled (into the compile cache), then all cells run in rounds, and with
// --compare-ort ONNX Runtime runs the same shapes in the same rounds, so
// the ratios compare systems under the same host load. It prints a table
// and writes a CSV and, through opscope-report, an HTML chart. This file
// only parses the command line; the work is in BenchTool.cpp.
//
//===----------------------------------------------------------------------===//

#include "BenchTool.h"

#include "ToolCommon.h"

#include <CLI/CLI.hpp>

int main(int argc, char **argv) {
  CLI::App app{"opscope-bench: compile and run a model over a grid of batch "
               "sizes, sequence lengths and precisions, optionally side by "
               "side with ONNX Runtime"};
  opscope::tools::bench::Options options;
  opscope::tools::bench::addOptions(app, options);
  opscope::tools::addVersionFlag(app, "opscope-bench");
  if (int code = opscope::tools::parseCommandLine(app, argc, argv); code >= 0)
    return code;
  return opscope::tools::bench::run(app, options);
}
