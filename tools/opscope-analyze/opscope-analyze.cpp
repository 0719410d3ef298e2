//===- opscope-analyze.cpp - answers from a trace -------------------------===//
//
// Part of opscope. `opscope-analyze TRACE.json [options]`: per-op tables,
// the run summary, a two-trace diff, roofline columns and the what-if of
// pruning (with --check against a measured trace). See
// docs/opscope-analyze.md. The work is in AnalyzeTool.cpp (the
// opscope_analyze_tool library); this file parses flags.
//
//===----------------------------------------------------------------------===//

#include "AnalyzeTool.h"
#include "ToolCommon.h"

int main(int argc, char **argv) {
  CLI::App app{"opscope-analyze: per-op tables, summaries, diffs and rooflines "
               "from an opscope trace"};
  opscope::tools::analyze::Options options;
  opscope::tools::analyze::addOptions(app, options);
  opscope::tools::addVersionFlag(app, "opscope-analyze");
  if (int code = opscope::tools::parseCommandLine(app, argc, argv); code >= 0)
    return code;
  return opscope::tools::analyze::run(app, options);
}
