//===- Avx2GemmTile.h - the packed GEMMs' 6 x 16 tiles on ymm -*- C++ -*-===//
//
// Part of opscope's runtime (internal). What the packed GEMMs' register
// tiles on 8-lane vectors share (PackedGemm.h, KernelTable.h's
// GemmTileArgs): the shape, 6 rows by 16 columns, 12 accumulators named
// one by one (GCC 12 keeps an array of them on the stack and stores on
// every step: 83 against 120 GFLOP/s); the int8 tiles' s32 accumulators
// and the step each tier gives them (the AVX2 tier's vpmaddwd on s16
// pairs, AVX-VNNI's vpdpbusd on u8/s8 quads); and the dispatch on a call's
// row count. Included only by x86_64/ sources, which define the tile
// functions with their own target attributes.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX2_AVX2GEMMTILE_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX2_AVX2GEMMTILE_H

#include "../../KernelTable.h"

#include <immintrin.h>

namespace opscope::rt::avx2_gemm {

constexpr int64_t kRows = 6, kCols = 16;

} // namespace opscope::rt::avx2_gemm

/// X(i) for each of the tile's rows; the rows past MR are dead code.
#define GEMM_EACH_ROW(X) X(0) X(1) X(2) X(3) X(4) X(5)

/// An int8 tile's accumulators d<i>0, d<i>1 (s32, 16 columns) from zero,
/// and their store, added to c where `accumulate`.
#define INT8_INIT(i)                                                           \
  __m256i d##i##0 = _mm256_setzero_si256(), d##i##1 = _mm256_setzero_si256();
#define INT8_STORE(i)                                                          \
  if constexpr (MR > i) {                                                      \
    auto *ci = reinterpret_cast<__m256i *>(c + i * ldc);                       \
    if (accumulate) {                                                          \
      d##i##0 = _mm256_add_epi32(_mm256_loadu_si256(ci), d##i##0);             \
      d##i##1 = _mm256_add_epi32(_mm256_loadu_si256(ci + 1), d##i##1);         \
    }                                                                          \
    _mm256_storeu_si256(ci, d##i##0);                                          \
    _mm256_storeu_si256(ci + 1, d##i##1);                                      \
  }

/// Defines `template <int MR> NAME(t)`, an int8 tile of MR rows for the
/// call `t` (GemmTileCallInt8) under the target attribute TARGET whose step
/// STEP(i) adds row i's element ak[i] times the panel's w0, w1 into d<i>0,
/// d<i>1.
#define DEFINE_INT8_TILE(NAME, TARGET, STEP)                                   \
  template <int MR>                                                            \
  TARGET __attribute__((always_inline)) inline void NAME(                      \
      const opscope::rt::GemmTileCallInt8 &t) {                                \
    using opscope::rt::avx2_gemm::kCols;                                       \
    const uint32_t *a = t.a, *b = t.b;                                         \
    const int64_t kb = t.kb, ldc = t.ldc;                                      \
    const bool accumulate = t.accumulate;                                      \
    int32_t *c = t.c;                                                          \
    GEMM_EACH_ROW(INT8_INIT)                                                   \
    for (int64_t k = 0; k < kb; ++k) {                                         \
      const auto *bk = reinterpret_cast<const __m256i *>(b + k * kCols);       \
      __m256i w0 = _mm256_load_si256(bk), w1 = _mm256_load_si256(bk + 1);      \
      const uint32_t *ak = a + k * MR;                                         \
      GEMM_EACH_ROW(STEP)                                                      \
    }                                                                          \
    GEMM_EACH_ROW(INT8_STORE)                                                  \
  }

/// The body of a tile function: brings the call's share of the next panel
/// into L1, then runs TILE<t.mr>(t).
#define GEMM_TILE_CALL(TILE, t)                                                \
  for (int64_t q = 0; q < (t).prefetchElems; q += 16)                          \
    _mm_prefetch(reinterpret_cast<const char *>((t).prefetch + q),             \
                 _MM_HINT_T0);                                                 \
  switch ((t).mr) {                                                            \
  case 6:                                                                      \
    return TILE<6>(t);                                                         \
  case 5:                                                                      \
    return TILE<5>(t);                                                         \
  case 4:                                                                      \
    return TILE<4>(t);                                                         \
  case 3:                                                                      \
    return TILE<3>(t);                                                         \
  case 2:                                                                      \
    return TILE<2>(t);                                                         \
  default:                                                                     \
    return TILE<1>(t);                                                         \
  }

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_X86_64_AVX2_AVX2GEMMTILE_H
