//===- opscope-tune.cpp - measured dense/sparse perf-ratio table ----------===//
//
// Part of opscope (issue 14, first slice). `opscope-tune [MODEL.so]
// [--shape NxK,...] [--m 128,...] [--sparsity 0.7,0.8,0.9] [--block 1x4]
// [--precision fp32,bf16,int8]` measures, on this machine, oneDNN's dense
// inner product and opscope's 1x4 block-sparse kernel at each ratio, for
// every weight shape x M x precision, in alternating rounds
// (tooling::measureInnerProducts, shared with bench-sparse), and prints
// the perf-ratio table in Intel Neural Engine's layout: rows are weight
// shapes, columns target sparsities, cells dense/sparse. See docs/tuning.md.
// This file only parses the command line; the work is in TuneTool.cpp.
//
//===----------------------------------------------------------------------===//

#include "TuneTool.h"

#include "ToolCommon.h"

#include <CLI/CLI.hpp>

int main(int argc, char **argv) {
  CLI::App app{"opscope-tune: measure dense (oneDNN) against block-sparse "
               "inner products on this machine and print the perf-ratio "
               "table (dense ms / sparse ms)"};
  opscope::tools::addVersionFlag(app, "opscope-tune");
  opscope::tools::tune::Options options;
  opscope::tools::tune::addOptions(app, options);
  if (int code = opscope::tools::parseCommandLine(app, argc, argv); code >= 0)
    return code;
  return opscope::tools::tune::run(app, options);
}
