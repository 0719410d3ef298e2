//===- Sparse.cpp - block-sparse inner products ---------------------------===//
//
// Part of opscope's runtime. See sparse.h for the scheme. AVX-512 bodies are
// compiled with target attributes and chosen at run time; each has a
// portable twin the tests compare against.
//
// Shapes of the work: an activation tile of kTile (64) tokens is packed as
// K rows of 64 (f32) or K/4 rows of 64 dwords (u8, four consecutive k of a
// token per dword, the VNNI operand). For every chunk of kChunk (64) output
// rows the kernel computes a 64 x 64 tile of Y^T in registers, two rows at a
// time with four zmm accumulators each, then applies bias and post-ops to the
// tile and stores it in the output layout.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/sparse.h"

#include "opscope/runtime/kernels.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <immintrin.h>
#include <omp.h>
#include <stdexcept>

using namespace opscope;
using namespace opscope::rt;
using sparse::Header;
using sparse::ValueType;

namespace {
constexpr int64_t kTile = 64;  // tokens per activation tile
constexpr int64_t kChunk = 64; // output rows per output tile

/// What the CPU has, within the OPSCOPE_MAX_ISA cap.
bool cpuHas(const char *what) {
  if (std::strcmp(what, "avx512f") == 0)
    return __builtin_cpu_supports("avx512f") &&
           isaAllowed(IsaLevel::Avx512Core);
  if (std::strcmp(what, "vnni") == 0)
    return __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vnni") &&
           isaAllowed(IsaLevel::Avx512CoreVnni);
  if (std::strcmp(what, "bf16") == 0)
    return __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512bf16") &&
           isaAllowed(IsaLevel::Avx512CoreBf16);
  return false;
}

std::atomic<bool> &forcePortable() {
  static std::atomic<bool> force{false};
  return force;
}

bool useAvx512F32() { return !forcePortable() && cpuHas("avx512f"); }
bool useVnni() {
  static const bool has = cpuHas("vnni");
  return !forcePortable() && has;
}
bool useBf16() {
  static const bool has = cpuHas("bf16");
  return !forcePortable() && has;
}

template <typename T> struct AlignedBuffer {
  T *data = nullptr;
  size_t size = 0;
  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer &) = delete;
  AlignedBuffer &operator=(const AlignedBuffer &) = delete;
  AlignedBuffer(AlignedBuffer &&o) noexcept : data(o.data), size(o.size) {
    o.data = nullptr;
    o.size = 0;
  }
  AlignedBuffer &operator=(AlignedBuffer &&o) noexcept {
    std::swap(data, o.data);
    std::swap(size, o.size);
    return *this;
  }
  void resize(size_t n) {
    if (n <= size)
      return;
    std::free(data);
    data = static_cast<T *>(std::aligned_alloc(64, ((n * sizeof(T) + 63) / 64) * 64));
    if (!data)
      throw std::bad_alloc();
    std::memset(data, 0, n * sizeof(T));
    size = n;
  }
  ~AlignedBuffer() { std::free(data); }
};

/// The blob's sections.
struct Packed {
  Header h;
  const int32_t *rowStart, *rowIndex, *cols;
  const void *values;
  const float *scale;
  const int32_t *rowSum;
  explicit Packed(const void *blob) {
    std::memcpy(&h, blob, sizeof(h));
    auto *base = static_cast<const uint8_t *>(blob);
    rowStart = reinterpret_cast<const int32_t *>(base + h.rowStartOffset);
    rowIndex = reinterpret_cast<const int32_t *>(base + h.rowIndexOffset);
    cols = reinterpret_cast<const int32_t *>(base + h.colsOffset);
    values = base + h.valuesOffset;
    scale = h.scaleOffset
                ? reinterpret_cast<const float *>(base + h.scaleOffset)
                : nullptr;
    rowSum = h.rowSumOffset
                 ? reinterpret_cast<const int32_t *>(base + h.rowSumOffset)
                 : nullptr;
  }
};

//===----------------------------------------------------------------------===//
// Epilogue: post-ops on a Y^T tile (rows = outputs, columns = tokens), then
// the store into the output layout.
//===----------------------------------------------------------------------===//

void applyActivation(PostOp p, float *row, int64_t len) {
  switch (p) {
  case PostOp::Relu:
    for (int64_t i = 0; i < len; ++i)
      row[i] = std::max(row[i], 0.0f);
    break;
  case PostOp::GeluErf:
  case PostOp::GeluTanh:
    gelu(row, row, len, p == PostOp::GeluTanh);
    break;
  case PostOp::Sigmoid:
    transcendental(Transcendental::Sigmoid, row, row, len);
    break;
  case PostOp::Tanh:
    transcendental(Transcendental::Tanh, row, row, len);
    break;
  case PostOp::HardSwish:
    for (int64_t i = 0; i < len; ++i) {
      float v = row[i];
      row[i] = v * std::min(std::max(v + 3.0f, 0.0f), 6.0f) / 6.0f;
    }
    break;
  case PostOp::Sum:
    break;
  }
}

//===----------------------------------------------------------------------===//
// Portable kernels
//===----------------------------------------------------------------------===//

/// Y^T tile rows [n0, n0+nc) over tokens [0, mc) of the packed activations
/// `xt` (K4 x kTile f32).
void rowsF32Portable(const Packed &p, int64_t s, bool first, int64_t n0,
                     int64_t nc, const float *xt, int64_t ldx, int64_t mc,
                     float *yt, const float *bias) {
  const auto *vals = static_cast<const float *>(p.values);
  const int32_t *rs = p.rowStart + s * p.h.n + n0;
  const int32_t *ri = p.rowIndex + s * p.h.n + n0;
  for (int64_t j = 0; j < nc; ++j) {
    int64_t r = ri[j] - n0;
    float *out = yt + r * kTile;
    float b = bias ? bias[n0 + r] : 0.0f;
    for (int64_t i = 0; first && i < mc; ++i)
      out[i] = b;
    for (int32_t blk = rs[j]; blk < rs[j + 1]; ++blk) {
      const float *x = xt + p.cols[blk] * ldx;
      const float *v = vals + 4 * blk;
      for (int64_t j = 0; j < 4; ++j)
        for (int64_t i = 0; i < mc; ++i)
          out[i] += v[j] * x[j * ldx + i];
    }
  }
}

/// Accumulates in int32 in `yt` across slabs; the last slab dequantizes in
/// place.
void rowsS8Portable(const Packed &p, int64_t s, bool first, bool last,
                    int64_t n0, int64_t nc, const uint8_t *xt,
                    int64_t ldxDwords, int64_t mc, float *yt,
                    const float *bias, float xScale, int32_t xZero) {
  const auto *vals = static_cast<const int8_t *>(p.values);
  const int32_t *rs = p.rowStart + s * p.h.n + n0;
  const int32_t *ri = p.rowIndex + s * p.h.n + n0;
  for (int64_t j = 0; j < nc; ++j) {
    int64_t row = ri[j], r = row - n0;
    auto *acc = reinterpret_cast<int32_t *>(yt + r * kTile);
    if (first)
      std::fill(acc, acc + mc, 0);
    for (int32_t blk = rs[j]; blk < rs[j + 1]; ++blk) {
      const uint8_t *x = xt + (p.cols[blk] / 4) * ldxDwords * 4;
      const int8_t *v = vals + 4 * blk;
      for (int64_t i = 0; i < mc; ++i)
        for (int64_t j = 0; j < 4; ++j)
          acc[i] += int32_t(x[4 * i + j]) * v[j];
    }
    if (!last)
      continue;
    float sc = xScale * p.scale[row];
    float b = bias ? bias[row] : 0.0f;
    int32_t comp = xZero * p.rowSum[row];
    for (int64_t i = 0; i < mc; ++i)
      yt[r * kTile + i] = sc * float(acc[i] - comp) + b;
  }
}

/// bf16: activations as K/2 rows of kTile dwords (two consecutive features
/// of a token per dword), each block two dwords of weights; products of
/// bf16 values are exact in f32, as in vdpbf16ps.
void rowsBf16Portable(const Packed &p, int64_t s, bool first, int64_t n0,
                      int64_t nc, const uint32_t *xt, int64_t ldx, int64_t mc,
                      float *yt, const float *bias) {
  const auto *vals = static_cast<const uint16_t *>(p.values);
  const int32_t *rs = p.rowStart + s * p.h.n + n0;
  const int32_t *ri = p.rowIndex + s * p.h.n + n0;
  for (int64_t j = 0; j < nc; ++j) {
    int64_t r = ri[j] - n0;
    float *out = yt + r * kTile;
    float b = bias ? bias[n0 + r] : 0.0f;
    for (int64_t i = 0; first && i < mc; ++i)
      out[i] = b;
    for (int32_t blk = rs[j]; blk < rs[j + 1]; ++blk) {
      const uint32_t *x = xt + (p.cols[blk] / 2) * ldx;
      const uint16_t *v = vals + 4 * blk;
      for (int64_t i = 0; i < mc; ++i) {
        float acc = 0.0f;
        for (int64_t q = 0; q < 2; ++q) {
          uint32_t pair = x[q * ldx + i];
          acc += sparse::fromBf16(uint16_t(pair)) * sparse::fromBf16(v[2 * q]) +
                 sparse::fromBf16(uint16_t(pair >> 16)) *
                     sparse::fromBf16(v[2 * q + 1]);
        }
        out[i] += acc;
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// AVX-512 kernels
//===----------------------------------------------------------------------===//

#define AVX512 __attribute__((target("avx512f")))
#define AVX512VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

/// In-register transpose of 16 rows of 16 floats.
AVX512 inline void transpose16(__m512 r[16]) {
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    r[4 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    r[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    r[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    r[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 4; ++i) {
      t[8 * h + i] = _mm512_shuffle_f32x4(r[8 * h + i], r[8 * h + i + 4], 0x88);
      t[8 * h + i + 4] =
          _mm512_shuffle_f32x4(r[8 * h + i], r[8 * h + i + 4], 0xDD);
    }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xDD);
  }
}

/// dst[c * ldd + i] = src[i * lds + c] for i < rows, c < cols: 16 x 16
/// blocks in registers, scalar edges. Elements are 32-bit.
AVX512 void transpose32(const void *srcv, int64_t lds, int64_t rows,
                        int64_t cols, void *dstv, int64_t ldd) {
  const auto *src = static_cast<const float *>(srcv);
  auto *dst = static_cast<float *>(dstv);
  int64_t r16 = rows / 16 * 16, c16 = cols / 16 * 16;
  __m512 r[16];
  for (int64_t i0 = 0; i0 < r16; i0 += 16)
    for (int64_t c0 = 0; c0 < c16; c0 += 16) {
      for (int i = 0; i < 16; ++i)
        r[i] = _mm512_loadu_ps(src + (i0 + i) * lds + c0);
      transpose16(r);
      for (int i = 0; i < 16; ++i)
        _mm512_storeu_ps(dst + (c0 + i) * ldd + i0, r[i]);
    }
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = i < r16 ? c16 : 0; c < cols; ++c)
      dst[c * ldd + i] = src[i * lds + c];
}

/// Y^T rows [n0, n0+nc) x kTile tokens: two rows per pass, T zmm each,
/// with separate accumulators for the even and odd elements of a block so
/// that 4T independent FMA chains hide the FMA latency (one chain per row
/// and zmm ran at ~0.85 FMA per cycle on Zen 5; see docs/sparsity.md).
template <int T>
AVX512 void rowsF32Avx512(const Packed &p, int64_t s, bool first, int64_t n0,
                          int64_t nc, const float *xt, int64_t ldx, float *yt,
                          const float *bias) {
  const auto *vals = static_cast<const float *>(p.values);
  const int32_t *cols = p.cols;
  const int32_t *rs = p.rowStart + s * p.h.n + n0;
  const int32_t *ri = p.rowIndex + s * p.h.n + n0;
  auto init = [&](int64_t r, __m512 *even, __m512 *odd) AVX512 {
    for (int t = 0; t < T; ++t) {
      even[t] = first ? _mm512_set1_ps(bias ? bias[n0 + r] : 0.0f)
                      : _mm512_load_ps(yt + r * kTile + 16 * t);
      odd[t] = _mm512_setzero_ps();
    }
  };
  auto block = [&](int32_t i, __m512 *even, __m512 *odd) AVX512 {
    const float *x = xt + cols[i] * ldx;
    const float *v = vals + 4 * i;
    __m512 w0 = _mm512_set1_ps(v[0]), w1 = _mm512_set1_ps(v[1]);
    __m512 w2 = _mm512_set1_ps(v[2]), w3 = _mm512_set1_ps(v[3]);
    for (int t = 0; t < T; ++t) {
      even[t] = _mm512_fmadd_ps(w0, _mm512_load_ps(x + 16 * t), even[t]);
      odd[t] = _mm512_fmadd_ps(w1, _mm512_load_ps(x + ldx + 16 * t), odd[t]);
    }
    for (int t = 0; t < T; ++t) {
      even[t] =
          _mm512_fmadd_ps(w2, _mm512_load_ps(x + 2 * ldx + 16 * t), even[t]);
      odd[t] =
          _mm512_fmadd_ps(w3, _mm512_load_ps(x + 3 * ldx + 16 * t), odd[t]);
    }
  };
  auto store = [&](int64_t r, __m512 *even, __m512 *odd) AVX512 {
    for (int t = 0; t < T; ++t)
      _mm512_store_ps(yt + r * kTile + 16 * t, _mm512_add_ps(even[t], odd[t]));
  };
  int64_t j = 0;
  for (; j + 2 <= nc; j += 2) {
    int64_t ra = ri[j] - n0, rb = ri[j + 1] - n0;
    __m512 e0[T], o0[T], e1[T], o1[T];
    init(ra, e0, o0);
    init(rb, e1, o1);
    int32_t i0 = rs[j], end0 = rs[j + 1];
    int32_t i1 = end0, end1 = rs[j + 2];
    int32_t common = std::min(end0 - i0, end1 - i1);
    for (int32_t q = 0; q < common; ++q, ++i0, ++i1) {
      block(i0, e0, o0);
      block(i1, e1, o1);
    }
    for (; i0 < end0; ++i0)
      block(i0, e0, o0);
    for (; i1 < end1; ++i1)
      block(i1, e1, o1);
    store(ra, e0, o0);
    store(rb, e1, o1);
  }
  for (; j < nc; ++j) {
    int64_t ra = ri[j] - n0;
    __m512 e0[T], o0[T];
    init(ra, e0, o0);
    for (int32_t i0 = rs[j]; i0 < rs[j + 1]; ++i0)
      block(i0, e0, o0);
    store(ra, e0, o0);
  }
}

AVX512 void rowsF32Avx512(int tiles, const Packed &p, int64_t s, bool first,
                          int64_t n0, int64_t nc, const float *xt, int64_t ldx,
                          float *yt, const float *bias) {
  switch (tiles) {
  case 1:
    return rowsF32Avx512<1>(p, s, first, n0, nc, xt, ldx, yt, bias);
  case 2:
    return rowsF32Avx512<2>(p, s, first, n0, nc, xt, ldx, yt, bias);
  case 3:
    return rowsF32Avx512<3>(p, s, first, n0, nc, xt, ldx, yt, bias);
  default:
    return rowsF32Avx512<4>(p, s, first, n0, nc, xt, ldx, yt, bias);
  }
}

/// The s8 twin: u8 activations as K/4 rows of kTile dwords, one vpdpbusd per
/// block and zmm, then the dequantization into f32.
template <int T>
AVX512VNNI void rowsS8Vnni(const Packed &p, int64_t s, bool first, bool last,
                           int64_t n0, int64_t nc, const uint8_t *xt,
                           int64_t ldxDwords, float *yt, const float *bias,
                           float xScale, int32_t xZero) {
  const auto *vals = static_cast<const int32_t *>(p.values);
  const int32_t *cols = p.cols;
  const int32_t *rs = p.rowStart + s * p.h.n + n0;
  const int32_t *ri = p.rowIndex + s * p.h.n + n0;
  const auto *x32 = reinterpret_cast<const int32_t *>(xt);
  auto init = [&](int64_t r, __m512i *a) AVX512VNNI {
    for (int t = 0; t < T; ++t)
      a[t] = first ? _mm512_setzero_si512()
                   : _mm512_load_si512(yt + r * kTile + 16 * t);
  };
  auto finish = [&](int64_t r, __m512i *acc) AVX512VNNI {
    if (!last) {
      for (int t = 0; t < T; ++t)
        _mm512_store_si512(yt + r * kTile + 16 * t, acc[t]);
      return;
    }
    int64_t row = n0 + r;
    __m512 sc = _mm512_set1_ps(xScale * p.scale[row]);
    __m512 b = _mm512_set1_ps(bias ? bias[row] : 0.0f);
    __m512i comp = _mm512_set1_epi32(xZero * p.rowSum[row]);
    for (int t = 0; t < T; ++t) {
      __m512 v = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[t], comp));
      _mm512_store_ps(yt + r * kTile + 16 * t, _mm512_fmadd_ps(v, sc, b));
    }
  };
  int64_t j = 0;
  for (; j + 2 <= nc; j += 2) {
    int64_t ra = ri[j] - n0, rb = ri[j + 1] - n0;
    __m512i a0[T], a1[T];
    init(ra, a0);
    init(rb, a1);
    int32_t i0 = rs[j], e0 = rs[j + 1];
    int32_t i1 = e0, e1 = rs[j + 2];
    int32_t common = std::min(e0 - i0, e1 - i1);
    for (int32_t q = 0; q < common; ++q, ++i0, ++i1) {
      const int32_t *x0 = x32 + (cols[i0] >> 2) * ldxDwords;
      const int32_t *x1 = x32 + (cols[i1] >> 2) * ldxDwords;
      __m512i w0 = _mm512_set1_epi32(vals[i0]), w1 = _mm512_set1_epi32(vals[i1]);
      for (int t = 0; t < T; ++t) {
        a0[t] = _mm512_dpbusd_epi32(a0[t], _mm512_load_si512(x0 + 16 * t), w0);
        a1[t] = _mm512_dpbusd_epi32(a1[t], _mm512_load_si512(x1 + 16 * t), w1);
      }
    }
    for (; i0 < e0; ++i0) {
      const int32_t *x0 = x32 + (cols[i0] >> 2) * ldxDwords;
      __m512i w0 = _mm512_set1_epi32(vals[i0]);
      for (int t = 0; t < T; ++t)
        a0[t] = _mm512_dpbusd_epi32(a0[t], _mm512_load_si512(x0 + 16 * t), w0);
    }
    for (; i1 < e1; ++i1) {
      const int32_t *x1 = x32 + (cols[i1] >> 2) * ldxDwords;
      __m512i w1 = _mm512_set1_epi32(vals[i1]);
      for (int t = 0; t < T; ++t)
        a1[t] = _mm512_dpbusd_epi32(a1[t], _mm512_load_si512(x1 + 16 * t), w1);
    }
    finish(ra, a0);
    finish(rb, a1);
  }
  for (; j < nc; ++j) {
    int64_t ra = ri[j] - n0;
    __m512i a0[T];
    init(ra, a0);
    for (int32_t i0 = rs[j]; i0 < rs[j + 1]; ++i0) {
      const int32_t *x0 = x32 + (cols[i0] >> 2) * ldxDwords;
      __m512i w0 = _mm512_set1_epi32(vals[i0]);
      for (int t = 0; t < T; ++t)
        a0[t] = _mm512_dpbusd_epi32(a0[t], _mm512_load_si512(x0 + 16 * t), w0);
    }
    finish(ra, a0);
  }
}

AVX512VNNI void rowsS8Vnni(int tiles, const Packed &p, int64_t s, bool first,
                           bool last, int64_t n0, int64_t nc,
                           const uint8_t *xt, int64_t ldxDwords, float *yt,
                           const float *bias, float xScale, int32_t xZero) {
#define OPSCOPE_S8_ROWS(T)                                                     \
  rowsS8Vnni<T>(p, s, first, last, n0, nc, xt, ldxDwords, yt, bias, xScale,   \
                xZero)
  switch (tiles) {
  case 1:
    return OPSCOPE_S8_ROWS(1);
  case 2:
    return OPSCOPE_S8_ROWS(2);
  case 3:
    return OPSCOPE_S8_ROWS(3);
  default:
    return OPSCOPE_S8_ROWS(4);
  }
#undef OPSCOPE_S8_ROWS
}

#define AVX512BF16 __attribute__((target("avx512f,avx512bw,avx512bf16")))

/// The bf16 twin of rowsF32Avx512: two vdpbf16ps per block and zmm.
template <int T>
AVX512BF16 void rowsBf16Avx512(const Packed &p, int64_t s, bool first,
                               int64_t n0, int64_t nc, const uint32_t *xt,
                               int64_t ldx, float *yt, const float *bias) {
  const auto *vals = static_cast<const int32_t *>(p.values);
  const int32_t *cols = p.cols;
  const int32_t *rs = p.rowStart + s * p.h.n + n0;
  const int32_t *ri = p.rowIndex + s * p.h.n + n0;
  auto init = [&](int64_t r, __m512 *a) AVX512BF16 {
    for (int t = 0; t < T; ++t)
      a[t] = first ? _mm512_set1_ps(bias ? bias[n0 + r] : 0.0f)
                   : _mm512_load_ps(yt + r * kTile + 16 * t);
  };
  auto block = [&](int32_t i, __m512 *a) AVX512BF16 {
    const uint32_t *x = xt + (cols[i] >> 1) * ldx;
    __m512bh w0 = (__m512bh)_mm512_set1_epi32(vals[2 * i]);
    __m512bh w1 = (__m512bh)_mm512_set1_epi32(vals[2 * i + 1]);
    for (int t = 0; t < T; ++t) {
      a[t] = _mm512_dpbf16_ps(a[t], (__m512bh)_mm512_load_si512(x + 16 * t),
                              w0);
      a[t] = _mm512_dpbf16_ps(
          a[t], (__m512bh)_mm512_load_si512(x + ldx + 16 * t), w1);
    }
  };
  auto store = [&](int64_t r, __m512 *a) AVX512BF16 {
    for (int t = 0; t < T; ++t)
      _mm512_store_ps(yt + r * kTile + 16 * t, a[t]);
  };
  int64_t j = 0;
  for (; j + 2 <= nc; j += 2) {
    int64_t ra = ri[j] - n0, rb = ri[j + 1] - n0;
    __m512 a0[T], a1[T];
    init(ra, a0);
    init(rb, a1);
    int32_t i0 = rs[j], e0 = rs[j + 1], i1 = e0, e1 = rs[j + 2];
    int32_t common = std::min(e0 - i0, e1 - i1);
    for (int32_t q = 0; q < common; ++q, ++i0, ++i1) {
      block(i0, a0);
      block(i1, a1);
    }
    for (; i0 < e0; ++i0)
      block(i0, a0);
    for (; i1 < e1; ++i1)
      block(i1, a1);
    store(ra, a0);
    store(rb, a1);
  }
  for (; j < nc; ++j) {
    int64_t ra = ri[j] - n0;
    __m512 a0[T];
    init(ra, a0);
    for (int32_t i0 = rs[j]; i0 < rs[j + 1]; ++i0)
      block(i0, a0);
    store(ra, a0);
  }
}

AVX512BF16 void rowsBf16Avx512(int tiles, const Packed &p, int64_t s,
                               bool first, int64_t n0, int64_t nc,
                               const uint32_t *xt, int64_t ldx, float *yt,
                               const float *bias) {
  switch (tiles) {
  case 1:
    return rowsBf16Avx512<1>(p, s, first, n0, nc, xt, ldx, yt, bias);
  case 2:
    return rowsBf16Avx512<2>(p, s, first, n0, nc, xt, ldx, yt, bias);
  case 3:
    return rowsBf16Avx512<3>(p, s, first, n0, nc, xt, ldx, yt, bias);
  default:
    return rowsBf16Avx512<4>(p, s, first, n0, nc, xt, ldx, yt, bias);
  }
}

/// n floats -> n bf16 (round to nearest even), vectorized.
AVX512BF16 void toBf16Avx512(const float *x, uint16_t *y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(y + i),
                        (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(x + i)));
  for (; i < n; ++i)
    y[i] = sparse::toBf16(x[i]);
}

/// Rows 2p and 2p+1 of a transposed (K x M) input, tokens [m0, m0+mc), as
/// one row of bf16 pairs.
AVX512BF16 void pairRowAvx512(const float *a, const float *b, int64_t mc,
                              uint32_t *out) {
  int64_t i = 0;
  for (; i + 16 <= mc; i += 16) {
    __m512i lo = _mm512_cvtepu16_epi32(
        (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(a + i)));
    __m512i hi = b ? _mm512_cvtepu16_epi32((__m256i)_mm512_cvtneps_pbh(
                         _mm512_loadu_ps(b + i)))
                   : _mm512_setzero_si512();
    _mm512_storeu_si512(out + i, _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
  }
  for (; i < mc; ++i)
    out[i] = sparse::toBf16(a[i]) |
             (b ? uint32_t(sparse::toBf16(b[i])) << 16 : 0u);
}

/// Copies a rows x cols block of 32-bit elements, row by row.
void copy32(const void *src, int64_t lds, int64_t rows, int64_t cols,
            void *dst, int64_t ldd) {
  for (int64_t i = 0; i < rows; ++i)
    std::memcpy(static_cast<uint32_t *>(dst) + i * ldd,
                static_cast<const uint32_t *>(src) + i * lds, cols * 4);
}

void transpose32Portable(const void *srcv, int64_t lds, int64_t rows,
                         int64_t cols, void *dstv, int64_t ldd) {
  const auto *src = static_cast<const uint32_t *>(srcv);
  auto *dst = static_cast<uint32_t *>(dstv);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < cols; ++c)
      dst[c * ldd + i] = src[i * lds + c];
}

/// `yt` holds rows [n0, n0 + nc) x tokens [m0, m0 + mc) with leading
/// dimension kTile. Post-ops run on it; the Sum post-op reads `sum` (in the
/// output layout; transposed into `scratch` when the output is not) before
/// the store can overwrite it, since the sum may alias the output.
void epilogue(float *yt, float *scratch, int64_t n0, int64_t nc, int64_t m0,
              int64_t mc, int64_t m, int64_t n,
              const std::vector<PostOp> &postOps, const float *sum, float *y,
              bool transposedOutput, bool avx512) {
  auto transpose = avx512 ? transpose32 : transpose32Portable;
  for (PostOp p : postOps) {
    if (p != PostOp::Sum) {
      for (int64_t r = 0; r < nc; ++r)
        applyActivation(p, yt + r * kTile, mc);
      continue;
    }
    const float *s = scratch;
    int64_t lds = kTile;
    if (transposedOutput) {
      s = sum + n0 * m + m0;
      lds = m;
    } else {
      // sum[m0 + i, n0 + r] -> scratch[r, i]
      transpose(sum + m0 * n + n0, n, mc, nc, scratch, kTile);
    }
    for (int64_t r = 0; r < nc; ++r) {
      float *row = yt + r * kTile;
      const float *srow = s + r * lds;
      for (int64_t i = 0; i < mc; ++i)
        row[i] += srow[i];
    }
  }
  if (transposedOutput) {
    for (int64_t r = 0; r < nc; ++r)
      std::memcpy(y + (n0 + r) * m + m0, yt + r * kTile, mc * sizeof(float));
    return;
  }
  // yt[r, i] -> y[m0 + i, n0 + r]
  transpose(yt, kTile, nc, mc, y + m0 * n + n0, n);
}

/// What the two classes share: shapes, the packed weight, scratch, and the
/// tile loop. `Elem` is the activation element (float or uint8_t); a packed
/// activation row holds kTile 32-bit lanes (one float, or four u8).
struct Common {
  Packed p;
  int64_t m, n, k, kRows; // kRows: packed activation rows (K or K/4, padded)
  std::vector<float> bias;
  std::vector<PostOp> postOps;
  SparseLayout layout;
  bool avx512;
  AlignedBuffer<uint32_t> xt;            // kRows x kTile lanes
  std::vector<AlignedBuffer<float>> yt;  // per thread, 2 x kChunk x kTile:
                                         // the output tile, the sum's

  Common(int64_t m, const void *blob, const float *b, std::vector<PostOp> post,
         SparseLayout layout, int64_t lanesPerRow, bool avx512)
      : p(blob), m(m), n(p.h.n), k(p.h.k), postOps(std::move(post)),
        layout(layout), avx512(avx512) {
    if (m <= 0)
      throw std::invalid_argument("sparse inner product: M must be positive");
    int64_t k4 = (k + 3) / 4 * 4;
    kRows = k4 / lanesPerRow;
    if (b)
      bias.assign(b, b + n);
    xt.resize(size_t(kRows) * kTile);
    ensureThreads();
  }

  void ensureThreads() {
    size_t threads = std::max(1, omp_get_max_threads());
    if (yt.size() < threads)
      yt.resize(threads);
    for (auto &buf : yt)
      buf.resize(2 * size_t(kChunk) * kTile);
  }

  /// Packs tokens [m0, m0+mc) of x (32-bit lanes: `lanes` per token row when
  /// untransposed) into `xt`. Transposed input is copied too: a 64-token
  /// tile of contiguous rows keeps half the cache footprint of the same
  /// rows read in place with a stride of M (measured 1.4x faster at M=128).
  const uint32_t *packTile(const uint32_t *x, int64_t lanes, int64_t m0,
                           int64_t mc, int64_t &ldx) {
    if (bf16) {
      packTileBf16(reinterpret_cast<const float *>(x), m0, mc);
      ldx = kTile;
      return xt.data;
    }
    if (layout.transposedInput)
      copy32(x + m0, m, lanes, mc, xt.data, kTile);
    else if (avx512)
      transpose32(x + m0 * lanes, lanes, mc, lanes, xt.data, kTile);
    else
      transpose32Portable(x + m0 * lanes, lanes, mc, lanes, xt.data, kTile);
    ldx = kTile;
    return xt.data;
  }

  /// f32 activations to bf16 pairs: kRows rows of kTile dwords.
  bool bf16 = false;
  AlignedBuffer<uint16_t> rowsBf16; // kTile x 2*kRows, row-major input
  void packTileBf16(const float *x, int64_t m0, int64_t mc) {
    int64_t k2 = 2 * kRows; // K padded to a multiple of 4
    if (!layout.transposedInput) {
      rowsBf16.resize(size_t(kTile) * k2);
      for (int64_t i = 0; i < mc; ++i) {
        uint16_t *row = rowsBf16.data + i * k2;
        const float *src = x + (m0 + i) * k;
        if (avx512)
          toBf16Avx512(src, row, k);
        else
          for (int64_t c = 0; c < k; ++c)
            row[c] = sparse::toBf16(src[c]);
        std::fill(row + k, row + k2, uint16_t(0));
      }
      (avx512 ? transpose32 : transpose32Portable)(rowsBf16.data, kRows, mc,
                                                   kRows, xt.data, kTile);
      return;
    }
    for (int64_t q = 0; q < kRows; ++q) {
      const float *a = 2 * q < k ? x + 2 * q * m + m0 : nullptr;
      const float *b = 2 * q + 1 < k ? x + (2 * q + 1) * m + m0 : nullptr;
      uint32_t *out = xt.data + q * kTile;
      if (!a) {
        std::fill(out, out + mc, 0u);
      } else if (avx512) {
        pairRowAvx512(a, b, mc, out);
      } else {
        for (int64_t i = 0; i < mc; ++i)
          out[i] = sparse::toBf16(a[i]) |
                   (b ? uint32_t(sparse::toBf16(b[i])) << 16 : 0u);
      }
    }
  }

  /// Runs `rows(s, first, last, n0, nc, xt, ldx, mc, yt)` over every output
  /// tile, slab by slab (the tile stays in L1 between slabs).
  template <typename Rows>
  void forEachTile(const uint32_t *x, int64_t lanes, float *y,
                   const float *sum, Rows rows) {
    ensureThreads();
    int64_t chunks = (n + kChunk - 1) / kChunk;
    for (int64_t m0 = 0; m0 < m; m0 += kTile) {
      int64_t mc = std::min(kTile, m - m0), ldx = 0;
      const uint32_t *tile = packTile(x, lanes, m0, mc, ldx);
#pragma omp parallel for schedule(static)
      for (int64_t c = 0; c < chunks; ++c) {
        float *buf = yt[omp_get_thread_num()].data;
        int64_t n0 = c * kChunk, nc = std::min(kChunk, n - n0);
        int64_t slabs = p.h.slabs();
        for (int64_t s = 0; s < slabs; ++s)
          rows(s, s == 0, s + 1 == slabs, n0, nc, tile, ldx, mc, buf);
        epilogue(buf, buf + kChunk * kTile, n0, nc, m0, mc, m, n, postOps,
                 sum, y, layout.transposedOutput, avx512);
      }
    }
  }

  const float *biasPtr() const { return bias.empty() ? nullptr : bias.data(); }
};
} // namespace

//===----------------------------------------------------------------------===//
// SparseInnerProduct (f32)
//===----------------------------------------------------------------------===//

struct SparseInnerProduct::Impl : Common {
  using Common::Common;
};

SparseInnerProduct::SparseInnerProduct(int64_t m, const void *packed,
                                       const float *bias,
                                       std::vector<PostOp> postOps,
                                       SparseLayout layout) {
  Header h;
  std::memcpy(&h, packed, sizeof(h));
  bool bf16 = h.valueType == static_cast<uint8_t>(ValueType::BF16);
  if (h.valueType != static_cast<uint8_t>(ValueType::F32) && !bf16)
    throw std::invalid_argument(
        "SparseInnerProduct needs f32 or bf16 packed weights");
  impl = std::make_unique<Impl>(m, packed, bias, std::move(postOps), layout,
                                bf16 ? 2 : 1,
                                bf16 ? useBf16() : useAvx512F32());
  impl->bf16 = bf16;
}

SparseInnerProduct::~SparseInnerProduct() = default;

void SparseInnerProduct::run(const float *x, float *y, const float *sum) {
  Impl &c = *impl;
  const Packed &p = c.p;
  const float *bias = c.biasPtr();
  auto *x32 = reinterpret_cast<const uint32_t *>(x);
  if (c.bf16) {
    c.forEachTile(x32, c.kRows, y, sum,
                  [&](int64_t s, bool first, bool, int64_t n0, int64_t nc,
                      const uint32_t *xt, int64_t ldx, int64_t mc, float *yt) {
                    if (c.avx512)
                      rowsBf16Avx512(int((mc + 15) / 16), p, s, first, n0, nc,
                                     xt, ldx, yt, bias);
                    else
                      rowsBf16Portable(p, s, first, n0, nc, xt, ldx, mc, yt,
                                       bias);
                  });
    return;
  }
  if (c.avx512) {
    c.forEachTile(x32, c.k, y, sum,
                  [&](int64_t s, bool first, bool, int64_t n0, int64_t nc,
                      const uint32_t *xt, int64_t ldx, int64_t mc, float *yt) {
                    rowsF32Avx512(int((mc + 15) / 16), p, s, first, n0, nc,
                                  reinterpret_cast<const float *>(xt), ldx, yt,
                                  bias);
                  });
    return;
  }
  c.forEachTile(x32, c.k, y, sum,
                [&](int64_t s, bool first, bool, int64_t n0, int64_t nc,
                    const uint32_t *xt, int64_t ldx, int64_t mc, float *yt) {
                  rowsF32Portable(p, s, first, n0, nc,
                                  reinterpret_cast<const float *>(xt), ldx, mc,
                                  yt, bias);
                });
}

std::string SparseInnerProduct::implementation() const {
  if (impl->bf16)
    return std::string("opscope:sparse_1x4:") +
           (impl->avx512 ? "avx512_bf16" : "portable") + ":bf16";
  return std::string("opscope:sparse_1x4:") +
         (impl->avx512 ? "avx512" : "portable") + ":f32";
}

//===----------------------------------------------------------------------===//
// SparseInnerProductS8
//===----------------------------------------------------------------------===//

struct SparseInnerProductS8::Impl : Common {
  using Common::Common;
};

SparseInnerProductS8::SparseInnerProductS8(int64_t m, const void *packed,
                                           const float *bias,
                                           std::vector<PostOp> postOps,
                                           SparseLayout layout) {
  Header h;
  std::memcpy(&h, packed, sizeof(h));
  if (h.valueType != static_cast<uint8_t>(ValueType::S8))
    throw std::invalid_argument("SparseInnerProductS8 needs s8 packed weights");
  if (h.k % 4)
    throw std::invalid_argument(
        "SparseInnerProductS8 needs K to be a multiple of 4");
  impl = std::make_unique<Impl>(m, packed, bias, std::move(postOps), layout, 4,
                                useVnni());
}

SparseInnerProductS8::~SparseInnerProductS8() = default;

void SparseInnerProductS8::run(const uint8_t *x, float xScale, int32_t xZero,
                               float *y, const float *sum) {
  Impl &c = *impl;
  const Packed &p = c.p;
  const float *bias = c.biasPtr();
  auto *x32 = reinterpret_cast<const uint32_t *>(x);
  if (c.avx512) {
    c.forEachTile(x32, c.kRows, y, sum,
                  [&](int64_t s, bool first, bool last, int64_t n0, int64_t nc,
                      const uint32_t *xt, int64_t ldx, int64_t mc, float *yt) {
                    rowsS8Vnni(int((mc + 15) / 16), p, s, first, last, n0, nc,
                               reinterpret_cast<const uint8_t *>(xt), ldx, yt,
                               bias, xScale, xZero);
                  });
    return;
  }
  c.forEachTile(x32, c.kRows, y, sum,
                [&](int64_t s, bool first, bool last, int64_t n0, int64_t nc,
                    const uint32_t *xt, int64_t ldx, int64_t mc, float *yt) {
                  rowsS8Portable(p, s, first, last, n0, nc,
                                 reinterpret_cast<const uint8_t *>(xt), ldx, mc,
                                 yt, bias, xScale, xZero);
                });
}

std::string SparseInnerProductS8::implementation() const {
  return std::string("opscope:sparse_1x4:") +
         (impl->avx512 ? "avx512_vnni" : "portable") + ":s8";
}

std::string opscope::rt::sparseIsa(ValueType t) {
  if (t == ValueType::S8)
    return useVnni() ? "avx512_vnni" : "portable";
  if (t == ValueType::BF16)
    return useBf16() ? "avx512_bf16" : "portable";
  return useAvx512F32() ? "avx512" : "portable";
}

void opscope::rt::setSparsePortable(bool portable) { forcePortable() = portable; }

void opscope::rt::roundToBf16(const float *x, uint16_t *y, int64_t n) {
  if (cpuHas("bf16") && kernelIsa() == Isa::Avx512)
    return toBf16Avx512(x, y, n);
  for (int64_t i = 0; i < n; ++i)
    y[i] = sparse::toBf16(x[i]);
}
