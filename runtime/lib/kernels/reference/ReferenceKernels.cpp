//===- ReferenceKernels.cpp - the reference tier of the kernel table -----===//
//
// Part of opscope's runtime. Plain C++ (libm for the transcendentals) for
// every entry of the kernel table (KernelTable.h): what a CPU without AVX2
// and FMA runs, and what the tests compare each vector tier against. The
// table starts from these; each tier the CPU has overwrites what it
// implements.
//
//===----------------------------------------------------------------------===//

#include "../KernelTable.h"
#include "../RowKernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace opscope;
using namespace opscope::rt;
using namespace opscope::rt::sparse_rows;

OPSCOPE_DEFINE_ROW_KERNELS(reference_rows, )

namespace opscope::rt::reference_tier {

void layerNorm(const float *x, const float *gamma, const float *beta,
                       float *y, int64_t rows, int64_t cols, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *in = x + r * cols;
    float *out = y + r * cols;
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      sum += in[c];
    float mean = static_cast<float>(sum / cols);
    double sq = 0;
    for (int64_t c = 0; c < cols; ++c)
      sq += (in[c] - mean) * (in[c] - mean);
    float inv = 1.0f / std::sqrt(static_cast<float>(sq / cols) + eps);
    for (int64_t c = 0; c < cols; ++c)
      out[c] = (in[c] - mean) * inv * gamma[c] + (beta ? beta[c] : 0.0f);
  }
}

void layerNormTransposed(const float *x, const float *gamma,
                                 const float *beta, float *y, int64_t rows,
                                 int64_t cols, float eps) {
  // x is cols x rows: token r is column r, read with stride `rows`.
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      sum += x[c * rows + r];
    float mean = static_cast<float>(sum / cols);
    double sq = 0;
    for (int64_t c = 0; c < cols; ++c)
      sq += (x[c * rows + r] - mean) * (x[c * rows + r] - mean);
    float inv = 1.0f / std::sqrt(static_cast<float>(sq / cols) + eps);
    for (int64_t c = 0; c < cols; ++c)
      y[c * rows + r] =
          (x[c * rows + r] - mean) * inv * gamma[c] + (beta ? beta[c] : 0.0f);
  }
}

void softmax(const float *x, const float *mask, int64_t group, float *y,
                     int64_t rows, int64_t cols, bool log) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *in = x + r * cols;
    const float *m = mask ? mask + (r / group) * cols : nullptr;
    float *out = y + r * cols;
    float mx = -INFINITY;
    for (int64_t c = 0; c < cols; ++c)
      mx = std::max(mx, in[c] + (m ? m[c] : 0.0f));
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      float e = std::exp(in[c] + (m ? m[c] : 0.0f) - mx);
      // Subnormal exps are 0, as in the AVX-512 kernel (which also flushes
      // e^-87.3..-87, a negligible difference).
      e = e < std::numeric_limits<float>::min() ? 0.0f : e;
      out[c] = e;
      sum += e;
    }
    if (log) {
      float lse = static_cast<float>(std::log(sum));
      for (int64_t c = 0; c < cols; ++c)
        out[c] = in[c] + (m ? m[c] : 0.0f) - mx - lse;
    } else {
      float inv = static_cast<float>(1.0 / sum);
      for (int64_t c = 0; c < cols; ++c)
        out[c] *= inv;
    }
  }
}

void gelu(const float *x, float *y, int64_t n, bool tanhForm) {
  const float k = std::sqrt(2.0f / static_cast<float>(M_PI));
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i];
    float inner = tanhForm ? std::tanh(k * (v + 0.044715f * v * v * v))
                           : std::erf(v * static_cast<float>(M_SQRT1_2));
    y[i] = 0.5f * v * (1.0f + inner);
  }
}

void transcendental(Transcendental f, const float *x, float *y,
                            int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i];
    switch (f) {
    case Transcendental::Exp:
      y[i] = std::exp(v);
      break;
    case Transcendental::Erf:
      y[i] = std::erf(v);
      break;
    case Transcendental::Tanh:
      y[i] = std::tanh(v);
      break;
    default:
      y[i] = 1.0f / (1.0f + std::exp(-v));
      break;
    }
  }
}

/// Unary kind K's scalar definition over a row (softplusRow, mishRow).
template <UnaryKind K> void scalarRow(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = unaryFloat<float>(K, x[i], 0.0f, 0.0f);
}

void toBf16(const float *x, uint16_t *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = sparse::toBf16(x[i]);
}

void roundToBf16AsF32(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = sparse::fromBf16(sparse::toBf16(x[i]));
}

void fromBf16(const uint16_t *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = sparse::fromBf16(x[i]);
}

void quantizeU8(const float *x, uint8_t *q, int64_t n, float inv, int32_t zp) {
  for (int64_t i = 0; i < n; ++i)
    q[i] = quantizeU8One(x[i], inv, zp);
}

void quantizeS8(const float *x, int8_t *q, int64_t n, float inv) {
  // NaN to -128, as the vector tiers (std::clamp would pass it through to
  // an undefined conversion).
  for (int64_t i = 0; i < n; ++i)
    q[i] = static_cast<int8_t>(
        std::fmin(std::fmax(std::nearbyint(x[i] * inv), -128.0f), 127.0f));
}

void rangeWithZero(const float *x, int64_t n, float *lo, float *hi) {
  float l = 0, h = 0;
  for (int64_t i = 0; i < n; ++i) {
    l = std::min(l, x[i]);
    h = std::max(h, x[i]);
  }
  *lo = l;
  *hi = h;
}

void quantizeU8Div(const float *x, uint8_t *y, int64_t n, float scale,
                   float zero) {
  // fmax/fmin: a NaN to 0, as the vector tiers (std::clamp would pass it
  // through to an undefined conversion).
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<uint8_t>(
        std::fmin(std::fmax(std::nearbyint(x[i] / scale) + zero, 0.0f), 255.0f));
}

float maxAbs(const float *x, int64_t n) {
  float m = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    float a = std::fabs(x[i]);
    m = m < a ? a : m;
  }
  return m;
}

void quantizeU8Transposed(const float *x, uint8_t *q, int64_t k, int64_t m,
                          float inv, int32_t zp) {
  for (int64_t r = 0; r < k; ++r)
    for (int64_t t = 0; t < m; ++t)
      q[((r / 4) * m + t) * 4 + r % 4] = quantizeU8One(x[r * m + t], inv, zp);
}

void pairRowBf16(const float *a, const float *b, int64_t mc, uint32_t *out) {
  for (int64_t i = 0; i < mc; ++i)
    out[i] = sparse::toBf16(a[i]) |
             (b ? uint32_t(sparse::toBf16(b[i])) << 16 : 0u);
}

void interleave2x32(const void *a, const void *b, int64_t n, void *out) {
  const auto *pa = static_cast<const uint32_t *>(a);
  const auto *pb = static_cast<const uint32_t *>(b);
  auto *po = static_cast<uint32_t *>(out);
  for (int64_t i = 0; i < n; ++i) {
    po[2 * i] = pa[i];
    po[2 * i + 1] = pb[i];
  }
}

/// Y^T tile rows [n0, n0+nc) over tokens [0, mc) of the packed activations
/// `xt` (K4 x kTile f32).
void rowsF32(const Packed &p, int64_t s, bool first, int64_t n0,
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
void rowsS8(const Packed &p, int64_t s, bool first, bool last,
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
void rowsBf16(const Packed &p, int64_t s, bool first, int64_t n0,
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


void sparseF32(const SparseRowsCall &c) {
  rowsF32(*c.p, c.s, c.first, c.n0, c.nc, static_cast<const float *>(c.xt),
          c.ldx, c.mc, c.yt, c.ldy, c.bias);
}
void sparseS8(const SparseRowsCall &c) {
  rowsS8(*c.p, c.s, c.first, c.last, c.n0, c.nc,
         static_cast<const uint8_t *>(c.xt), c.ldx, c.mc, c.yt, c.ldy, c.bias,
         c.xScale, c.xZero);
}
void sparseBf16(const SparseRowsCall &c) {
  rowsBf16(*c.p, c.s, c.first, c.n0, c.nc, static_cast<const uint32_t *>(c.xt),
           c.ldx, c.mc, c.yt, c.ldy, c.bias);
}
} // namespace opscope::rt::reference_tier

void opscope::rt::reference::transpose32(const void *srcv, int64_t lds,
                                         int64_t rows, int64_t cols,
                                         void *dstv, int64_t ldd) {
  const auto *src = static_cast<const uint32_t *>(srcv);
  auto *dst = static_cast<uint32_t *>(dstv);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < cols; ++c)
      dst[c * ldd + i] = src[i * lds + c];
}

void opscope::rt::reference::pairBytes(const uint8_t *a, const uint8_t *b,
                                       int64_t n, int64_t group, uint32_t *y,
                                       int64_t ldy) {
  for (int64_t j = 0; j < n; ++j)
    y[j / group * ldy + j % group] =
        uint32_t(a[j]) | (b ? uint32_t(b[j]) << 16 : 0);
}

void opscope::rt::fillReferenceKernels(KernelTable &t) {
  t.pairBytes = reference::pairBytes;
  t.layerNorm = reference_tier::layerNorm;
  t.layerNormTransposed = reference_tier::layerNormTransposed;
  t.softmax = reference_tier::softmax;
  t.gelu = reference_tier::gelu;
  t.transcendental = reference_tier::transcendental;
  t.softplusRow = reference_tier::scalarRow<UnaryKind::Softplus>;
  t.mishRow = reference_tier::scalarRow<UnaryKind::Mish>;
  t.eluRow = opscope::rt::eluRow;
  t.resizeRowOrt = nullptr;
  OPSCOPE_FILL_ROW_KERNELS(reference_rows, t);
  t.toBf16 = reference_tier::toBf16;
  t.roundToBf16AsF32 = reference_tier::roundToBf16AsF32;
  t.fromBf16 = reference_tier::fromBf16;
  t.quantizeU8 = reference_tier::quantizeU8;
  t.quantizeS8 = reference_tier::quantizeS8;
  t.maxAbs = reference_tier::maxAbs;
  t.rangeWithZero = reference_tier::rangeWithZero;
  t.quantizeU8Div = reference_tier::quantizeU8Div;
  t.quantizeU8Transposed = reference_tier::quantizeU8Transposed;
  t.pairRowBf16 = reference_tier::pairRowBf16;
  t.transpose32 = reference::transpose32;
  t.interleave2x32 = reference_tier::interleave2x32;
  t.streamRows = nullptr;
  t.sparseF32 = {reference_tier::sparseF32, "reference", false, false};
  t.sparseS8 = {reference_tier::sparseS8, "reference", false, false};
  t.sparseBf16 = {reference_tier::sparseBf16, "reference", false, false};
  t.bf16OnF32 = false;
}
