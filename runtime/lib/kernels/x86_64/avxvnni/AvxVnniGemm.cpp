//===- AvxVnniGemm.cpp - the exact int8 GEMM's tile, AVX-VNNI -------------===//
//
// Part of opscope's runtime. The register tile of the int8 packed GEMM
// (PackedGemmInt8's loops, PackedGemm.h) on the avx2_vnni tier: 6 rows by
// 16 columns as the AVX2 tier's tiles, each 32-bit element four K steps
// (u8 quads of the input, s8 quads of the weights), and one vpdpbusd per
// row and 8 columns multiplies the quads and adds the four products into
// s32, exactly: 32 products an instruction, where the AVX2 tier's s16
// tile's vpmaddwd makes 16 and needs a vpaddd besides.
//
//===----------------------------------------------------------------------===//

#include "../../KernelTable.h"

#include <immintrin.h>

using namespace opscope::rt;

#define AVXVNNI __attribute__((target("avx2,fma,avxvnni")))

namespace {

constexpr int64_t kCols = 16;
#define QUAD_EACH_ROW(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define QUAD_INIT(i)                                                           \
  __m256i d##i##0 = _mm256_setzero_si256(), d##i##1 = _mm256_setzero_si256();
#define QUAD_STEP(i)                                                           \
  if constexpr (MR > i) {                                                      \
    __m256i x = _mm256_set1_epi32(static_cast<int>(ak[i]));                    \
    d##i##0 = _mm256_dpbusd_avx_epi32(d##i##0, x, w0);                         \
    d##i##1 = _mm256_dpbusd_avx_epi32(d##i##1, x, w1);                         \
  }
#define QUAD_STORE(i)                                                          \
  if constexpr (MR > i) {                                                      \
    auto *ci = reinterpret_cast<__m256i *>(c + i * ldc);                       \
    if (accumulate) {                                                          \
      d##i##0 = _mm256_add_epi32(_mm256_loadu_si256(ci), d##i##0);             \
      d##i##1 = _mm256_add_epi32(_mm256_loadu_si256(ci + 1), d##i##1);         \
    }                                                                          \
    _mm256_storeu_si256(ci, d##i##0);                                          \
    _mm256_storeu_si256(ci + 1, d##i##1);                                      \
  }

template <int MR>
AVXVNNI __attribute__((always_inline)) inline void
tileQuads(const uint32_t *a, const uint32_t *b, int64_t kb, bool accumulate,
          int32_t *c, int64_t ldc) {
  QUAD_EACH_ROW(QUAD_INIT)
  for (int64_t k = 0; k < kb; ++k) {
    const auto *bk = reinterpret_cast<const __m256i *>(b + k * kCols);
    __m256i w0 = _mm256_load_si256(bk), w1 = _mm256_load_si256(bk + 1);
    const uint32_t *ak = a + k * MR;
    QUAD_EACH_ROW(QUAD_STEP)
  }
  QUAD_EACH_ROW(QUAD_STORE)
}

AVXVNNI void gemmTileQuads(const GemmTileCallInt8 &t) {
  for (int64_t q = 0; q < t.prefetchElems; q += 16)
    _mm_prefetch(reinterpret_cast<const char *>(t.prefetch + q), _MM_HINT_T0);
  switch (t.mr) {
  case 6:
    return tileQuads<6>(t.a, t.b, t.kb, t.accumulate, t.c, t.ldc);
  case 5:
    return tileQuads<5>(t.a, t.b, t.kb, t.accumulate, t.c, t.ldc);
  case 4:
    return tileQuads<4>(t.a, t.b, t.kb, t.accumulate, t.c, t.ldc);
  case 3:
    return tileQuads<3>(t.a, t.b, t.kb, t.accumulate, t.c, t.ldc);
  case 2:
    return tileQuads<2>(t.a, t.b, t.kb, t.accumulate, t.c, t.ldc);
  default:
    return tileQuads<1>(t.a, t.b, t.kb, t.accumulate, t.c, t.ldc);
  }
}

} // namespace

void opscope::rt::fillAvxVnniGemmKernels(KernelTable &t) {
  t.gemmTileInt8 = gemmTileQuads;
  t.gemmInt8Name = "u8s8:avx2_vnni";
  t.gemmInt8Quads = true;
}
