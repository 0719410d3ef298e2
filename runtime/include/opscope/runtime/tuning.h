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
  double ms = 0;       ///< median over rounds
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
