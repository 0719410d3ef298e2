//===- Avx512Gemm.cpp - the exact int8 GEMM's register tile, AVX-512 -----===//
//
// Part of opscope's runtime. The register tile of PackedGemmInt8
// (PackedGemm.h) on the AVX-512 tier below VNNI (Skylake-SP/X class):
// 8 rows by 32 columns, 16 accumulators, each step a pair of K steps (two
// s16 in 32 bits) as the AVX2 tile's (x86_64/avx2/Avx2Gemm.cpp) at twice
// the width: vpmaddwd multiplies the pairs into s32 exactly, vpaddd sums
// the steps. oneDNN 2.6's int8 kernels there multiply with vpmaddubsw,
// which saturates 8-bit weights, and the two 7-bit halves that avoid it
// ran DistilBERT's shapes at 110-116 GOP/s (docs/runtime-kernels.md).
// From VNNI up oneDNN's vpdpbusd kernels are exact and the table has no
// tile; f32 inner products stay on oneDNN's brgemm at this tier.
//
//===----------------------------------------------------------------------===//

#include "../../KernelTable.h"

#include <immintrin.h>

using namespace opscope::rt;

#define AVX512 __attribute__((target("avx512f,avx512bw")))

namespace {

constexpr int64_t kRows = 8, kCols = 32;

/// acc += p in acc's own register (as the AVX2 tile's addInPlace: GCC 12
/// otherwise moves each sum back from the product's register).
AVX512 __attribute__((always_inline)) inline void addInPlace(__m512i &acc,
                                                             __m512i p) {
  asm("vpaddd %1, %0, %0" : "+v"(acc) : "v"(p));
}

#define S16_EACH_ROW(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define S16_INIT(i)                                                            \
  __m512i d##i##0 = _mm512_setzero_si512(), d##i##1 = _mm512_setzero_si512();
#define S16_STEP(i)                                                            \
  if constexpr (MR > i) {                                                      \
    __m512i x = _mm512_set1_epi32(static_cast<int>(ak[i]));                    \
    addInPlace(d##i##0, _mm512_madd_epi16(x, w0));                             \
    addInPlace(d##i##1, _mm512_madd_epi16(x, w1));                             \
  }
#define S16_STORE(i)                                                           \
  if constexpr (MR > i) {                                                      \
    int32_t *ci = c + i * ldc;                                                 \
    if (accumulate) {                                                          \
      d##i##0 = _mm512_add_epi32(_mm512_loadu_si512(ci), d##i##0);             \
      d##i##1 = _mm512_add_epi32(_mm512_loadu_si512(ci + 16), d##i##1);        \
    }                                                                          \
    _mm512_storeu_si512(ci, d##i##0);                                          \
    _mm512_storeu_si512(ci + 16, d##i##1);                                     \
  }

template <int MR>
AVX512 __attribute__((always_inline)) inline void
tileS16(const uint32_t *a, const uint32_t *b, int64_t kb, bool accumulate,
        int32_t *c, int64_t ldc) {
  S16_EACH_ROW(S16_INIT)
  for (int64_t k = 0; k < kb; ++k) {
    __m512i w0 = _mm512_load_si512(b + k * kCols),
            w1 = _mm512_load_si512(b + k * kCols + 16);
    const uint32_t *ak = a + k * MR;
    S16_EACH_ROW(S16_STEP)
  }
  S16_EACH_ROW(S16_STORE)
}

AVX512 void gemmTileInt8(const GemmTileCallInt8 &t) {
  for (int64_t q = 0; q < t.prefetchElems; q += 16)
    _mm_prefetch(reinterpret_cast<const char *>(t.prefetch + q), _MM_HINT_T0);
  switch (t.mr) {
  case 8:
    return tileS16<8>(t.a, t.b, t.kb, t.accumulate, t.c, t.ldc);
  case 7:
    return tileS16<7>(t.a, t.b, t.kb, t.accumulate, t.c, t.ldc);
  case 6:
    return tileS16<6>(t.a, t.b, t.kb, t.accumulate, t.c, t.ldc);
  case 5:
    return tileS16<5>(t.a, t.b, t.kb, t.accumulate, t.c, t.ldc);
  case 4:
    return tileS16<4>(t.a, t.b, t.kb, t.accumulate, t.c, t.ldc);
  case 3:
    return tileS16<3>(t.a, t.b, t.kb, t.accumulate, t.c, t.ldc);
  case 2:
    return tileS16<2>(t.a, t.b, t.kb, t.accumulate, t.c, t.ldc);
  default:
    return tileS16<1>(t.a, t.b, t.kb, t.accumulate, t.c, t.ldc);
  }
}

} // namespace

void opscope::rt::fillAvx512GemmKernels(KernelTable &t) {
  t.gemmTileInt8 = gemmTileInt8;
  t.gemmInt8Name = "s16:avx512";
  t.gemmRows = kRows;
  t.gemmCols = kCols;
}
