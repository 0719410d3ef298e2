//===- packed_weights.h - packed weights shared by sessions -----*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM). Kernels pack constant
// weights once, when they are created: oneDNN reorders them into its
// blocked layouts. Without sharing, every session of a model holds its own
// packed copy, so four instances of DistilBERT hold four (~160 MiB each).
// A model owns one PackedWeightCache; while it creates a session's kernels
// it makes the cache current (PackedWeightScope), and kernels packing a
// weight that lies in the model's mapped `.weights` take the packed copy
// from the cache, creating it only the first time. Packed copies of data
// elsewhere (a temporary, a session's arena) are never cached: their
// address says nothing about their contents.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_PACKED_WEIGHTS_H
#define OPSCOPE_RUNTIME_PACKED_WEIGHTS_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace opscope::rt {

class PackedWeightCache {
public:
  /// Shares packed forms of data in [begin, begin + bytes) (the mapped
  /// weights, which stay mapped and unchanged while the model lives).
  PackedWeightCache(const void *begin, size_t bytes)
      : begin(static_cast<const uint8_t *>(begin)), bytes(bytes) {}

  /// Whether `source` lies in the shared range.
  bool covers(const void *source) const {
    auto *p = static_cast<const uint8_t *>(source);
    return begin && p >= begin && p < begin + bytes;
  }

  /// The packed form of `source` that `key` names (layout, element type,
  /// shape), made by `make` the first time; thread-safe.
  std::shared_ptr<void>
  get(const void *source, const std::string &key,
      const std::function<std::shared_ptr<void>()> &make) {
    std::lock_guard<std::mutex> lock(mu);
    auto &entry = entries[{source, key}];
    if (entry) {
      ++hitCount;
      return entry;
    }
    entry = make();
    return entry;
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mu);
    return entries.size();
  }
  /// Packings served from the cache instead of made again.
  int64_t hits() const {
    std::lock_guard<std::mutex> lock(mu);
    return hitCount;
  }

private:
  const uint8_t *begin;
  size_t bytes;
  mutable std::mutex mu;
  std::map<std::pair<const void *, std::string>, std::shared_ptr<void>>
      entries;
  int64_t hitCount = 0;
};

/// The cache kernels created on this thread share through (null: none).
PackedWeightCache *currentPackedWeights();

/// Makes `cache` current on this thread for the scope's lifetime.
class PackedWeightScope {
public:
  explicit PackedWeightScope(PackedWeightCache *cache);
  ~PackedWeightScope();
  PackedWeightScope(const PackedWeightScope &) = delete;
  PackedWeightScope &operator=(const PackedWeightScope &) = delete;

private:
  PackedWeightCache *previous;
};

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_PACKED_WEIGHTS_H
