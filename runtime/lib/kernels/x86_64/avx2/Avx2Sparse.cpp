//===- Avx2Sparse.cpp - block-sparse rows, AVX2 + FMA ---------------------===//
//
// Part of opscope's runtime. The row kernels of the block-sparse inner
// products (SparseRows.h) on 8-lane vectors, for all three weight types:
//
// - f32: each block's four weights broadcast against four packed
//   activation rows, FMA into per-row accumulators;
// - s8: exact 16-bit multiply-add. Activations (u8) are zero-extended and
//   the block's four weights (s8) sign-extended to 16 bits, and vpmaddwd
//   adds each pair of products into int32: 2 x 255 x 128 fits, so nothing
//   saturates (vpmaddubsw, what oneDNN's AVX2 int8 kernels use, saturates
//   at 16 bits); the two pair sums of a token are added at the store;
// - bf16: the activation pairs widened to f32 in registers (a shift and a
//   mask), the weights widened once per block: bf16 storage, f32 FMA.
//
// With 16 ymm registers a pass covers 16 or 32 tokens of the 64-token tile;
// the tile takes ceil(mc / 8) vectors in as few passes as fit.
//
//===----------------------------------------------------------------------===//

#include "Avx2SparseSteps.h"

using namespace opscope;
using namespace opscope::rt;
using namespace opscope::rt::sparse_rows;

namespace opscope::rt::avx2_sparse {

//===- f32 -----------------------------------------------------------------===//

template <int T>
AVX2 void rowsF32(const SparseRowsCall &c, int64_t off) {
  struct Acc {
    __m256 v[T];
  };
  const Packed &p = *c.p;
  const auto *vals = static_cast<const float *>(p.values);
  const float *xt = static_cast<const float *>(c.xt) + off;
  float *yt = c.yt + off;
  const int32_t *cols = p.cols;
  const int64_t ldx = c.ldx, ldy = c.ldy, n0 = c.n0;
  pairRows<Acc>(
      SlabRows(p, c.s, c.n0, c.nc), n0,
      [&](int64_t r, Acc &a) AVX2 {
        for (int t = 0; t < T; ++t)
          a.v[t] = c.first ? _mm256_set1_ps(c.bias ? c.bias[n0 + r] : 0.0f)
                           : _mm256_loadu_ps(yt + r * ldy + 8 * t);
      },
      [&](int32_t i, Acc &a) AVX2 {
        const float *x = xt + cols[i] * ldx;
        const float *v = vals + 4 * i;
        for (int k = 0; k < 4; ++k) {
          __m256 w = _mm256_broadcast_ss(v + k);
          for (int t = 0; t < T; ++t)
            a.v[t] = _mm256_fmadd_ps(w, _mm256_loadu_ps(x + k * ldx + 8 * t), a.v[t]);
        }
      },
      [&](int64_t r, Acc &a) AVX2 {
        for (int t = 0; t < T; ++t)
          _mm256_storeu_ps(yt + r * ldy + 8 * t, a.v[t]);
      });
}

template <int T>
AVX2 void quadF32(const SparseRowsCall &c, int64_t off) {
  struct Acc {
    __m256 v[4][T];
  };
  const Packed &p = *c.p;
  const auto *vals = static_cast<const float *>(p.values);
  const float *xt = static_cast<const float *>(c.xt) + off;
  float *yt = c.yt + off;
  const int32_t *cols = p.cols;
  const int64_t ldx = c.ldx, ldy = c.ldy, n0 = c.n0;
  quadRows<Acc>(
      p, c.s, c.n0, c.nc,
      [&](int64_t r, Acc &a) AVX2 {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            a.v[q][t] = c.first
                            ? _mm256_set1_ps(c.bias ? c.bias[n0 + r + q] : 0.0f)
                            : _mm256_loadu_ps(yt + (r + q) * ldy + 8 * t);
      },
      [&](int32_t i, Acc &a) AVX2 {
        const float *x = xt + cols[i] * ldx;
        const float *v = vals + 16 * i;
        for (int k = 0; k < 4; ++k) {
          __m256 xv[T];
          for (int t = 0; t < T; ++t)
            xv[t] = _mm256_loadu_ps(x + k * ldx + 8 * t);
          for (int q = 0; q < 4; ++q) {
            __m256 w = _mm256_broadcast_ss(v + 4 * q + k);
            for (int t = 0; t < T; ++t)
              a.v[q][t] = _mm256_fmadd_ps(w, xv[t], a.v[q][t]);
          }
        }
      },
      [&](int64_t r, Acc &a) AVX2 {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            _mm256_storeu_ps(yt + (r + q) * ldy + 8 * t, a.v[q][t]);
      });
}

AVX2 void sparseF32(const SparseRowsCall &c) {
  if (c.p->h.blockRows == 4)
    passes<2>(c.mc, [&](auto t, int64_t off) AVX2 {
      quadF32<decltype(t)::value>(c, off);
    });
  else
    passes<4>(c.mc, [&](auto t, int64_t off) AVX2 {
      rowsF32<decltype(t)::value>(c, off);
    });
}

//===- s8 ------------------------------------------------------------------===//

/// A block's four s8 weights (one dword), sign-extended and repeated over
/// the 16 words of a ymm: w0 w1 w2 w3 w0 ...
AVX2 inline __m256i weights16(int32_t w) {
  return _mm256_cvtepi8_epi16(_mm_set1_epi32(w));
}

/// Eight tokens' u8 quads (8 dwords) as two ymm of u16: tokens 0-3, 4-7.
AVX2 inline void tokens16(const int32_t *x, __m256i &lo, __m256i &hi) {
  lo = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(x)));
  hi = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(x + 4)));
}

/// The pair sums of tokens 0-3 (lo) and 4-7 (hi), two per token, as the
/// eight tokens' int32 sums in order.
AVX2 inline __m256i tokenSums(__m256i lo, __m256i hi) {
  return _mm256_permute4x64_epi64(_mm256_hadd_epi32(lo, hi), 0xD8);
}

template <int T>
AVX2 void rowsS8(const SparseRowsCall &c, int64_t off) {
  struct Acc {
    __m256i lo[T], hi[T];
  };
  const Packed &p = *c.p;
  const auto *vals = static_cast<const int32_t *>(p.values);
  const auto *x32 = static_cast<const int32_t *>(c.xt) + off;
  float *yt = c.yt + off;
  const int32_t *cols = p.cols;
  const int64_t ldx = c.ldx, ldy = c.ldy, n0 = c.n0;
  pairRows<Acc>(
      SlabRows(p, c.s, c.n0, c.nc), n0,
      [&](int64_t, Acc &a) AVX2 {
        for (int t = 0; t < T; ++t)
          a.lo[t] = a.hi[t] = _mm256_setzero_si256();
      },
      [&](int32_t i, Acc &a) AVX2 {
        const int32_t *x = x32 + (cols[i] >> 2) * ldx;
        __m256i w = weights16(vals[i]);
        for (int t = 0; t < T; ++t) {
          __m256i lo, hi;
          tokens16(x + 8 * t, lo, hi);
          a.lo[t] = _mm256_add_epi32(a.lo[t], _mm256_madd_epi16(lo, w));
          a.hi[t] = _mm256_add_epi32(a.hi[t], _mm256_madd_epi16(hi, w));
        }
      },
      [&](int64_t r, Acc &a) AVX2 {
        for (int t = 0; t < T; ++t)
          storeS8(c, n0 + r, yt + r * ldy + 8 * t, tokenSums(a.lo[t], a.hi[t]));
      });
}

template <int T>
AVX2 void quadS8(const SparseRowsCall &c, int64_t off) {
  struct Acc {
    __m256i lo[4][T], hi[4][T];
  };
  const Packed &p = *c.p;
  const auto *vals = static_cast<const int32_t *>(p.values);
  const auto *x32 = static_cast<const int32_t *>(c.xt) + off;
  float *yt = c.yt + off;
  const int32_t *cols = p.cols;
  const int64_t ldx = c.ldx, ldy = c.ldy, n0 = c.n0;
  quadRows<Acc>(
      p, c.s, c.n0, c.nc,
      [&](int64_t, Acc &a) AVX2 {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            a.lo[q][t] = a.hi[q][t] = _mm256_setzero_si256();
      },
      [&](int32_t i, Acc &a) AVX2 {
        const int32_t *x = x32 + (cols[i] >> 2) * ldx;
        const int32_t *v = vals + 4 * i;
        for (int t = 0; t < T; ++t) {
          __m256i lo, hi;
          tokens16(x + 8 * t, lo, hi);
          for (int q = 0; q < 4; ++q) {
            __m256i w = weights16(v[q]);
            a.lo[q][t] = _mm256_add_epi32(a.lo[q][t], _mm256_madd_epi16(lo, w));
            a.hi[q][t] = _mm256_add_epi32(a.hi[q][t], _mm256_madd_epi16(hi, w));
          }
        }
      },
      [&](int64_t r, Acc &a) AVX2 {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            storeS8(c, n0 + r + q, yt + (r + q) * ldy + 8 * t,
                    tokenSums(a.lo[q][t], a.hi[q][t]));
      });
}

AVX2 void sparseS8(const SparseRowsCall &c) {
  if (c.p->h.blockRows == 4)
    passes<1>(c.mc, [&](auto, int64_t off) AVX2 { quadS8<1>(c, off); });
  else
    passes<2>(c.mc, [&](auto t, int64_t off) AVX2 {
      rowsS8<decltype(t)::value>(c, off);
    });
}

//===- bf16 ----------------------------------------------------------------===//

/// A packed row of bf16 pairs as two f32 vectors: the even and the odd
/// feature of each token.
AVX2 inline void widenPairs(const uint32_t *x, __m256 &even, __m256 &odd) {
  __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x));
  even = _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
  odd = _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32(int32_t(0xffff0000u))));
}

/// The f32 value of a bf16.
inline float widen(uint16_t b) { return sparse::fromBf16(b); }

template <int T>
AVX2 void rowsBf16(const SparseRowsCall &c, int64_t off) {
  struct Acc {
    __m256 v[T];
  };
  const Packed &p = *c.p;
  const auto *vals = static_cast<const uint16_t *>(p.values);
  const uint32_t *xt = static_cast<const uint32_t *>(c.xt) + off;
  float *yt = c.yt + off;
  const int32_t *cols = p.cols;
  const int64_t ldx = c.ldx, ldy = c.ldy, n0 = c.n0;
  pairRows<Acc>(
      SlabRows(p, c.s, c.n0, c.nc), n0,
      [&](int64_t r, Acc &a) AVX2 {
        for (int t = 0; t < T; ++t)
          a.v[t] = c.first ? _mm256_set1_ps(c.bias ? c.bias[n0 + r] : 0.0f)
                           : _mm256_loadu_ps(yt + r * ldy + 8 * t);
      },
      [&](int32_t i, Acc &a) AVX2 {
        const uint32_t *x = xt + (cols[i] >> 1) * ldx;
        const uint16_t *v = vals + 4 * i;
        for (int k = 0; k < 2; ++k) {
          __m256 w0 = _mm256_set1_ps(widen(v[2 * k]));
          __m256 w1 = _mm256_set1_ps(widen(v[2 * k + 1]));
          for (int t = 0; t < T; ++t) {
            __m256 even, odd;
            widenPairs(x + k * ldx + 8 * t, even, odd);
            a.v[t] = _mm256_fmadd_ps(w1, odd, _mm256_fmadd_ps(w0, even, a.v[t]));
          }
        }
      },
      [&](int64_t r, Acc &a) AVX2 {
        for (int t = 0; t < T; ++t)
          _mm256_storeu_ps(yt + r * ldy + 8 * t, a.v[t]);
      });
}

template <int T>
AVX2 void quadBf16(const SparseRowsCall &c, int64_t off) {
  struct Acc {
    __m256 v[4][T];
  };
  const Packed &p = *c.p;
  const auto *vals = static_cast<const uint16_t *>(p.values);
  const uint32_t *xt = static_cast<const uint32_t *>(c.xt) + off;
  float *yt = c.yt + off;
  const int32_t *cols = p.cols;
  const int64_t ldx = c.ldx, ldy = c.ldy, n0 = c.n0;
  quadRows<Acc>(
      p, c.s, c.n0, c.nc,
      [&](int64_t r, Acc &a) AVX2 {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            a.v[q][t] = c.first
                            ? _mm256_set1_ps(c.bias ? c.bias[n0 + r + q] : 0.0f)
                            : _mm256_loadu_ps(yt + (r + q) * ldy + 8 * t);
      },
      [&](int32_t i, Acc &a) AVX2 {
        const uint32_t *x = xt + (cols[i] >> 1) * ldx;
        // Output q's pair k: values 16 i + 4 q + 2 k, + 1.
        const uint16_t *v = vals + 16 * i;
        for (int k = 0; k < 2; ++k)
          for (int t = 0; t < T; ++t) {
            __m256 even, odd;
            widenPairs(x + k * ldx + 8 * t, even, odd);
            for (int q = 0; q < 4; ++q) {
              const uint16_t *w = v + 4 * q + 2 * k;
              a.v[q][t] = _mm256_fmadd_ps(
                  _mm256_set1_ps(widen(w[1])), odd,
                  _mm256_fmadd_ps(_mm256_set1_ps(widen(w[0])), even, a.v[q][t]));
            }
          }
      },
      [&](int64_t r, Acc &a) AVX2 {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            _mm256_storeu_ps(yt + (r + q) * ldy + 8 * t, a.v[q][t]);
      });
}

AVX2 void sparseBf16(const SparseRowsCall &c) {
  if (c.p->h.blockRows == 4)
    passes<2>(c.mc, [&](auto t, int64_t off) AVX2 {
      quadBf16<decltype(t)::value>(c, off);
    });
  else
    passes<4>(c.mc, [&](auto t, int64_t off) AVX2 {
      rowsBf16<decltype(t)::value>(c, off);
    });
}

} // namespace opscope::rt::avx2_sparse

void opscope::rt::fillAvx2SparseKernels(KernelTable &t) {
  t.sparseF32 = {avx2_sparse::sparseF32, "avx2", true, false};
  t.sparseS8 = {avx2_sparse::sparseS8, "avx2", true, false};
  t.sparseBf16 = {avx2_sparse::sparseBf16, "avx2", true, false};
  t.bf16OnF32 = false;
}
