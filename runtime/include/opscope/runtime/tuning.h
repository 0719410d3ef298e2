//===- tuning.h - the kernel tuning database --------------------*- C++ -*-===//
//
// Part of opscope (issue 14). Measured latencies of inner-product kernels
// on one machine, written by opscope-tune and read by whoever chooses
// kernels. One versioned JSON file per machine key (CPU model, ISA
// features, oneDNN version) under $OPSCOPE_CACHE_DIR/tuning or
// ~/.cache/opscope/tuning. The library (opscope_tuning) needs neither
// MLIR nor the runtime, so the compiler can link it; it does not ask
// oneDNN for its version, callers pass it (rt::denseLibraryVersion()).
// The schema is documented in docs/tuning.md.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_TUNING_H
#define OPSCOPE_RUNTIME_TUNING_H

#include "opscope/runtime/cpu.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace opscope::tuning {

/// Version of the JSON schema; a file of another version is refused.
constexpr int kSchemaVersion = 1;

/// A database that must not be used: unreadable, corrupt, of another
/// schema version or another machine. The message names the file.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// What the measurements depend on. Two keys differing in anything are
/// different machines.
struct MachineKey {
  std::string cpu; ///< the CPU's name (cpu.h's hostCpu().model)
  /// The CPU's flags within OPSCOPE_MAX_ISA (cpu.h's cap): a capped run
  /// measures, and reads, another tier's database. `avx2` (AVX2 and FMA)
  /// is false only on older CPUs or under a cap below AVX2; a file from
  /// before it was keyed reads as true, and load() lets it match either.
  bool avx2 = true, avx512f = false, vnni = false, bf16 = false, amx = false;
  /// AVX-VNNI within the cap. It keys only the tier that uses it
  /// (avxVnniTier(): avx2_vnni, AVX2 with AVX-VNNI); an AVX-512 tier runs
  /// AVX-512's kernels whether or not the CPU has it. A file from before it
  /// was keyed reads as false.
  bool avxVnni = false;
  bool avxVnniTier() const { return avxVnni && !avx512f; }
  std::string onednn; ///< "3.0.0"
  bool operator==(const MachineKey &o) const;
  bool operator!=(const MachineKey &o) const { return !(*this == o); }
  /// `AMD EPYC (avx512f vnni bf16, oneDNN 2.6.3)`.
  std::string describe() const;
  /// The database's file name: `<cpu>-<flags>-onednn<version>.json`,
  /// non-alphanumerics of the CPU model replaced by '_'.
  std::string fileName() const;
  /// This key with the flags above `level` cleared (cpu.h's levels: what
  /// a process capped at `level` measures).
  MachineKey atTier(rt::IsaLevel level) const;
};

/// The key of this machine: CPU model and flags as cpu.h reads them, the
/// flags above the OPSCOPE_MAX_ISA cap cleared, and the given oneDNN
/// version.
MachineKey thisMachine(const std::string &onednnVersion);

/// Sparse kernel latency at one block sparsity.
struct SparsePoint {
  double sparsity = 0; ///< block sparsity of the synthetic weight
  double ms = 0;       ///< the fastest round (tooling::fastestRound)
  double ratioMin = 0, ratioMax = 0; ///< spread of per-round dense/sparse
};

/// One measured problem: weight N x K, M activation rows, a precision
/// ("fp32", "bf16", "int8"), a block and a thread count.
struct Entry {
  int64_t n = 0, k = 0, m = 0;
  std::string precision = "fp32", block = "1x4";
  int threads = 1;
  double denseMs = 0;
  std::string denseImpl, sparseImpl;
  /// fp32: the same product on oneDNN's matmul primitive (0: not measured).
  double matmulMs = 0;
  std::string matmulImpl;
  /// True when the matmul primitive measured faster than the inner product
  /// by more than kMatmulMargin: within it the two are a tie, and a tie
  /// leaves the choice to the tier (the kernel table's default). On the
  /// ring of cold weights BERT-mini's 256x1024 product measured the two
  /// within 1%, where warm timings had favoured the matmul by 1-6% while
  /// the model ran 6% faster on the packed GEMM (docs/tuning.md).
  bool matmulFaster() const {
    return matmulMs > 0 && matmulMs < denseMs * (1.0 - kMatmulMargin);
  }
  static constexpr double kMatmulMargin = 0.03;
  std::vector<SparsePoint> sparse; ///< ascending sparsity
  /// Same problem (everything above but the measurements).
  bool sameProblem(const Entry &o) const;
};

struct Database {
  MachineKey key;
  std::vector<Entry> entries;
  /// The entry of this problem, or null.
  const Entry *find(int64_t n, int64_t k, int64_t m,
                    const std::string &precision, int threads = 1,
                    const std::string &block = "1x4") const;
  /// Adds `e`, replacing the entry of the same problem if there is one.
  void merge(const Entry &e);
};

//===----------------------------------------------------------------------===//
// Kernel choice: the one decision the compiler (osc-sparse-layout), the
// what-if (opscope-analyze --what-if), opscope-profile and its
// recommendation make from the database (docs/tuning.md, "Kernel choice").
//===----------------------------------------------------------------------===//

/// One inner product whose kernel is to be chosen.
struct Query {
  int64_t n = 0, k = 0, m = 0; ///< weight N x K, M activation rows
  std::string precision = "fp32";
  int threads = 1;
  /// "4x4" where the weight's zero blocks line up in 4x4 blocks (the 4x4
  /// kernel runs it), else "1x4".
  std::string block = "1x4";
  /// The weight's block sparsity: the fraction of its 1x4 blocks that are
  /// all zero.
  double sparsity = 0;
  /// Without a usable measurement the threshold rule decides: sparse at or
  /// above `threshold`, unless the sparse kernels of this precision run
  /// scalar on the tier (`scalarSparse`).
  double threshold = 0.7;
  bool scalarSparse = false;
};

/// dense ms / sparse ms of `e` at block sparsity `s`: the measured ratio at
/// a measured sparsity (within `tolerance`), linear in the ratios of the
/// two measured sparsities around it, nullopt outside the measured range
/// (never extrapolated). `basis` says which ("measured at 80%",
/// "interpolated 70%-90%").
std::optional<double> perfRatioAt(const Entry &e, double s,
                                  std::string &basis,
                                  double tolerance = 1e-9);

/// Two block sparsities of an N x K weight that differ by less than half a
/// 1x4 block are the same: pruning to a ratio zeroes round(ratio x blocks)
/// blocks, so a weight pruned to 80% reads 0.79999966 on 3072x768.
double sameSparsity(int64_t n, int64_t k);

/// The answer, and what it rests on.
struct Choice {
  enum class Basis {
    Measured,     ///< a point measured at the weight's sparsity
    Interpolated, ///< between two measured points
    BoundAbove,   ///< sparser than the highest point, where sparse won
    BoundBelow,   ///< less sparse than the lowest point, where dense won
    Threshold,    ///< no usable measurement: the threshold rule
  };
  bool sparse = false;
  Basis basis = Basis::Threshold;
  /// The entry that decided, or null (no entry for the weight at all).
  const Entry *entry = nullptr;
  /// dense ms / sparse ms at the query's sparsity (Measured, Interpolated).
  std::optional<double> perfRatio;
  /// The latencies compared (Measured, Interpolated, Bound*): the sparse one
  /// at the query's sparsity, or at the bounding point.
  double denseMs = 0, sparseMs = 0;
  /// How the entry's points gave the answer: "measured at 80%",
  /// "interpolated 70%-90%", "at 90%, the highest measured: 95% is only
  /// faster"; for Threshold, why no point could.
  std::string basisText;
  /// Keys the lookup missed and what stood in for them, one phrase each
  /// ("M 100 not measured: the nearest, M 128").
  std::vector<std::string> misses;
  /// One line for --print-fusion, the probe table and messages:
  /// "tuned: sparse 0.309 ms < dense 0.777 ms (measured at 80%; entry
  /// 768x768 M=128 fp32 1x4, 1 thread)".
  std::string reason;
  bool tuned() const { return basis != Basis::Threshold; }
};

/// The kernel for `q`. `db` may be null (no database: the threshold rule).
/// The entry is the query's own, else the same weight, precision and block
/// at the nearest thread count and then the nearest M; a 4x4 weight
/// without a 4x4 entry takes the 1x4 one (the 1x4 kernel is the slower, so
/// its latency is an upper bound). Each stand-in is named in `misses`;
/// nothing falls silently to dense.
Choice choose(const Database *db, const Query &q);

/// `768x768 M=128 fp32 1x4, 1 thread`.
std::string describeProblem(const Entry &e);

/// "" when the entry's sparse latencies fall as the sparsity rises (within
/// `slack`: 0.1 lets 80% be 10% slower than 70%), as the kernel's do: more
/// zero blocks, less work. Else the first pair that does not, e.g. "the
/// sparse kernel measured slower at 80% (5.801 ms) than at 70% (3.296 ms)":
/// the host was unsteady while it measured, and a choice made from it can
/// lose. opscope-tune measures such a problem again.
std::string unsteadiness(const Entry &e, double slack = 0.1);

/// $OPSCOPE_CACHE_DIR/tuning, else $HOME/.cache/opscope/tuning.
std::string defaultDirectory();

/// Parses a database; `path` only names the file in errors.
/// A file from before `avx2` was keyed matches `expected`'s either value.
Database parse(const std::string &text, const std::string &path,
               const MachineKey *expected = nullptr);
/// Serializes (pretty-printed JSON, entries in a stable order).
std::string serialize(const Database &db);
/// Reads `path`. With `expected`, a database of another machine is
/// refused. Throws Error naming the file.
Database load(const std::string &path, const MachineKey *expected = nullptr);
/// load() for callers built without exceptions (the compiler): false with
/// the message in `error` instead of throwing.
bool tryLoad(const std::string &path, const MachineKey *expected,
             Database &out, std::string &error);
/// Writes `db` to `path` through a temporary in the same directory renamed
/// into place (creating the directory); on failure nothing is left behind
/// and Error is thrown naming the file.
void save(const std::string &path, const Database &db);

} // namespace opscope::tuning

#endif // OPSCOPE_RUNTIME_TUNING_H
