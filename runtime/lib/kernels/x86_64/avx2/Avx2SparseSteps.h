//===- Avx2SparseSteps.h - what the 8-lane sparse rows share ---*- C++ -*-===//
//
// Part of opscope's runtime (internal). The steps that the block-sparse row
// kernels on 8-lane (ymm) vectors share: the AVX2 tier's (Avx2Sparse.cpp)
// and AVX-VNNI's s8 rows (x86_64/avxvnni/). Included only by x86_64/
// sources; the functions carry AVX2's target attribute, a subset of every
// includer's.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX2_AVX2SPARSESTEPS_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX2_AVX2SPARSESTEPS_H

#include "../../KernelTable.h"

#include <immintrin.h>
#include <type_traits>

#define AVX2 __attribute__((target("avx2,fma")))

namespace opscope::rt::avx2_sparse {

/// Runs `pass(t, offset)` over the tile's 8-lane vectors, T at a time where
/// T of them are left, then one at a time: `pass` is called with T or 1 as
/// a compile-time constant and the first vector's lane offset.
template <int T, typename F> AVX2 inline void passes(int64_t mc, F pass) {
  int64_t vectors = (mc + 7) / 8, v = 0;
  for (; v + T <= vectors; v += T)
    pass(std::integral_constant<int, T>(), 8 * v);
  for (; v < vectors; ++v)
    pass(std::integral_constant<int, 1>(), 8 * v);
}

/// A row's int32 sums for 8 tokens: the partial sums of earlier slabs
/// added, then kept as int32 or, on the last slab, dequantized.
AVX2 inline void storeS8(const SparseRowsCall &c, int64_t row, float *out,
                         __m256i sum) {
  if (!c.first)
    sum = _mm256_add_epi32(
        sum, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(out)));
  if (!c.last) {
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out), sum);
    return;
  }
  const sparse_rows::Packed &p = *c.p;
  __m256 sc = _mm256_set1_ps(c.xScale * p.scale[row]);
  __m256 b = _mm256_set1_ps(c.bias ? c.bias[row] : 0.0f);
  __m256i comp = _mm256_set1_epi32(c.xZero * p.rowSum[row]);
  __m256 v = _mm256_cvtepi32_ps(_mm256_sub_epi32(sum, comp));
  _mm256_storeu_ps(out, _mm256_fmadd_ps(v, sc, b));
}

} // namespace opscope::rt::avx2_sparse

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX2_AVX2SPARSESTEPS_H
