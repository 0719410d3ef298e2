//===- AvxVnniSparse.cpp - s8 block-sparse rows, AVX-VNNI -----------------===//
//
// Part of opscope's runtime. The s8 row kernels of the block-sparse inner
// products on the avx2_vnni tier: AVX2 with AVX-VNNI, the VEX-encoded
// vpdpbusd on 8-lane vectors (Alder Lake and later client cores, Sierra
// Forest, Zen 5). As AVX-512 VNNI's (Avx512Vnni.cpp) at half the width:
// one vpdpbusd per block and ymm multiplies the block's four s8 weights
// with each token's four u8 activations and adds the four products into
// int32, exact (no 16-bit intermediate), where the AVX2 tier's rows widen
// both to 16 bits and need two vpmaddwd, two adds and a final pairing.
//
//===----------------------------------------------------------------------===//

#include "../avx2/Avx2SparseSteps.h"

using namespace opscope;
using namespace opscope::rt;
using namespace opscope::rt::sparse_rows;
using opscope::rt::avx2_sparse::passes;
using opscope::rt::avx2_sparse::storeS8;

#define AVXVNNI __attribute__((target("avx2,fma,avxvnni")))

namespace opscope::rt::avx_vnni_tier {

/// 1x4 blocks: rows two at a time (pairRows), T ymm of tokens each.
template <int T> AVXVNNI void rowsS8(const SparseRowsCall &c, int64_t off) {
  struct Acc {
    __m256i v[T];
  };
  const Packed &p = *c.p;
  const auto *vals = static_cast<const int32_t *>(p.values);
  const auto *x32 = static_cast<const int32_t *>(c.xt) + off;
  float *yt = c.yt + off;
  const int32_t *cols = p.cols;
  const int64_t ldx = c.ldx, ldy = c.ldy, n0 = c.n0;
  pairRows<Acc>(
      SlabRows(p, c.s, c.n0, c.nc), n0,
      [&](int64_t, Acc &a) AVXVNNI {
        for (int t = 0; t < T; ++t)
          a.v[t] = _mm256_setzero_si256();
      },
      [&](int32_t i, Acc &a) AVXVNNI {
        const int32_t *x = x32 + (cols[i] >> 2) * ldx;
        __m256i w = _mm256_set1_epi32(vals[i]);
        for (int t = 0; t < T; ++t)
          a.v[t] = _mm256_dpbusd_avx_epi32(
              a.v[t],
              _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x + 8 * t)),
              w);
      },
      [&](int64_t r, Acc &a) AVXVNNI {
        for (int t = 0; t < T; ++t)
          storeS8(c, n0 + r, yt + r * ldy + 8 * t, a.v[t]);
      });
}

/// 4x4 blocks: the block row's four outputs in flight together, each ymm
/// of activations loaded once for the four.
template <int T> AVXVNNI void quadS8(const SparseRowsCall &c, int64_t off) {
  struct Acc {
    __m256i v[4][T];
  };
  const Packed &p = *c.p;
  const auto *vals = static_cast<const int32_t *>(p.values);
  const auto *x32 = static_cast<const int32_t *>(c.xt) + off;
  float *yt = c.yt + off;
  const int32_t *cols = p.cols;
  const int64_t ldx = c.ldx, ldy = c.ldy, n0 = c.n0;
  quadRows<Acc>(
      p, c.s, c.n0, c.nc,
      [&](int64_t, Acc &a) AVXVNNI {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            a.v[q][t] = _mm256_setzero_si256();
      },
      [&](int32_t i, Acc &a) AVXVNNI {
        const int32_t *x = x32 + (cols[i] >> 2) * ldx;
        const int32_t *v = vals + 4 * i;
        __m256i w[4];
        for (int q = 0; q < 4; ++q)
          w[q] = _mm256_set1_epi32(v[q]);
        for (int t = 0; t < T; ++t) {
          __m256i xv =
              _mm256_loadu_si256(reinterpret_cast<const __m256i *>(x + 8 * t));
          for (int q = 0; q < 4; ++q)
            a.v[q][t] = _mm256_dpbusd_avx_epi32(a.v[q][t], xv, w[q]);
        }
      },
      [&](int64_t r, Acc &a) AVXVNNI {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            storeS8(c, n0 + r + q, yt + (r + q) * ldy + 8 * t, a.v[q][t]);
      });
}

/// Four ymm of tokens a pass for 1x4 rows, two for 4x4 (GCC 12: 0.123 and
/// 0.116 ms at 768x768, M = 128, 80%, against 0.149 and 0.141 with two and
/// one, on a Zen 5).
AVXVNNI void sparseS8(const SparseRowsCall &c) {
  if (c.p->h.blockRows == 4)
    passes<2>(c.mc, [&](auto t, int64_t off)
                        AVXVNNI { quadS8<decltype(t)::value>(c, off); });
  else
    passes<4>(c.mc, [&](auto t, int64_t off)
                        AVXVNNI { rowsS8<decltype(t)::value>(c, off); });
}

} // namespace opscope::rt::avx_vnni_tier

void opscope::rt::fillAvxVnniKernels(KernelTable &t) {
  t.sparseS8 = {avx_vnni_tier::sparseS8, "avx2_vnni", true, false};
}
