//===- Avx512Bf16.cpp - bf16 conversions and sparse rows, AVX512-BF16 ---===//
//
// Part of opscope's runtime. The bf16 row kernels (vdpbf16ps) of the block-sparse inner products and
// the vcvtneps2bf16 conversions.
//
//===----------------------------------------------------------------------===//

#include "Avx512Sparse.h"

using namespace opscope;
using namespace opscope::rt;
using namespace opscope::rt::sparse_rows;
using namespace opscope::rt::sparse_rows::avx512;

#define AVX512BF16 OPSCOPE_AVX512_BF16

namespace opscope::rt::avx512_bf16_tier {
/// n floats -> n bf16 (round to nearest even), vectorized.
AVX512BF16 void toBf16(const float *x, uint16_t *y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(y + i),
                        (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(x + i)));
  for (; i < n; ++i)
    y[i] = sparse::toBf16(x[i]);
}


/// Rows 2p and 2p+1 of a transposed (K x M) input, tokens [m0, m0+mc), as
/// one row of bf16 pairs.
AVX512BF16 void pairRowBf16(const float *a, const float *b, int64_t mc,
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


/// bf16: two vdpbf16ps per block and zmm (weights and activations in pairs).
template <int T, bool Stream>
AVX512BF16 void rowsBf16(const Packed &p, int64_t s, bool first, int64_t n0,
                         int64_t nc, const uint32_t *xt, int64_t ldx,
                         float *yt, int64_t ldy, const float *bias) {
  struct Acc {
    __m512 v[T];
  };
  const auto *vals = static_cast<const int32_t *>(p.values);
  const int32_t *cols = p.cols;
  pairRows<Acc>(
      SlabRows(p, s, n0, nc), n0,
      [&](int64_t r, Acc &a) AVX512BF16 {
        for (int t = 0; t < T; ++t)
          a.v[t] = first ? _mm512_set1_ps(bias ? bias[n0 + r] : 0.0f)
                         : _mm512_loadu_ps(yt + r * ldy + 16 * t);
      },
      [&](int32_t i, Acc &a) AVX512BF16 {
        const uint32_t *x = xt + (cols[i] >> 1) * ldx;
        __m512bh w0 = (__m512bh)_mm512_set1_epi32(vals[2 * i]);
        __m512bh w1 = (__m512bh)_mm512_set1_epi32(vals[2 * i + 1]);
        for (int t = 0; t < T; ++t) {
          a.v[t] = _mm512_dpbf16_ps(
              a.v[t], (__m512bh)_mm512_load_si512(x + 16 * t), w0);
          a.v[t] = _mm512_dpbf16_ps(
              a.v[t], (__m512bh)_mm512_load_si512(x + ldx + 16 * t), w1);
        }
      },
      [&](int64_t r, Acc &a) AVX512BF16 {
        for (int t = 0; t < T; ++t)
          storeOut<Stream>(yt + r * ldy + 16 * t, a.v[t]);
      });
}

template <int T, bool Stream>
AVX512BF16 void quadBf16(const Packed &p, int64_t s, bool first, int64_t n0,
                         int64_t nc, const uint32_t *xt, int64_t ldx,
                         float *yt, int64_t ldy, const float *bias) {
  struct Acc {
    __m512 v[4][T];
  };
  const auto *vals = static_cast<const int32_t *>(p.values);
  const int32_t *cols = p.cols;
  quadRows<Acc>(
      p, s, n0, nc,
      [&](int64_t r, Acc &a) AVX512BF16 {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            a.v[q][t] = first
                            ? _mm512_set1_ps(bias ? bias[n0 + r + q] : 0.0f)
                            : _mm512_loadu_ps(yt + (r + q) * ldy + 16 * t);
      },
      [&](int32_t i, Acc &a) AVX512BF16 {
        const uint32_t *x = xt + (cols[i] >> 1) * ldx;
        const int32_t *v = vals + 8 * i;
        for (int c = 0; c < 2; ++c) {
          __m512bh xv[T];
          for (int t = 0; t < T; ++t)
            xv[t] = (__m512bh)_mm512_load_si512(x + c * ldx + 16 * t);
          for (int q = 0; q < 4; ++q) {
            __m512bh w = (__m512bh)_mm512_set1_epi32(v[2 * q + c]);
            for (int t = 0; t < T; ++t)
              a.v[q][t] = _mm512_dpbf16_ps(a.v[q][t], xv[t], w);
          }
        }
      },
      [&](int64_t r, Acc &a) AVX512BF16 {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            storeOut<Stream>(yt + (r + q) * ldy + 16 * t, a.v[q][t]);
      });
}

AVX512BF16 void sparseBf16(const SparseRowsCall &c) {
  withTiles(int((c.mc + 15) / 16), c.stream, [&](auto t, auto st) AVX512BF16 {
    constexpr int T = decltype(t)::value;
    constexpr bool S = decltype(st)::value;
    auto *xt = static_cast<const uint32_t *>(c.xt);
    if (c.p->h.blockRows == 4)
      quadBf16<T, S>(*c.p, c.s, c.first, c.n0, c.nc, xt, c.ldx, c.yt, c.ldy, c.bias);
    else
      rowsBf16<T, S>(*c.p, c.s, c.first, c.n0, c.nc, xt, c.ldx, c.yt, c.ldy, c.bias);
  });
}

} // namespace opscope::rt::avx512_bf16_tier

void opscope::rt::fillAvx512Bf16Kernels(KernelTable &t) {
  t.toBf16 = avx512_bf16_tier::toBf16;
  t.pairRowBf16 = avx512_bf16_tier::pairRowBf16;
  t.sparseBf16 = {avx512_bf16_tier::sparseBf16, "avx512_bf16", true, true};
  t.bf16OnF32 = false;
}
