//===- Sweep.h - an opscope-sweep results directory as page data -*- C++ -*-===//
//
// Part of opscope. `opscope-report --sweep DIR`: reads the result.json of
// every finished point that opscope-sweep wrote (python/opscope/
// sweep_results.py, docs/sweep.md) and turns them into the data sweep.js
// draws: latency and throughput per configuration per CPU tier, the best
// configuration of each workload on each tier, and every point's row.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_TOOLS_OPSCOPE_REPORT_SWEEP_H
#define OPSCOPE_TOOLS_OPSCOPE_REPORT_SWEEP_H

#include <nlohmann/json.hpp>

#include <string>

namespace opscope::report {

/// Fills `data` from the results directory `dir`. Returns "" or an error
/// naming the directory or the file that cannot be read.
std::string readSweep(const std::string &dir, nlohmann::json &data);

} // namespace opscope::report

#endif // OPSCOPE_TOOLS_OPSCOPE_REPORT_SWEEP_H
