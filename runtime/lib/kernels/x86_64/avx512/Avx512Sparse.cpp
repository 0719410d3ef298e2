//===- Avx512Sparse.cpp - f32 block-sparse rows, AVX-512 ---===//
//
// Part of opscope's runtime. The f32 row kernels of the block-sparse inner products (SparseRows.h):
// 1xR blocks two rows at a time, 4x4 blocks four outputs at a time, with
// up to four zmm of tokens per row.
//
//===----------------------------------------------------------------------===//

#include "Avx512Sparse.h"

using namespace opscope;
using namespace opscope::rt;
using namespace opscope::rt::sparse_rows;
using namespace opscope::rt::sparse_rows::avx512;

#define AVX512 OPSCOPE_AVX512

namespace opscope::rt::avx512_sparse {
/// f32: separate accumulators for the even and odd elements of a block, so
/// that 4T independent FMA chains hide the FMA latency.
template <int T, bool Stream>
AVX512 void rowsF32(const Packed &p, int64_t s, bool first, int64_t n0,
                    int64_t nc, const float *xt, int64_t ldx, float *yt, int64_t ldy,
                    const float *bias) {
  struct Acc {
    __m512 even[T], odd[T];
  };
  const auto *vals = static_cast<const float *>(p.values);
  const int32_t *cols = p.cols;
  pairRows<Acc>(
      SlabRows(p, s, n0, nc), n0,
      [&](int64_t r, Acc &a) AVX512 {
        for (int t = 0; t < T; ++t) {
          a.even[t] = first ? _mm512_set1_ps(bias ? bias[n0 + r] : 0.0f)
                            : _mm512_loadu_ps(yt + r * ldy + 16 * t);
          a.odd[t] = _mm512_setzero_ps();
        }
      },
      [&](int32_t i, Acc &a) AVX512 {
        const float *x = xt + cols[i] * ldx;
        const float *v = vals + 4 * i;
        __m512 w0 = _mm512_set1_ps(v[0]), w1 = _mm512_set1_ps(v[1]);
        __m512 w2 = _mm512_set1_ps(v[2]), w3 = _mm512_set1_ps(v[3]);
        for (int t = 0; t < T; ++t) {
          a.even[t] =
              _mm512_fmadd_ps(w0, _mm512_load_ps(x + 16 * t), a.even[t]);
          a.odd[t] =
              _mm512_fmadd_ps(w1, _mm512_load_ps(x + ldx + 16 * t), a.odd[t]);
        }
        for (int t = 0; t < T; ++t) {
          a.even[t] = _mm512_fmadd_ps(
              w2, _mm512_load_ps(x + 2 * ldx + 16 * t), a.even[t]);
          a.odd[t] = _mm512_fmadd_ps(
              w3, _mm512_load_ps(x + 3 * ldx + 16 * t), a.odd[t]);
        }
      },
      [&](int64_t r, Acc &a) AVX512 {
        for (int t = 0; t < T; ++t)
          storeOut<Stream>(yt + r * ldy + 16 * t, _mm512_add_ps(a.even[t], a.odd[t]));
      });
}

template <int T, bool Stream>
AVX512 void quadF32(const Packed &p, int64_t s, bool first, int64_t n0,
                    int64_t nc, const float *xt, int64_t ldx, float *yt, int64_t ldy,
                    const float *bias) {
  struct Acc {
    __m512 v[4][T];
  };
  const auto *vals = static_cast<const float *>(p.values);
  const int32_t *cols = p.cols;
  quadRows<Acc>(
      p, s, n0, nc,
      [&](int64_t r, Acc &a) AVX512 {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            a.v[q][t] = first
                            ? _mm512_set1_ps(bias ? bias[n0 + r + q] : 0.0f)
                            : _mm512_loadu_ps(yt + (r + q) * ldy + 16 * t);
      },
      [&](int32_t i, Acc &a) AVX512 {
        const float *x = xt + cols[i] * ldx;
        const float *v = vals + 16 * i;
        for (int c = 0; c < 4; ++c) {
          __m512 xv[T];
          for (int t = 0; t < T; ++t)
            xv[t] = _mm512_load_ps(x + c * ldx + 16 * t);
          for (int q = 0; q < 4; ++q) {
            __m512 w = _mm512_set1_ps(v[4 * q + c]);
            for (int t = 0; t < T; ++t)
              a.v[q][t] = _mm512_fmadd_ps(w, xv[t], a.v[q][t]);
          }
        }
      },
      [&](int64_t r, Acc &a) AVX512 {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            storeOut<Stream>(yt + (r + q) * ldy + 16 * t, a.v[q][t]);
      });
}


AVX512 void sparseF32(const SparseRowsCall &c) {
  withTiles(int((c.mc + 15) / 16), c.stream, [&](auto t, auto st) AVX512 {
    constexpr int T = decltype(t)::value;
    constexpr bool S = decltype(st)::value;
    auto *xt = static_cast<const float *>(c.xt);
    if (c.p->h.blockRows == 4)
      quadF32<T, S>(*c.p, c.s, c.first, c.n0, c.nc, xt, c.ldx, c.yt, c.ldy, c.bias);
    else
      rowsF32<T, S>(*c.p, c.s, c.first, c.n0, c.nc, xt, c.ldx, c.yt, c.ldy, c.bias);
  });
}

} // namespace opscope::rt::avx512_sparse

void opscope::rt::fillAvx512SparseKernels(KernelTable &t) {
  t.sparseF32 = {avx512_sparse::sparseF32, "avx512", true, true};
  // Without AVX512-BF16, bf16 weights run on this kernel widened to f32
  // (bf16 values multiply exactly in f32); the scalar bf16 kernel measured
  // 1.3-3.7x slower than dense bf16 (768x768, M=128, 70-90%, Ice Lake Xeon).
  t.sparseBf16 = {nullptr, "avx512:f32", true, true};
  t.bf16OnF32 = true;
}
