//===- kernel_bench.h - dense vs sparse inner-product timing ----*- C++ -*-===//
//
// Part of opscope's runtime tooling (no MLIR). What bench-sparse and
// opscope-tune share: synthetic weights pruned by 1x4 or 4x4 block magnitude, the
// oneDNN dense inner product and the block-sparse kernel of one precision,
// timed in alternating rounds (the host is shared and noisy: every round
// calls the candidates in turn, call by call, and ratios are taken per
// round).
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_TOOLING_KERNEL_BENCH_H
#define OPSCOPE_RUNTIME_TOOLING_KERNEL_BENCH_H

#include "opscope/runtime/tuning.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace opscope::tooling {

enum class KernelPrecision { F32, BF16, S8 };
/// "fp32", "bf16", "int8".
const char *precisionName(KernelPrecision p);
/// Parses "fp32" / "bf16" / "int8"; false otherwise.
bool parsePrecision(const std::string &s, KernelPrecision &out);

/// Median ms of one call of `f`, over as many calls as fit in `minMs` (at
/// least 3).
double medianCallMs(const std::function<void()> &f, double minMs);

/// Median ms of one call of each of `fs`, calling them in turn (f0, f1, ...,
/// f0, f1, ...) until `minMs` per function has passed in all, at least 3
/// calls each: the candidates of a round share the host's slow spells.
std::vector<double>
interleavedMedianMs(const std::vector<std::function<void()>> &fs,
                    double minMs);

/// Median of `v` (upper median for even sizes); 0 for an empty vector.
double median(std::vector<double> v);

/// Zeroes round(ratio x blocks) blockRows x 4 blocks of the row-major N x K
/// weight with the smallest L1 norm (as opscope-prune does); blockRows 1 or
/// 4 (N a multiple of it).
void pruneBlocks(std::vector<float> &w, int64_t n, int64_t k, double ratio,
                 int64_t blockRows = 1);

struct KernelBenchConfig {
  int rounds = 5;
  double minMs = 150; ///< time per candidate per round
  /// Also time the sparse kernel with row-major activations (a chain
  /// boundary); by default only the transposed layout (inside a chain).
  bool rowMajor = false;
  /// Prune (and pack) in blockRows x 4 blocks: 1 (1x4) or 4 (4x4).
  int64_t blockRows = 1;
  /// Also time the transposed sparse kernel with ordinary stores
  /// (rt::SparseStores::Cached) in the same rounds: an A/B of the
  /// non-temporal stores.
  bool cachedStores = false;
  /// Each candidate runs on a ring of weight copies, this many bytes of
  /// weights in all (at most 64 copies), one copy per call: a model reads
  /// each layer's weights once per run, from memory or L3, and a kernel
  /// timed on weights the previous call left in L1/L2 looks up to 25%
  /// faster than it runs there (docs/tuning.md). 0: one copy, warm.
  size_t weightRingBytes = size_t(128) << 20;
};

/// Per-round ms of every candidate of one shape, M and precision.
struct KernelBenchResult {
  std::string denseImpl, sparseImpl, matmulImpl;
  std::vector<double> denseMs;
  /// fp32: the dense product on oneDNN's matmul primitive, per round.
  std::vector<double> matmulMs;
  /// [ratio][round]: transposed activations, row-major and transposed with
  /// ordinary stores when asked.
  std::vector<std::vector<double>> sparseMs, sparseRowMajorMs, sparseCachedMs;
  /// The dense candidates' ring of weight copies
  /// (KernelBenchConfig::weightRingBytes).
  size_t denseCopies = 1;
  /// Per-round dense/sparse for ratio `i` (transposed or row-major).
  std::vector<double> perRoundRatios(size_t i, bool rowMajor = false) const;
  /// Adds `more`'s rounds of the same problem after these (a measurement
  /// taken again): the fastest round is then over both.
  void appendRounds(const KernelBenchResult &more);
};

/// A candidate's figure for the tuning database: its fastest round (0 for
/// none). The host's noise only ever slows a round, and not every kernel
/// alike: on the shared development host spells of contention made the
/// compute-bound dense products 1.5-2x slower for seconds while the
/// memory-bound sparse kernels lost about 10%, so a median over rounds
/// that caught such a spell read the wrong ratio (docs/tuning.md).
double fastestRound(const std::vector<double> &perRound);

/// The database entry of one measured problem: `res`'s candidates at their
/// fastest round (fastestRound), at the sparsities `ratios` (res.sparseMs'
/// order), with the spread of the per-round ratios.
tuning::Entry tuningEntry(const KernelBenchResult &res, int64_t n, int64_t k,
                          int64_t m, KernelPrecision prec,
                          const std::string &block, int threads,
                          const std::vector<double> &ratios);

/// Measures oneDNN's dense inner product (M x K by N x K) and the sparse
/// kernel at each block sparsity in `ratios`, on the calling thread.
/// `onRound(done, total)` is called after each round when set.
KernelBenchResult
measureInnerProducts(KernelPrecision prec, int64_t n, int64_t k, int64_t m,
                     const std::vector<double> &ratios,
                     const KernelBenchConfig &config,
                     const std::function<void(int, int)> &onRound = {});

/// The 1x4 sparse kernel's block loop at its best on this CPU (f32 or s8;
/// bench-sparse --ceiling), in FMAs (f32) or vpdpbusd (s8) per second: the
/// kernel itself (transposed layout, M = 256) on fully populated 1x4
/// patterns of 768 rows at two reductions whose activation tiles stay in L1
/// (s8 K = 128 and 256, 8 and 16 KiB; f32 64 and 128, 16 and 32 KiB, one
/// slab each), and the rate of the difference. Every activation load hits
/// L1, every row runs 16-64 blocks, and the per-output work (bias or
/// partial sums, dequantization, stores) cancels out; real sparsity only
/// adds misses, short rows and that work, so this rate bounds the kernel.
class SparsePeak {
public:
  explicit SparsePeak(KernelPrecision prec); ///< F32 or S8
  ~SparsePeak();
  /// One measurement (each pattern's median call over `minMs`); 0 when the
  /// noise hides the difference.
  double rate(double minMs);

private:
  struct Pattern;
  std::unique_ptr<Pattern> small, large;
  int64_t k0;
  bool int8;
};

} // namespace opscope::tooling

#endif // OPSCOPE_RUNTIME_TOOLING_KERNEL_BENCH_H
