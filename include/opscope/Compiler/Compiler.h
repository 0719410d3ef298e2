//===- Compiler.h - model to native library ---------------------*- C++ -*-===//
//
// Part of opscope. The whole compilation behind opscope-compile and
// opscope-run's on-the-fly mode: load (.onnx/.onnxtext import or .mlir
// parse), optimise (osc-optimize), probe (osc-insert-probes), plan
// (osc-plan-memory), write `.weights`, lower (osc-lower-to-llvm), translate
// to LLVM IR, emit an object and link `model.so`. Outputs are written to
// temporary files and renamed at the end: a failed compilation leaves
// nothing behind.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_COMPILER_COMPILER_H
#define OPSCOPE_COMPILER_COMPILER_H

#include "opscope/Target/ONNX/ImportONNX.h"

#include <functional>
#include <optional>
#include <string>

namespace opscope {

struct CompileOptions {
  std::string input;          ///< .onnx, .onnxtext or .mlir
  ImportOptions import;       ///< input shapes etc. for ONNX inputs
  std::string output;         ///< OUT.so (OUT.weights next to it), .o or .mlir
  enum class Emit { Library, Object, Mlir } emit = Emit::Library;
  bool fuse = true;           ///< run osc-optimize (else only constant folding)
  std::string fuseOptions;    ///< extra osc-fuse options, e.g. "fuse-gelu=false"
  /// Probe the ops whose source node matches (""=all, the default: probes
  /// cost one branch per run while profiling is off); nullopt: no probes.
  std::optional<std::string> profile = std::string();
  std::string probeTypes;     ///< comma-separated kinds to probe (""=all)
  std::string printFusion;    ///< "", "table" or "json": print the report
  std::string precision = "fp32"; ///< osc-precision: fp32, bf16 or int8
  std::string keepFp32;        ///< regex of source nodes kept in fp32
  /// int8: the calibration file (opscope-run --calibrate) and how ranges
  /// are chosen from it (minmax or percentile:P).
  std::string calibration;
  std::string calibrationMethod = "minmax";
  std::string sparse = "auto"; ///< osc-sparse-layout mode: auto|always|never
  double sparseThreshold = 0.7; ///< block sparsity from which auto goes sparse
  bool noSparseChains = false; ///< keep every sparse op row-major
  bool noConvLayout = false;   ///< no NHWC chains of convolutions
  bool noInt8Chains = false;   ///< no u8 hand-overs between int8 ops
  /// osc-bf16-chains: auto (where this CPU multiplies bf16 natively),
  /// always or never.
  std::string bf16Chains = "auto";
  /// osc-sparse-layout's tuning database ("": the threshold decides).
  std::string tuningDb;
  /// Precisions (comma-separated) whose sparse kernels run scalar on the
  /// target CPU, which --sparse auto then keeps dense where no database
  /// entry decides; and the target's tier, for the note. opscope-compile
  /// fills both from the CPU it runs on (opscope/runtime/cpu.h).
  std::string scalarSparsePrecisions;
  std::string tier;
  /// Bits of --precision int8's weights: 7 where the target CPU's int8
  /// kernels would saturate 8-bit ones (no VNNI; opscope-compile
  /// fills it from the CPU it runs on), else 8.
  int int8WeightBits = 8;
  bool timing = false;        ///< per-phase timing to stderr
  /// Largest activation arena and `.weights` file (--max-total-bytes); the
  /// per-tensor limit is `import.maxTensorBytes`.
  int64_t maxTotalBytes = int64_t(16) << 30;
  /// Called as compilation moves on: `step` of kCompileSteps stages (load,
  /// optimize, probe+plan, write weights, lower, codegen+link) and a detail
  /// (the stage, with the pass that is starting); for a progress line.
  std::function<void(int step, const std::string &detail)> progress;
};

/// The stages CompileOptions::progress counts.
inline constexpr int kCompileSteps = 6;

/// Compiles; diagnostics go to the context's handler, the fusion report
/// (`printFusion`) to standard output. Returns false on failure with a
/// summary in `error` (all outputs removed).
bool compileModel(const CompileOptions &options, std::string &error);

/// Default `.weights` path for a library path (`x.so` -> `x.weights`).
std::string weightsPathFor(llvm::StringRef libraryPath);

} // namespace opscope

#endif // OPSCOPE_COMPILER_COMPILER_H
