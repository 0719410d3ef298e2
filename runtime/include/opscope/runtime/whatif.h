//===- whatif.h - projected latency of a pruned model -----------*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM; issue 14). What
// `opscope-analyze TRACE --what-if` computes: from a trace and the kernel
// tuning database, the latency each sparse-capable op would have with its
// weight pruned to a target block sparsity and run on the sparse kernel,
// the network totals, and (`--check`) the error of that projection
// against a measured trace of the pruned model. docs/opscope-analyze.md,
// "What-if".
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_WHATIF_H
#define OPSCOPE_RUNTIME_WHATIF_H

#include "opscope/runtime/analysis.h"
#include "opscope/runtime/tuning.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opscope::analysis {

/// What to project.
struct WhatIfRequest {
  /// Every sparse-capable op pruned to this block sparsity, or
  std::optional<double> sparsity;
  /// per layer, by ONNX node name (a key must name a source node of a
  /// sparse-capable op); ops the file does not name keep their latency.
  std::map<std::string, double> perLayer;
  std::string perLayerFile;
  /// The precision of the database entries; ops of another precision in
  /// the trace are an error. Empty: each op's own (from its kernel name).
  std::string precision;
  /// The block shape of the database entries: "1x4" or "4x4" (the weights
  /// pruned with opscope-prune --block 4x4, which run the 4x4 kernels).
  std::string block = "1x4";
  /// Names the database in messages and in the opscope-tune commands
  /// printed for missing measurements ("" when it is the default file).
  std::string dbFlag;
  /// Project every op on the sparse kernel. By default the projection
  /// follows the compiler's choice under --sparse auto with this database:
  /// an op whose sparse kernel is slower than dense at the target
  /// (perf ratio <= 1) stays dense.
  bool forceSparse = false;
};

/// One op of the projection, in probe order.
struct WhatIfOp {
  const trace::ProbeInfo *probe = nullptr;
  bool sparseCapable = false;
  int64_t n = 0, k = 0, m = 0; // weight N x K, activation rows M
  std::string precision;
  std::optional<double> currentRatio; // block sparsity in the trace
  std::optional<double> targetRatio;  // none: keeps its measured latency
  /// dense/sparse at the target (database, interpolated); with `ranSparse`,
  /// the projection is measured x ratio(current) / ratio(target).
  std::optional<double> perfRatio, currentPerfRatio;
  bool ranSparse = false;
  /// The kernel the projection assumes at the target: the compiler's
  /// choice (the faster of the two), or sparse under forceSparse.
  bool projectedSparse = false;
  std::string basis; // how perfRatio was found, or why the op is kept
  int64_t count = 0;
  double measuredUs = 0, projectedUs = 0;  // per iteration
  double meanUs = 0, p50Us = 0, p99Us = 0; // measured, per execution
  double projectedMeanUs = 0;              // per execution
};

struct WhatIfTotals {
  double measuredUs = 0;      // op time per iteration in the trace
  double sparseCapableUs = 0; // of which in sparse-capable ops
  double projectedUs = 0;
  double speedup() const {
    return projectedUs > 0 ? measuredUs / projectedUs : 0;
  }
};

struct WhatIf {
  std::string model;
  int threads = 1;
  std::string cpu; ///< of the trace: a check must be of the same machine
  /// Part 1: the database entries the projection used (the model's weight
  /// shapes), in the order their ops first appear.
  std::vector<tuning::Entry> entries;
  std::vector<WhatIfOp> ops;
  WhatIfTotals totals;
};

/// The precision a kernel name says an op runs in: "bf16", "int8" or
/// "fp32".
std::string kernelPrecision(const std::string &kernel);

/// Projects `profile` with `db`. Returns "" or an error: a per-layer key
/// naming no sparse-capable op, an op of another precision than
/// `request.precision`, or ops without a usable measurement (each named,
/// with the opscope-tune command that would measure them).
std::string projectWhatIf(const Profile &profile, const tuning::Database &db,
                          const WhatIfRequest &request, WhatIf &out);

/// The database must be of the machine the trace was recorded on (CPU
/// model and AMX). Returns "" or an error naming both files.
std::string checkDatabaseMachine(const Profile &profile,
                                 const std::string &tracePath,
                                 const tuning::Database &db,
                                 const std::string &dbPath);

/// --check: the projection against a measured trace of the pruned model,
/// ops matched by provenance (groupByProvenance).
struct CheckRow {
  std::string projected, measured, type; // op names, " + "-joined
  std::optional<double> projectedUs, measuredUs, errorPercent;
  std::optional<double> targetRatio, measuredRatio; // block sparsity
  bool isTotal = false;
};
struct Check {
  std::vector<CheckRow> rows; // by |error| in ms, then the total
  /// The totals again on per-op medians (each op's median execution x its
  /// executions per iteration; the projection scaled by each op's
  /// projected/measured factor): a sum of means follows the iterations a
  /// shared host slows 2-4x now and then, this does not. Per iteration, µs.
  double medianProjectedUs = 0, medianMeasuredUs = 0;
  std::optional<double> medianErrorPercent() const {
    if (!(medianMeasuredUs > 0))
      return std::nullopt;
    return 100.0 * (medianProjectedUs - medianMeasuredUs) / medianMeasuredUs;
  }
};
/// Returns "" or an error naming `measuredPath` when it was recorded on
/// another CPU or with another thread count, or is not a trace of the same
/// model (a sparse-capable op without counterpart, or a counterpart with
/// another weight shape).
std::string checkWhatIf(const WhatIf &whatIf, const Profile &measured,
                        const std::string &measuredPath, Check &out);

/// A --what-if value: a number is a block sparsity, which must lie in
/// (0, 1); anything else names a per-layer file (read later, by
/// projectWithDatabase). Returns "" or a usage error naming `flag`.
std::string parseWhatIf(const std::string &value, const std::string &flag,
                        WhatIfRequest &request);

/// What opscope-analyze and opscope-report do after parsing: read the
/// per-layer file, load the tuning database `dbPath` (empty: this machine's
/// default, opscope-tune's file; `dbPath` receives it), check that it is of
/// the trace's machine, and project. Returns "" or an error naming the
/// file.
std::string projectWithDatabase(const Profile &profile,
                                const std::string &tracePath,
                                std::string &dbPath, WhatIfRequest &request,
                                WhatIf &out);

/// Renders the projection (and the check, when given) in `options.format`:
/// table and markdown print the perf-ratio table, the ops and the totals;
/// CSV the three parts of docs/profile-csv.md; JSON one object,
/// {"opscope": {"what_if": ...}}.
void renderWhatIf(const WhatIf &whatIf, const WhatIfRequest &request,
                  const std::string &dbPath, const Check *check,
                  const Options &options, std::ostream &os);

} // namespace opscope::analysis

#endif // OPSCOPE_RUNTIME_WHATIF_H
