//===- Avx2DataMovement.cpp - the AVX2 tier's 32-bit data movement ------===//
//
// Part of opscope's runtime. The AVX2 + FMA tier's table entries that move
// 32-bit elements: transposes and interleaving, channels-last max pooling's
// pixel, and bilinear resize's tap gathering and ONNX Runtime-order rows.
// Eight lanes, tails masked (Avx2Lanes.h); compiled with
// -ffp-contract=off (resizeRowOrt's products and sums are ONNX Runtime's,
// each rounded).
//
//===----------------------------------------------------------------------===//

#include "../../KernelTable.h"
#include "Avx2Lanes.h"

#include "opscope/runtime/generic.h"

#include <immintrin.h>

using namespace opscope;
using namespace opscope::rt;

#define AVX2 __attribute__((target("avx2,fma")))

namespace opscope::rt::avx2_tier {

/// In-register transpose of 8 rows of 8 floats.
AVX2 inline void transpose8(__m256 r[8]) {
  __m256 t[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  __m256 s[8];
  for (int i = 0; i < 2; ++i) {
    s[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    s[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    s[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    s[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(s[i], s[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(s[i], s[i + 4], 0x31);
  }
}

/// 8 x 8 blocks in registers, scalar edges.
AVX2 void transpose32(const void *srcv, int64_t lds, int64_t rows,
                      int64_t cols, void *dstv, int64_t ldd) {
  const auto *src = static_cast<const float *>(srcv);
  auto *dst = static_cast<float *>(dstv);
  int64_t r8 = rows / 8 * 8, c8 = cols / 8 * 8;
  __m256 r[8];
  for (int64_t i0 = 0; i0 < r8; i0 += 8)
    for (int64_t c0 = 0; c0 < c8; c0 += 8) {
      for (int i = 0; i < 8; ++i)
        r[i] = _mm256_loadu_ps(src + (i0 + i) * lds + c0);
      transpose8(r);
      for (int i = 0; i < 8; ++i)
        _mm256_storeu_ps(dst + (c0 + i) * ldd + i0, r[i]);
    }
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = i < r8 ? c8 : 0; c < cols; ++c)
      dst[c * ldd + i] = src[i * lds + c];
}

AVX2 void interleave2x32(const void *a, const void *b, int64_t n, void *out) {
  const auto *pa = static_cast<const float *>(a);
  const auto *pb = static_cast<const float *>(b);
  auto *po = static_cast<float *>(out);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 va = _mm256_loadu_ps(pa + i), vb = _mm256_loadu_ps(pb + i);
    __m256 lo = _mm256_unpacklo_ps(va, vb), hi = _mm256_unpackhi_ps(va, vb);
    _mm256_storeu_ps(po + 2 * i, _mm256_permute2f128_ps(lo, hi, 0x20));
    _mm256_storeu_ps(po + 2 * i + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
  }
  for (; i < n; ++i) {
    po[2 * i] = pa[i];
    po[2 * i + 1] = pb[i];
  }
}

/// maxPixelNhwc (RowKernels.h) with the maxima of 32 channels in four
/// registers across the window, where the row form re-loads and re-stores
/// y for every pixel (y may alias the inputs as far as the compiler
/// knows): 74.4 against 39.8 us in bench-kernels' MaxPoolNhwc (32 channels)
/// on a Sapphire Rapids class Xeon under the avx2 cap. vmaxps(x, m) is `x > m ?
/// x : m`, the row form's rule, so the bits are the reference tier's.
AVX2 void maxPixelNhwc(const float *const *px, int64_t count, float *y,
                       int64_t c) {
  int64_t k = 0;
  for (; k + 32 <= c; k += 32) {
    __m256 m[4];
    for (int i = 0; i < 4; ++i)
      m[i] = _mm256_loadu_ps(px[0] + k + 8 * i);
    for (int64_t j = 1; j < count; ++j)
      for (int i = 0; i < 4; ++i)
        m[i] = _mm256_max_ps(_mm256_loadu_ps(px[j] + k + 8 * i), m[i]);
    for (int i = 0; i < 4; ++i)
      _mm256_storeu_ps(y + k + 8 * i, m[i]);
  }
  for (; k < c; k += 8) {
    __m256i mask = tailMask(c - k);
    __m256 m = loadMasked(px[0] + k, mask);
    for (int64_t j = 1; j < count; ++j)
      m = _mm256_max_ps(loadMasked(px[j] + k, mask), m);
    storeMasked(y + k, mask, m);
  }
}

/// Four int64 indices minus `base`, and whether each lies in [0, 8).
AVX2 inline __m256i windowLanes(const int64_t *c, __m256i base,
                                __m256i &inside) {
  __m256i l = _mm256_sub_epi64(_mm256_loadu_si256(
                                   reinterpret_cast<const __m256i *>(c)),
                               base);
  inside = _mm256_and_si256(
      _mm256_cmpgt_epi64(l, _mm256_set1_epi64x(-1)),
      _mm256_cmpgt_epi64(_mm256_set1_epi64x(8), l));
  return l;
}

/// The low 32 bits of two vectors of four int64: eight int32 in order.
AVX2 inline __m256i narrowLanes(__m256i a, __m256i b) {
  __m256 packed = _mm256_shuffle_ps(_mm256_castsi256_ps(a),
                                    _mm256_castsi256_ps(b),
                                    _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_si256(_mm256_permute4x64_pd(
      _mm256_castps_pd(packed), _MM_SHUFFLE(3, 1, 2, 0)));
}

/// Resize's tap gathering (RowKernels.h's gatherTaps), as the AVX-512
/// tier's on half the width: 8 outputs at a time whose taps lie within 8
/// source elements of the first one (upsampling, and downsampling to 7/8
/// or more) come from one load of that window (masked at the row's end)
/// and one vpermps each; other blocks and the tail gather element by
/// element. The same values, by any route. Bilinear 2x NCHW on a 1024 x
/// 1024 map (bench-datamove, AMD EPYC Zen 3): 40% of the copy bandwidth
/// with the element-wise gather.
/// Resize2DPlan::colWindows' block width is this tier's vector.
static_assert(Resize2DPlan::kWindowCols == 8);

/// KernelTable::resizeRowOrt: each block of 8 outputs loads the window of
/// 8 source columns its plan names from both rows (masked at the row's
/// end), picks the four taps with vpermps and blends them in registers,
/// with no gathered rows in between. Bilinear 2x NCHW to 16 x 1024 x 1024
/// (bench-datamove, AMD EPYC Zen 3, one core): 46% of memcpy's bandwidth
/// through gatherTaps and blendTapsOrt, their rows in L1. Blocks without a
/// window (downsampling past 8:7) and the tail go element by element.
AVX2 void resizeRowOrt(const float *r0, const float *r1, int64_t len,
                       const int64_t *c0, const int64_t *c1,
                       const int32_t *windows, const float *wx0,
                       const float *wx1, float wy0, float wy1, float *y,
                       int64_t n) {
  auto one = [&](int64_t o) {
    y[o] = wx0[o] * wy0 * r0[c0[o]] + wx1[o] * wy0 * r0[c1[o]] +
           wx0[o] * wy1 * r1[c0[o]] + wx1[o] * wy1 * r1[c1[o]];
  };
  const __m256 vy0 = _mm256_set1_ps(wy0), vy1 = _mm256_set1_ps(wy1);
  int64_t o = 0;
  for (; o + 8 <= n; o += 8, windows += Resize2DPlan::kWindowInts) {
    const int64_t base = windows[0];
    if (base < 0) {
      for (int64_t i = o; i < o + 8; ++i)
        one(i);
      continue;
    }
    __m256 s0, s1;
    if (len - base >= 8) {
      s0 = _mm256_loadu_ps(r0 + base);
      s1 = _mm256_loadu_ps(r1 + base);
    } else {
      __m256i m = tailMask(len - base);
      s0 = loadMasked(r0 + base, m);
      s1 = loadMasked(r1 + base, m);
    }
    const __m256i i0 = _mm256_loadu_si256(
                      reinterpret_cast<const __m256i *>(windows + 1)),
                  i1 = _mm256_loadu_si256(
                      reinterpret_cast<const __m256i *>(windows + 9));
    const __m256 x0 = _mm256_loadu_ps(wx0 + o), x1 = _mm256_loadu_ps(wx1 + o);
    __m256 sum = _mm256_add_ps(
        _mm256_mul_ps(_mm256_mul_ps(x0, vy0), _mm256_permutevar8x32_ps(s0, i0)),
        _mm256_mul_ps(_mm256_mul_ps(x1, vy0), _mm256_permutevar8x32_ps(s0, i1)));
    sum = _mm256_add_ps(sum, _mm256_mul_ps(_mm256_mul_ps(x0, vy1),
                                           _mm256_permutevar8x32_ps(s1, i0)));
    sum = _mm256_add_ps(sum, _mm256_mul_ps(_mm256_mul_ps(x1, vy1),
                                           _mm256_permutevar8x32_ps(s1, i1)));
    _mm256_storeu_ps(y + o, sum);
  }
  for (; o < n; ++o)
    one(o);
}

AVX2 void gatherTaps(const float *x, int64_t len, const int64_t *c0,
                     const int64_t *c1, float *t0, float *t1, int64_t n) {
  int64_t o = 0;
  for (; o + 8 <= n; o += 8) {
    const int64_t base = c0[o];
    __m256i b = _mm256_set1_epi64x(base), in[4];
    __m256i l0a = windowLanes(c0 + o, b, in[0]);
    __m256i l0b = windowLanes(c0 + o + 4, b, in[1]);
    __m256i l1a = windowLanes(c1 + o, b, in[2]);
    __m256i l1b = windowLanes(c1 + o + 4, b, in[3]);
    __m256i all = _mm256_and_si256(_mm256_and_si256(in[0], in[1]),
                                   _mm256_and_si256(in[2], in[3]));
    if (_mm256_movemask_epi8(all) != -1) {
      for (int64_t i = o; i < o + 8; ++i) {
        t0[i] = x[c0[i]];
        t1[i] = x[c1[i]];
      }
      continue;
    }
    int64_t avail = len - base;
    __m256 window = avail >= 8 ? _mm256_loadu_ps(x + base)
                               : loadMasked(x + base, tailMask(avail));
    _mm256_storeu_ps(t0 + o, _mm256_permutevar8x32_ps(
                                 window, narrowLanes(l0a, l0b)));
    _mm256_storeu_ps(t1 + o, _mm256_permutevar8x32_ps(
                                 window, narrowLanes(l1a, l1b)));
  }
  for (; o < n; ++o) {
    t0[o] = x[c0[o]];
    t1[o] = x[c1[o]];
  }
}

} // namespace opscope::rt::avx2_tier

void opscope::rt::fillAvx2DataMovementKernels(KernelTable &t) {
  t.maxPixelNhwc = avx2_tier::maxPixelNhwc;
  t.transpose32 = avx2_tier::transpose32;
  t.interleave2x32 = avx2_tier::interleave2x32;
  t.gatherTaps = avx2_tier::gatherTaps;
  t.resizeRowOrt = avx2_tier::resizeRowOrt;
}
