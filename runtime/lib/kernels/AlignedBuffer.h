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
  void resize(size_t n) {
    if (n <= size)
      return;
    std::free(data);
    data = static_cast<T *>(std::aligned_alloc(64, ((n * sizeof(T) + 63) / 64) * 64));
    if (!data)
      throw std::bad_alloc();
    std::memset(data, 0, n * sizeof(T));
    size = n;
  }
  ~AlignedBuffer() { std::free(data); }
};

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_ALIGNEDBUFFER_H
