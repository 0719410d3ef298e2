//===- SparseRows.cpp - the block-sparse row kernels ----------------------===//
//
// Part of opscope's runtime. The inner loops of the block-sparse inner
// products (SparseRows.h): for each row group and K-slab, rows two at a
// time, each non-zero block four broadcast weights (f32), two bf16 pairs or
// one s8 dword against the packed activation rows it covers. The three
// element types share one pair loop (pairRows) and differ only in their
// accumulator, block step and store. Each has a portable twin the tests
// compare against. The activation packing around them is SparseConvert.cpp.
//
//===----------------------------------------------------------------------===//

#include "SparseRows.h"

#include <algorithm>
#include <immintrin.h>
#include <type_traits>

using namespace opscope;
using namespace opscope::rt;
using namespace opscope::rt::sparse_rows;

#define AVX512 OPSCOPE_AVX512
#define AVX512VNNI OPSCOPE_AVX512_VNNI
#define AVX512BF16 OPSCOPE_AVX512_BF16

//===----------------------------------------------------------------------===//
// Portable kernels
//===----------------------------------------------------------------------===//

namespace {
/// The CSR rows (one per block row of R = blockRows outputs) of slab `s`
/// and the row group starting at output n0.
struct SlabRows {
  const int32_t *start, *index;
  int64_t count, br;
  SlabRows(const Packed &p, int64_t s, int64_t n0, int64_t nc)
      : br(p.h.blockRows) {
    int64_t q = p.h.n / br;
    start = p.rowStart + s * q + n0 / br;
    index = p.rowIndex + s * q + n0 / br;
    count = nc / br;
  }
};
} // namespace

/// Y^T tile rows [n0, n0+nc) over tokens [0, mc) of the packed activations
/// `xt` (K4 x kTile f32).
void sparse_rows::rowsF32Portable(const Packed &p, int64_t s, bool first, int64_t n0,
                     int64_t nc, const float *xt, int64_t ldx, int64_t mc,
                     float *yt, int64_t ldy, const float *bias) {
  const auto *vals = static_cast<const float *>(p.values);
  SlabRows rows(p, s, n0, nc);
  for (int64_t j = 0; j < rows.count; ++j)
    for (int64_t q = 0; q < rows.br; ++q) {
      int64_t r = rows.index[j] + q - n0;
      float *out = yt + r * ldy;
      float b = bias ? bias[n0 + r] : 0.0f;
      for (int64_t i = 0; first && i < mc; ++i)
        out[i] = b;
      for (int32_t blk = rows.start[j]; blk < rows.start[j + 1]; ++blk) {
        const float *x = xt + p.cols[blk] * ldx;
        const float *v = vals + 4 * (blk * rows.br + q);
        for (int64_t c = 0; c < 4; ++c)
          for (int64_t i = 0; i < mc; ++i)
            out[i] += v[c] * x[c * ldx + i];
      }
    }
}

/// Accumulates in int32 in `yt` across slabs; the last slab dequantizes in
/// place.
void sparse_rows::rowsS8Portable(const Packed &p, int64_t s, bool first, bool last,
                    int64_t n0, int64_t nc, const uint8_t *xt,
                    int64_t ldxDwords, int64_t mc, float *yt, int64_t ldy,
                    const float *bias, float xScale, int32_t xZero) {
  const auto *vals = static_cast<const int8_t *>(p.values);
  SlabRows rows(p, s, n0, nc);
  for (int64_t j = 0; j < rows.count; ++j)
    for (int64_t q = 0; q < rows.br; ++q) {
      int64_t row = rows.index[j] + q, r = row - n0;
      auto *acc = reinterpret_cast<int32_t *>(yt + r * ldy);
      if (first)
        std::fill(acc, acc + mc, 0);
      for (int32_t blk = rows.start[j]; blk < rows.start[j + 1]; ++blk) {
        const uint8_t *x = xt + (p.cols[blk] / 4) * ldxDwords * 4;
        const int8_t *v = vals + 4 * (blk * rows.br + q);
        for (int64_t i = 0; i < mc; ++i)
          for (int64_t c = 0; c < 4; ++c)
            acc[i] += int32_t(x[4 * i + c]) * v[c];
      }
      if (!last)
        continue;
      float sc = xScale * p.scale[row];
      float b = bias ? bias[row] : 0.0f;
      int32_t comp = xZero * p.rowSum[row];
      for (int64_t i = 0; i < mc; ++i)
        yt[r * ldy + i] = sc * float(acc[i] - comp) + b;
    }
}

/// bf16: activations as K/2 rows of kTile dwords (two consecutive features
/// of a token per dword), each block two dwords of weights per output;
/// products of bf16 values are exact in f32, as in vdpbf16ps.
void sparse_rows::rowsBf16Portable(const Packed &p, int64_t s, bool first, int64_t n0,
                      int64_t nc, const uint32_t *xt, int64_t ldx, int64_t mc,
                      float *yt, int64_t ldy, const float *bias) {
  const auto *vals = static_cast<const uint16_t *>(p.values);
  SlabRows rows(p, s, n0, nc);
  for (int64_t j = 0; j < rows.count; ++j)
    for (int64_t q = 0; q < rows.br; ++q) {
      int64_t r = rows.index[j] + q - n0;
      float *out = yt + r * ldy;
      float b = bias ? bias[n0 + r] : 0.0f;
      for (int64_t i = 0; first && i < mc; ++i)
        out[i] = b;
      for (int32_t blk = rows.start[j]; blk < rows.start[j + 1]; ++blk) {
        const uint32_t *x = xt + (p.cols[blk] / 2) * ldx;
        const uint16_t *v = vals + 4 * (blk * rows.br + q);
        for (int64_t i = 0; i < mc; ++i) {
          float acc = 0.0f;
          for (int64_t c = 0; c < 2; ++c) {
            uint32_t pair = x[c * ldx + i];
            acc += sparse::fromBf16(uint16_t(pair)) *
                       sparse::fromBf16(v[2 * c]) +
                   sparse::fromBf16(uint16_t(pair >> 16)) *
                       sparse::fromBf16(v[2 * c + 1]);
          }
          out[i] += acc;
        }
      }
    }
}

//===----------------------------------------------------------------------===//
// AVX-512 kernels
//===----------------------------------------------------------------------===//

namespace {
/// The loop every AVX-512 kernel shares: the rows of one slab and row group
/// two at a time (their blocks interleaved, so two independent accumulator
/// sets are in flight), then the odd row out. Rows are sorted by block count
/// per slab and group (sparse_format.h), so a pair's trip counts are (nearly)
/// equal and repeat from pair to pair. `init(r, acc)`, `block(i, acc)` and
/// `store(r, acc)` are the element type's steps; always_inline puts them in
/// the caller's target context.
template <typename Acc, typename Init, typename Block, typename Store>
__attribute__((always_inline)) inline void
pairRows(const SlabRows &rows, int64_t n0, Init init, Block block,
         Store store) {
  const int32_t *rs = rows.start, *ri = rows.index;
  const int64_t nc = rows.count;
  int64_t j = 0;
  for (; j + 2 <= nc; j += 2) {
    int64_t ra = ri[j] - n0, rb = ri[j + 1] - n0;
    Acc a, b;
    init(ra, a);
    init(rb, b);
    int32_t i0 = rs[j], e0 = rs[j + 1], i1 = e0, e1 = rs[j + 2];
    for (int32_t c = std::min(e0 - i0, e1 - i1); c > 0; --c) {
      block(i0++, a);
      block(i1++, b);
    }
    for (; i0 < e0; ++i0)
      block(i0, a);
    for (; i1 < e1; ++i1)
      block(i1, b);
    store(ra, a);
    store(rb, b);
  }
  if (j < nc) {
    int64_t ra = ri[j] - n0;
    Acc a;
    init(ra, a);
    for (int32_t i = rs[j]; i < rs[j + 1]; ++i)
      block(i, a);
    store(ra, a);
  }
}

/// A row's final f32 values: non-temporal where the caller says the output
/// will not be read again soon (it goes past the caches; `p` 64-byte
/// aligned), an ordinary store otherwise.
/// (A template parameter of the kernels, not a run-time branch in them: a
/// branch there made GCC 12 shuffle the accumulators through extra registers
/// in the 4x4 s8 block loop, 1.7x slower.)
template <bool Stream> AVX512 inline void storeOut(float *p, __m512 v) {
  if constexpr (Stream)
    _mm512_stream_ps(p, v);
  else
    _mm512_storeu_ps(p, v);
}

/// Calls f(tiles, stream) with both as compile-time constants.
template <typename F> void withTiles(int tiles, bool stream, F f) {
  auto go = [&](auto t) {
    if (stream)
      f(t, std::true_type());
    else
      f(t, std::false_type());
  };
  switch (tiles) {
  case 1:
    return go(std::integral_constant<int, 1>());
  case 2:
    return go(std::integral_constant<int, 2>());
  case 3:
    return go(std::integral_constant<int, 3>());
  default:
    return go(std::integral_constant<int, 4>());
  }
}

} // namespace

namespace {
/// f32: separate accumulators for the even and odd elements of a block, so
/// that 4T independent FMA chains hide the FMA latency.
template <int T, bool Stream>
AVX512 void rowsF32(const Packed &p, int64_t s, bool first, int64_t n0,
                    int64_t nc, const float *xt, int64_t ldx, float *yt, int64_t ldy,
                    const float *bias) {
  struct Acc {
    __m512 even[T], odd[T];
  };
  const auto *vals = static_cast<const float *>(p.values);
  const int32_t *cols = p.cols;
  pairRows<Acc>(
      SlabRows(p, s, n0, nc), n0,
      [&](int64_t r, Acc &a) AVX512 {
        for (int t = 0; t < T; ++t) {
          a.even[t] = first ? _mm512_set1_ps(bias ? bias[n0 + r] : 0.0f)
                            : _mm512_loadu_ps(yt + r * ldy + 16 * t);
          a.odd[t] = _mm512_setzero_ps();
        }
      },
      [&](int32_t i, Acc &a) AVX512 {
        const float *x = xt + cols[i] * ldx;
        const float *v = vals + 4 * i;
        __m512 w0 = _mm512_set1_ps(v[0]), w1 = _mm512_set1_ps(v[1]);
        __m512 w2 = _mm512_set1_ps(v[2]), w3 = _mm512_set1_ps(v[3]);
        for (int t = 0; t < T; ++t) {
          a.even[t] =
              _mm512_fmadd_ps(w0, _mm512_load_ps(x + 16 * t), a.even[t]);
          a.odd[t] =
              _mm512_fmadd_ps(w1, _mm512_load_ps(x + ldx + 16 * t), a.odd[t]);
        }
        for (int t = 0; t < T; ++t) {
          a.even[t] = _mm512_fmadd_ps(
              w2, _mm512_load_ps(x + 2 * ldx + 16 * t), a.even[t]);
          a.odd[t] = _mm512_fmadd_ps(
              w3, _mm512_load_ps(x + 3 * ldx + 16 * t), a.odd[t]);
        }
      },
      [&](int64_t r, Acc &a) AVX512 {
        for (int t = 0; t < T; ++t)
          storeOut<Stream>(yt + r * ldy + 16 * t, _mm512_add_ps(a.even[t], a.odd[t]));
      });
}

/// s8: one vpdpbusd per block and zmm; int32 partial sums across slabs, the
/// dequantization into f32 on the last.
template <int T, bool Stream>
AVX512VNNI void rowsS8(const Packed &p, int64_t s, bool first, bool last,
                       int64_t n0, int64_t nc, const uint8_t *xt,
                       int64_t ldxDwords, float *yt, int64_t ldy, const float *bias,
                       float xScale, int32_t xZero) {
  struct Acc {
    __m512i v[T];
  };
  const auto *vals = static_cast<const int32_t *>(p.values);
  const auto *x32 = reinterpret_cast<const int32_t *>(xt);
  const int32_t *cols = p.cols;
  pairRows<Acc>(
      SlabRows(p, s, n0, nc), n0,
      [&](int64_t r, Acc &a) AVX512VNNI {
        for (int t = 0; t < T; ++t)
          a.v[t] = first ? _mm512_setzero_si512()
                         : _mm512_loadu_si512(yt + r * ldy + 16 * t);
      },
      [&](int32_t i, Acc &a) AVX512VNNI {
        const int32_t *x = x32 + (cols[i] >> 2) * ldxDwords;
        __m512i w = _mm512_set1_epi32(vals[i]);
        for (int t = 0; t < T; ++t)
          a.v[t] = _mm512_dpbusd_epi32(a.v[t], _mm512_load_si512(x + 16 * t), w);
      },
      [&](int64_t r, Acc &a) AVX512VNNI {
        if (!last) {
          for (int t = 0; t < T; ++t)
            _mm512_storeu_si512(yt + r * ldy + 16 * t, a.v[t]);
          return;
        }
        int64_t row = n0 + r;
        __m512 sc = _mm512_set1_ps(xScale * p.scale[row]);
        __m512 b = _mm512_set1_ps(bias ? bias[row] : 0.0f);
        __m512i comp = _mm512_set1_epi32(xZero * p.rowSum[row]);
        for (int t = 0; t < T; ++t) {
          __m512 v = _mm512_cvtepi32_ps(_mm512_sub_epi32(a.v[t], comp));
          storeOut<Stream>(yt + r * ldy + 16 * t, _mm512_fmadd_ps(v, sc, b));
        }
      });
}

/// bf16: two vdpbf16ps per block and zmm (weights and activations in pairs).
template <int T, bool Stream>
AVX512BF16 void rowsBf16(const Packed &p, int64_t s, bool first, int64_t n0,
                         int64_t nc, const uint32_t *xt, int64_t ldx,
                         float *yt, int64_t ldy, const float *bias) {
  struct Acc {
    __m512 v[T];
  };
  const auto *vals = static_cast<const int32_t *>(p.values);
  const int32_t *cols = p.cols;
  pairRows<Acc>(
      SlabRows(p, s, n0, nc), n0,
      [&](int64_t r, Acc &a) AVX512BF16 {
        for (int t = 0; t < T; ++t)
          a.v[t] = first ? _mm512_set1_ps(bias ? bias[n0 + r] : 0.0f)
                         : _mm512_loadu_ps(yt + r * ldy + 16 * t);
      },
      [&](int32_t i, Acc &a) AVX512BF16 {
        const uint32_t *x = xt + (cols[i] >> 1) * ldx;
        __m512bh w0 = (__m512bh)_mm512_set1_epi32(vals[2 * i]);
        __m512bh w1 = (__m512bh)_mm512_set1_epi32(vals[2 * i + 1]);
        for (int t = 0; t < T; ++t) {
          a.v[t] = _mm512_dpbf16_ps(
              a.v[t], (__m512bh)_mm512_load_si512(x + 16 * t), w0);
          a.v[t] = _mm512_dpbf16_ps(
              a.v[t], (__m512bh)_mm512_load_si512(x + ldx + 16 * t), w1);
        }
      },
      [&](int64_t r, Acc &a) AVX512BF16 {
        for (int t = 0; t < T; ++t)
          storeOut<Stream>(yt + r * ldy + 16 * t, a.v[t]);
      });
}

/// The 4x4-block loop: one block row (four outputs) at a time, the four
/// outputs' accumulators in flight together, so that each activation vector
/// loaded serves four outputs: the inner loop of Intel's "4x1" VNNI kernel
/// (kernel_vnni.md in intel-extension-for-transformers), whose blocks are
/// four outputs at one k concatenated along K; here the four k of a block
/// are consecutive (docs/sparsity.md, What 1x4 blocks can reach).
template <typename Acc, typename Init, typename Block, typename Store>
__attribute__((always_inline)) inline void
quadRows(const Packed &p, int64_t s, int64_t n0, int64_t nc, Init init,
         Block block, Store store) {
  SlabRows rows(p, s, n0, nc);
  for (int64_t j = 0; j < rows.count; ++j) {
    int64_t r = rows.index[j] - n0;
    Acc a;
    init(r, a);
    for (int32_t i = rows.start[j], e = rows.start[j + 1]; i < e; ++i)
      block(i, a);
    store(r, a);
  }
}

template <int T, bool Stream>
AVX512 void quadF32(const Packed &p, int64_t s, bool first, int64_t n0,
                    int64_t nc, const float *xt, int64_t ldx, float *yt, int64_t ldy,
                    const float *bias) {
  struct Acc {
    __m512 v[4][T];
  };
  const auto *vals = static_cast<const float *>(p.values);
  const int32_t *cols = p.cols;
  quadRows<Acc>(
      p, s, n0, nc,
      [&](int64_t r, Acc &a) AVX512 {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            a.v[q][t] = first
                            ? _mm512_set1_ps(bias ? bias[n0 + r + q] : 0.0f)
                            : _mm512_loadu_ps(yt + (r + q) * ldy + 16 * t);
      },
      [&](int32_t i, Acc &a) AVX512 {
        const float *x = xt + cols[i] * ldx;
        const float *v = vals + 16 * i;
        for (int c = 0; c < 4; ++c) {
          __m512 xv[T];
          for (int t = 0; t < T; ++t)
            xv[t] = _mm512_load_ps(x + c * ldx + 16 * t);
          for (int q = 0; q < 4; ++q) {
            __m512 w = _mm512_set1_ps(v[4 * q + c]);
            for (int t = 0; t < T; ++t)
              a.v[q][t] = _mm512_fmadd_ps(w, xv[t], a.v[q][t]);
          }
        }
      },
      [&](int64_t r, Acc &a) AVX512 {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            storeOut<Stream>(yt + (r + q) * ldy + 16 * t, a.v[q][t]);
      });
}

/// s8 in 4x4 blocks: four broadcast weight dwords per block, and per zmm of
/// activations four vpdpbusd, one per output.
template <int T, bool Stream>
AVX512VNNI void quadS8(const Packed &p, int64_t s, bool first, bool last,
                       int64_t n0, int64_t nc, const uint8_t *xt,
                       int64_t ldxDwords, float *yt, int64_t ldy, const float *bias,
                       float xScale, int32_t xZero) {
  struct Acc {
    __m512i v[4][T];
  };
  const auto *vals = static_cast<const int32_t *>(p.values);
  const auto *x32 = reinterpret_cast<const int32_t *>(xt);
  const int32_t *cols = p.cols;
  quadRows<Acc>(
      p, s, n0, nc,
      [&](int64_t r, Acc &a) AVX512VNNI {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            a.v[q][t] = first ? _mm512_setzero_si512()
                              : _mm512_loadu_si512(yt + (r + q) * ldy + 16 * t);
      },
      [&](int32_t i, Acc &a) AVX512VNNI {
        const int32_t *x = x32 + (cols[i] >> 2) * ldxDwords;
        const int32_t *v = vals + 4 * i;
        __m512i w[4];
        for (int q = 0; q < 4; ++q)
          w[q] = _mm512_set1_epi32(v[q]);
        for (int t = 0; t < T; ++t) {
          __m512i xv = _mm512_load_si512(x + 16 * t);
          for (int q = 0; q < 4; ++q)
            a.v[q][t] = _mm512_dpbusd_epi32(a.v[q][t], xv, w[q]);
        }
      },
      [&](int64_t r, Acc &a) AVX512VNNI {
        for (int q = 0; q < 4; ++q) {
          float *out = yt + (r + q) * ldy;
          if (!last) {
            for (int t = 0; t < T; ++t)
              _mm512_storeu_si512(out + 16 * t, a.v[q][t]);
            continue;
          }
          int64_t row = n0 + r + q;
          __m512 sc = _mm512_set1_ps(xScale * p.scale[row]);
          __m512 b = _mm512_set1_ps(bias ? bias[row] : 0.0f);
          __m512i comp = _mm512_set1_epi32(xZero * p.rowSum[row]);
          for (int t = 0; t < T; ++t) {
            __m512 v = _mm512_cvtepi32_ps(_mm512_sub_epi32(a.v[q][t], comp));
            storeOut<Stream>(out + 16 * t, _mm512_fmadd_ps(v, sc, b));
          }
        }
      });
}

template <int T, bool Stream>
AVX512BF16 void quadBf16(const Packed &p, int64_t s, bool first, int64_t n0,
                         int64_t nc, const uint32_t *xt, int64_t ldx,
                         float *yt, int64_t ldy, const float *bias) {
  struct Acc {
    __m512 v[4][T];
  };
  const auto *vals = static_cast<const int32_t *>(p.values);
  const int32_t *cols = p.cols;
  quadRows<Acc>(
      p, s, n0, nc,
      [&](int64_t r, Acc &a) AVX512BF16 {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            a.v[q][t] = first
                            ? _mm512_set1_ps(bias ? bias[n0 + r + q] : 0.0f)
                            : _mm512_loadu_ps(yt + (r + q) * ldy + 16 * t);
      },
      [&](int32_t i, Acc &a) AVX512BF16 {
        const uint32_t *x = xt + (cols[i] >> 1) * ldx;
        const int32_t *v = vals + 8 * i;
        for (int c = 0; c < 2; ++c) {
          __m512bh xv[T];
          for (int t = 0; t < T; ++t)
            xv[t] = (__m512bh)_mm512_load_si512(x + c * ldx + 16 * t);
          for (int q = 0; q < 4; ++q) {
            __m512bh w = (__m512bh)_mm512_set1_epi32(v[2 * q + c]);
            for (int t = 0; t < T; ++t)
              a.v[q][t] = _mm512_dpbf16_ps(a.v[q][t], xv[t], w);
          }
        }
      },
      [&](int64_t r, Acc &a) AVX512BF16 {
        for (int q = 0; q < 4; ++q)
          for (int t = 0; t < T; ++t)
            storeOut<Stream>(yt + (r + q) * ldy + 16 * t, a.v[q][t]);
      });
}
} // namespace

AVX512 void sparse_rows::rowsF32Avx512(int tiles, const Packed &p, int64_t s,
                                       bool first, int64_t n0, int64_t nc,
                                       const float *xt, int64_t ldx,
                                       float *yt, int64_t ldy, const float *bias,
                                       bool stream) {
  withTiles(tiles, stream, [&](auto t, auto st) AVX512 {
    constexpr int T = decltype(t)::value;
    constexpr bool S = decltype(st)::value;
    if (p.h.blockRows == 4)
      quadF32<T, S>(p, s, first, n0, nc, xt, ldx, yt, ldy, bias);
    else
      rowsF32<T, S>(p, s, first, n0, nc, xt, ldx, yt, ldy, bias);
  });
}

AVX512VNNI void sparse_rows::rowsS8Vnni(int tiles, const Packed &p, int64_t s,
                                        bool first, bool last, int64_t n0,
                                        int64_t nc, const uint8_t *xt,
                                        int64_t ldxDwords, float *yt, int64_t ldy,
                                        const float *bias, float xScale,
                                        int32_t xZero, bool stream) {
  withTiles(tiles, stream, [&](auto t, auto st) AVX512VNNI {
    constexpr int T = decltype(t)::value;
    constexpr bool S = decltype(st)::value;
    if (p.h.blockRows == 4)
      quadS8<T, S>(p, s, first, last, n0, nc, xt, ldxDwords, yt, ldy, bias,
                   xScale, xZero);
    else
      rowsS8<T, S>(p, s, first, last, n0, nc, xt, ldxDwords, yt, ldy, bias,
                   xScale, xZero);
  });
}

AVX512BF16 void sparse_rows::rowsBf16Avx512(int tiles, const Packed &p,
                                            int64_t s, bool first, int64_t n0,
                                            int64_t nc, const uint32_t *xt,
                                            int64_t ldx, float *yt, int64_t ldy,
                                            const float *bias, bool stream) {
  withTiles(tiles, stream, [&](auto t, auto st) AVX512BF16 {
    constexpr int T = decltype(t)::value;
    constexpr bool S = decltype(st)::value;
    if (p.h.blockRows == 4)
      quadBf16<T, S>(p, s, first, n0, nc, xt, ldx, yt, ldy, bias);
    else
      rowsBf16<T, S>(p, s, first, n0, nc, xt, ldx, yt, ldy, bias);
  });
}
