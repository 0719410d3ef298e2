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

#include "../avx2/Avx2GemmTile.h"

using namespace opscope::rt;

#define AVXVNNI __attribute__((target("avx2,fma,avxvnni")))

namespace {

#define QUAD_STEP(i)                                                           \
  if constexpr (MR > i) {                                                      \
    __m256i x = _mm256_set1_epi32(static_cast<int>(ak[i]));                    \
    d##i##0 = _mm256_dpbusd_avx_epi32(d##i##0, x, w0);                         \
    d##i##1 = _mm256_dpbusd_avx_epi32(d##i##1, x, w1);                         \
  }
DEFINE_INT8_TILE(tileQuads, AVXVNNI, QUAD_STEP)

AVXVNNI void gemmTileQuads(const GemmTileCallInt8 &t) {
  GEMM_TILE_CALL(tileQuads, t);
}

} // namespace

void opscope::rt::fillAvxVnniGemmKernels(KernelTable &t) {
  t.gemmTileInt8 = gemmTileQuads;
  t.gemmInt8Name = "u8s8:avx2_vnni";
  t.gemmInt8Quads = true;
}
