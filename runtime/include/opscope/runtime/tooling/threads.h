//===- threads.h - how many kernel threads a run should use -----*- C++ -*-===//
//
// Part of opscope's runtime tooling (no MLIR). oneDNN's OpenMP threads meet
// at a barrier after every op; when another process occupies a core, the
// worker on it is descheduled and every op waits for it (issue 16 reported
// BERT-mini at ~250 ms with all cores against 14 ms with one, on a 2-core
// machine with one core busy). So the default thread count is the number of
// cores idle when the run starts, not the number of cores.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_TOOLING_THREADS_H
#define OPSCOPE_RUNTIME_TOOLING_THREADS_H

#include <string>

namespace opscope::tooling {

struct CoreUsage {
  int allowed = 1; ///< cores this process may run on (its affinity mask)
  int idle = 1;    ///< of those, cores at least half idle over the window
};

/// Samples /proc/stat over `windowMs` milliseconds.
CoreUsage sampleCoreUsage(int windowMs = 50);

/// The default kernel thread count: the idle cores this process may use
/// (at least 1).
int defaultThreadCount(const CoreUsage &usage);

} // namespace opscope::tooling

#endif // OPSCOPE_RUNTIME_TOOLING_THREADS_H
