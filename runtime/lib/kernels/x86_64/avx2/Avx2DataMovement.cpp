//===- Avx2DataMovement.cpp - the AVX2 tier's 32-bit data movement ------===//
//
// Part of opscope's runtime. The AVX2 + FMA tier's table entries that move
// 32-bit elements: transposes and interleaving, channels-last max pooling's
// pixel, and bilinear resize's rows in ONNX Runtime's order.
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

/// Resize2DPlan::colWindows' block width is this tier's vector.
static_assert(Resize2DPlan::kWindowCols == 8);

/// KernelTable::resizeRowOrt: each block of 8 outputs loads the window of
/// 8 source columns its plan names from both rows (masked at the row's
/// end), picks the four taps with vpermps and blends them in registers,
/// with no gathered rows in between. Bilinear 2x NCHW to 16 x 1024 x 1024
/// (bench-datamove, AMD EPYC Zen 3, one core): 46% of memcpy's bandwidth
/// when the taps were first gathered into rows (in L1) and four rows then
/// blended (gatherTaps and blendTapsOrt, which only the reference tier
/// keeps), 65-72% so. Blocks without a window (downsampling past 8:7) and
/// the tail go element by element, with the same operations.
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

} // namespace opscope::rt::avx2_tier

void opscope::rt::fillAvx2DataMovementKernels(KernelTable &t) {
  t.maxPixelNhwc = avx2_tier::maxPixelNhwc;
  t.transpose32 = avx2_tier::transpose32;
  t.interleave2x32 = avx2_tier::interleave2x32;
  t.resizeRowOrt = avx2_tier::resizeRowOrt;
}
