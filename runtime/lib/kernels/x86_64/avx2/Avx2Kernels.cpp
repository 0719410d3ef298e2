//===- Avx2Kernels.cpp - the AVX2 + FMA tier of the kernel table ----------===//
//
// Part of opscope's runtime. The AVX2 + FMA forms of the table's f32 rows,
// conversions and quantization (32-bit data movement: Avx2DataMovement.cpp):
// what AMD Zen 2/3 and
// Intel cores before AVX-512 run, and what OPSCOPE_MAX_ISA=avx2 selects on
// any newer CPU. Eight lanes; tails use vmaskmov loads and stores. The
// transcendentals are the AVX-512 tier's polynomials (Avx512Kernels.cpp)
// at half the width, with 2^n built from the exponent bits instead of
// vscalefps, so that their results agree with the AVX-512 ones to the
// same bounds (FoldRunAgreementTest, KernelsTest). Whole vectors take
// plain loads and stores, and only a row's tail the masked ones.
//
//===----------------------------------------------------------------------===//

#include "../../KernelTable.h"
#include "../../RowKernels.h"
#include "../Polynomials.h"
#include "Avx2Lanes.h"

#include "opscope/runtime/generic.h"

#include <cmath>
#include <immintrin.h>

using namespace opscope;
using namespace opscope::rt;
using namespace opscope::rt::sparse_rows;

#define AVX2 __attribute__((target("avx2,fma")))

OPSCOPE_DEFINE_ROW_KERNELS(avx2_rows, AVX2)

namespace opscope::rt::avx2_tier {

AVX2 inline __m256 absPs(__m256 x) {
  return _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
}
AVX2 inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
AVX2 inline float hmax(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
AVX2 inline float hmin(__m256 v) {
  __m128 s = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_min_ps(s, _mm_movehl_ps(s, s));
  s = _mm_min_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

/// c[0] z^(N-1) + ... + c[N-1], by Horner's rule.
template <int N> AVX2 inline __m256 horner(__m256 z, const float (&c)[N]) {
  __m256 p = _mm256_set1_ps(c[0]);
  for (int i = 1; i < N; ++i)
    p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(c[i]));
  return p;
}

/// Rounds to the nearest integer (ties to even, as vroundps) by adding
/// 1.5 * 2^23: for |v| < 2^22 the sum's low mantissa bits are the integer,
/// so the same value gives both the float n (subtract it back) and the
/// integer n (the sum's bits minus the constant's) without vroundps and
/// vcvtps2dq. exp's x log2 e is fused into the add (one rounding; at an
/// exact tie n can differ from the AVX-512 form's, within the same bound).
constexpr float kRoundMagic = 12582912.0f;
/// Where one exponent-bit factor 2^n stays a normal float: n in [-126,
/// 127], i.e. x above about -87.68 and below about 88.38; the bounds keep
/// a margin.
constexpr float kOneFactorLo = -87.0f, kOneFactorHi = 88.0f;

/// e^x as exp512 computes it (poly::kExpP), NaN passing through the clamps
/// (vmaxps and vminps return their second operand when one is NaN), 2^n
/// built from exponent bits instead of vscalefps. `flush` flushes x < -87
/// to 0 (expFlush512 says why). One factor 2^n is a normal float for n in
/// [-126, 127]; past that (x below about -87.7 or above about 88.4) the
/// factor would be a wrong subnormal or inf. The flushing form takes it
/// anyway: its users (softmax's x - max <= 0, tanh, sigmoid) read e^x
/// above 88.4 only against 1, where inf gives the same result. The Exp
/// operator's form takes two factors whose exponents are in range where a
/// lane needs them, applied one after the other, so that results that
/// underflow round as vscalefps does and n = 128 still gives e^88.7.
template <bool flush> AVX2 inline __m256 expLanes(__m256 x) {
  __m256 tiny;
  if constexpr (flush)
    tiny = _mm256_cmp_ps(x, _mm256_set1_ps(poly::kExpFlush), _CMP_LT_OQ);
  x = _mm256_min_ps(
      _mm256_set1_ps(poly::kExpHi),
      _mm256_max_ps(_mm256_set1_ps(flush ? poly::kExpFlush : poly::kExpLo), x));
  const __m256 magic = _mm256_set1_ps(kRoundMagic);
  __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(poly::kLog2e), magic);
  __m256 n = _mm256_sub_ps(t, magic);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(poly::kLn2Hi), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(poly::kLn2Lo), r);
  __m256 p = _mm256_fmadd_ps(_mm256_mul_ps(horner(r, poly::kExpP), r), r,
                             _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  __m256i ni =
      _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_castps_si256(magic));
  const __m256i bias = _mm256_set1_epi32(127);
  __m256 scaled = _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(
                                       _mm256_add_epi32(ni, bias), 23)));
  if constexpr (flush)
    return _mm256_andnot_ps(tiny, scaled);
  __m256 outside =
      _mm256_or_ps(_mm256_cmp_ps(x, _mm256_set1_ps(kOneFactorLo), _CMP_LT_OQ),
                   _mm256_cmp_ps(x, _mm256_set1_ps(kOneFactorHi), _CMP_GT_OQ));
  if (!_mm256_movemask_ps(outside))
    return scaled;
  __m256i half = _mm256_srai_epi32(ni, 1);
  __m256 f1 =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half, bias), 23));
  __m256 f2 = _mm256_castsi256_ps(_mm256_slli_epi32(
      _mm256_add_epi32(_mm256_sub_epi32(ni, half), bias), 23));
  return _mm256_mul_ps(_mm256_mul_ps(p, f1), f2);
}
AVX2 inline __m256 exp256(__m256 x) { return expLanes<false>(x); }
AVX2 inline __m256 expFlush256(__m256 x) { return expLanes<true>(x); }

/// erf as erf512 computes it (poly::kErfP / kErfQ).
AVX2 inline __m256 erf256(__m256 x) {
  __m256 big =
      _mm256_cmp_ps(absPs(x), _mm256_set1_ps(poly::kErfOne), _CMP_GE_OQ);
  __m256 z = _mm256_mul_ps(x, x);
  __m256 ratio = _mm256_div_ps(_mm256_mul_ps(x, horner(z, poly::kErfP)),
                               horner(z, poly::kErfQ));
  __m256 unit = _mm256_or_ps(_mm256_and_ps(_mm256_set1_ps(-0.0f), x),
                             _mm256_set1_ps(1.0f));
  return _mm256_blendv_ps(ratio, unit, big);
}

/// tanh (tanh512's two forms).
AVX2 inline __m256 tanh256(__m256 x) {
  __m256 e = expFlush256(_mm256_add_ps(x, x));
  __m256 big = _mm256_sub_ps(_mm256_set1_ps(1.0f),
                             _mm256_div_ps(_mm256_set1_ps(2.0f),
                                           _mm256_add_ps(e, _mm256_set1_ps(1.0f))));
  __m256 z = _mm256_mul_ps(x, x);
  __m256 small =
      _mm256_fmadd_ps(_mm256_mul_ps(x, z), horner(z, poly::kTanhP), x);
  __m256 isSmall =
      _mm256_cmp_ps(absPs(x), _mm256_set1_ps(poly::kTanhSmall), _CMP_LT_OQ);
  return _mm256_blendv_ps(big, small, isSmall);
}

AVX2 void layerNorm(const float *x, const float *gamma, const float *beta,
                    float *y, int64_t rows, int64_t cols, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *in = x + r * cols;
    float *out = y + r * cols;
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    int64_t c = 0;
    for (; c + 16 <= cols; c += 16) {
      acc0 = _mm256_add_ps(acc0, _mm256_loadu_ps(in + c));
      acc1 = _mm256_add_ps(acc1, _mm256_loadu_ps(in + c + 8));
    }
    for (; c < cols; c += 8)
      acc0 = _mm256_add_ps(acc0, loadMasked(in + c, tailMask(cols - c)));
    float mean = hsum(_mm256_add_ps(acc0, acc1)) / cols;
    __m256 vmean = _mm256_set1_ps(mean);
    __m256 sq0 = _mm256_setzero_ps(), sq1 = _mm256_setzero_ps();
    for (c = 0; c + 16 <= cols; c += 16) {
      __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(in + c), vmean);
      __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(in + c + 8), vmean);
      sq0 = _mm256_fmadd_ps(d0, d0, sq0);
      sq1 = _mm256_fmadd_ps(d1, d1, sq1);
    }
    for (; c < cols; c += 8) {
      __m256i m = tailMask(cols - c);
      __m256 d = _mm256_and_ps(_mm256_sub_ps(loadMasked(in + c, m), vmean),
                               _mm256_castsi256_ps(m));
      sq0 = _mm256_fmadd_ps(d, d, sq0);
    }
    float inv = 1.0f / std::sqrt(hsum(_mm256_add_ps(sq0, sq1)) / cols + eps);
    __m256 vinv = _mm256_set1_ps(inv);
    for (c = 0; c + 8 <= cols; c += 8) {
      __m256 v =
          _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(in + c), vmean), vinv);
      v = _mm256_mul_ps(v, _mm256_loadu_ps(gamma + c));
      if (beta)
        v = _mm256_add_ps(v, _mm256_loadu_ps(beta + c));
      _mm256_storeu_ps(out + c, v);
    }
    if (c < cols) {
      __m256i m = tailMask(cols - c);
      __m256 v = _mm256_mul_ps(
          _mm256_sub_ps(_mm256_maskload_ps(in + c, m), vmean), vinv);
      v = _mm256_mul_ps(v, _mm256_maskload_ps(gamma + c, m));
      if (beta)
        v = _mm256_add_ps(v, _mm256_maskload_ps(beta + c, m));
      _mm256_maskstore_ps(out + c, m, v);
    }
  }
}

/// Eight tokens (columns) at a time, as layerNormTransposedAvx512.
AVX2 void layerNormTransposed(const float *x, const float *gamma,
                              const float *beta, float *y, int64_t rows,
                              int64_t cols, float eps) {
  __m256 invCols = _mm256_set1_ps(1.0f / static_cast<float>(cols));
  __m256 veps = _mm256_set1_ps(eps);
  for (int64_t r = 0; r < rows; r += 8) {
    __m256i m = tailMask(rows - r);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t c = 0; c < cols; ++c)
      acc = _mm256_add_ps(acc, loadMasked(x + c * rows + r, m));
    __m256 mean = _mm256_mul_ps(acc, invCols);
    __m256 sq = _mm256_setzero_ps();
    for (int64_t c = 0; c < cols; ++c) {
      __m256 d = _mm256_sub_ps(loadMasked(x + c * rows + r, m), mean);
      sq = _mm256_fmadd_ps(d, d, sq);
    }
    __m256 inv = _mm256_div_ps(
        _mm256_set1_ps(1.0f),
        _mm256_sqrt_ps(_mm256_fmadd_ps(sq, invCols, veps)));
    for (int64_t c = 0; c < cols; ++c) {
      __m256 v = _mm256_mul_ps(
          _mm256_sub_ps(loadMasked(x + c * rows + r, m), mean), inv);
      v = _mm256_mul_ps(v, _mm256_set1_ps(gamma[c]));
      if (beta)
        v = _mm256_add_ps(v, _mm256_set1_ps(beta[c]));
      storeMasked(y + c * rows + r, m, v);
    }
  }
}

/// Scores plus mask, a whole vector.
AVX2 inline __m256 scores(const float *in, const float *mrow, int64_t c) {
  __m256 v = _mm256_loadu_ps(in + c);
  return mrow ? _mm256_add_ps(v, _mm256_loadu_ps(mrow + c)) : v;
}
/// Scores plus mask in a row's tail; lanes past the end read as -inf.
AVX2 inline __m256 tailScores(const float *in, const float *mrow, int64_t c,
                              __m256i m) {
  __m256 v = _mm256_maskload_ps(in + c, m);
  if (mrow)
    v = _mm256_add_ps(v, _mm256_maskload_ps(mrow + c, m));
  return _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), v, _mm256_castsi256_ps(m));
}

/// Whole vectors take plain loads and stores; only a row's tail (under 8
/// lanes) takes the masked forms.
AVX2 void softmax(const float *x, const float *mask, int64_t group, float *y,
                  int64_t rows, int64_t cols, bool log) {
  const int64_t whole = cols & ~int64_t(7);
  const __m256i m = tailMask(cols - whole);
  for (int64_t r = 0; r < rows; ++r) {
    const float *in = x + r * cols;
    const float *mrow = mask ? mask + (r / group) * cols : nullptr;
    float *out = y + r * cols;
    __m256 vmax = _mm256_set1_ps(-INFINITY);
    for (int64_t c = 0; c < whole; c += 8)
      vmax = _mm256_max_ps(vmax, scores(in, mrow, c));
    if (whole < cols)
      vmax = _mm256_max_ps(vmax, tailScores(in, mrow, whole, m));
    __m256 vmx = _mm256_set1_ps(hmax(vmax));
    __m256 vsum = _mm256_setzero_ps();
    for (int64_t c = 0; c < whole; c += 8) {
      __m256 e = expFlush256(_mm256_sub_ps(scores(in, mrow, c), vmx));
      vsum = _mm256_add_ps(vsum, e);
      if (!log)
        _mm256_storeu_ps(out + c, e);
    }
    if (whole < cols) {
      __m256 e = _mm256_and_ps(
          expFlush256(_mm256_sub_ps(tailScores(in, mrow, whole, m), vmx)),
          _mm256_castsi256_ps(m));
      vsum = _mm256_add_ps(vsum, e);
      if (!log)
        _mm256_maskstore_ps(out + whole, m, e);
    }
    float sum = hsum(vsum);
    if (log) {
      // x - max, then - log(sum), as the reference: max + log(sum) in one
      // constant rounds at the max's magnitude (a fully masked row's max
      // is near -10000, one ulp 1e-3).
      __m256 lse = _mm256_set1_ps(std::log(sum));
      for (int64_t c = 0; c < whole; c += 8)
        _mm256_storeu_ps(
            out + c,
            _mm256_sub_ps(_mm256_sub_ps(scores(in, mrow, c), vmx), lse));
      if (whole < cols)
        _mm256_maskstore_ps(
            out + whole, m,
            _mm256_sub_ps(_mm256_sub_ps(tailScores(in, mrow, whole, m), vmx),
                          lse));
    } else {
      __m256 inv = _mm256_set1_ps(1.0f / sum);
      for (int64_t c = 0; c < whole; c += 8)
        _mm256_storeu_ps(out + c, _mm256_mul_ps(_mm256_loadu_ps(out + c), inv));
      if (whole < cols)
        _mm256_maskstore_ps(
            out + whole, m,
            _mm256_mul_ps(_mm256_maskload_ps(out + whole, m), inv));
    }
  }
}

/// y = f.lanes(x) over n floats: whole vectors with plain loads and
/// stores, the tail (under 8 lanes) masked. `lanes` is static where F has
/// no parameters, a member where it holds some (EluLanes' alpha).
template <typename F>
AVX2 inline void mapRow(const float *x, float *y, int64_t n, const F &f = F()) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, f.lanes(_mm256_loadu_ps(x + i)));
  if (i < n) {
    __m256i m = tailMask(n - i);
    _mm256_maskstore_ps(y + i, m, f.lanes(_mm256_maskload_ps(x + i, m)));
  }
}

struct ExpLanes {
  AVX2 static __m256 lanes(__m256 v) { return exp256(v); }
};
struct ErfLanes {
  AVX2 static __m256 lanes(__m256 v) { return erf256(v); }
};
struct TanhLanes {
  AVX2 static __m256 lanes(__m256 v) { return tanh256(v); }
};
struct SigmoidLanes {
  AVX2 static __m256 lanes(__m256 v) {
    const __m256 one = _mm256_set1_ps(1.0f);
    return _mm256_div_ps(
        one,
        _mm256_add_ps(one, expFlush256(_mm256_sub_ps(_mm256_setzero_ps(), v))));
  }
};
/// GELU's 0.5 x (1 + inner).
AVX2 inline __m256 geluOf(__m256 v, __m256 inner) {
  return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), v),
                       _mm256_add_ps(_mm256_set1_ps(1.0f), inner));
}
/// inner = erf(x / sqrt 2).
struct GeluErfLanes {
  AVX2 static __m256 lanes(__m256 v) {
    return geluOf(v, erf256(_mm256_mul_ps(v, _mm256_set1_ps(0.70710678f))));
  }
};
/// inner = tanh(sqrt(2 / pi) (x + 0.044715 x^3)).
struct GeluTanhLanes {
  AVX2 static __m256 lanes(__m256 v) {
    __m256 cube = _mm256_mul_ps(_mm256_mul_ps(v, v), v);
    __m256 u = _mm256_fmadd_ps(cube, _mm256_set1_ps(0.044715f), v);
    return geluOf(v, tanh256(_mm256_mul_ps(u, _mm256_set1_ps(0.7978845608f))));
  }
};

/// softplus(x) = log(1 + e^x) = max(x, 0) + log1p(u), u = e^-|x| in (0, 1]
/// (no overflow, and no cancellation for large x), log1p(u) = u P(u) on
/// [0, 1] (poly::kLog1pP) with no range reduction: Cephes' logf on 1 + u
/// split at sqrt 2 took 20 vector instructions to this one's 11, and the
/// row is bound by its instructions (it ran at 49% of memcpy's bandwidth
/// on a 64 MiB tensor, Zen 3). Within 2.5e-7 relative of the
/// double-precision function where the result is a normal float
/// (GenericUnary tests); NaN stays NaN, softplus(+inf) = inf,
/// softplus(-inf) = 0.
struct SoftplusLanes {
  AVX2 static __m256 lanes(__m256 x) {
    __m256 u = exp256(_mm256_sub_ps(_mm256_setzero_ps(), absPs(x)));
    __m256 log1pU = _mm256_mul_ps(u, horner(u, poly::kLog1pP));
    // max(x, 0) with x second: NaN stays NaN (through log1pU as well).
    return _mm256_add_ps(_mm256_max_ps(_mm256_setzero_ps(), x), log1pU);
  }
};

AVX2 void softplusRow(const float *x, float *y, int64_t n) {
  mapRow<SoftplusLanes>(x, y, n);
}

/// mish(x) = x tanh(log(1 + e^x)) = x n / (n + 2) with n = e^x (e^x + 2)
/// ((1 + e^x)^2 = n + 1): one exp and one division, no log or tanh. e^x
/// from x clamped to 20 (past it the ratio rounds to 1, and e^2x would
/// overflow). mish(+inf) = inf; mish(-inf) = -inf * 0 = NaN, as the scalar
/// definition gives; NaN stays NaN.
struct MishLanes {
  AVX2 static __m256 lanes(__m256 x) {
    const __m256 two = _mm256_set1_ps(2.0f);
    __m256 e = exp256(_mm256_min_ps(_mm256_set1_ps(20.0f), x));
    __m256 n = _mm256_mul_ps(e, _mm256_add_ps(e, two));
    return _mm256_mul_ps(x, _mm256_div_ps(n, _mm256_add_ps(n, two)));
  }
};

AVX2 void mishRow(const float *x, float *y, int64_t n) {
  mapRow<MishLanes>(x, y, n);
}

/// Elu in one pass: alpha (e^x - 1) from x clamped to 0 (e^x cannot
/// overflow), taken where x < 0 (x itself elsewhere: -0 stays -0, NaN stays
/// NaN), with the same operations as the two-pass eluRow. Two passes (the
/// exp row into a chunk, then the select) ran at 59-61% of memcpy's
/// bandwidth on a 64 MiB tensor, this one at 95% (Zen 3).
struct EluLanes {
  float alpha;
  AVX2 __m256 lanes(__m256 v) const {
    const __m256 zero = _mm256_setzero_ps();
    __m256 neg = _mm256_mul_ps(
        _mm256_set1_ps(alpha),
        _mm256_sub_ps(exp256(_mm256_min_ps(zero, v)), _mm256_set1_ps(1.0f)));
    return _mm256_blendv_ps(v, neg, _mm256_cmp_ps(v, zero, _CMP_LT_OQ));
  }
};

AVX2 void eluRow(const float *x, float *y, int64_t n, float alpha) {
  mapRow(x, y, n, EluLanes{alpha});
}

AVX2 void gelu(const float *x, float *y, int64_t n, bool tanhForm) {
  if (tanhForm)
    mapRow<GeluTanhLanes>(x, y, n);
  else
    mapRow<GeluErfLanes>(x, y, n);
}

AVX2 void transcendental(Transcendental f, const float *x, float *y,
                         int64_t n) {
  switch (f) {
  case Transcendental::Exp:
    return mapRow<ExpLanes>(x, y, n);
  case Transcendental::Erf:
    return mapRow<ErfLanes>(x, y, n);
  case Transcendental::Tanh:
    return mapRow<TanhLanes>(x, y, n);
  default:
    return mapRow<SigmoidLanes>(x, y, n);
  }
}

//===----------------------------------------------------------------------===//
// Conversions and quantization
//===----------------------------------------------------------------------===//

/// 8 floats rounded to bf16 (nearest even on the integer bits; NaNs
/// quieted), the result in the high half of each lane.
AVX2 inline __m256i bf16RoundedHigh(__m256 v) {
  __m256i u = _mm256_castps_si256(v);
  __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  __m256i r = _mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), lsb));
  __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  return _mm256_blendv_epi8(r, _mm256_or_si256(u, _mm256_set1_epi32(0x00400000)), nan);
}

/// The high halves of 8 lanes as 8 u16.
AVX2 inline __m128i highHalves(__m256i r) {
  __m256i w = _mm256_packus_epi32(_mm256_srli_epi32(r, 16), _mm256_setzero_si256());
  return _mm256_castsi256_si128(_mm256_permute4x64_epi64(w, 0x08));
}

AVX2 void toBf16(const float *x, uint16_t *y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i *>(y + i),
                     highHalves(bf16RoundedHigh(_mm256_loadu_ps(x + i))));
  for (; i < n; ++i)
    y[i] = sparse::toBf16(x[i]);
}

AVX2 void roundToBf16AsF32(const float *x, float *y, int64_t n) {
  const __m256i high = _mm256_set1_epi32(int32_t(0xffff0000u));
  for (int64_t i = 0; i < n; i += 8) {
    __m256i m = tailMask(n - i);
    __m256i r = bf16RoundedHigh(loadMasked(x + i, m));
    storeMasked(y + i, m, _mm256_castsi256_ps(_mm256_and_si256(r, high)));
  }
}

AVX2 void fromBf16(const uint16_t *x, float *y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i w = _mm256_cvtepu16_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(x + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(y + i), _mm256_slli_epi32(w, 16));
  }
  for (; i < n; ++i)
    y[i] = sparse::fromBf16(x[i]);
}

/// Rows 2p and 2p+1 of a K x M input as bf16 pairs.
AVX2 void pairRowBf16(const float *a, const float *b, int64_t mc,
                      uint32_t *out) {
  const __m256i high = _mm256_set1_epi32(int32_t(0xffff0000u));
  int64_t i = 0;
  for (; i + 8 <= mc; i += 8) {
    __m256i lo = _mm256_srli_epi32(bf16RoundedHigh(_mm256_loadu_ps(a + i)), 16);
    __m256i hi = b ? _mm256_and_si256(bf16RoundedHigh(_mm256_loadu_ps(b + i)), high)
                   : _mm256_setzero_si256();
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i), _mm256_or_si256(lo, hi));
  }
  for (; i < mc; ++i)
    out[i] = sparse::toBf16(a[i]) |
             (b ? uint32_t(sparse::toBf16(b[i])) << 16 : 0u);
}

AVX2 void rangeWithZero(const float *x, int64_t n, float *lo, float *hi) {
  // vminps(x, acc) is x < acc ? x : acc, std::min(acc, x)'s choice: a NaN
  // keeps acc, -0 never replaces +0. Two pairs of accumulators hide the
  // latency; min and max are exact, so the lanes' order does not matter.
  __m256 l0 = _mm256_setzero_ps(), l1 = l0, h0 = l0, h1 = l0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
    l0 = _mm256_min_ps(a, l0);
    h0 = _mm256_max_ps(a, h0);
    l1 = _mm256_min_ps(b, l1);
    h1 = _mm256_max_ps(b, h1);
  }
  float l = hmin(_mm256_min_ps(l0, l1)), h = hmax(_mm256_max_ps(h0, h1));
  for (; i < n; ++i) {
    l = x[i] < l ? x[i] : l;
    h = h < x[i] ? x[i] : h;
  }
  *lo = l;
  *hi = h;
}

AVX2 void quantizeU8Div(const float *x, uint8_t *y, int64_t n, float scale,
                        float zero) {
  // The reference's operations in its order, in f32: x / scale, rounded to
  // nearest even, plus the zero point, then held to [0, 255] (vmaxps(v, 0)
  // turns a NaN into 0, as the scalar conversion does in practice).
  const __m256 vs = _mm256_set1_ps(scale), vz = _mm256_set1_ps(zero),
               v0 = _mm256_setzero_ps(), v255 = _mm256_set1_ps(255.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_round_ps(_mm256_div_ps(_mm256_loadu_ps(x + i), vs),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, vz), v0), v255);
    __m256i d = _mm256_cvttps_epi32(v);
    __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(d),
                                 _mm256_extracti128_si256(d, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i *>(y + i),
                     _mm_packus_epi16(w, w));
  }
  for (; i < n; ++i)
    y[i] = static_cast<uint8_t>(
        std::fmin(std::fmax(std::nearbyint(x[i] / scale) + zero, 0.0f), 255.0f));
}

AVX2 float maxAbs(const float *x, int64_t n) {
  // Four accumulators hide vmaxps' latency; max(acc, NaN) keeps acc.
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(),
                   _mm256_setzero_ps(), _mm256_setzero_ps()};
  int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int j = 0; j < 4; ++j)
      acc[j] = _mm256_max_ps(absPs(_mm256_loadu_ps(x + i + 8 * j)), acc[j]);
  for (; i < n; i += 8)
    acc[0] = _mm256_max_ps(absPs(loadMasked(x + i, tailMask(n - i))), acc[0]);
  return hmax(_mm256_max_ps(_mm256_max_ps(acc[0], acc[1]),
                            _mm256_max_ps(acc[2], acc[3])));
}

/// 8 floats to int32 round(x * inv) (nearest even, MXCSR's default), x *
/// inv first held to +-2^30 and NaN to -2^30 (vmaxps returns its second
/// operand for a NaN), as the scalar forms' float clamps have it:
/// cvtps2dq turns an infinity or anything beyond 2^31 into INT_MIN, which
/// gave 0 for +inf in quantizeU8's and -128 in quantizeS8's vector bodies
/// where their scalar tails give 255 and 127.
AVX2 inline __m256i roundScaled(__m256 x, __m256 inv) {
  const __m256 bound = _mm256_set1_ps(0x1p30f);
  __m256 s = _mm256_max_ps(_mm256_mul_ps(x, inv),
                           _mm256_sub_ps(_mm256_setzero_ps(), bound));
  return _mm256_cvtps_epi32(_mm256_min_ps(s, bound));
}

AVX2 void quantizeS8(const float *x, int8_t *q, int64_t n, float inv) {
  const __m256 vinv = _mm256_set1_ps(inv);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i v = roundScaled(_mm256_loadu_ps(x + i), vinv);
    // Saturating packs: int32 -> int16 -> int8.
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i *>(q + i), _mm_packs_epi16(w, w));
  }
  for (; i < n; ++i) {
    // As roundScaled: NaN to -128.
    float v = std::nearbyint(x[i] * inv);
    q[i] = std::isnan(v) ? int8_t(-128)
                         : static_cast<int8_t>(std::fmin(std::fmax(v, -128.0f), 127.0f));
  }
}

/// 8 floats to u8 values in int32 lanes: clamp(round(x * inv) + zp, 0, 255).
AVX2 inline __m256i quantize8(const float *x, __m256 inv, __m256i zp) {
  __m256i v = _mm256_add_epi32(roundScaled(_mm256_loadu_ps(x), inv), zp);
  return _mm256_min_epi32(_mm256_max_epi32(v, _mm256_setzero_si256()),
                          _mm256_set1_epi32(255));
}

AVX2 void quantizeU8(const float *x, uint8_t *q, int64_t n, float inv,
                     int32_t zp) {
  const __m256 vinv = _mm256_set1_ps(inv);
  const __m256i vzp = _mm256_set1_epi32(zp);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i v = quantize8(x + i, vinv, vzp);
    __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i *>(q + i), _mm_packus_epi16(w, w));
  }
  for (; i < n; ++i)
    q[i] = quantizeU8One(x[i], inv, zp);
}

/// Four rows of a K x M input, 8 tokens at a time, into the VNNI layout:
/// token t's dword holds rows r..r+3.
AVX2 void quantizeU8Transposed(const float *x, uint8_t *q, int64_t k,
                               int64_t m, float inv, int32_t zp) {
  const __m256 vinv = _mm256_set1_ps(inv);
  const __m256i vzp = _mm256_set1_epi32(zp);
  for (int64_t r = 0; r < k; r += 4) {
    const float *x0 = x + r * m;
    uint8_t *out = q + r * m; // row r/4 of M dwords
    int64_t t = 0;
    for (; t + 8 <= m; t += 8) {
      __m256i d = quantize8(x0 + t, vinv, vzp);
      d = _mm256_or_si256(d, _mm256_slli_epi32(quantize8(x0 + m + t, vinv, vzp), 8));
      d = _mm256_or_si256(d, _mm256_slli_epi32(quantize8(x0 + 2 * m + t, vinv, vzp), 16));
      d = _mm256_or_si256(d, _mm256_slli_epi32(quantize8(x0 + 3 * m + t, vinv, vzp), 24));
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + 4 * t), d);
    }
    for (; t < m; ++t)
      for (int j = 0; j < 4; ++j)
        out[4 * t + j] = quantizeU8One(x0[j * m + t], inv, zp);
  }
}

} // namespace opscope::rt::avx2_tier

void opscope::rt::fillAvx2Kernels(KernelTable &t) {
  t.layerNorm = avx2_tier::layerNorm;
  t.layerNormTransposed = avx2_tier::layerNormTransposed;
  t.softmax = avx2_tier::softmax;
  t.gelu = avx2_tier::gelu;
  t.transcendental = avx2_tier::transcendental;
  t.softplusRow = avx2_tier::softplusRow;
  t.mishRow = avx2_tier::mishRow;
  t.eluRow = avx2_tier::eluRow;
  OPSCOPE_FILL_ROW_KERNELS(avx2_rows, t);
  t.toBf16 = avx2_tier::toBf16;
  t.roundToBf16AsF32 = avx2_tier::roundToBf16AsF32;
  t.fromBf16 = avx2_tier::fromBf16;
  t.quantizeU8 = avx2_tier::quantizeU8;
  t.quantizeS8 = avx2_tier::quantizeS8;
  t.maxAbs = avx2_tier::maxAbs;
  t.rangeWithZero = avx2_tier::rangeWithZero;
  t.quantizeU8Div = avx2_tier::quantizeU8Div;
  t.quantizeU8Transposed = avx2_tier::quantizeU8Transposed;
  t.pairRowBf16 = avx2_tier::pairRowBf16;
  fillAvx2DataMovementKernels(t);
}
