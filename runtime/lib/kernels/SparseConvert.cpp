//===- SparseConvert.cpp - activation packing for the sparse kernels -----===//
//
// Part of opscope's runtime. What the sparse inner products do to their
// activations and outputs around the row kernels (SparseRows.h): 32-bit
// transposes and copies of tiles, bf16 rounding and pairing, u8/s8
// quantization (plain and into the VNNI layout), and the non-temporal copy
// of finished output tiles. Each AVX-512 form has a portable twin here or
// in Sparse.cpp.
//
//===----------------------------------------------------------------------===//

#include "SparseRows.h"

#include <algorithm>
#include <immintrin.h>

using namespace opscope;
using namespace opscope::rt;
using namespace opscope::rt::sparse_rows;

#define AVX512 OPSCOPE_AVX512
#define AVX512BF16 OPSCOPE_AVX512_BF16

namespace {
/// In-register transpose of 16 rows of 16 floats.
AVX512 inline void transpose16(__m512 r[16]) {
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    r[4 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    r[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    r[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    r[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 4; ++i) {
      t[8 * h + i] = _mm512_shuffle_f32x4(r[8 * h + i], r[8 * h + i + 4], 0x88);
      t[8 * h + i + 4] =
          _mm512_shuffle_f32x4(r[8 * h + i], r[8 * h + i + 4], 0xDD);
    }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xDD);
  }
}

} // namespace

/// 16 x 16 blocks in registers, scalar edges.
AVX512 void sparse_rows::transpose32(const void *srcv, int64_t lds, int64_t rows,
                        int64_t cols, void *dstv, int64_t ldd) {
  const auto *src = static_cast<const float *>(srcv);
  auto *dst = static_cast<float *>(dstv);
  int64_t r16 = rows / 16 * 16, c16 = cols / 16 * 16;
  __m512 r[16];
  for (int64_t i0 = 0; i0 < r16; i0 += 16)
    for (int64_t c0 = 0; c0 < c16; c0 += 16) {
      for (int i = 0; i < 16; ++i)
        r[i] = _mm512_loadu_ps(src + (i0 + i) * lds + c0);
      transpose16(r);
      for (int i = 0; i < 16; ++i)
        _mm512_storeu_ps(dst + (c0 + i) * ldd + i0, r[i]);
    }
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = i < r16 ? c16 : 0; c < cols; ++c)
      dst[c * ldd + i] = src[i * lds + c];
}

//===----------------------------------------------------------------------===//
// Packing helpers
//===----------------------------------------------------------------------===//

AVX512 void sparse_rows::streamRows(const float *src, int64_t lds,
                                    int64_t rows, int64_t cols, float *dst,
                                    int64_t ldd) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < cols; i += 16)
      _mm512_stream_ps(dst + r * ldd + i, _mm512_load_ps(src + r * lds + i));
}

/// n floats -> n bf16 (round to nearest even), vectorized.
AVX512BF16 void sparse_rows::toBf16Avx512(const float *x, uint16_t *y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(y + i),
                        (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(x + i)));
  for (; i < n; ++i)
    y[i] = sparse::toBf16(x[i]);
}

namespace {
/// 16 floats rounded to bf16 (nearest even on the integer bits: add 0x7fff
/// plus the lowest kept bit; NaNs quieted), the result in the high half of
/// each 32-bit lane (the low half is garbage).
AVX512 inline __m512i bf16RoundedHigh(__m512 v) {
  __m512i u = _mm512_castps_si512(v);
  __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16),
                                 _mm512_set1_epi32(1));
  __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7fff),
                                                   lsb));
  __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return _mm512_mask_mov_epi32(
      r, nan, _mm512_or_si512(u, _mm512_set1_epi32(0x00400000)));
}

/// The mask of the first min(16, n - i) lanes.
inline __mmask16 tailMask(int64_t n, int64_t i) {
  return n - i >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - i)) - 1);
}
} // namespace

OPSCOPE_AVX512_BW void sparse_rows::toBf16Avx512F(const float *x,
                                                  uint16_t *y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = tailMask(n, i);
    __m512i r = bf16RoundedHigh(_mm512_maskz_loadu_ps(m, x + i));
    _mm512_mask_cvtepi32_storeu_epi16(y + i, m, _mm512_srli_epi32(r, 16));
  }
}

AVX512 void sparse_rows::roundToBf16AsF32Avx512(const float *x, float *y,
                                                int64_t n) {
  const __m512i high = _mm512_set1_epi32(int32_t(0xffff0000u));
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = tailMask(n, i);
    __m512i r = bf16RoundedHigh(_mm512_maskz_loadu_ps(m, x + i));
    _mm512_mask_storeu_ps(y + i, m,
                          _mm512_castsi512_ps(_mm512_and_si512(r, high)));
  }
}

AVX512 void sparse_rows::fromBf16Avx512(const uint16_t *x, float *y,
                                        int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512i w = _mm512_cvtepu16_epi32(
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x + i)));
    _mm512_storeu_si512(y + i, _mm512_slli_epi32(w, 16));
  }
  for (; i < n; ++i)
    y[i] = sparse::fromBf16(x[i]);
}

AVX512 void sparse_rows::interleave2x32(const void *a, const void *b,
                                        int64_t n, void *out) {
  const auto *pa = static_cast<const float *>(a);
  const auto *pb = static_cast<const float *>(b);
  auto *po = static_cast<float *>(out);
  // Lanes 0..15 of the pair (a, b) -> a0 b0 a1 b1 ... a7 b7, then a8 ...
  const __m512i lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18,
                                      2, 17, 1, 16, 0);
  const __m512i hi = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11,
                                      26, 10, 25, 9, 24, 8);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 va = _mm512_loadu_ps(pa + i), vb = _mm512_loadu_ps(pb + i);
    _mm512_storeu_ps(po + 2 * i, _mm512_permutex2var_ps(va, lo, vb));
    _mm512_storeu_ps(po + 2 * i + 16, _mm512_permutex2var_ps(va, hi, vb));
  }
  for (; i < n; ++i) {
    po[2 * i] = pa[i];
    po[2 * i + 1] = pb[i];
  }
}

AVX512 float sparse_rows::maxAbsAvx512(const float *x, int64_t n) {
  // Four accumulators hide vmaxps' latency; max(acc, NaN) keeps acc.
  __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(),
                   _mm512_setzero_ps(), _mm512_setzero_ps()};
  int64_t i = 0;
  for (; i + 64 <= n; i += 64)
    for (int j = 0; j < 4; ++j)
      acc[j] = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(x + i + 16 * j)),
                             acc[j]);
  for (; i < n; i += 16) {
    __mmask16 m = n - i >= 16 ? __mmask16(0xffff)
                              : __mmask16((1u << (n - i)) - 1);
    acc[0] = _mm512_max_ps(_mm512_abs_ps(_mm512_maskz_loadu_ps(m, x + i)),
                           acc[0]);
  }
  return _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(acc[0], acc[1]),
                                            _mm512_max_ps(acc[2], acc[3])));
}

AVX512 void sparse_rows::quantizeS8Avx512(const float *x, int8_t *q,
                                          int64_t n, float inv) {
  const __m512 vinv = _mm512_set1_ps(inv);
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = n - i >= 16 ? __mmask16(0xffff)
                              : __mmask16((1u << (n - i)) - 1);
    // Round to nearest even, saturate to [-128, 127].
    __m512i v = _mm512_cvtps_epi32(
        _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), vinv));
    _mm512_mask_cvtsepi32_storeu_epi8(q + i, m, v);
  }
}

AVX512 void sparse_rows::quantizeU8Avx512(const float *x, uint8_t *q,
                                          int64_t n, float inv, int32_t zp) {
  const __m512 vinv = _mm512_set1_ps(inv);
  const __m512i vzp = _mm512_set1_epi32(zp), zero = _mm512_setzero_si512();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    // Round to nearest even (MXCSR's default), add the zero point, clamp
    // below at 0 and saturate above at 255.
    __m512i v = _mm512_add_epi32(
        _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x + i), vinv)), vzp);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(q + i),
                     _mm512_cvtusepi32_epi8(_mm512_max_epi32(v, zero)));
  }
  for (; i < n; ++i)
    q[i] = quantizeU8One(x[i], inv, zp);
}

namespace {
/// 16 floats to 16 u8 (quantizeU8One's rounding).
AVX512 inline __m128i quantize16(const float *x, __m512 inv, __m512i zp) {
  __m512i v = _mm512_add_epi32(
      _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x), inv)), zp);
  return _mm512_cvtusepi32_epi8(_mm512_max_epi32(v, _mm512_setzero_si512()));
}
} // namespace

AVX512 void sparse_rows::quantizeU8TransposedAvx512(const float *x, uint8_t *q,
                                                    int64_t k, int64_t m,
                                                    float inv, int32_t zp) {
  const __m512 vinv = _mm512_set1_ps(inv);
  const __m512i vzp = _mm512_set1_epi32(zp);
  for (int64_t r = 0; r < k; r += 4) {
    const float *x0 = x + r * m;
    uint8_t *out = q + r * m; // row r/4 of M dwords
    int64_t t = 0;
    for (; t + 16 <= m; t += 16) {
      __m128i a = quantize16(x0 + t, vinv, vzp);
      __m128i b = quantize16(x0 + m + t, vinv, vzp);
      __m128i c = quantize16(x0 + 2 * m + t, vinv, vzp);
      __m128i d = quantize16(x0 + 3 * m + t, vinv, vzp);
      __m128i abLo = _mm_unpacklo_epi8(a, b), abHi = _mm_unpackhi_epi8(a, b);
      __m128i cdLo = _mm_unpacklo_epi8(c, d), cdHi = _mm_unpackhi_epi8(c, d);
      auto *o = reinterpret_cast<__m128i *>(out + 4 * t);
      _mm_storeu_si128(o, _mm_unpacklo_epi16(abLo, cdLo));
      _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(abLo, cdLo));
      _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(abHi, cdHi));
      _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(abHi, cdHi));
    }
    for (; t < m; ++t)
      for (int j = 0; j < 4; ++j)
        out[4 * t + j] = quantizeU8One(x0[j * m + t], inv, zp);
  }
}

/// Rows 2p and 2p+1 of a transposed (K x M) input, tokens [m0, m0+mc), as
/// one row of bf16 pairs.
AVX512BF16 void sparse_rows::pairRowAvx512(const float *a, const float *b, int64_t mc,
                              uint32_t *out) {
  int64_t i = 0;
  for (; i + 16 <= mc; i += 16) {
    __m512i lo = _mm512_cvtepu16_epi32(
        (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(a + i)));
    __m512i hi = b ? _mm512_cvtepu16_epi32((__m256i)_mm512_cvtneps_pbh(
                         _mm512_loadu_ps(b + i)))
                   : _mm512_setzero_si512();
    _mm512_storeu_si512(out + i, _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
  }
  for (; i < mc; ++i)
    out[i] = sparse::toBf16(a[i]) |
             (b ? uint32_t(sparse::toBf16(b[i])) << 16 : 0u);
}

/// Copies a rows x cols block of 32-bit elements, row by row.
void sparse_rows::copy32(const void *src, int64_t lds, int64_t rows, int64_t cols,
            void *dst, int64_t ldd) {
  for (int64_t i = 0; i < rows; ++i)
    std::memcpy(static_cast<uint32_t *>(dst) + i * ldd,
                static_cast<const uint32_t *>(src) + i * lds, cols * 4);
}

void sparse_rows::transpose32Portable(const void *srcv, int64_t lds, int64_t rows,
                         int64_t cols, void *dstv, int64_t ldd) {
  const auto *src = static_cast<const uint32_t *>(srcv);
  auto *dst = static_cast<uint32_t *>(dstv);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < cols; ++c)
      dst[c * ldd + i] = src[i * lds + c];
}
