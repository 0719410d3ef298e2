//===- AlignedBuffer.h - a grow-only 64-byte aligned buffer -----*- C++ -*-===//
//
// Part of opscope's runtime (internal). What the kernels keep their scratch
// in: packed activation tiles, per-thread conversion copies, aligned outputs
// of the kernel benchmark.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_ALIGNEDBUFFER_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_ALIGNEDBUFFER_H

#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/mman.h>
#include <utility>

namespace opscope::rt {

/// `n` elements, 64-byte aligned, zeroed when it grows; resize never
/// shrinks and does not keep the old contents.
template <typename T> struct AlignedBuffer {
  T *data = nullptr;
  size_t size = 0;
  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer &) = delete;
  AlignedBuffer &operator=(const AlignedBuffer &) = delete;
  AlignedBuffer(AlignedBuffer &&o) noexcept : data(o.data), size(o.size) {
    o.data = nullptr;
    o.size = 0;
  }
  AlignedBuffer &operator=(AlignedBuffer &&o) noexcept {
    std::swap(data, o.data);
    std::swap(size, o.size);
    return *this;
  }
  /// `hugePages`: from 2 MiB up, aligned to 2 MiB and advised to
  /// transparent huge pages (Linux's `madvise` mode), for packed weights
  /// that every run streams from memory: fewer TLB misses (PackedGemm ran
  /// the DistilBERT-shaped model's products 5-6% faster). Only the whole
  /// 2 MiB pages inside the allocation become huge pages, so the tail
  /// costs no extra memory.
  void resize(size_t n, bool hugePages = false) {
    if (n <= size)
      return;
    constexpr size_t kHuge = size_t(2) << 20;
    size_t bytes = ((n * sizeof(T) + 63) / 64) * 64;
    bool huge = hugePages && bytes >= kHuge;
    void *p = nullptr;
    if (posix_memalign(&p, huge ? kHuge : 64, bytes) != 0)
      throw std::bad_alloc();
    std::free(data);
    data = static_cast<T *>(p);
#if defined(MADV_HUGEPAGE)
    if (huge)
      madvise(p, bytes, MADV_HUGEPAGE); // advice only: ignore a refusal
#endif
    std::memset(data, 0, n * sizeof(T));
    size = n;
  }
  ~AlignedBuffer() { std::free(data); }
};

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_ALIGNEDBUFFER_H
