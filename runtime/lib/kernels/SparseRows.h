//===- SparseRows.h - the block-sparse row kernels ------------*- C++ -*-===//
//
// Part of opscope's runtime (internal). What Sparse.cpp's tile loop calls:
// the packed blob's sections, the row kernels that compute a 64 x 64 tile
// of Y^T for one K-slab (portable and AVX-512, per element type;
// SparseRows.cpp), and the 32-bit transposes, bf16 conversions and
// quantizations that pack activation tiles (SparseConvert.cpp). The
// AVX-512 entry points carry their target attribute here too; callers pick
// them only on CPUs that have it.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_SPARSEROWS_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_SPARSEROWS_H

#include "opscope/runtime/sparse_format.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#define OPSCOPE_AVX512 __attribute__((target("avx512f")))
#define OPSCOPE_AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))
#define OPSCOPE_AVX512_BF16 __attribute__((target("avx512f,avx512bw,avx512bf16")))

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

// Row kernels: rows [n0, n0 + nc) (one row group) of K-slab `s`, over
// tokens [0, mc) of the packed activations `xt` (row stride `ldx` lanes),
// into the Y^T tile `yt` (row stride kTile). `first` starts from the bias,
// otherwise the tile's partial sums are accumulated; s8 keeps int32 partial
// sums in the tile and dequantizes into f32 on the `last` slab. The AVX-512
// forms take `tiles` = zmm per row (ceil(mc / 16)) and `stream`: store the
// tile's final f32 values non-temporally (64-byte aligned rows; only on the
// last slab, for output that will not be read again while it is in cache).
void rowsF32Portable(const Packed &p, int64_t s, bool first, int64_t n0,
                     int64_t nc, const float *xt, int64_t ldx, int64_t mc,
                     float *yt, int64_t ldy, const float *bias);
void rowsS8Portable(const Packed &p, int64_t s, bool first, bool last,
                    int64_t n0, int64_t nc, const uint8_t *xt,
                    int64_t ldxDwords, int64_t mc, float *yt, int64_t ldy,
                    const float *bias, float xScale, int32_t xZero);
void rowsBf16Portable(const Packed &p, int64_t s, bool first, int64_t n0,
                      int64_t nc, const uint32_t *xt, int64_t ldx, int64_t mc,
                      float *yt, int64_t ldy, const float *bias);
OPSCOPE_AVX512 void rowsF32Avx512(int tiles, const Packed &p, int64_t s,
                                  bool first, int64_t n0, int64_t nc,
                                  const float *xt, int64_t ldx, float *yt, int64_t ldy,
                                  const float *bias, bool stream);
OPSCOPE_AVX512_VNNI void rowsS8Vnni(int tiles, const Packed &p, int64_t s,
                                    bool first, bool last, int64_t n0,
                                    int64_t nc, const uint8_t *xt,
                                    int64_t ldxDwords, float *yt, int64_t ldy,
                                    const float *bias, float xScale,
                                    int32_t xZero, bool stream);
OPSCOPE_AVX512_BF16 void rowsBf16Avx512(int tiles, const Packed &p, int64_t s,
                                        bool first, int64_t n0, int64_t nc,
                                        const uint32_t *xt, int64_t ldx,
                                        float *yt, int64_t ldy, const float *bias,
                                        bool stream);

/// dst[c * ldd + i] = src[i * lds + c] for i < rows, c < cols, on 32-bit
/// elements: 16 x 16 blocks in registers (AVX-512) or plain loops.
/// out[2 i] = a[i], out[2 i + 1] = b[i] for n 32-bit elements: two input
/// rows interleaved (a depth-to-space shuffle's innermost step).
OPSCOPE_AVX512 void interleave2x32(const void *a, const void *b, int64_t n,
                                   void *out);
OPSCOPE_AVX512 void transpose32(const void *src, int64_t lds, int64_t rows,
                                int64_t cols, void *dst, int64_t ldd);
void transpose32Portable(const void *src, int64_t lds, int64_t rows,
                         int64_t cols, void *dst, int64_t ldd);
/// A rows x cols block of 32-bit elements, row by row.
void copy32(const void *src, int64_t lds, int64_t rows, int64_t cols,
            void *dst, int64_t ldd);
/// dst = src, `rows` rows of `cols` floats, with non-temporal stores: both
/// 64-byte aligned, `cols` a multiple of 16.
OPSCOPE_AVX512 void streamRows(const float *src, int64_t lds, int64_t rows,
                               int64_t cols, float *dst, int64_t ldd);
/// n floats -> n bf16, round to nearest even.
OPSCOPE_AVX512_BF16 void toBf16Avx512(const float *x, uint16_t *y, int64_t n);
/// The same rounding on AVX-512F/BW integer units (CPUs without
/// AVX512-BF16; NaN stays a quiet NaN).
#define OPSCOPE_AVX512_BW __attribute__((target("avx512f,avx512bw")))
OPSCOPE_AVX512_BW void toBf16Avx512F(const float *x, uint16_t *y, int64_t n);
/// The same rounding kept in f32 (low 16 bits zero), AVX-512F.
OPSCOPE_AVX512 void roundToBf16AsF32Avx512(const float *x, float *y,
                                           int64_t n);
/// n bf16 -> n floats (exact), AVX-512F.
OPSCOPE_AVX512 void fromBf16Avx512(const uint16_t *x, float *y, int64_t n);
/// Rows 2p and 2p+1 of a transposed (K x M) input, `mc` tokens, as one row
/// of bf16 pairs (`b` null: the second row is past K, zeros).
OPSCOPE_AVX512_BF16 void pairRowAvx512(const float *a, const float *b,
                                       int64_t mc, uint32_t *out);

/// u8 quantization of one value: clamp(round(x * inv) + zp, 0, 255).
inline uint8_t quantizeU8One(float x, float inv, int32_t zp) {
  float v = std::nearbyint(x * inv) + static_cast<float>(zp);
  return static_cast<uint8_t>(std::fmin(std::fmax(v, 0.0f), 255.0f));
}
/// quantizeU8Portable's AVX-512 twin.
OPSCOPE_AVX512 float maxAbsAvx512(const float *x, int64_t n);
OPSCOPE_AVX512 void quantizeS8Avx512(const float *x, int8_t *q, int64_t n,
                                     float inv);
OPSCOPE_AVX512 void quantizeU8Avx512(const float *x, uint8_t *q, int64_t n,
                                     float inv, int32_t zp);

/// quantizeU8Transposed's AVX-512 twin.
OPSCOPE_AVX512 void quantizeU8TransposedAvx512(const float *x, uint8_t *q,
                                               int64_t k, int64_t m, float inv,
                                               int32_t zp);

} // namespace opscope::rt::sparse_rows

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_SPARSEROWS_H
