//===- analysis.h - turning traces into tables ------------------*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM). What opscope-analyze
// computes: per-op statistics folded from a streamed trace, filtered,
// aggregated, ordered and rendered; the two-trace diff; the roofline.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_ANALYSIS_H
#define OPSCOPE_RUNTIME_ANALYSIS_H

#include "opscope/runtime/trace.h"

#include <iosfwd>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace opscope::analysis {

/// A distribution kept exactly up to kExactSamples values, then as a
/// log-bucketed histogram (buckets 0.5% wide, so quantiles are within 0.25%):
/// bounded memory per op, whatever the number of events.
class Distribution {
public:
  static constexpr size_t kExactSamples = 4096;
  void add(double v);
  int64_t count() const { return n; }
  double sum() const { return total; }
  double mean() const { return n ? total / n : 0.0; }
  double min() const { return lo; }
  double max() const { return hi; }
  /// Nearest-rank percentile, `p` in [0, 100].
  double percentile(double p) const;
  bool exact() const { return buckets.empty(); }

private:
  void spill();
  int64_t n = 0;
  double total = 0.0, lo = 0.0, hi = 0.0;
  std::vector<double> samples;
  std::map<int32_t, int64_t> buckets;
};

/// Event filters applied while reading.
struct EventFilter {
  /// Only events under this label; loading fails, listing the trace's
  /// labels, when it has none.
  std::optional<std::string> label;
  /// Without `label`: whether warm-up (trace::kWarmUpLabel) counts.
  bool includeWarmUp = false;
  int64_t skipIterations = 0;
  /// Whether an event under `label` in `iteration` (-1: none) counts.
  bool keeps(const std::string &label, int64_t iteration) const;
};

/// Everything folded from one trace.
struct Profile {
  trace::TraceHeader header;
  std::vector<Distribution> ops; // by probe id (executions, µs)
  /// By probe id: the smallest and largest run-time extent of the kept
  /// executions of an op with bounded outputs; {-1, -1} otherwise.
  std::vector<std::pair<int64_t, int64_t>> extents;
  Distribution iterations;       // iteration wall times, µs
  int64_t opEvents = 0;
  double opTimeUs = 0.0;
};

/// Reads and folds a trace; returns an error message ("" on success).
std::string loadProfile(const std::string &path, const EventFilter &filter,
                        Profile &profile);

/// Iterations the per-iteration figures divide by: the iteration spans, or
/// (a trace without them) the most executions of any op; at least 1.
int64_t iterationCount(const Profile &profile);

/// Peak figures for the roofline (from `opscope-analyze --calibrate`):
/// with every core, and per thread count, since a trace recorded with one
/// thread must be compared with what one thread can reach. int8 ops (their
/// kernel says so, kernelPrecision) are held against the int8 peak, the
/// others against the fp32 one.
struct Machine {
  double peakGflops = 0.0; // all cores
  /// GOP/s of the tier's int8 multiply-adds, two per u8 x s8 product; 0 in
  /// a file from before it was measured (int8 ops then use peakGflops).
  double peakInt8Gops = 0.0;
  double bandwidthGBs = 0.0;
  std::string cpu;
  int threads = 0; // the thread count peakGflops/bandwidthGBs were measured with
  struct Peak {
    double gflops = 0.0, bandwidthGBs = 0.0, int8Gops = 0.0;
  };
  std::map<int, Peak> byThreads;
  /// The figures for a run with `threads` threads: the measured entry for
  /// that count, else the largest one below it, else the all-core figures.
  Machine forThreads(int threads) const;
  /// The compute peak ops are held against when `int8Share` of their
  /// operations are int8 and the rest not: the int8 peak for int8 ops, the
  /// fp32 one for the others, and for a mix the rate at which each part
  /// at its own peak does the whole (a harmonic mean by share). Without
  /// an int8 peak, the fp32 one.
  double peakFor(double int8Share) const {
    if (!(peakInt8Gops > 0) || !(int8Share > 0))
      return peakGflops;
    return 1.0 / (int8Share / peakInt8Gops + (1.0 - int8Share) / peakGflops);
  }
};
/// Where `opscope-analyze --calibrate` keeps the machine's figures:
/// $XDG_CACHE_HOME/opscope/machine.json, else ~/.cache/opscope/machine.json.
std::string defaultMachineFile();
std::string loadMachine(const std::string &path, Machine &machine);
std::string saveMachine(const std::string &path, const Machine &machine);
/// Measures peak FP32 FLOP/s (FMA loops; multiply and add below AVX2), int8
/// GOP/s (int8Operation()) and memory bandwidth (a streaming triad over
/// buffers far larger than the caches) with 1 .. `threads` threads.
Machine calibrateMachine(int threads);
/// What calibrateMachine's int8 peak times at the tier in force:
/// "vpdpbusd" with VNNI (AVX-512's or AVX-VNNI; on AMX too, whose tiles
/// are not timed), else "vpmaddubsw" (u8 x s8 pairs into 16 bits, widened
/// by vpmaddwd; "pmaddubsw" below AVX2).
const char *int8Operation();
/// What calibrateMachine's peak times at the tier in force: "FMA", or
/// "multiply + add" below AVX2.
const char *peakOperation();

enum class Format { Table, Csv, Json, Markdown };
enum class Aggregate { Sum, Mean, Max, Min };

struct Options {
  size_t top = 0; // 0: all
  std::vector<std::string> types;
  std::optional<std::regex> name;
  std::string orderBy = "time";
  bool ascending = false;
  std::optional<std::string> aggregateBy; // type | name | kernel | shape
  Aggregate aggregate = Aggregate::Sum;
  std::optional<double> minTimeUs, maxTimeUs; // on an op's time per iteration
  bool printSummary = true, printOps = true;
  Format format = Format::Table;
  std::optional<Machine> roofline;
  /// Terminal tables: text cells in full (default: cut to 48 characters,
  /// diff groups as their first op and a count).
  bool wide = false;
};

/// One row of the ops table. Optional numbers are missing values: they
/// render as "-" and sort last.
struct Row {
  std::optional<int64_t> id;
  std::string name, type, postOps, kernel, inputs, outputs;
  /// kernelPrecision of its kernel ("mixed" for a group of ops of several
  /// precisions), and the share of its operations that are int8 (of a
  /// group's, weighted by FLOPs): what the roofline holds it against
  /// (Machine::peakFor).
  std::string precision;
  double int8Share = 0.0;
  int64_t count = 0;
  double timeUs = 0.0; // per iteration
  double percent = 0.0, cumUs = 0.0, cumPercent = 0.0;
  std::optional<double> meanUs, p50Us, p99Us;
  std::optional<double> flops, gflops, bytes, gbs;
  std::optional<double> intensity, attainableGflops, peakPercent;
  std::string bound;
};

/// Parses `[+]KEY`; returns an error message or "".
std::string parseOrderBy(const std::string &text, Options &options);
/// Parses a time like `2ms`, `150us`, `0.5s`, `3` (ms); nullopt on error.
std::optional<double> parseTimeUs(const std::string &text);

std::vector<Row> buildRows(const Profile &profile, const Options &options);
void render(const Profile &profile, const std::vector<Row> &rows,
            const Options &options, std::ostream &os);

/// Op-level comparison of two profiles, matched by source-node provenance
/// (ops sharing any source node are one group, so fused vs unfused lines up),
/// then by name. The last row is the total over every selected op (with
/// --top, also over the rows left out).
struct DiffRow {
  std::string before, after, type;
  bool isTotal = false;
  std::optional<double> beforeUs, afterUs; // per iteration
  double deltaUs = 0.0;
  std::optional<double> deltaPercent;
};
std::vector<DiffRow> diffProfiles(const Profile &before, const Profile &after,
                                  const Options &options);
void renderDiff(const Profile &before, const Profile &after,
                const std::vector<DiffRow> &rows, const Options &options,
                std::ostream &os);

} // namespace opscope::analysis

#endif // OPSCOPE_RUNTIME_ANALYSIS_H
