//===- Avx512Winograd.cpp - Winograd convolutions, the AVX-512 tier -------===//
//
// Part of opscope's runtime. The AVX-512 forms of the Winograd
// convolutions' steps, F(2x2, 3x3) and F(4x4, 3x3) (KernelTable.h; the
// reference forms and the matrices are in reference/ReferenceWinograd.cpp,
// the AVX2 forms in x86_64/avx2/Avx2Winograd.cpp, which these follow at
// twice the width): the transforms 16 channels per instruction, the GEMMs
// on panels of 16, 32 or 48 output channels in register tiles of 12 x 16,
// 12 x 32 and 8 x 48 (12, 24 and 24 of the 32 registers accumulating).
//
//===----------------------------------------------------------------------===//

#include "../../KernelTable.h"
#include "Avx512Lanes.h"

#include <immintrin.h>

using namespace opscope;
using namespace opscope::rt;
using opscope::rt::avx512_tier::tailMask;

#define AVX512 __attribute__((target("avx512f,fma")))

namespace {

AVX512 inline __m512 load(const float *p, __mmask16 m) {
  return _mm512_maskz_loadu_ps(m, p);
}
AVX512 inline void store(float *p, __m512 v, __mmask16 m) {
  _mm512_mask_storeu_ps(p, m, v);
}

/// Sixteen channels from c of one F(2x2, 3x3) tile: v = B^T d B.
AVX512 inline void inputVector(const float *const *px, int64_t c, float *v,
                               int64_t ldv, __mmask16 mask) {
  __m512 r[16];
  for (int i = 0; i < 4; ++i) {
    __m512 d0 = load(px[4 * i + 0] + c, mask),
           d1 = load(px[4 * i + 1] + c, mask),
           d2 = load(px[4 * i + 2] + c, mask),
           d3 = load(px[4 * i + 3] + c, mask);
    r[4 * i + 0] = _mm512_sub_ps(d0, d2);
    r[4 * i + 1] = _mm512_add_ps(d1, d2);
    r[4 * i + 2] = _mm512_sub_ps(d2, d1);
    r[4 * i + 3] = _mm512_sub_ps(d1, d3);
  }
  for (int j = 0; j < 4; ++j) {
    __m512 t0 = r[j], t1 = r[4 + j], t2 = r[8 + j], t3 = r[12 + j];
    store(v + (0 + j) * ldv + c, _mm512_sub_ps(t0, t2), mask);
    store(v + (4 + j) * ldv + c, _mm512_add_ps(t1, t2), mask);
    store(v + (8 + j) * ldv + c, _mm512_sub_ps(t2, t1), mask);
    store(v + (12 + j) * ldv + c, _mm512_sub_ps(t1, t3), mask);
  }
}

AVX512 void winogradInput(const float *const *px, int64_t channels, float *v,
                          int64_t ldv) {
  for (int64_t c = 0; c < channels; c += 16)
    inputVector(px, c, v, ldv, tailMask(channels - c));
}

/// F(4x4, 3x3): t = B^T d for six vectors (d may be t).
AVX512 inline void inputColumn6(const __m512 *d, __m512 *t) {
  const __m512 four = _mm512_set1_ps(4.0f), five = _mm512_set1_ps(5.0f);
  __m512 a = _mm512_fnmadd_ps(four, d[2], d[4]);
  __m512 b = _mm512_fnmadd_ps(four, d[1], d[3]);
  __m512 c = _mm512_sub_ps(d[4], d[2]);
  __m512 e = _mm512_sub_ps(d[3], d[1]);
  e = _mm512_add_ps(e, e);
  __m512 t0 = _mm512_fmadd_ps(four, d[0], _mm512_fnmadd_ps(five, d[2], d[4]));
  __m512 t5 = _mm512_fmadd_ps(four, d[1], _mm512_fnmadd_ps(five, d[3], d[5]));
  t[0] = t0;
  t[1] = _mm512_add_ps(a, b);
  t[2] = _mm512_sub_ps(a, b);
  t[3] = _mm512_add_ps(c, e);
  t[4] = _mm512_sub_ps(c, e);
  t[5] = t5;
}

AVX512 void winograd4Input(const float *const *px, int64_t channels, float *v,
                           int64_t ldv) {
  for (int64_t c = 0; c < channels; c += 16) {
    __mmask16 mask = tailMask(channels - c);
    __m512 rows[36];
    for (int i = 0; i < 6; ++i) {
      __m512 d[6];
      for (int j = 0; j < 6; ++j)
        d[j] = load(px[6 * i + j] + c, mask);
      inputColumn6(d, rows + 6 * i);
    }
    for (int j = 0; j < 6; ++j) {
      __m512 col[6];
      for (int i = 0; i < 6; ++i)
        col[i] = rows[6 * i + j];
      inputColumn6(col, col);
      for (int i = 0; i < 6; ++i)
        store(v + (6 * i + j) * ldv + c, col[i], mask);
    }
  }
}

/// MR rows of m, NV vectors of 16 of one panel (Avx2Winograd.cpp's
/// register tiles at twice the width; named accumulators for the same
/// reason).
#define WZ_DECL1(i) __m512 acc##i##0 = _mm512_setzero_ps();
#define WZ_DECL2(i) WZ_DECL1(i) __m512 acc##i##1 = _mm512_setzero_ps();
#define WZ_DECL3(i) WZ_DECL2(i) __m512 acc##i##2 = _mm512_setzero_ps();
#define WZ_ROW1(i)                                                             \
  __m512 a##i = _mm512_set1_ps(vc[i * channels]);                              \
  acc##i##0 = _mm512_fmadd_ps(a##i, b0, acc##i##0);
#define WZ_ROW2(i) WZ_ROW1(i) acc##i##1 = _mm512_fmadd_ps(a##i, b1, acc##i##1);
#define WZ_ROW3(i) WZ_ROW2(i) acc##i##2 = _mm512_fmadd_ps(a##i, b2, acc##i##2);
#define WZ_STORE1(i) _mm512_storeu_ps(m + i * ldm, acc##i##0);
#define WZ_STORE2(i) WZ_STORE1(i) _mm512_storeu_ps(m + i * ldm + 16, acc##i##1);
#define WZ_STORE3(i) WZ_STORE2(i) _mm512_storeu_ps(m + i * ldm + 32, acc##i##2);
#define WZ_B1 __m512 b0 = _mm512_loadu_ps(uc);
#define WZ_B2 WZ_B1 __m512 b1 = _mm512_loadu_ps(uc + 16);
#define WZ_B3 WZ_B2 __m512 b2 = _mm512_loadu_ps(uc + 32);
#define WZ_EACH1(X) X(0)
#define WZ_EACH4(X) X(0) X(1) X(2) X(3)
#define WZ_EACH8(X) WZ_EACH4(X) X(4) X(5) X(6) X(7)
#define WZ_EACH12(X) WZ_EACH8(X) X(8) X(9) X(10) X(11)
#define WZ_TILE(MR, NV)                                                        \
  AVX512 void gemmTile##MR##x##NV(const float *v, int64_t channels,            \
                                  const float *up, float *m, int64_t ldm) {    \
    WZ_EACH##MR(WZ_DECL##NV);                                                  \
    for (int64_t c = 0; c < channels; ++c) {                                   \
      const float *vc = v + c, *uc = up + c * 16 * NV;                         \
      WZ_B##NV WZ_EACH##MR(WZ_ROW##NV)                                         \
    }                                                                          \
    WZ_EACH##MR(WZ_STORE##NV)                                                  \
  }
WZ_TILE(12, 1)
WZ_TILE(12, 2)
WZ_TILE(8, 3)
WZ_TILE(4, 1)
WZ_TILE(4, 2)
WZ_TILE(4, 3)
WZ_TILE(1, 1)
WZ_TILE(1, 2)
WZ_TILE(1, 3)

using GemmTile = void (*)(const float *, int64_t, const float *, float *,
                          int64_t);

/// Rows of m in tiles of `mr`, then of 4 (few tiles: a batch of small
/// images), then one at a time.
AVX512 void gemmPanel(GemmTile tile, GemmTile four, GemmTile row, int64_t mr,
                      const float *v, int64_t rows, int64_t channels,
                      const float *up, float *m, int64_t ldm) {
  int64_t r = 0;
  for (; r + mr <= rows; r += mr)
    tile(v + r * channels, channels, up, m + r * ldm, ldm);
  for (; r + 4 <= rows; r += 4)
    four(v + r * channels, channels, up, m + r * ldm, ldm);
  for (; r < rows; ++r)
    row(v + r * channels, channels, up, m + r * ldm, ldm);
}

AVX512 void winogradGemm(const float *v, const float *u, float *m, int64_t rows,
                         int64_t channels, int64_t kp, int64_t panel) {
  for (int64_t k0 = 0; k0 < kp; k0 += panel) {
    const float *up = u + k0 * channels;
    switch (panel) {
    case 48:
      gemmPanel(gemmTile8x3, gemmTile4x3, gemmTile1x3, 8, v, rows, channels, up,
                m + k0, kp);
      break;
    case 32:
      gemmPanel(gemmTile12x2, gemmTile4x2, gemmTile1x2, 12, v, rows, channels,
                up, m + k0, kp);
      break;
    default:
      gemmPanel(gemmTile12x1, gemmTile4x1, gemmTile1x1, 12, v, rows, channels,
                up, m + k0, kp);
      break;
    }
  }
}

/// Sixteen output channels from k of one F(2x2, 3x3) tile.
AVX512 inline void outputVector(const float *m, int64_t ldm, const float *bias,
                                float *y, int64_t outC, int64_t k,
                                __mmask16 mask) {
  __m512 s[8];
  for (int j = 0; j < 4; ++j) {
    __m512 m0 = _mm512_loadu_ps(m + (0 + j) * ldm + k),
           m1 = _mm512_loadu_ps(m + (4 + j) * ldm + k),
           m2 = _mm512_loadu_ps(m + (8 + j) * ldm + k),
           m3 = _mm512_loadu_ps(m + (12 + j) * ldm + k);
    s[j] = _mm512_add_ps(_mm512_add_ps(m0, m1), m2);
    s[4 + j] = _mm512_sub_ps(_mm512_sub_ps(m1, m2), m3);
  }
  __m512 b = bias ? load(bias + k, mask) : _mm512_setzero_ps();
  for (int i = 0; i < 2; ++i) {
    const __m512 *r = s + 4 * i;
    store(y + (2 * i + 0) * outC + k,
          _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(r[0], r[1]), r[2]), b),
          mask);
    store(y + (2 * i + 1) * outC + k,
          _mm512_add_ps(_mm512_sub_ps(_mm512_sub_ps(r[1], r[2]), r[3]), b),
          mask);
  }
}

AVX512 void winogradOutput(const float *m, int64_t ldm, const float *bias,
                           float *y, int64_t outC) {
  for (int64_t k = 0; k < outC; k += 16)
    outputVector(m, ldm, bias, y, outC, k, tailMask(outC - k));
}

/// F(4x4, 3x3): y = A^T m for six vectors.
AVX512 inline void outputColumn6(const __m512 *m, __m512 *y) {
  __m512 p12 = _mm512_add_ps(m[1], m[2]), m12 = _mm512_sub_ps(m[1], m[2]);
  __m512 p34 = _mm512_add_ps(m[3], m[4]), m34 = _mm512_sub_ps(m[3], m[4]);
  y[0] = _mm512_add_ps(_mm512_add_ps(m[0], p12), p34);
  y[1] = _mm512_fmadd_ps(_mm512_set1_ps(2.0f), m34, m12);
  y[2] = _mm512_fmadd_ps(_mm512_set1_ps(4.0f), p34, p12);
  y[3] = _mm512_add_ps(_mm512_fmadd_ps(_mm512_set1_ps(8.0f), m34, m12), m[5]);
}

AVX512 void winograd4Output(const float *m, int64_t ldm, const float *bias,
                            float *y, int64_t outC) {
  for (int64_t k = 0; k < outC; k += 16) {
    __mmask16 mask = tailMask(outC - k);
    __m512 rows[24];
    for (int i = 0; i < 6; ++i) {
      __m512 r[6];
      for (int j = 0; j < 6; ++j)
        r[j] = _mm512_loadu_ps(m + (6 * i + j) * ldm + k);
      outputColumn6(r, rows + 4 * i);
    }
    __m512 b = bias ? load(bias + k, mask) : _mm512_setzero_ps();
    for (int j = 0; j < 4; ++j) {
      __m512 col[6], out[4];
      for (int i = 0; i < 6; ++i)
        col[i] = rows[4 * i + j];
      outputColumn6(col, out);
      for (int i = 0; i < 4; ++i)
        store(y + (4 * i + j) * outC + k, _mm512_add_ps(out[i], b), mask);
    }
  }
}

} // namespace

void opscope::rt::fillAvx512WinogradKernels(KernelTable &t) {
  t.winogradInput = winogradInput;
  t.winograd4Input = winograd4Input;
  t.winogradGemm = winogradGemm;
  t.winogradOutput = winogradOutput;
  t.winograd4Output = winograd4Output;
  t.winogradLanes = 16;
  // Faster than oneDNN's brgconv:avx512_core on every measured shape
  // (docs/runtime-kernels.md).
  t.winogradPreferred = true;
}
