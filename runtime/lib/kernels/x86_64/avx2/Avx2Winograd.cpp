//===- Avx2Winograd.cpp - Winograd convolutions, the AVX2 + FMA tier ------===//
//
// Part of opscope's runtime. The AVX2 + FMA forms of the Winograd
// convolutions' steps, F(2x2, 3x3) and F(4x4, 3x3) (KernelTable.h; the
// reference forms and the matrices are in reference/ReferenceWinograd.cpp).
// Channels-last activations make the transforms eight channels per
// instruction; the products (16 or 36 per tile) are register-blocked
// GEMMs: rows of tiles times panels of 8, 16 or 24 output channels (12
// accumulators, the rest for the panel and a broadcast).
//
// Why this tier has it: oneDNN 2.6 offers Winograd only on AVX-512, and
// its AVX2 direct kernels (jit:avx2) run 3x3 convolutions at 90-130
// GFLOP/s on one core, near the tier's FMA peak, so fewer multiplications
// are the only way to run them faster (docs/runtime-kernels.md).
//
//===----------------------------------------------------------------------===//

#include "../../KernelTable.h"
#include "Avx2Lanes.h"

#include <immintrin.h>

using namespace opscope;
using namespace opscope::rt;
using opscope::rt::avx2_tier::tailMask;

#define AVX2 __attribute__((target("avx2,fma")))

namespace {

template <bool Tail> AVX2 inline __m256 load(const float *p, __m256i mask) {
  return Tail ? _mm256_maskload_ps(p, mask) : _mm256_loadu_ps(p);
}
template <bool Tail> AVX2 inline void store(float *p, __m256 v, __m256i mask) {
  if (Tail)
    _mm256_maskstore_ps(p, mask, v);
  else
    _mm256_storeu_ps(p, v);
}

/// Eight channels from c of one tile: v = B^T d B, one row of d at a time.
template <bool Tail>
AVX2 inline void inputVector(const float *const *px, int64_t c, float *v,
                             int64_t ldv, __m256i mask) {
  __m256 r[16];
  for (int i = 0; i < 4; ++i) {
    __m256 d0 = load<Tail>(px[4 * i + 0] + c, mask),
           d1 = load<Tail>(px[4 * i + 1] + c, mask),
           d2 = load<Tail>(px[4 * i + 2] + c, mask),
           d3 = load<Tail>(px[4 * i + 3] + c, mask);
    r[4 * i + 0] = _mm256_sub_ps(d0, d2);
    r[4 * i + 1] = _mm256_add_ps(d1, d2);
    r[4 * i + 2] = _mm256_sub_ps(d2, d1);
    r[4 * i + 3] = _mm256_sub_ps(d1, d3);
  }
  for (int j = 0; j < 4; ++j) {
    __m256 t0 = r[j], t1 = r[4 + j], t2 = r[8 + j], t3 = r[12 + j];
    store<Tail>(v + (0 + j) * ldv + c, _mm256_sub_ps(t0, t2), mask);
    store<Tail>(v + (4 + j) * ldv + c, _mm256_add_ps(t1, t2), mask);
    store<Tail>(v + (8 + j) * ldv + c, _mm256_sub_ps(t2, t1), mask);
    store<Tail>(v + (12 + j) * ldv + c, _mm256_sub_ps(t1, t3), mask);
  }
}

AVX2 void winogradInput(const float *const *px, int64_t channels, float *v,
                        int64_t ldv) {
  int64_t c = 0;
  __m256i all = _mm256_set1_epi32(-1);
  for (; c + 8 <= channels; c += 8)
    inputVector<false>(px, c, v, ldv, all);
  if (c < channels)
    inputVector<true>(px, c, v, ldv, tailMask(channels - c));
}

/// MR rows of m, NV vectors of one panel: the panel (channels x 8 NV) is
/// read once per channel, each row's value broadcast against it. The
/// accumulators are named variables: GCC 12 keeps an array of them on the
/// stack and stores each one on every channel (85 against 120 GFLOP/s).
#define WG_DECL1(i) __m256 acc##i##0 = _mm256_setzero_ps();
#define WG_DECL2(i) WG_DECL1(i) __m256 acc##i##1 = _mm256_setzero_ps();
#define WG_DECL3(i) WG_DECL2(i) __m256 acc##i##2 = _mm256_setzero_ps();
#define WG_ROW1(i)                                                             \
  __m256 a##i = _mm256_broadcast_ss(vc + i * channels);                        \
  acc##i##0 = _mm256_fmadd_ps(a##i, b0, acc##i##0);
#define WG_ROW2(i) WG_ROW1(i) acc##i##1 = _mm256_fmadd_ps(a##i, b1, acc##i##1);
#define WG_ROW3(i) WG_ROW2(i) acc##i##2 = _mm256_fmadd_ps(a##i, b2, acc##i##2);
#define WG_STORE1(i) _mm256_storeu_ps(m + i * ldm, acc##i##0);
#define WG_STORE2(i) WG_STORE1(i) _mm256_storeu_ps(m + i * ldm + 8, acc##i##1);
#define WG_STORE3(i) WG_STORE2(i) _mm256_storeu_ps(m + i * ldm + 16, acc##i##2);
#define WG_B1 __m256 b0 = _mm256_loadu_ps(uc);
#define WG_B2 WG_B1 __m256 b1 = _mm256_loadu_ps(uc + 8);
#define WG_B3 WG_B2 __m256 b2 = _mm256_loadu_ps(uc + 16);
#define WG_EACH4(X) X(0) X(1) X(2) X(3)
#define WG_EACH6(X) WG_EACH4(X) X(4) X(5)
#define WG_EACH8(X) WG_EACH6(X) X(6) X(7)
#define WG_TILE(MR, NV)                                                        \
  AVX2 void gemmTile##MR##x##NV(const float *v, int64_t channels,              \
                                const float *up, float *m, int64_t ldm) {      \
    WG_EACH##MR(WG_DECL##NV) for (int64_t c = 0; c < channels; ++c) {          \
      const float *vc = v + c, *uc = up + c * 8 * NV;                          \
      WG_B##NV WG_EACH##MR(WG_ROW##NV)                                         \
    }                                                                          \
    WG_EACH##MR(WG_STORE##NV)                                                  \
  }
#define WG_EACH1(X) X(0)
#define WG_EACH2(X) X(0) X(1)
WG_TILE(8, 1)
WG_TILE(6, 2)
WG_TILE(4, 3)
WG_TILE(4, 1)
WG_TILE(4, 2)
WG_TILE(2, 1)
WG_TILE(2, 2)
WG_TILE(2, 3)
WG_TILE(1, 1)
WG_TILE(1, 2)
WG_TILE(1, 3)

using GemmTile = void (*)(const float *, int64_t, const float *, float *,
                          int64_t);

/// Rows of m in tiles of `mr`, then of 4 and 2 (a block's last rows, or
/// few tiles: a batch of small images, 8 tiles of 4x4 for 8 images of
/// 4x4 outputs), then one. Two rows left after tiles of 6 take the last
/// 8 as two tiles of 4: a 2 x 16 tile's 4 accumulators cannot hide the
/// FMA's latency (the corpus CNN's 2-row tiles ran at a fifth of the 6-row
/// tiles' rate per row under the avx2 cap on a Zen 5 core).
AVX2 void gemmPanel(const GemmTile (&tiles)[4], int64_t mr, const float *v,
                    int64_t rows, int64_t channels, const float *up, float *m,
                    int64_t ldm) {
  int64_t full = rows / mr * mr;
  if (mr == 6 && rows % mr == 2 && full >= mr)
    full -= mr;
  int64_t r = 0;
  for (; r < full; r += mr)
    tiles[0](v + r * channels, channels, up, m + r * ldm, ldm);
  // Fewer than mr rows are left, or 8 after tiles of 6: 4-row tiles run
  // at most twice (never after tiles of 4), a 2-row tile at most once,
  // then single rows.
  for (int i = 1; i < 4; ++i) {
    int64_t n = 4 >> (i - 1); // 4, 2, 1
    for (; r + n <= rows; r += n)
      tiles[i](v + r * channels, channels, up, m + r * ldm, ldm);
  }
}

AVX2 void winogradGemm(const float *v, const float *u, float *m, int64_t rows,
                       int64_t channels, int64_t kp, int64_t panel) {
  // (k24's second entry is never reached: tiles of 4 leave fewer than 4.)
  static constexpr GemmTile k24[4] = {gemmTile4x3, gemmTile4x3, gemmTile2x3,
                                      gemmTile1x3},
                            k16[4] = {gemmTile6x2, gemmTile4x2, gemmTile2x2,
                                      gemmTile1x2},
                            k8[4] = {gemmTile8x1, gemmTile4x1, gemmTile2x1,
                                     gemmTile1x1};
  int64_t mr = panel == 24 ? 4 : panel == 16 ? 6 : 8;
  const GemmTile(&tiles)[4] = panel == 24 ? k24 : panel == 16 ? k16 : k8;
  for (int64_t k0 = 0; k0 < kp; k0 += panel)
    gemmPanel(tiles, mr, v, rows, channels, u + k0 * channels, m + k0, kp);
}

/// Eight output channels from k of one tile: A^T m A plus the bias. `m`
/// has whole vectors (kp is a multiple of 8); the bias and y may not.
template <bool Tail>
AVX2 inline void outputVector(const float *m, int64_t ldm, const float *bias,
                              float *y, int64_t outC, int64_t k, __m256i mask) {
  __m256 s[8];
  for (int j = 0; j < 4; ++j) {
    __m256 m0 = _mm256_loadu_ps(m + (0 + j) * ldm + k),
           m1 = _mm256_loadu_ps(m + (4 + j) * ldm + k),
           m2 = _mm256_loadu_ps(m + (8 + j) * ldm + k),
           m3 = _mm256_loadu_ps(m + (12 + j) * ldm + k);
    s[j] = _mm256_add_ps(_mm256_add_ps(m0, m1), m2);
    s[4 + j] = _mm256_sub_ps(_mm256_sub_ps(m1, m2), m3);
  }
  __m256 b = bias ? load<Tail>(bias + k, mask) : _mm256_setzero_ps();
  for (int i = 0; i < 2; ++i) {
    const __m256 *r = s + 4 * i;
    __m256 y0 =
        _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(r[0], r[1]), r[2]), b);
    __m256 y1 =
        _mm256_add_ps(_mm256_sub_ps(_mm256_sub_ps(r[1], r[2]), r[3]), b);
    store<Tail>(y + (2 * i + 0) * outC + k, y0, mask);
    store<Tail>(y + (2 * i + 1) * outC + k, y1, mask);
  }
}

AVX2 void winogradOutput(const float *m, int64_t ldm, const float *bias,
                         float *y, int64_t outC) {
  int64_t k = 0;
  __m256i all = _mm256_set1_epi32(-1);
  for (; k + 8 <= outC; k += 8)
    outputVector<false>(m, ldm, bias, y, outC, k, all);
  if (k < outC)
    outputVector<true>(m, ldm, bias, y, outC, k, tailMask(outC - k));
}

/// F(4x4, 3x3): t = B^T d for six vectors (d may be t).
AVX2 inline void inputColumn6(const __m256 *d, __m256 *t) {
  const __m256 four = _mm256_set1_ps(4.0f), five = _mm256_set1_ps(5.0f);
  __m256 a = _mm256_fnmadd_ps(four, d[2], d[4]);
  __m256 b = _mm256_fnmadd_ps(four, d[1], d[3]);
  __m256 c = _mm256_sub_ps(d[4], d[2]);
  __m256 e = _mm256_sub_ps(d[3], d[1]);
  e = _mm256_add_ps(e, e);
  __m256 t0 = _mm256_fmadd_ps(four, d[0], _mm256_fnmadd_ps(five, d[2], d[4]));
  __m256 t5 = _mm256_fmadd_ps(four, d[1], _mm256_fnmadd_ps(five, d[3], d[5]));
  t[0] = t0;
  t[1] = _mm256_add_ps(a, b);
  t[2] = _mm256_sub_ps(a, b);
  t[3] = _mm256_add_ps(c, e);
  t[4] = _mm256_sub_ps(c, e);
  t[5] = t5;
}

/// Eight channels from c of one F(4x4, 3x3) tile: v = B^T d B.
template <bool Tail>
AVX2 inline void input4Vector(const float *const *px, int64_t c, float *v,
                              int64_t ldv, __m256i mask) {
  __m256 rows[36];
  for (int i = 0; i < 6; ++i) {
    __m256 d[6];
    for (int j = 0; j < 6; ++j)
      d[j] = load<Tail>(px[6 * i + j] + c, mask);
    inputColumn6(d, rows + 6 * i);
  }
  for (int j = 0; j < 6; ++j) {
    __m256 col[6];
    for (int i = 0; i < 6; ++i)
      col[i] = rows[6 * i + j];
    inputColumn6(col, col);
    for (int i = 0; i < 6; ++i)
      store<Tail>(v + (6 * i + j) * ldv + c, col[i], mask);
  }
}

AVX2 void winograd4Input(const float *const *px, int64_t channels, float *v,
                         int64_t ldv) {
  int64_t c = 0;
  __m256i all = _mm256_set1_epi32(-1);
  for (; c + 8 <= channels; c += 8)
    input4Vector<false>(px, c, v, ldv, all);
  if (c < channels)
    input4Vector<true>(px, c, v, ldv, tailMask(channels - c));
}

/// F(4x4, 3x3): y = A^T m for six vectors.
AVX2 inline void outputColumn6(const __m256 *m, __m256 *y) {
  __m256 p12 = _mm256_add_ps(m[1], m[2]), m12 = _mm256_sub_ps(m[1], m[2]);
  __m256 p34 = _mm256_add_ps(m[3], m[4]), m34 = _mm256_sub_ps(m[3], m[4]);
  y[0] = _mm256_add_ps(_mm256_add_ps(m[0], p12), p34);
  y[1] = _mm256_fmadd_ps(_mm256_set1_ps(2.0f), m34, m12);
  y[2] = _mm256_fmadd_ps(_mm256_set1_ps(4.0f), p34, p12);
  y[3] = _mm256_add_ps(_mm256_fmadd_ps(_mm256_set1_ps(8.0f), m34, m12), m[5]);
}

/// Eight output channels from k of one F(4x4, 3x3) tile: A^T m A plus
/// the bias.
template <bool Tail>
AVX2 inline void output4Vector(const float *m, int64_t ldm, const float *bias,
                               float *y, int64_t outC, int64_t k,
                               __m256i mask) {
  __m256 rows[24];
  for (int i = 0; i < 6; ++i) {
    __m256 r[6];
    for (int j = 0; j < 6; ++j)
      r[j] = _mm256_loadu_ps(m + (6 * i + j) * ldm + k);
    outputColumn6(r, rows + 4 * i);
  }
  __m256 b = bias ? load<Tail>(bias + k, mask) : _mm256_setzero_ps();
  for (int j = 0; j < 4; ++j) {
    __m256 col[6], out[4];
    for (int i = 0; i < 6; ++i)
      col[i] = rows[4 * i + j];
    outputColumn6(col, out);
    for (int i = 0; i < 4; ++i)
      store<Tail>(y + (4 * i + j) * outC + k, _mm256_add_ps(out[i], b), mask);
  }
}

AVX2 void winograd4Output(const float *m, int64_t ldm, const float *bias,
                          float *y, int64_t outC) {
  int64_t k = 0;
  __m256i all = _mm256_set1_epi32(-1);
  for (; k + 8 <= outC; k += 8)
    output4Vector<false>(m, ldm, bias, y, outC, k, all);
  if (k < outC)
    output4Vector<true>(m, ldm, bias, y, outC, k, tailMask(outC - k));
}

} // namespace

void opscope::rt::fillAvx2WinogradKernels(KernelTable &t) {
  t.winogradInput = winogradInput;
  t.winogradGemm = winogradGemm;
  t.winogradOutput = winogradOutput;
  t.winograd4Input = winograd4Input;
  t.winograd4Output = winograd4Output;
  t.winogradPreferred = true;
}
