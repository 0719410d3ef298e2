//===- benchmark.h - timed runs of one or several sessions -----*- C++ -*-===//
//
// Part of opscope's runtime tooling (no MLIR). The benchmark driver of
// opscope-run: warm-up and measured runs under the profiler's "warm up" and
// "measure" labels, one thread per instance, and the latency statistics
// and throughput it prints.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_TOOLING_BENCHMARK_H
#define OPSCOPE_RUNTIME_TOOLING_BENCHMARK_H

#include "opscope/runtime/model.h"
#include "opscope/runtime/npy.h"

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace opscope::tooling {

struct BenchmarkConfig {
  int warmup = 2;
  int iterations = 10;
  bool profile = false; ///< enable each session's profiler
  /// Throughput mode: the CPUs each instance's thread (and the kernel
  /// threads it starts) is pinned to, one list per session; empty: no
  /// pinning. Pinned instances always run on threads of their own, each
  /// with as many kernel threads as it has CPUs.
  std::vector<std::vector<int>> cores;
  /// Called by the first instance's thread after each of its runs with the
  /// runs all instances have completed (warm-up included) and the total,
  /// for a progress line; may be empty.
  std::function<void(int64_t done, int64_t total)> onRun;
};

struct BenchmarkResult {
  /// Measured run times per instance, ms.
  std::vector<std::vector<double>> perInstanceMs;
  /// Wall time of the whole drive (warm-up included), ms.
  double wallMs = 0;
  /// Iterations instance 0 recorded before measuring (its warm-up).
  int warmupIterations = 0;
  std::vector<double> allMs() const;
};

/// The CPUs this process may run on (its affinity mask), in order.
std::vector<int> allowedCpus();
/// `instances` lists of `perInstance` CPUs taken in order from `allowed`,
/// wrapping around when there are fewer CPUs than instances need
/// (`shared` is then set: instances share CPUs).
std::vector<std::vector<int>> assignCores(const std::vector<int> &allowed,
                                          int instances, int perInstance,
                                          bool &shared);

/// Runs every session `warmup` then `iterations` times, each on its own
/// thread when there are several; at least one run even with 0
/// iterations. Throws opscope::Error with the first session's failure.
BenchmarkResult runBenchmark(const std::vector<Session *> &sessions,
                             const BenchmarkConfig &config);

struct LatencyStats {
  int64_t count = 0;
  double min = 0, max = 0, mean = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0,
         p999 = 0;
};
/// Nearest-rank percentiles of `ms`.
LatencyStats latencyStats(std::vector<double> ms);

/// Runs per second: one instance from its mean latency; several from the
/// completed runs (warm-up included) over the wall time.
double runsPerSecond(const BenchmarkResult &r, const BenchmarkConfig &config,
                     const LatencyStats &stats);

/// A random tensor for an input: floats uniform in [-1, 1), integers in
/// [0, intMax), booleans 0/1.
rt::HostTensor randomTensor(const TensorInfo &info, std::mt19937_64 &rng,
                            int64_t intMax);

/// Input sets in a directory: one per subdirectory of `dir` (sorted), or
/// `dir` itself when it holds the files directly. Each set has one
/// NAME.npy per model input ('/' in names as '_'), nothing else. Returns
/// "" or an error naming the directory, set or file.
std::string readInputSets(const std::string &dir, const Model &model,
                          std::vector<std::vector<rt::HostTensor>> &out);

} // namespace opscope::tooling

#endif // OPSCOPE_RUNTIME_TOOLING_BENCHMARK_H
