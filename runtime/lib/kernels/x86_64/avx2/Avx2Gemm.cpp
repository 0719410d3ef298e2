//===- Avx2Gemm.cpp - the packed f32 GEMM's register tile, AVX2 + FMA ----===//
//
// Part of opscope's runtime. The register tile of PackedGemm (PackedGemm.h)
// on the AVX2 + FMA tier: 6 rows by 16 columns, 12 accumulators, each step
// two panel loads and six broadcasts against them (the shape of MLAS's and
// BLIS's Haswell kernels). The tile also brings the next panel's share into
// L1 while it computes, so that weights streamed from memory (a model's
// are read once per run) do not stall the first rows of the next panel.
//
// Why this tier has it: oneDNN 2.6's AVX2 inner product (x64:gemm:jit) ran
// the DistilBERT-shaped model's products at 82-100 GFLOP/s in the model
// against about 131 of this core's FMA peak; this tile's GEMM runs them at
// 110-115 (docs/runtime-kernels.md). From AVX-512 up oneDNN's brgemm is
// the faster one and the table keeps it.
//
//===----------------------------------------------------------------------===//

#include "Avx2GemmTile.h"

#include <algorithm>

using namespace opscope::rt;
using opscope::rt::avx2_gemm::kCols;
using opscope::rt::avx2_gemm::kRows;

#define AVX2 __attribute__((target("avx2,fma")))

namespace {

#define GEMM_INIT(i)                                                           \
  __m256 c##i##0 = init0, c##i##1 = init1;
#define GEMM_STEP(i)                                                           \
  if constexpr (MR > i) {                                                      \
    __m256 x = _mm256_broadcast_ss(ak + i);                                    \
    c##i##0 = _mm256_fmadd_ps(x, w0, c##i##0);                                 \
    c##i##1 = _mm256_fmadd_ps(x, w1, c##i##1);                                 \
  }
#define GEMM_STORE(i)                                                          \
  if constexpr (MR > i) {                                                      \
    if (t.accumulate) {                                                        \
      c##i##0 = _mm256_add_ps(_mm256_loadu_ps(c + i * ldc), c##i##0);          \
      c##i##1 = _mm256_add_ps(_mm256_loadu_ps(c + i * ldc + 8), c##i##1);      \
    }                                                                          \
    _mm256_storeu_ps(c + i * ldc, c##i##0);                                    \
    _mm256_storeu_ps(c + i * ldc + 8, c##i##1);                                \
  }

/// K step kk of the tile: the panel's two vectors against each row.
#define GEMM_K_STEP(kk)                                                        \
  {                                                                            \
    __m256 w0 = _mm256_load_ps(b + (kk) * kCols),                              \
           w1 = _mm256_load_ps(b + (kk) * kCols + 8);                          \
    const float *ak = a + (kk) * MR;                                           \
    GEMM_EACH_ROW(GEMM_STEP)                                                   \
  }

/// The tile, its K steps two at a time: GCC 12 then interleaves the two
/// steps' loads with the products, and the tile ran 3-7% faster on a Zen 3
/// (the DistilBERT-shaped 128 x 768 -> 3072 in its blocking, alternated in
/// one process against the FMA peak; docs/runtime-kernels.md). The sums
/// start from `init` (the bias) in every row, or from zero.
template <int MR>
AVX2 __attribute__((always_inline)) inline void tile(const GemmTileCall &t) {
  const float *a = t.a, *b = t.b;
  const int64_t kb = t.kb, ldc = t.ldc;
  float *c = t.c;
  const __m256 init0 = t.init ? _mm256_loadu_ps(t.init) : _mm256_setzero_ps(),
               init1 =
                   t.init ? _mm256_loadu_ps(t.init + 8) : _mm256_setzero_ps();
  GEMM_EACH_ROW(GEMM_INIT)
  int64_t k = 0;
  for (; k + 2 <= kb; k += 2) {
    GEMM_K_STEP(k)
    GEMM_K_STEP(k + 1)
  }
  if (k < kb)
    GEMM_K_STEP(k)
  GEMM_EACH_ROW(GEMM_STORE)
}

AVX2 void gemmTile(const GemmTileCall &t) { GEMM_TILE_CALL(tile, t); }

/// The exact int8 tile: each step a pair of K steps, two s16 per 32-bit
/// element; vpmaddwd multiplies the pairs into s32 and adds them, exactly
/// (u8 x s8: a pair is at most 2 x 255 x 128 = 65280), and
/// vpaddd sums the steps. 16 products an instruction, against vpmaddubsw's
/// 32 in oneDNN's int8 kernels, which saturate at 16 bits for 8-bit
/// weights (MLAS's u8u8 and XNNPACK's AVX2 kernels widen the same way).
/// acc += p in acc's own register. Written as `acc = _mm256_add_epi32(...)`
/// GCC 12 put each sum in the product's register and moved it back to
/// the accumulator's on every step, taking ALU slots, and spilled
/// accumulators at six rows (DistilBERT's shapes at M = 128, AVX2 tier,
/// cold weights: 107-111 GOP/s; at four rows 121-128, then 146-148 with
/// this; six rows with this 155-160, every accumulator in a register).
AVX2 __attribute__((always_inline)) inline void addInPlace(__m256i &acc,
                                                           __m256i p) {
  asm("vpaddd %1, %0, %0" : "+x"(acc) : "x"(p));
}

#define S16_STEP(i)                                                            \
  if constexpr (MR > i) {                                                      \
    __m256i x = _mm256_set1_epi32(static_cast<int>(ak[i]));                    \
    addInPlace(d##i##0, _mm256_madd_epi16(x, w0));                             \
    addInPlace(d##i##1, _mm256_madd_epi16(x, w1));                             \
  }
DEFINE_INT8_TILE(tileS16, AVX2, S16_STEP)

AVX2 void gemmTileInt8(const GemmTileCallInt8 &t) {
  GEMM_TILE_CALL(tileS16, t);
}

/// Two rows of u8 into s16 pairs: interleaved bytewise, then widened, 16
/// at a time.
AVX2 void pairBytes(const uint8_t *a, const uint8_t *b, int64_t n,
                    int64_t group, uint32_t *y, int64_t ldy) {
  for (int64_t j0 = 0; j0 < n; j0 += group, y += ldy)
    for (int64_t j = j0; j < std::min(n, j0 + group); j += 16) {
      uint32_t *d = y + (j - j0);
      if (j + 16 > n) {
        for (; j < n; ++j, ++d)
          *d = uint32_t(a[j]) | (b ? uint32_t(b[j]) << 16 : 0);
        return;
      }
      __m128i va = _mm_loadu_si128(reinterpret_cast<const __m128i *>(a + j));
      __m128i vb =
          b ? _mm_loadu_si128(reinterpret_cast<const __m128i *>(b + j))
            : _mm_setzero_si128();
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(d),
                          _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(va, vb)));
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(d + 8),
                          _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(va, vb)));
    }
}

} // namespace

void opscope::rt::fillAvx2PackKernels(KernelTable &t) {
  t.pairBytes = pairBytes;
}

void opscope::rt::fillAvx2GemmKernels(KernelTable &t) {
  t.gemmTile = gemmTile;
  t.gemmTileInt8 = gemmTileInt8;
  t.gemmInt8Name = "s16:avx2";
  t.gemmRows = kRows;
  t.gemmCols = kCols;
}
