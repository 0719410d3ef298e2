//===- opscope-report.cpp - one self-contained HTML report ----------------===//
//
// Part of opscope. `opscope-report TRACE.json [--diff OTHER.json] -o
// report.html`: the run header, time by op type, the top ops, the iteration
// latency histogram, a timeline of one iteration, the roofline when the
// machine is calibrated and, with --diff, the per-op change. Every figure is
// rendered by the analyzer's library (the same calls opscope-analyze makes,
// as JSON for the charts and as its markdown tables for the text), so the
// page and opscope-analyze cannot disagree. See docs/report.md. Two other
// pages: `--bench GRID.csv` (an opscope-bench grid) and `--sweep DIR` (an
// opscope-sweep results directory, Sweep.cpp; docs/sweep.md). The work is
// in ReportTool.cpp (the opscope_report_tool library); this file parses
// flags.
//
//===----------------------------------------------------------------------===//

#include "ReportTool.h"
#include "ToolCommon.h"

int main(int argc, char **argv) {
  CLI::App app{"opscope-report: one self-contained HTML report of an opscope "
               "trace (figures from opscope-analyze's library)"};
  opscope::tools::report::Options options;
  opscope::tools::report::addOptions(app, options);
  opscope::tools::addVersionFlag(app, "opscope-report");
  if (int code = opscope::tools::parseCommandLine(app, argc, argv); code >= 0)
    return code;
  return opscope::tools::report::run(app, options);
}
