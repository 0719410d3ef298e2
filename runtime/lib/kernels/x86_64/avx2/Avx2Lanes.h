//===- Avx2Lanes.h - the AVX2 tier's tails --------------------*- C++ -*-===//
//
// Part of opscope's runtime (internal). What every file of the AVX2 + FMA
// tier uses for a vector's tail (its mask, and the loads and stores that
// take it); included only by x86_64/avx2/ sources,
// whose functions carry the same target attribute.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX2_AVX2LANES_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX2_AVX2LANES_H

#include <cstdint>
#include <immintrin.h>

namespace opscope::rt::avx2_tier {

/// Lanes [0, min(8, remaining)) set.
__attribute__((target("avx2,fma"))) inline __m256i tailMask(int64_t remaining) {
  int n = remaining >= 8 ? 8 : static_cast<int>(remaining);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/// Lanes past the end read as 0 and are not written. vmaskmovps costs
/// more than a plain access (its store many times more on Intel cores), so
/// whole vectors take the plain one: the branch is taken the same way on
/// every iteration but the last.
__attribute__((target("avx2,fma"))) inline __m256 loadMasked(const float *p, __m256i m) {
  return _mm256_testc_si256(m, _mm256_set1_epi32(-1)) ? _mm256_loadu_ps(p)
                                                       : _mm256_maskload_ps(p, m);
}
__attribute__((target("avx2,fma"))) inline void storeMasked(float *p, __m256i m, __m256 v) {
  if (_mm256_testc_si256(m, _mm256_set1_epi32(-1)))
    _mm256_storeu_ps(p, v);
  else
    _mm256_maskstore_ps(p, m, v);
}
} // namespace opscope::rt::avx2_tier

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX2_AVX2LANES_H
