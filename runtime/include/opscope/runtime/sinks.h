//===- sinks.h - trace, CSV and summary sinks -------------------*- C++ -*-===//
//
// Part of opscope's runtime. Turns what sessions recorded into the files
// performance engineers open: the Chrome Trace Event JSON of
// docs/trace-format.md (Perfetto, chrome://tracing, opscope-analyze), the
// per-op profiling CSV of docs/profile-csv.md, and a terminal summary. Files
// are written to a temporary name and renamed: an interrupted run leaves a
// complete file or none.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_SINKS_H
#define OPSCOPE_RUNTIME_SINKS_H

#include "opscope/runtime/model.h"

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace opscope {

struct ProfileData {
  const Model *model = nullptr;
  /// Sessions whose profilers recorded (each one's events, labels, kernels).
  std::vector<const Session *> sessions;
  /// Run configuration, shown as text (`iterations`, `warmup`, ...).
  std::vector<std::pair<std::string, std::string>> run;
  int threads = 1;
  double probeCostNs = 0;
  /// Iterations recorded before this one (warm-up) are left out of the CSV
  /// and the summary (they stay in the trace).
  int skipIterations = 0;
};

/// The best ISA the kernels use (for trace headers; cpu.h's hostCpu()
/// names the CPU).
std::string kernelIsaName();
/// One line naming the tier in force: the ISA (and cap), and the
/// implementation of opscope's own and sparse kernels (opscope-run's
/// summary, `--print-probes`).
std::string kernelTierLine();
/// Whether the CPU has AMX (cpu.h's best level, ignoring any cap).
bool cpuHasAmx();

void writeTrace(const std::string &path, const ProfileData &data);
/// The same trace into a stream (the Python profiler keeps it in memory).
void writeTrace(std::ostream &os, const ProfileData &data);
/// The probe table, one tab-separated row per probe (opscope-run
/// --print-probes), or a line saying the model has none.
void printProbeTable(std::ostream &os, const Model &model);
void writeProfileCsv(const std::string &path, const ProfileData &data);
/// Latency percentiles and the top `top` ops by self time.
void printProfileSummary(std::ostream &os, const ProfileData &data, int top);

/// The arena's high-water mark: the plan op with the most bytes live while
/// it runs (bytes < 0 when the compiler did not record live bytes).
struct MemoryPeak {
  int64_t bytes = -1;
  int64_t op = -1;    ///< plan op index
  int64_t probe = -1; ///< the probe around that op, -1 when unprobed
  std::string name;   ///< the probe's name, else the op's
};
MemoryPeak memoryPeak(const Model &model);

/// Start-up in ms (< 0: not recorded): the model's load and weight
/// mapping, and `session`'s kernel creation (with its slowest op) and first
/// run.
struct StartupTimes {
  double loadMs = -1, mapWeightsMs = -1, createKernelsMs = -1,
         firstRunMs = -1, slowestKernelMs = -1;
  std::string slowestKernel;
};
StartupTimes startupTimes(const Model &model, const Session *session);
/// One line each for the start-up and the memory peak (the run summary).
void printStartupAndMemory(std::ostream &os, const Model &model,
                           const Session *session);

/// Per-op statistics over measured iterations (ms), by probe id.
struct OpStats {
  int64_t count = 0;
  double mean = 0, p50 = 0, p99 = 0, total = 0;
  /// The smallest and largest run-time extent the measured executions
  /// produced (ProbeEvent::extent); -1 when the op has no bounded output.
  int64_t extentMin = -1, extentMax = -1;
};
std::vector<OpStats> opStatistics(const ProfileData &data);
/// Iteration wall times (ms) of measured iterations, all sessions.
std::vector<double> iterationTimes(const ProfileData &data);
/// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double> &sorted, double p);

} // namespace opscope

#endif // OPSCOPE_RUNTIME_SINKS_H
