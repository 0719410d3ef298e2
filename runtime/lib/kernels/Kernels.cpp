//===- Kernels.cpp - layer_norm, softmax, gelu ----------------------------===//
//
// Part of opscope's runtime. AVX-512 bodies are compiled with a target
// attribute, so the library builds for any x86-64 and chooses at run time.
// Tails use masked loads and stores rather than scalar loops.
//
//===----------------------------------------------------------------------===//

#include "AlignedBuffer.h"
#include "SparseRows.h"

#include "opscope/runtime/kernels.h"
#include "opscope/runtime/sparse_format.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <immintrin.h>

using namespace opscope::rt;

namespace {
bool cpuHasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f") &&
                          isaAllowed(IsaLevel::Avx512Core);
  return has;
}


std::atomic<Isa> &selectedIsa() {
  static std::atomic<Isa> isa{cpuHasAvx512() ? Isa::Avx512 : Isa::Portable};
  return isa;
}

//===----------------------------------------------------------------------===//
// Portable implementations (libm)
//===----------------------------------------------------------------------===//

void layerNormPortable(const float *x, const float *gamma, const float *beta,
                       float *y, int64_t rows, int64_t cols, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *in = x + r * cols;
    float *out = y + r * cols;
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      sum += in[c];
    float mean = static_cast<float>(sum / cols);
    double sq = 0;
    for (int64_t c = 0; c < cols; ++c)
      sq += (in[c] - mean) * (in[c] - mean);
    float inv = 1.0f / std::sqrt(static_cast<float>(sq / cols) + eps);
    for (int64_t c = 0; c < cols; ++c)
      out[c] = (in[c] - mean) * inv * gamma[c] + (beta ? beta[c] : 0.0f);
  }
}

void layerNormTransposedPortable(const float *x, const float *gamma,
                                 const float *beta, float *y, int64_t rows,
                                 int64_t cols, float eps) {
  // x is cols x rows: token r is column r, read with stride `rows`.
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      sum += x[c * rows + r];
    float mean = static_cast<float>(sum / cols);
    double sq = 0;
    for (int64_t c = 0; c < cols; ++c)
      sq += (x[c * rows + r] - mean) * (x[c * rows + r] - mean);
    float inv = 1.0f / std::sqrt(static_cast<float>(sq / cols) + eps);
    for (int64_t c = 0; c < cols; ++c)
      y[c * rows + r] =
          (x[c * rows + r] - mean) * inv * gamma[c] + (beta ? beta[c] : 0.0f);
  }
}

void softmaxPortable(const float *x, const float *mask, int64_t group, float *y,
                     int64_t rows, int64_t cols, bool log) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *in = x + r * cols;
    const float *m = mask ? mask + (r / group) * cols : nullptr;
    float *out = y + r * cols;
    float mx = -INFINITY;
    for (int64_t c = 0; c < cols; ++c)
      mx = std::max(mx, in[c] + (m ? m[c] : 0.0f));
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      float e = std::exp(in[c] + (m ? m[c] : 0.0f) - mx);
      // Subnormal exps are 0, as in the AVX-512 kernel (which also flushes
      // e^-87.3..-87, a negligible difference).
      e = e < std::numeric_limits<float>::min() ? 0.0f : e;
      out[c] = e;
      sum += e;
    }
    if (log) {
      float lse = static_cast<float>(std::log(sum));
      for (int64_t c = 0; c < cols; ++c)
        out[c] = in[c] + (m ? m[c] : 0.0f) - mx - lse;
    } else {
      float inv = static_cast<float>(1.0 / sum);
      for (int64_t c = 0; c < cols; ++c)
        out[c] *= inv;
    }
  }
}

void geluPortable(const float *x, float *y, int64_t n, bool tanhForm) {
  const float k = std::sqrt(2.0f / static_cast<float>(M_PI));
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i];
    float inner = tanhForm ? std::tanh(k * (v + 0.044715f * v * v * v))
                           : std::erf(v * static_cast<float>(M_SQRT1_2));
    y[i] = 0.5f * v * (1.0f + inner);
  }
}

//===----------------------------------------------------------------------===//
// AVX-512
//===----------------------------------------------------------------------===//

#define AVX512 __attribute__((target("avx512f")))

/// e^x: x = n ln2 + r, e^r by a degree-6 polynomial (Cephes expf), scaled by
/// 2^n with scalef (which also handles overflow to inf and underflow to 0).
/// NaN passes through, as std::exp.
AVX512 inline __m512 exp512(__m512 x) {
  __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  __m512 in = x;
  // Past these bounds the result is 0 or inf anyway; clamping keeps n small.
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-104.0f)),
                    _mm512_set1_ps(89.0f));
  __m512 n = _mm512_roundscale_ps(
      _mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
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
/// (softmax, erf, tanh, sigmoid), so a flushed result changes nothing but
/// those tiny values; the Exp operator keeps exp512. (A few subnormals can
/// still come out of what follows: a softmax probability between e^-87 /
/// sum and 2^-126, a sigmoid of -87..-88.7; rare, and only those lanes.)
AVX512 inline __m512 expFlush512(__m512 x) {
  const __m512 lo = _mm512_set1_ps(-87.0f);
  __mmask16 tiny = _mm512_cmp_ps_mask(x, lo, _CMP_LT_OQ);
  // max(lo, NaN) is NaN: NaN still passes through.
  return _mm512_maskz_mov_ps(static_cast<__mmask16>(~tiny),
                             exp512(_mm512_max_ps(lo, x)));
}

/// erf by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7); below
/// |x| = 0.5, where that absolute error is large relative to erf itself, by
/// its Taylor series to x^11 (relative error below 3e-8). NaN passes through.
AVX512 inline __m512 erf512(__m512 x) {
  __m512 ax = _mm512_abs_ps(x);
  __m512 t = _mm512_div_ps(_mm512_set1_ps(1.0f),
                           _mm512_fmadd_ps(ax, _mm512_set1_ps(0.3275911f),
                                           _mm512_set1_ps(1.0f)));
  __m512 p = _mm512_set1_ps(1.061405429f);
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-1.453152027f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.421413741f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-0.284496736f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0.254829592f));
  p = _mm512_mul_ps(p, t);
  __m512 e = expFlush512(_mm512_mul_ps(_mm512_sub_ps(_mm512_setzero_ps(), ax), ax));
  __m512 y = _mm512_fnmadd_ps(p, e, _mm512_set1_ps(1.0f));
  // Restore the sign of x.
  __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x80000000));
  y = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(y), sign));
  // 2/sqrt(pi) * (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320)
  __m512 z = _mm512_mul_ps(x, x);
  __m512 q = _mm512_set1_ps(-1.0f / 1320.0f);
  q = _mm512_fmadd_ps(q, z, _mm512_set1_ps(1.0f / 216.0f));
  q = _mm512_fmadd_ps(q, z, _mm512_set1_ps(-1.0f / 42.0f));
  q = _mm512_fmadd_ps(q, z, _mm512_set1_ps(1.0f / 10.0f));
  q = _mm512_fmadd_ps(q, z, _mm512_set1_ps(-1.0f / 3.0f));
  q = _mm512_fmadd_ps(q, z, _mm512_set1_ps(1.0f));
  __m512 small = _mm512_mul_ps(_mm512_mul_ps(q, x),
                               _mm512_set1_ps(1.12837916709551257f));
  y = _mm512_mask_blend_ps(
      _mm512_cmp_ps_mask(ax, _mm512_set1_ps(0.5f), _CMP_LT_OQ), y, small);
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), y, x);
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
  __m512 p = _mm512_set1_ps(-5.70498872745e-3f);
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(2.06390887954e-2f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(-5.37397155531e-2f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(1.33314422036e-1f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(-3.33332819422e-1f));
  __m512 small = _mm512_fmadd_ps(_mm512_mul_ps(x, z), p, x);
  __mmask16 isSmall = _mm512_cmp_ps_mask(_mm512_abs_ps(x),
                                         _mm512_set1_ps(0.625f), _CMP_LT_OQ);
  return _mm512_mask_blend_ps(isSmall, big, small);
}

AVX512 inline __mmask16 tailMask(int64_t remaining) {
  return remaining >= 16 ? __mmask16(0xFFFF)
                         : static_cast<__mmask16>((1u << remaining) - 1);
}

/// Sixteen tokens (columns) at a time: each pass walks the hidden rows with
/// one vector load per row, so the statistics of 16 tokens are one vector.
AVX512 void layerNormTransposedAvx512(const float *x, const float *gamma,
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

AVX512 void layerNormAvx512(const float *x, const float *gamma,
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

AVX512 void softmaxAvx512(const float *x, const float *mask, int64_t group,
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
      __m512 shift = _mm512_set1_ps(mx + std::log(sum));
      for (int64_t c = 0; c < cols; c += 16) {
        __mmask16 m = tailMask(cols - c);
        _mm512_mask_storeu_ps(out + c, m, _mm512_sub_ps(loadScores(in, mrow, c, m), shift));
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

AVX512 void geluAvx512(const float *x, float *y, int64_t n, bool tanhForm) {
  const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f);
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = tailMask(n - i);
    __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    __m512 inner;
    if (tanhForm) {
      __m512 cube = _mm512_mul_ps(_mm512_mul_ps(v, v), v);
      __m512 u = _mm512_fmadd_ps(cube, _mm512_set1_ps(0.044715f), v);
      inner = tanh512(_mm512_mul_ps(u, _mm512_set1_ps(0.7978845608f)));
    } else {
      inner = erf512(_mm512_mul_ps(v, _mm512_set1_ps(0.70710678f)));
    }
    _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(_mm512_mul_ps(half, v), _mm512_add_ps(one, inner)));
  }
}
AVX512 void transcendentalAvx512(Transcendental f, const float *x, float *y,
                                 int64_t n) {
  const __m512 one = _mm512_set1_ps(1.0f);
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 m = tailMask(n - i);
    __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    __m512 r;
    switch (f) {
    case Transcendental::Exp:
      r = exp512(v);
      break;
    case Transcendental::Erf:
      r = erf512(v);
      break;
    case Transcendental::Tanh:
      r = tanh512(v);
      break;
    default:
      r = _mm512_div_ps(one, _mm512_add_ps(one, expFlush512(_mm512_sub_ps(_mm512_setzero_ps(), v))));
      break;
    }
    _mm512_mask_storeu_ps(y + i, m, r);
  }
}

void transcendentalPortable(Transcendental f, const float *x, float *y,
                            int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i];
    switch (f) {
    case Transcendental::Exp:
      y[i] = std::exp(v);
      break;
    case Transcendental::Erf:
      y[i] = std::erf(v);
      break;
    case Transcendental::Tanh:
      y[i] = std::tanh(v);
      break;
    default:
      y[i] = 1.0f / (1.0f + std::exp(-v));
      break;
    }
  }
}
} // namespace

void opscope::rt::transcendental(Transcendental f, const float *x, float *y,
                                 int64_t n) {
  if (selectedIsa().load() == Isa::Avx512)
    transcendentalAvx512(f, x, y, n);
  else
    transcendentalPortable(f, x, y, n);
}

const char *opscope::rt::isaLevelName(IsaLevel level) {
  return kIsaLevelNames[static_cast<int>(level)];
}

IsaLevel opscope::rt::maxIsa() {
  static const IsaLevel cap = [] {
    IsaCap c = isaCapFromEnvironment();
    if (!c.unknownVariable.empty())
      std::fprintf(stderr,
                   "opscope: warning: %s=%s is not one of sse41, avx2, "
                   "avx512_core, avx512_core_vnni, avx512_core_bf16, "
                   "avx512_core_amx, all; ignored\n",
                   c.unknownVariable.c_str(), c.unknownValue.c_str());
    return c.level;
  }();
  return cap;
}

Isa opscope::rt::kernelIsa() { return selectedIsa().load(); }

bool opscope::rt::nativeBf16() {
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512bf16") &&
         isaAllowed(IsaLevel::Avx512CoreBf16);
}


void opscope::rt::roundToBf16AsF32(const float *x, float *y, int64_t n) {
  if (selectedIsa().load() == Isa::Avx512)
    return sparse_rows::roundToBf16AsF32Avx512(x, y, n);
  for (int64_t i = 0; i < n; ++i)
    y[i] = sparse::fromBf16(sparse::toBf16(x[i]));
}

void opscope::rt::bf16ToF32(const uint16_t *x, float *y, int64_t n) {
  if (selectedIsa().load() == Isa::Avx512)
    return sparse_rows::fromBf16Avx512(x, y, n);
  for (int64_t i = 0; i < n; ++i)
    y[i] = sparse::fromBf16(x[i]);
}

void opscope::rt::setKernelIsa(Isa isa) {
  selectedIsa().store(isa == Isa::Avx512 && !cpuHasAvx512() ? Isa::Portable : isa);
}

void opscope::rt::layerNorm(const float *x, const float *gamma,
                            const float *beta, float *y, int64_t rows,
                            int64_t cols, float eps) {
  if (kernelIsa() == Isa::Avx512)
    return layerNormAvx512(x, gamma, beta, y, rows, cols, eps);
  layerNormPortable(x, gamma, beta, y, rows, cols, eps);
}

void opscope::rt::layerNormTransposed(const float *x, const float *gamma,
                                      const float *beta, float *y,
                                      int64_t rows, int64_t cols, float eps) {
  if (kernelIsa() == Isa::Avx512)
    return layerNormTransposedAvx512(x, gamma, beta, y, rows, cols, eps);
  layerNormTransposedPortable(x, gamma, beta, y, rows, cols, eps);
}

void opscope::rt::softmax(const float *x, const float *mask,
                          int64_t maskRowGroup, float *y, int64_t rows,
                          int64_t cols, bool log) {
  int64_t group = std::max<int64_t>(1, maskRowGroup);
  if (kernelIsa() == Isa::Avx512)
    return softmaxAvx512(x, mask, group, y, rows, cols, log);
  softmaxPortable(x, mask, group, y, rows, cols, log);
}

namespace {
/// Runs `f(first, count, scratch)` over blocks of rows that each fit about
/// 16 KiB of f32 scratch (at least one row) and never straddle a multiple
/// of `boundary`, then rounds each block's f32 rows into `y` (bf16).
template <typename F>
void bf16Rows(uint16_t *y, int64_t rows, int64_t cols, int64_t boundary,
              F f) {
  thread_local AlignedBuffer<float> scratch;
  int64_t block = std::max<int64_t>(1, 4096 / std::max<int64_t>(cols, 1));
  scratch.resize(block * cols);
  for (int64_t r = 0; r < rows;) {
    int64_t n = std::min({block, rows - r, boundary - r % boundary});
    f(r, n, scratch.data);
    roundToBf16(scratch.data, y + r * cols, n * cols);
    r += n;
  }
}
} // namespace

void opscope::rt::layerNorm(const float *x, const float *gamma,
                            const float *beta, uint16_t *y, int64_t rows,
                            int64_t cols, float eps) {
  bf16Rows(y, rows, cols, rows > 0 ? rows : 1,
           [&](int64_t r, int64_t n, float *tmp) {
             layerNorm(x + r * cols, gamma, beta, tmp, n, cols, eps);
           });
}

void opscope::rt::softmax(const float *x, const float *mask,
                          int64_t maskRowGroup, uint16_t *y, int64_t rows,
                          int64_t cols, bool log) {
  // Every block reads one mask row: blocks end at the mask groups' ends.
  int64_t group = std::max<int64_t>(1, maskRowGroup);
  bf16Rows(y, rows, cols, mask ? group : std::max<int64_t>(rows, 1),
           [&](int64_t r, int64_t n, float *tmp) {
             softmax(x + r * cols, mask ? mask + (r / group) * cols : nullptr,
                     n, tmp, n, cols, log);
           });
}

void opscope::rt::gelu(const float *x, float *y, int64_t n, bool tanhForm) {
  if (kernelIsa() == Isa::Avx512)
    return geluAvx512(x, y, n, tanhForm);
  geluPortable(x, y, n, tanhForm);
}
