//===- trace.h - the opscope trace file model -------------------*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM). The in-memory form of what a
// trace file's top-level `opscope` object holds (schema in
// docs/trace-format.md), and a streaming reader that folds the trace events
// into per-probe accumulators without keeping the events.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_TRACE_H
#define OPSCOPE_RUNTIME_TRACE_H

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opscope::trace {

/// The trace schema version this reader understands.
inline constexpr int kSchemaVersion = 1;

struct TensorInfo {
  std::string name;
  std::vector<int64_t> shape; ///< the bound, for a bounded output
  std::string dtype;
  /// A bounded output's run-time extent axis (its events carry the
  /// extent); -1 otherwise.
  int64_t extentAxis = -1;
};

/// Static facts about one probed op, from the compile-time probe table.
struct ProbeInfo {
  int64_t id = -1;
  std::string name;
  std::string type;
  std::vector<std::string> postOps;
  std::vector<std::string> sourceNodes;
  std::vector<TensorInfo> inputs, outputs;
  std::vector<int64_t> weightShape;
  std::optional<double> weightSparsity;
  std::optional<double> blockSparsity; ///< all-zero sparseBlock blocks
  std::string sparseBlock;             ///< e.g. "1x4", empty when none
  bool sparseSupport = false;
  std::optional<double> flops;
  std::optional<double> bytes;
  std::optional<int64_t> liveBytes; ///< arena bytes live while it runs
  std::string kernel;
  /// Why the compiler chose the kernel and the tuning database entry that
  /// decided (`kernel_choice`); empty where it made no such choice.
  std::string kernelChoice;
};

struct MachineInfo {
  std::string cpu, isa;
  /// Which kernels ran at which tier (opscope-run's tier line).
  std::string tier;
  bool amxAvailable = false, amxUsed = false;
  int64_t threads = 0;
};

/// The arena's planned size and high-water mark (`opscope.memory`).
struct MemoryInfo {
  std::optional<int64_t> arenaBytes, weightBytes, peakLiveBytes, peakProbe;
  std::string peakOp;
};

/// Start-up in ms (`opscope.startup`), each absent when not recorded.
struct StartupInfo {
  std::optional<double> loadMs, mapWeightsMs, createKernelsMs, firstRunMs,
      slowestKernelMs;
  std::string slowestKernel;
};

/// The `opscope` object of a trace file.
struct TraceHeader {
  int schemaVersion = 0;
  std::string model;
  /// The tuning database the model's kernels were chosen from
  /// (`tuning_db`); empty when none was.
  std::string tuningDb;
  MachineInfo machine;
  std::map<std::string, std::string> run; // run config, as text
  MemoryInfo memory;
  StartupInfo startup;
  double probeCostNs = 0.0;
  int64_t droppedEvents = 0;
  std::vector<ProbeInfo> probes; // indexed by id
  /// Labels of the recorded spans: those the header declares, then any
  /// other label an event carries.
  std::vector<std::string> labels;
};

/// The label opscope-run (and the C++ API's convention) records warm-up
/// iterations under; analyses leave it out unless asked.
inline constexpr const char *kWarmUpLabel = "warm up";

/// One op execution (`ph: "X"`, `cat: "op"`), as handed to the consumer.
struct OpEvent {
  int64_t probe = -1;
  int64_t iteration = -1;
  /// Inside a loop decided at run time: the loop's iteration (else -1).
  int64_t loopIteration = -1;
  /// An op with bounded outputs: the run-time extent it produced (else -1).
  int64_t extent = -1;
  int64_t tid = 0;
  double tsUs = 0.0, durUs = 0.0;
  const std::string *label = nullptr; // interned; never null for op events
};

/// One iteration span (`cat: "iteration"`).
struct IterationEvent {
  int64_t iteration = -1;
  double tsUs = 0.0, durUs = 0.0;
  const std::string *label = nullptr;
};

struct ReadCallbacks {
  std::function<void(const OpEvent &)> onOp;
  std::function<void(const IterationEvent &)> onIteration;
};

/// Reads `path`, streaming: each event is handed to the callbacks and
/// dropped, so memory does not grow with the number of events. Returns the
/// header, or an error message naming the file (not JSON, truncated, wrong
/// schema version, unknown or missing keys, bad values).
struct ReadResult {
  TraceHeader header;
  std::string error; // empty on success
};
ReadResult readTrace(const std::string &path, const ReadCallbacks &callbacks);

} // namespace opscope::trace

#endif // OPSCOPE_RUNTIME_TRACE_H
