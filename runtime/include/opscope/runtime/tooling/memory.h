//===- memory.h - resident memory of this process ---------------*- C++ -*-===//
//
// Part of opscope's runtime tooling (no MLIR). What opscope-run prints about
// memory: the process's resident set (anonymous: arenas, packed weights,
// code's heap; file-backed: the mapped `.weights` and the libraries), its
// high-water mark, and the resident and proportional size of one mapped
// file. A file mapping's pages are the page cache's, so processes that map
// the same `.weights` share them: each one's proportional share (Pss) is
// its resident size divided by the number of processes mapping each page.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_TOOLING_MEMORY_H
#define OPSCOPE_RUNTIME_TOOLING_MEMORY_H

#include <cstdint>
#include <string>

namespace opscope::tooling {

struct ProcessMemory {
  /// /proc/self/status, bytes (-1 when unreadable).
  int64_t rss = -1, peakRss = -1, anon = -1, file = -1;
  /// /proc/self/smaps, summed over the mappings of `mappedFile`.
  int64_t mappedRss = -1, mappedPss = -1;
};

/// Reads this process's memory; `mappedFile` (may be empty) is the path of
/// a file whose mappings to sum, matched by its canonical path.
ProcessMemory readProcessMemory(const std::string &mappedFile);

/// "12.3 MiB".
std::string formatMiB(int64_t bytes);

} // namespace opscope::tooling

#endif // OPSCOPE_RUNTIME_TOOLING_MEMORY_H
