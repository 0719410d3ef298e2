//===- SparseRows.h - the block-sparse row kernels ------------*- C++ -*-===//
//
// Part of opscope's runtime (internal). What the block-sparse row kernels
// of every tier share: the packed blob's sections, the CSR rows of a slab,
// and the loops over them that each tier's kernels (KernelTable.h) fill
// with their element type's steps.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_SPARSEROWS_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_SPARSEROWS_H

#include "opscope/runtime/sparse_format.h"

#include <cmath>
#include <cstdint>
#include <cstring>


namespace opscope::rt::sparse_rows {

constexpr int64_t kTile = 64;  // tokens per activation tile
constexpr int64_t kChunk = 64; // output rows per output tile (= row group)

/// The blob's sections.
struct Packed {
  sparse::Header h;
  const int32_t *rowStart, *rowIndex, *cols;
  const void *values;
  const float *scale;
  const int32_t *rowSum;
  explicit Packed(const void *blob) {
    std::memcpy(&h, blob, sizeof(h));
    auto *base = static_cast<const uint8_t *>(blob);
    rowStart = reinterpret_cast<const int32_t *>(base + h.rowStartOffset);
    rowIndex = reinterpret_cast<const int32_t *>(base + h.rowIndexOffset);
    cols = reinterpret_cast<const int32_t *>(base + h.colsOffset);
    values = base + h.valuesOffset;
    scale = h.scaleOffset
                ? reinterpret_cast<const float *>(base + h.scaleOffset)
                : nullptr;
    rowSum = h.rowSumOffset
                 ? reinterpret_cast<const int32_t *>(base + h.rowSumOffset)
                 : nullptr;
  }
};

/// The CSR rows (one per block row of R = blockRows outputs) of slab `s`
/// and the row group starting at output n0.
struct SlabRows {
  const int32_t *start, *index;
  int64_t count, br;
  SlabRows(const Packed &p, int64_t s, int64_t n0, int64_t nc)
      : br(p.h.blockRows) {
    int64_t q = p.h.n / br;
    start = p.rowStart + s * q + n0 / br;
    index = p.rowIndex + s * q + n0 / br;
    count = nc / br;
  }
};

/// The loop every vector row kernel shares: the rows of one slab and row
/// group two at a time (their blocks interleaved, so two independent
/// accumulator sets are in flight), then the odd row out. Rows are sorted
/// by block count per slab and group (sparse_format.h), so a pair's trip
/// counts are (nearly) equal and repeat from pair to pair. `init(r, acc)`,
/// `block(i, acc)` and `store(r, acc)` are the element type's steps;
/// always_inline puts them in the caller's target context.
template <typename Acc, typename Init, typename Block, typename Store>
__attribute__((always_inline)) inline void
pairRows(const SlabRows &rows, int64_t n0, Init init, Block block,
         Store store) {
  const int32_t *rs = rows.start, *ri = rows.index;
  const int64_t nc = rows.count;
  int64_t j = 0;
  for (; j + 2 <= nc; j += 2) {
    int64_t ra = ri[j] - n0, rb = ri[j + 1] - n0;
    Acc a, b;
    init(ra, a);
    init(rb, b);
    int32_t i0 = rs[j], e0 = rs[j + 1], i1 = e0, e1 = rs[j + 2];
    for (int32_t c = e0 - i0 < e1 - i1 ? e0 - i0 : e1 - i1; c > 0; --c) {
      block(i0++, a);
      block(i1++, b);
    }
    for (; i0 < e0; ++i0)
      block(i0, a);
    for (; i1 < e1; ++i1)
      block(i1, b);
    store(ra, a);
    store(rb, b);
  }
  if (j < nc) {
    int64_t ra = ri[j] - n0;
    Acc a;
    init(ra, a);
    for (int32_t i = rs[j]; i < rs[j + 1]; ++i)
      block(i, a);
    store(ra, a);
  }
}

/// The 4x4-block loop: one block row (four outputs) at a time, the four
/// outputs' accumulators in flight together, so that each activation vector
/// loaded serves four outputs: the inner loop of Intel's "4x1" VNNI kernel
/// (kernel_vnni.md in intel-extension-for-transformers), whose blocks are
/// four outputs at one k concatenated along K; here the four k of a block
/// are consecutive (docs/sparsity.md, What 1x4 blocks can reach).
template <typename Acc, typename Init, typename Block, typename Store>
__attribute__((always_inline)) inline void
quadRows(const Packed &p, int64_t s, int64_t n0, int64_t nc, Init init,
         Block block, Store store) {
  SlabRows rows(p, s, n0, nc);
  for (int64_t j = 0; j < rows.count; ++j) {
    int64_t r = rows.index[j] - n0;
    Acc a;
    init(r, a);
    for (int32_t i = rows.start[j], e = rows.start[j + 1]; i < e; ++i)
      block(i, a);
    store(r, a);
  }
}

/// A rows x cols block of 32-bit elements, row by row.
inline void copy32(const void *src, int64_t lds, int64_t rows, int64_t cols,
                   void *dst, int64_t ldd) {
  for (int64_t i = 0; i < rows; ++i)
    std::memcpy(static_cast<uint32_t *>(dst) + i * ldd,
                static_cast<const uint32_t *>(src) + i * lds, cols * 4);
}

/// u8 quantization of one value: clamp(round(x * inv) + zp, 0, 255).
inline uint8_t quantizeU8One(float x, float inv, int32_t zp) {
  float v = std::nearbyint(x * inv) + static_cast<float>(zp);
  return static_cast<uint8_t>(std::fmin(std::fmax(v, 0.0f), 255.0f));
}

} // namespace opscope::rt::sparse_rows

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_SPARSEROWS_H
