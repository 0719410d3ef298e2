//===- Avx512Vnni.cpp - s8 block-sparse rows, AVX-512 VNNI ---===//
//
// Part of opscope's runtime. The s8 row kernels (vpdpbusd) of the block-sparse inner products.
//
//===----------------------------------------------------------------------===//

#include "Avx512Sparse.h"

using namespace opscope;
using namespace opscope::rt;
using namespace opscope::rt::sparse_rows;
using namespace opscope::rt::sparse_rows::avx512;

#define AVX512VNNI OPSCOPE_AVX512_VNNI

namespace opscope::rt::avx512_vnni_tier {
/// s8: one vpdpbusd per block and zmm; int32 partial sums across slabs, the
/// dequantization into f32 on the last.
template <int T, bool Stream>
AVX512VNNI void rowsS8(const Packed &p, int64_t s, bool first, bool last,
                       int64_t n0, int64_t nc, const uint8_t *xt,
                       int64_t ldxDwords, float *yt, int64_t ldy, const float *bias,
                       float xScale, int32_t xZero) {
  struct Acc {
    __m512i v[T];
  };
  const auto *vals = static_cast<const int32_t *>(p.values);
  const auto *x32 = reinterpret_cast<const int32_t *>(xt);
  const int32_t *cols = p.cols;
  pairRows<Acc>(
      SlabRows(p, s, n0, nc), n0,
      [&](int64_t r, Acc &a) AVX512VNNI {
        for (int t = 0; t < T; ++t)
          a.v[t] = first ? _mm512_setzero_si512()
                         : _mm512_loadu_si512(yt + r * ldy + 16 * t);
      },
      [&](int32_t i, Acc &a) AVX512VNNI {
        const int32_t *x = x32 + (cols[i] >> 2) * ldxDwords;
        __m512i w = _mm512_set1_epi32(vals[i]);
        for (int t = 0; t < T; ++t)
          a.v[t] = _mm512_dpbusd_epi32(a.v[t], _mm512_load_si512(x + 16 * t), w);
      },
      [&](int64_t r, Acc &a) AVX512VNNI {
        if (!last) {
          for (int t = 0; t < T; ++t)
            _mm512_storeu_si512(yt + r * ldy + 16 * t, a.v[t]);
          return;
        }
        int64_t row = n0 + r;
        __m512 sc = _mm512_set1_ps(xScale * p.scale[row]);
        __m512 b = _mm512_set1_ps(bias ? bias[row] : 0.0f);
        __m512i comp = _mm512_set1_epi32(xZero * p.rowSum[row]);
        for (int t = 0; t < T; ++t) {
          __m512 v = _mm512_cvtepi32_ps(_mm512_sub_epi32(a.v[t], comp));
          storeOut<Stream>(yt + r * ldy + 16 * t, _mm512_fmadd_ps(v, sc, b));
        }
      });
}

/// s8 in 4x4 blocks: four broadcast weight dwords per block, and per zmm of
/// activations four vpdpbusd, one per output.
template <int T, bool Stream>
AVX512VNNI void quadS8(const Packed &p, int64_t s, bool first, bool last,
                       int64_t n0, int64_t nc, const uint8_t *xt,
                       int64_t ldxDwords, float *yt, int64_t ldy, const float *bias,
                       float xScale, int32_t xZero) {
  struct Acc {
    __m512i v[4][T];
  };
  const auto *vals = static_cast<const int32_t *>(p.values);
  const auto *x32 = reinterpret_cast<const int32_t *>(xt);
  const int32_t *cols = p.cols;
  quadRows<Acc>(
      p, s, n0, nc,
      [&](int64_t r, Acc &a) AVX512VNNI {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            a.v[q][t] = first ? _mm512_setzero_si512()
                              : _mm512_loadu_si512(yt + (r + q) * ldy + 16 * t);
      },
      [&](int32_t i, Acc &a) AVX512VNNI {
        const int32_t *x = x32 + (cols[i] >> 2) * ldxDwords;
        const int32_t *v = vals + 4 * i;
        __m512i w[4];
        for (int q = 0; q < 4; ++q)
          w[q] = _mm512_set1_epi32(v[q]);
        for (int t = 0; t < T; ++t) {
          __m512i xv = _mm512_load_si512(x + 16 * t);
          for (int q = 0; q < 4; ++q)
            a.v[q][t] = _mm512_dpbusd_epi32(a.v[q][t], xv, w[q]);
        }
      },
      [&](int64_t r, Acc &a) AVX512VNNI {
        for (int q = 0; q < 4; ++q) {
          float *out = yt + (r + q) * ldy;
          if (!last) {
            for (int t = 0; t < T; ++t)
              _mm512_storeu_si512(out + 16 * t, a.v[q][t]);
            continue;
          }
          int64_t row = n0 + r + q;
          __m512 sc = _mm512_set1_ps(xScale * p.scale[row]);
          __m512 b = _mm512_set1_ps(bias ? bias[row] : 0.0f);
          __m512i comp = _mm512_set1_epi32(xZero * p.rowSum[row]);
          for (int t = 0; t < T; ++t) {
            __m512 v = _mm512_cvtepi32_ps(_mm512_sub_epi32(a.v[q][t], comp));
            storeOut<Stream>(out + 16 * t, _mm512_fmadd_ps(v, sc, b));
          }
        }
      });
}


AVX512VNNI void sparseS8(const SparseRowsCall &c) {
  withTiles(int((c.mc + 15) / 16), c.stream, [&](auto t, auto st) AVX512VNNI {
    constexpr int T = decltype(t)::value;
    constexpr bool S = decltype(st)::value;
    auto *xt = static_cast<const uint8_t *>(c.xt);
    if (c.p->h.blockRows == 4)
      quadS8<T, S>(*c.p, c.s, c.first, c.last, c.n0, c.nc, xt, c.ldx, c.yt,
                   c.ldy, c.bias, c.xScale, c.xZero);
    else
      rowsS8<T, S>(*c.p, c.s, c.first, c.last, c.n0, c.nc, xt, c.ldx, c.yt,
                   c.ldy, c.bias, c.xScale, c.xZero);
  });
}

} // namespace opscope::rt::avx512_vnni_tier

void opscope::rt::fillAvx512VnniKernels(KernelTable &t) {
  t.sparseS8 = {avx512_vnni_tier::sparseS8, "avx512_vnni", true, true};
}
