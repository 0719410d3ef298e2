//===- Avx512Kernels.cpp - the AVX-512 tier of the kernel table -----------===//
//
// Part of opscope's runtime. The AVX-512 (F, BW, VL, DQ: oneDNN's
// avx512_core) forms of the table's f32 rows, conversions, quantization
// and 32-bit data movement. Every function carries its target attribute:
// the library builds for any x86-64 and KernelTable.cpp installs these
// only where the CPU, within OPSCOPE_MAX_ISA, has AVX-512. Tails use masked
// loads and stores rather than scalar loops. The transcendentals are
// polynomials (within 2e-7 absolute of the libm values on the ranges that
// matter, see FoldRunAgreementTest).
//
//===----------------------------------------------------------------------===//

#include "../../KernelTable.h"
#include "../../RowKernels.h"
#include "../Polynomials.h"
#include "Avx512Lanes.h"

#include <cmath>
#include <immintrin.h>

using namespace opscope;
using namespace opscope::rt;
using namespace opscope::rt::sparse_rows;

#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma")))

OPSCOPE_DEFINE_ROW_KERNELS(avx512_rows, AVX512)

namespace opscope::rt::avx512_tier {

/// c[0] z^(N-1) + ... + c[N-1], by Horner's rule.
template <int N> AVX512 inline __m512 horner(__m512 z, const float (&c)[N]) {
  __m512 p = _mm512_set1_ps(c[0]);
  for (int i = 1; i < N; ++i)
    p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(c[i]));
  return p;
}

/// e^x: x = n ln2 + r, e^r by Cephes' expf polynomial (poly::kExpP),
/// scaled by 2^n with scalef (which also handles overflow to inf and
/// underflow to 0). NaN passes through, as std::exp.
AVX512 inline __m512 exp512(__m512 x) {
  __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  __m512 in = x;
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(poly::kExpLo)),
                    _mm512_set1_ps(poly::kExpHi));
  __m512 n =
      _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(poly::kLog2e)),
                           _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(poly::kLn2Hi), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(poly::kLn2Lo), r);
  __m512 p = _mm512_fmadd_ps(_mm512_mul_ps(horner(r, poly::kExpP), r), r,
                             _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_mask_blend_ps(nan, _mm512_scalef_ps(p, n), in);
}

/// exp512 with the results for x < -87 (below e^-87 ~ 1.6e-38, just above
/// the smallest normal float) flushed to zero, without computing a
/// subnormal: on Intel cores an instruction that produces or reads one
/// takes a microcode assist of a hundred cycles or more. A masked attention
/// score (the mask adds -1e4 or the float minimum) made every exp of its
/// softmax row subnormal (exp512 clamps at -104: e^-104 is 7e-46):
/// DistilBERT-shaped softmax at 6.9 ns per element on an Ice Lake Xeon.
/// Every use below needs e^x only against 1 or a row sum of at least 1
/// (softmax, tanh, sigmoid), so a flushed result changes nothing but
/// those tiny values; the Exp operator keeps exp512. (A few subnormals can
/// still come out of what follows: a softmax probability between e^-87 /
/// sum and 2^-126, a sigmoid of -87..-88.7; rare, and only those lanes.)
AVX512 inline __m512 expFlush512(__m512 x) {
  const __m512 lo = _mm512_set1_ps(poly::kExpFlush);
  __mmask16 tiny = _mm512_cmp_ps_mask(x, lo, _CMP_LT_OQ);
  // max(lo, NaN) is NaN: NaN still passes through.
  return _mm512_maskz_mov_ps(static_cast<__mmask16>(~tiny),
                             exp512(_mm512_max_ps(lo, x)));
}

/// erf as x P(x^2) / Q(x^2), P of degree 4 and Q of degree 6, and +-1
/// from |x| = 3.8325 on (poly::kErfOne; from there to 3.9192 that is one
/// ulp off): Eigen's f32 erf, also XLA's. Exactly +-1 keeps GELU's 1 + erf
/// at 0 for large negative inputs. One division and ten FMAs, where
/// Abramowitz & Stegun 7.1.26 with exp and a Taylor series below 0.5 took
/// twice the time at both tiers (bench-kernels' GeluErf on a Sapphire
/// Rapids class Xeon, docs/runtime-kernels.md). Its absolute error, 4e-7 at
/// most (7 ulp near 1), comes from evaluating P and Q in f32; GELU's 0.5 x (1 +
/// erf) carries it as up to 9e-7 absolute in the negative tail (x near -5.3).
/// NaN fails the comparison and goes through P / Q as NaN.
AVX512 inline __m512 erf512(__m512 x) {
  __mmask16 big = _mm512_cmp_ps_mask(_mm512_abs_ps(x),
                                     _mm512_set1_ps(poly::kErfOne), _CMP_GE_OQ);
  __m512 z = _mm512_mul_ps(x, x);
  __m512 ratio = _mm512_div_ps(_mm512_mul_ps(x, horner(z, poly::kErfP)),
                               horner(z, poly::kErfQ));
  __m512 unit = _mm512_castsi512_ps(
      _mm512_or_si512(_mm512_and_si512(_mm512_castps_si512(x),
                                       _mm512_set1_epi32(int(0x80000000u))),
                      _mm512_castps_si512(_mm512_set1_ps(1.0f))));
  return _mm512_mask_blend_ps(big, ratio, unit);
}

/// tanh(x) = 1 - 2 / (e^{2x} + 1), which saturates cleanly at +-1 but
/// cancels for small |x|: below 0.625, Cephes tanhf's odd polynomial
/// x + x^3 P(x^2). NaN passes through exp512.
AVX512 inline __m512 tanh512(__m512 x) {
  __m512 e = expFlush512(_mm512_add_ps(x, x));
  __m512 big = _mm512_sub_ps(_mm512_set1_ps(1.0f),
                             _mm512_div_ps(_mm512_set1_ps(2.0f),
                                           _mm512_add_ps(e, _mm512_set1_ps(1.0f))));
  __m512 z = _mm512_mul_ps(x, x);
  __m512 small =
      _mm512_fmadd_ps(_mm512_mul_ps(x, z), horner(z, poly::kTanhP), x);
  __mmask16 isSmall = _mm512_cmp_ps_mask(
      _mm512_abs_ps(x), _mm512_set1_ps(poly::kTanhSmall), _CMP_LT_OQ);
  return _mm512_mask_blend_ps(isSmall, big, small);
}


/// Sixteen tokens (columns) at a time: each pass walks the hidden rows with
/// one vector load per row, so the statistics of 16 tokens are one vector.
AVX512 void layerNormTransposed(const float *x, const float *gamma,
                                      const float *beta, float *y,
                                      int64_t rows, int64_t cols, float eps) {
  __m512 invCols = _mm512_set1_ps(1.0f / static_cast<float>(cols));
  __m512 veps = _mm512_set1_ps(eps);
  for (int64_t r = 0; r < rows; r += 16) {
    __mmask16 m = tailMask(rows - r);
    __m512 acc = _mm512_setzero_ps();
    for (int64_t c = 0; c < cols; ++c)
      acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(m, x + c * rows + r));
    __m512 mean = _mm512_mul_ps(acc, invCols);
    __m512 sq = _mm512_setzero_ps();
    for (int64_t c = 0; c < cols; ++c) {
      __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + c * rows + r), mean);
      sq = _mm512_fmadd_ps(d, d, sq);
    }
    __m512 inv = _mm512_div_ps(
        _mm512_set1_ps(1.0f),
        _mm512_sqrt_ps(_mm512_fmadd_ps(sq, invCols, veps)));
    for (int64_t c = 0; c < cols; ++c) {
      __m512 v = _mm512_mul_ps(
          _mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + c * rows + r), mean), inv);
      v = _mm512_mul_ps(v, _mm512_set1_ps(gamma[c]));
      if (beta)
        v = _mm512_add_ps(v, _mm512_set1_ps(beta[c]));
      _mm512_mask_storeu_ps(y + c * rows + r, m, v);
    }
  }
}

AVX512 void layerNorm(const float *x, const float *gamma,
                            const float *beta, float *y, int64_t rows,
                            int64_t cols, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *in = x + r * cols;
    float *out = y + r * cols;
    __m512 acc = _mm512_setzero_ps();
    for (int64_t c = 0; c < cols; c += 16)
      acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(tailMask(cols - c), in + c));
    float mean = _mm512_reduce_add_ps(acc) / cols;
    __m512 vmean = _mm512_set1_ps(mean);
    __m512 sq = _mm512_setzero_ps();
    for (int64_t c = 0; c < cols; c += 16) {
      __mmask16 m = tailMask(cols - c);
      __m512 d = _mm512_maskz_sub_ps(m, _mm512_maskz_loadu_ps(m, in + c), vmean);
      sq = _mm512_fmadd_ps(d, d, sq);
    }
    float inv = 1.0f / std::sqrt(_mm512_reduce_add_ps(sq) / cols + eps);
    __m512 vinv = _mm512_set1_ps(inv);
    for (int64_t c = 0; c < cols; c += 16) {
      __mmask16 m = tailMask(cols - c);
      __m512 v = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, in + c), vmean), vinv);
      v = _mm512_mul_ps(v, _mm512_maskz_loadu_ps(m, gamma + c));
      if (beta)
        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, beta + c));
      _mm512_mask_storeu_ps(out + c, m, v);
    }
  }
}

/// Scores plus mask; lanes past the row end read as -inf (neutral for max
/// and exp).
AVX512 inline __m512 loadScores(const float *in, const float *mrow, int64_t c,
                                __mmask16 m) {
  __m512 v = _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), m, in + c);
  if (mrow)
    v = _mm512_mask_add_ps(v, m, v, _mm512_maskz_loadu_ps(m, mrow + c));
  return v;
}

AVX512 void softmax(const float *x, const float *mask, int64_t group,
                          float *y, int64_t rows, int64_t cols, bool log) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *in = x + r * cols;
    const float *mrow = mask ? mask + (r / group) * cols : nullptr;
    float *out = y + r * cols;
    __m512 vmax = _mm512_set1_ps(-INFINITY);
    for (int64_t c = 0; c < cols; c += 16)
      vmax = _mm512_max_ps(vmax, loadScores(in, mrow, c, tailMask(cols - c)));
    float mx = _mm512_reduce_max_ps(vmax);
    __m512 vmx = _mm512_set1_ps(mx);
    __m512 vsum = _mm512_setzero_ps();
    for (int64_t c = 0; c < cols; c += 16) {
      __mmask16 m = tailMask(cols - c);
      __m512 e = _mm512_maskz_mov_ps(m, expFlush512(_mm512_sub_ps(loadScores(in, mrow, c, m), vmx)));
      vsum = _mm512_add_ps(vsum, e);
      if (!log)
        _mm512_mask_storeu_ps(out + c, m, e);
    }
    float sum = _mm512_reduce_add_ps(vsum);
    if (log) {
      // x - max, then - log(sum), as the reference (Avx2Kernels.cpp).
      __m512 lse = _mm512_set1_ps(std::log(sum));
      for (int64_t c = 0; c < cols; c += 16) {
        __mmask16 m = tailMask(cols - c);
        _mm512_mask_storeu_ps(
            out + c, m,
            _mm512_sub_ps(_mm512_sub_ps(loadScores(in, mrow, c, m), vmx), lse));
      }
    } else {
      __m512 inv = _mm512_set1_ps(1.0f / sum);
      for (int64_t c = 0; c < cols; c += 16) {
        __mmask16 m = tailMask(cols - c);
        _mm512_mask_storeu_ps(out + c, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, out + c), inv));
      }
    }
  }
}

/// The transcendentals' lanes, one type each, so that the choice is made
/// once per row, not per vector (a switch inside the loop took as long as
/// the sigmoid itself: 24% of memcpy's bandwidth on a 64 MiB tensor).
struct ExpLanes512 {
  AVX512 static __m512 lanes(__m512 v) { return exp512(v); }
};
struct ErfLanes512 {
  AVX512 static __m512 lanes(__m512 v) { return erf512(v); }
};
struct TanhLanes512 {
  AVX512 static __m512 lanes(__m512 v) { return tanh512(v); }
};
struct SigmoidLanes512 {
  AVX512 static __m512 lanes(__m512 v) {
    const __m512 one = _mm512_set1_ps(1.0f);
    return _mm512_div_ps(
        one, _mm512_add_ps(one, expFlush512(_mm512_sub_ps(_mm512_setzero_ps(), v))));
  }
};

/// y = L(x) over n floats: whole vectors, then one masked tail.
template <typename L>
AVX512 inline void mapRow512(const float *x, float *y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(y + i, L::lanes(_mm512_loadu_ps(x + i)));
  if (i < n) {
    __mmask16 m = tailMask(n - i);
    _mm512_mask_storeu_ps(y + i, m, L::lanes(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

/// GELU's 0.5 x (1 + inner): inner = erf(x / sqrt 2), or tanh(sqrt(2 / pi)
/// (x + 0.044715 x^3)).
struct GeluErfLanes512 {
  AVX512 static __m512 lanes(__m512 v) {
    __m512 inner = erf512(_mm512_mul_ps(v, _mm512_set1_ps(0.70710678f)));
    return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), v),
                         _mm512_add_ps(_mm512_set1_ps(1.0f), inner));
  }
};
struct GeluTanhLanes512 {
  AVX512 static __m512 lanes(__m512 v) {
    __m512 cube = _mm512_mul_ps(_mm512_mul_ps(v, v), v);
    __m512 u = _mm512_fmadd_ps(cube, _mm512_set1_ps(0.044715f), v);
    __m512 inner = tanh512(_mm512_mul_ps(u, _mm512_set1_ps(0.7978845608f)));
    return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), v),
                         _mm512_add_ps(_mm512_set1_ps(1.0f), inner));
  }
};

AVX512 void gelu(const float *x, float *y, int64_t n, bool tanhForm) {
  if (tanhForm)
    mapRow512<GeluTanhLanes512>(x, y, n);
  else
    mapRow512<GeluErfLanes512>(x, y, n);
}

AVX512 void transcendental(Transcendental f, const float *x, float *y,
                           int64_t n) {
  switch (f) {
  case Transcendental::Exp:
    return mapRow512<ExpLanes512>(x, y, n);
  case Transcendental::Erf:
    return mapRow512<ErfLanes512>(x, y, n);
  case Transcendental::Tanh:
    return mapRow512<TanhLanes512>(x, y, n);
  default:
    return mapRow512<SigmoidLanes512>(x, y, n);
  }
}


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

/// 16 x 16 blocks in registers, scalar edges.
AVX512 void transpose32(const void *srcv, int64_t lds, int64_t rows,
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


AVX512 void streamRows(const float *src, int64_t lds,
                                    int64_t rows, int64_t cols, float *dst,
                                    int64_t ldd) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < cols; i += 16)
      _mm512_stream_ps(dst + r * ldd + i, _mm512_load_ps(src + r * lds + i));
}

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

AVX512 void toBf16(const float *x,
                                                  uint16_t *y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = tailMask(n - i);
    __m512i r = bf16RoundedHigh(_mm512_maskz_loadu_ps(m, x + i));
    _mm512_mask_cvtepi32_storeu_epi16(y + i, m, _mm512_srli_epi32(r, 16));
  }
}

AVX512 void roundToBf16AsF32(const float *x, float *y,
                                                int64_t n) {
  const __m512i high = _mm512_set1_epi32(int32_t(0xffff0000u));
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = tailMask(n - i);
    __m512i r = bf16RoundedHigh(_mm512_maskz_loadu_ps(m, x + i));
    _mm512_mask_storeu_ps(y + i, m,
                          _mm512_castsi512_ps(_mm512_and_si512(r, high)));
  }
}

AVX512 void fromBf16(const uint16_t *x, float *y,
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

AVX512 void interleave2x32(const void *a, const void *b,
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

AVX512 float maxAbs(const float *x, int64_t n) {
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

/// 16 floats to int32 round(x * inv) (nearest even, MXCSR's default), x *
/// inv first held to +-2^30 and NaN to -2^30 (vmaxps returns its second
/// operand for a NaN), as the scalar forms' float clamps have it:
/// cvtps2dq turns an infinity or anything beyond 2^31 into INT_MIN, which
/// gave 0 for +inf in quantizeU8 and -128 in quantizeS8 where the
/// reference gives 255 and 127.
AVX512 inline __m512i roundScaled(__m512 x, __m512 inv) {
  const __m512 bound = _mm512_set1_ps(0x1p30f);
  __m512 s = _mm512_max_ps(_mm512_mul_ps(x, inv),
                           _mm512_sub_ps(_mm512_setzero_ps(), bound));
  return _mm512_cvtps_epi32(_mm512_min_ps(s, bound));
}

AVX512 void quantizeS8(const float *x, int8_t *q, int64_t n, float inv) {
  const __m512 vinv = _mm512_set1_ps(inv);
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = n - i >= 16 ? __mmask16(0xffff)
                              : __mmask16((1u << (n - i)) - 1);
    // Round to nearest even, saturate to [-128, 127].
    __m512i v = roundScaled(_mm512_maskz_loadu_ps(m, x + i), vinv);
    _mm512_mask_cvtsepi32_storeu_epi8(q + i, m, v);
  }
}

/// 16 floats to 16 u8 (quantizeU8One's rounding): round to nearest even,
/// add the zero point, clamp below at 0 and saturate above at 255.
AVX512 inline __m128i quantize16(const float *x, __m512 inv, __m512i zp) {
  __m512i v = _mm512_add_epi32(roundScaled(_mm512_loadu_ps(x), inv), zp);
  return _mm512_cvtusepi32_epi8(_mm512_max_epi32(v, _mm512_setzero_si512()));
}

AVX512 void quantizeU8(const float *x, uint8_t *q, int64_t n, float inv,
                       int32_t zp) {
  const __m512 vinv = _mm512_set1_ps(inv);
  const __m512i vzp = _mm512_set1_epi32(zp);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm_storeu_si128(reinterpret_cast<__m128i *>(q + i),
                     quantize16(x + i, vinv, vzp));
  for (; i < n; ++i)
    q[i] = quantizeU8One(x[i], inv, zp);
}

/// 16 floats to 16 u8 (quantizeU8One's rounding).
AVX512 void quantizeU8Transposed(const float *x, uint8_t *q,
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

} // namespace opscope::rt::avx512_tier

void opscope::rt::fillAvx512Kernels(KernelTable &t) {
  t.layerNorm = avx512_tier::layerNorm;
  t.layerNormTransposed = avx512_tier::layerNormTransposed;
  t.softmax = avx512_tier::softmax;
  t.gelu = avx512_tier::gelu;
  t.transcendental = avx512_tier::transcendental;
  OPSCOPE_FILL_ROW_KERNELS(avx512_rows, t);
  t.toBf16 = avx512_tier::toBf16;
  t.roundToBf16AsF32 = avx512_tier::roundToBf16AsF32;
  t.fromBf16 = avx512_tier::fromBf16;
  t.quantizeU8 = avx512_tier::quantizeU8;
  t.quantizeS8 = avx512_tier::quantizeS8;
  t.maxAbs = avx512_tier::maxAbs;
  t.quantizeU8Transposed = avx512_tier::quantizeU8Transposed;
  t.transpose32 = avx512_tier::transpose32;
  t.interleave2x32 = avx512_tier::interleave2x32;
  t.streamRows = avx512_tier::streamRows;
}
