//===- fuzz-kernels.cpp - libFuzzer harness: the kernel table's tiers -----===//
//
// Part of opscope. Bytes -> a kernel of the kernel table, a shape and
// values -> the kernel at every tier this machine allows (reference, avx2,
// avx512 and its VNNI/BF16 levels, under OPSCOPE_MAX_ISA), each compared
// with the reference tier within the kernel's stated tolerance: bit for
// bit for data movement, conversions, quantization, the exact s8
// sparse sums and int8 inner products; relative bounds for the f32 arithmetic
// and the polynomial transcendentals (KernelsTest's and
// FoldRunAgreementTest's), and for Winograd convolutions a bound scaled by sum
// |x| |w| (DenseTest's). A mismatch, a crash or a sanitizer report (tails,
// masks, unaligned loads) is a bug: the harness aborts with the kernel, tier
// and element.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/dense.h"
#include "opscope/runtime/generic.h"
#include "opscope/runtime/kernels.h"
#include "opscope/runtime/sparse.h"
#include "opscope/runtime/sparse_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using namespace opscope::rt;

namespace {

/// Reads the fuzz input front to back; past its end, zeros.
struct Bytes {
  const uint8_t *p;
  size_t n, at = 0;
  uint8_t u8() { return at < n ? p[at++] : 0; }
  int64_t upTo(int64_t max) { return (u8() | (int64_t(u8()) << 8)) % max + 1; }
  /// A float in [-range, range] (tenths of the byte pairs' value).
  float value(float range) {
    int v = int(u8() | (u8() << 8)) - 32768;
    return range * float(v) / 32768.0f;
  }
};

[[noreturn]] void mismatch(const char *kernel, IsaLevel level, size_t i,
                           double ref, double got) {
  std::fprintf(stderr,
               "fuzz-kernels: %s at tier %s differs from the reference at "
               "element %zu: %.9g vs %.9g\n",
               kernel, isaLevelName(level), i, ref, got);
  std::abort();
}

/// Runs `f` at the reference tier, then at every higher tier the machine
/// allows, comparing each output with `same(ref, got, i)`.
template <typename T, typename F, typename Same>
void acrossTiers(const char *kernel, size_t size, F f, Same same) {
  setKernelTier(IsaLevel::Sse41);
  std::vector<T> ref(size);
  f(ref.data());
  for (IsaLevel level : kernelTableLevels()) {
    if (level == IsaLevel::Sse41 || setKernelTier(level) != level)
      continue;
    std::vector<T> got(size);
    f(got.data());
    for (size_t i = 0; i < size; ++i) {
      bool ok;
      if constexpr (std::is_invocable_v<Same, T, T, size_t>)
        ok = same(ref[i], got[i], i);
      else
        ok = same(ref[i], got[i]);
      if (!ok)
        mismatch(kernel, level, i, double(ref[i]), double(got[i]));
    }
  }
  setKernelTier(IsaLevel::All);
}

bool exact(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, 4) == 0;
}
template <typename T> bool equal(T a, T b) { return a == b; }
/// |a - b| <= abs + rel |a|, NaN matching NaN.
std::function<bool(float, float)> near(double rel, double abs) {
  return [=](float a, float b) {
    if (std::isnan(a) || std::isnan(b))
      return std::isnan(a) && std::isnan(b);
    if (std::isinf(a) || std::isinf(b))
      return a == b;
    return std::fabs(double(a) - b) <= abs + rel * std::fabs(double(a));
  };
}

/// Layer norm's bound: 1e-4 relative and absolute, plus the f32 rounding
/// of a group's mean amplified by 1 / sqrt(var + eps) (a group whose
/// variance is near eps, where the tiers' f32 sums and the reference's
/// double sum differ most): 16 n ulp of its largest |x|, times that factor
/// and |gamma|. `group(i)` and `feature(i)` map an output element to its
/// group of `n` inputs and its gamma.
template <typename Group, typename Feature>
auto layerNormBound(const std::vector<float> &g,
                    int64_t groups, int64_t n, Group group, Feature feature,
                    std::function<float(int64_t, int64_t)> at) {
  std::vector<double> slack(groups);
  for (int64_t r = 0; r < groups; ++r) {
    double sum = 0, sq = 0, amax = 0;
    for (int64_t c = 0; c < n; ++c)
      sum += at(r, c), amax = std::max(amax, std::fabs(double(at(r, c))));
    double mean = sum / n;
    for (int64_t c = 0; c < n; ++c)
      sq += (at(r, c) - mean) * (at(r, c) - mean);
    slack[r] = 16.0 * n * 0x1p-24 * amax / std::sqrt(sq / n + 1e-5);
  }
  return [=](float a, float b, size_t i) {
    if (std::isnan(a) || std::isnan(b))
      return std::isnan(a) && std::isnan(b);
    double tol = 1e-4 + 1e-4 * std::fabs(double(a)) +
                 slack[group(i)] * std::fabs(double(g[feature(i)]));
    return std::fabs(double(a) - b) <= tol;
  };
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in{data, size};
  int kernel = in.u8() % 16;
  int64_t rows = in.upTo(9), cols = in.upTo(70);
  size_t n = size_t(rows * cols);
  std::vector<float> x(n), g(cols), b(cols);
  for (float &v : x)
    v = in.value(12.0f);
  for (int64_t c = 0; c < cols; ++c)
    g[c] = in.value(2.0f), b[c] = in.value(2.0f);

  switch (kernel) {
  case 0:
    acrossTiers<float>("layerNorm", n, [&](float *y) {
      layerNorm(x.data(), g.data(), b.data(), y, rows, cols, 1e-5f);
    }, layerNormBound(g, rows, cols,
                      [=](size_t i) { return int64_t(i) / cols; },
                      [=](size_t i) { return int64_t(i) % cols; },
                      [&](int64_t r, int64_t c) { return x[r * cols + c]; }));
    break;
  case 1: {
    // x as `rows` features x `cols` tokens: gamma and beta per feature.
    std::vector<float> gt(g.begin(), g.begin() + std::min(rows, cols)),
        bt(b.begin(), b.begin() + std::min(rows, cols));
    gt.resize(rows, 1.0f);
    bt.resize(rows, 0.0f);
    // Token t is column t: its `rows` features, feature f at x[f * cols + t].
    acrossTiers<float>("layerNormTransposed", n, [&](float *y) {
      layerNormTransposed(x.data(), gt.data(), bt.data(), y, cols, rows, 1e-5f);
    }, layerNormBound(gt, cols, rows,
                      [=](size_t i) { return int64_t(i) % cols; },
                      [=](size_t i) { return int64_t(i) / cols; },
                      [&](int64_t t, int64_t f) { return x[f * cols + t]; }));
    break;
  }
  case 2: {
    std::vector<float> mask(cols);
    for (float &v : mask)
      v = in.u8() % 4 == 0 ? -10000.0f : 0.0f;
    bool log = in.u8() & 1;
    acrossTiers<float>("softmax", n, [&](float *y) {
      softmax(x.data(), mask.data(), rows, y, rows, cols, log);
    }, near(1e-5, 1e-6));
    break;
  }
  case 3: {
    bool tanhForm = in.u8() & 1;
    acrossTiers<float>("gelu", n, [&](float *y) {
      gelu(x.data(), y, int64_t(n), tanhForm);
    }, near(1e-5, 1e-6));
    break;
  }
  case 4: {
    auto f = static_cast<Transcendental>(in.u8() % 4);
    acrossTiers<float>("transcendental", n, [&](float *y) {
      transcendental(f, x.data(), y, int64_t(n));
    }, near(1e-5, 1e-7));
    break;
  }
  case 5: {
    float scale = 0.01f + in.u8() / 16.0f;
    int32_t zero = in.u8();
    acrossTiers<uint8_t>("quantizeU8", n, [&](uint8_t *q) {
      quantizeU8(x.data(), q, int64_t(n), scale, zero);
    }, equal<uint8_t>);
    acrossTiers<int8_t>("quantizeS8", n, [&](int8_t *q) {
      quantizeS8(x.data(), q, int64_t(n), scale);
    }, equal<int8_t>);
    acrossTiers<float>("maxAbs", 1, [&](float *m) {
      *m = maxAbs(x.data(), int64_t(n));
    }, exact);
    break;
  }
  case 6: {
    acrossTiers<uint16_t>("roundToBf16", n, [&](uint16_t *y) {
      roundToBf16(x.data(), y, int64_t(n));
    }, equal<uint16_t>);
    acrossTiers<float>("roundToBf16AsF32", n, [&](float *y) {
      roundToBf16AsF32(x.data(), y, int64_t(n));
    }, exact);
    std::vector<uint16_t> h(n);
    for (size_t i = 0; i < n; ++i)
      h[i] = uint16_t(in.u8() | (in.u8() << 8));
    acrossTiers<float>("bf16ToF32", n, [&](float *y) {
      bf16ToF32(h.data(), y, int64_t(n));
    }, exact);
    break;
  }
  case 7:
    acrossTiers<float>("transposeMatrices32", n, [&](float *y) {
      transposeMatrices32(x.data(), 1, rows, cols, y);
    }, exact);
    break;
  case 8: {
    // where over a contiguous row, and an element-wise row per kind.
    std::vector<uint8_t> cond(n);
    for (uint8_t &c : cond)
      c = in.u8() & 1;
    Shape shape = {rows, cols};
    std::vector<float> other(x.rbegin(), x.rend());
    acrossTiers<float>("where", n, [&](float *y) {
      where(cond.data(), shape, x.data(), shape, other.data(), shape, y, shape,
            sizeof(float));
    }, exact);
    auto k = static_cast<BinaryKind>(in.u8() % 4); // add, sub, mul, div
    acrossTiers<float>("binary", n, [&](float *y) {
      binary(k, DType::F32, x.data(), shape, other.data(), shape, y, shape);
    }, exact);
    break;
  }
  case 9: {
    Shape shape = {rows, cols};
    auto k = in.u8() & 1 ? ReduceKind::Max : ReduceKind::Sum;
    acrossTiers<float>("reduce", size_t(rows), [&](float *y) {
      reduce(k, DType::F32, x.data(), shape, {1}, y);
    }, near(1e-5, 1e-4));
    break;
  }
  case 12: {
    // A 3x3 stride-1 convolution of a channels-last input as Winograd
    // F(2x2, 3x3) or F(4x4, 3x3) (the table's input transform, GEMM and
    // output transform): batch 1-2, 1-20 input and 1-40 output channels,
    // 1-12 rows and columns, pads 0 or 1 per side, either output layout,
    // a ReLU or none.
    ConvParams p;
    int64_t c = in.upTo(20), kOut = in.upTo(40), h = in.upTo(12),
            w = in.upTo(12);
    p.input = {in.upTo(2), c, h, w};
    p.weight = {kOut, c, 3, 3};
    p.strides = {1, 1};
    p.dilations = {1, 1};
    p.pads = {in.u8() & 1, in.u8() & 1, in.u8() & 1, in.u8() & 1};
    int64_t oh = h + p.pads[0] + p.pads[2] - 2,
            ow = w + p.pads[1] + p.pads[3] - 2;
    if (oh < 1 || ow < 1)
      break;
    p.output = {p.input[0], kOut, oh, ow};
    p.inputNhwc = true;
    p.outputNhwc = in.u8() & 1;
    bool f4 = in.u8() & 1;
    p.algorithm = f4 ? ConvAlgorithm::WinogradF4x3 : ConvAlgorithm::WinogradF2x3;
    if (in.u8() & 1)
      p.postOps = {PostOp::Relu};
    std::vector<float> xs(size_t(numElements(p.input))),
        ws(size_t(numElements(p.weight))), bias(static_cast<size_t>(kOut));
    for (float &v : xs)
      v = in.value(4.0f);
    for (float &v : ws)
      v = in.value(1.0f);
    for (float &v : bias)
      v = in.value(1.0f);
    // Each output's sum |x| |w| + |b|: the tiers' sums of products differ
    // by their order and the transforms' roundings, both scaled by it.
    size_t outs = size_t(numElements(p.output));
    std::vector<double> magnitude(outs);
    for (int64_t n = 0; n < p.input[0]; ++n)
      for (int64_t k = 0; k < kOut; ++k)
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox) {
            double m = std::fabs(bias[k]);
            for (int64_t dy = 0; dy < 3; ++dy)
              for (int64_t dx = 0; dx < 3; ++dx) {
                int64_t iy = oy + dy - p.pads[0], ix = ox + dx - p.pads[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= w)
                  continue;
                for (int64_t ci = 0; ci < c; ++ci)
                  m += std::fabs(xs[((n * h + iy) * w + ix) * c + ci]) *
                       std::fabs(ws[((k * c + ci) * 3 + dy) * 3 + dx]);
              }
            size_t at = p.outputNhwc
                            ? size_t(((n * oh + oy) * ow + ox) * kOut + k)
                            : size_t(((n * kOut + k) * oh + oy) * ow + ox);
            magnitude[at] = m;
          }
    // DenseTest's bounds against a double direct convolution are 1e-6 (2x2)
    // and 1e-5 (4x4) of the magnitude; two tiers differ by at most both.
    double rel = f4 ? 2e-5 : 2e-6;
    acrossTiers<float>(f4 ? "winograd f4x3" : "winograd f2x3", outs,
                       [&](float *y) {
                         Conv conv(p, ws.data(), bias.data(), true);
                         conv.run(xs.data(), nullptr, nullptr, y, nullptr);
                       },
                       [&](float a, float b, size_t i) {
                         return std::fabs(double(a) - b) <=
                                rel * magnitude[i] + 1e-6;
                       });
    break;
  }
  case 13: {
    // An f32 inner product, M = 1-200 (the packed GEMM's 6-row tiles,
    // 192-row blocks and their remainders), K = 1-300 (its 128-step blocks), N
    // = 1-70 (its 16-column panels), with a bias or none and no post-op, a
    // GELU, or a residual sum in place before or after a ReLU: opscope's packed
    // GEMM on the AVX2 tier, oneDNN's elsewhere.
    int64_t m = in.upTo(200), k = in.upTo(300), nOut = in.upTo(70);
    std::vector<float> w(size_t(nOut * k)), xs(size_t(m * k)), bias(nOut),
        sum(size_t(m * nOut));
    for (float &v : w)
      v = in.value(1.0f);
    for (float &v : xs)
      v = in.value(4.0f);
    for (float &v : bias)
      v = in.value(1.0f);
    for (float &v : sum)
      v = in.value(4.0f);
    bool withBias = in.u8() & 1;
    std::vector<PostOp> post;
    switch (in.u8() % 4) {
    case 1:
      post = {PostOp::GeluErf};
      break;
    case 2:
      post = {PostOp::Sum, PostOp::Relu};
      break;
    case 3:
      post = {PostOp::Relu, PostOp::Sum};
      break;
    default:
      break;
    }
    // Each output's sum |x| |w| + |b| (+ |sum|): the tiers add the same
    // products in another order.
    std::vector<double> magnitude(sum.size());
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < nOut; ++j) {
        double mag = (withBias ? std::fabs(bias[j]) : 0.0) +
                     std::fabs(sum[i * nOut + j]);
        for (int64_t l = 0; l < k; ++l)
          mag += std::fabs(xs[i * k + l]) * std::fabs(w[j * k + l]);
        magnitude[i * nOut + j] = mag;
      }
    acrossTiers<float>(
        "inner product", sum.size(),
        [&](float *y) {
          InnerProduct ip(m, k, nOut, w.data(),
                          withBias ? bias.data() : nullptr, post);
          std::copy(sum.begin(), sum.end(), y);
          ip.run(xs.data(), y, y);
        },
        [&](float a, float b, size_t i) {
          return std::fabs(double(a) - b) <= 1e-5 * magnitude[i] + 1e-6;
        });
    break;
  }
  case 14: {
    // An int8 inner product with 8-bit weights (-128 included), M = 1-200,
    // K = 1-600 (odd K: the s16 GEMM's half pair; past 256, its K blocks),
    // N = 1-70, a zero point, a bias or none, then no post-op, a ReLU, or a
    // residual sum and a ReLU; f32 or u8 out. Without VNNI
    // (OPSCOPE_MAX_ISA=avx2) the AVX2 tier runs opscope's exact s16 GEMM and
    // the reference tier the two 7-bit halves on oneDNN's; on avx2_vnni the
    // table's vpdpbusd GEMM runs them. All are the model's integer sums with
    // oneDNN's epilogue, so bit for bit. The
    // operands come from a generator the input seeds (the bytes would run
    // out before a large input's rows).
    int64_t m = in.upTo(200), k = in.upTo(600), nOut = in.upTo(70);
    std::mt19937 rng(uint32_t(in.u8()) | uint32_t(in.u8()) << 8 |
                     uint32_t(in.u8()) << 16);
    std::vector<int8_t> w(size_t(nOut * k));
    for (int8_t &v : w)
      v = static_cast<int8_t>(rng());
    std::vector<uint8_t> xq(size_t(m * k));
    for (uint8_t &v : xq)
      v = static_cast<uint8_t>(rng());
    std::vector<float> scales(nOut), bias(nOut), sum(size_t(m * nOut));
    for (float &v : scales)
      v = 1e-4f + 1e-5f * float(rng() % 1000);
    for (float &v : bias)
      v = float(int(rng() % 2001) - 1000) / 500.0f;
    for (float &v : sum)
      v = float(int(rng() % 2001) - 1000) / 250.0f;
    const int32_t xZero = in.u8();
    const bool withBias = in.u8() & 1, u8Out = in.u8() & 1;
    std::vector<PostOp> post;
    switch (in.u8() % 3) {
    case 1:
      post = {PostOp::Relu};
      break;
    case 2:
      if (!u8Out)
        post = {PostOp::Sum, PostOp::Relu};
      break;
    default:
      break;
    }
    std::optional<std::pair<float, int32_t>> yQ;
    if (u8Out)
      yQ = std::make_pair(0.05f, 100);
    acrossTiers<float>(
        "int8 inner product", sum.size(),
        [&](float *y) {
          QuantizedInnerProduct ip(m, k, nOut, w.data(), scales.data(),
                                   withBias ? bias.data() : nullptr, post, yQ);
          if (u8Out) {
            std::vector<uint8_t> yq(sum.size());
            ip.runU8Out(xq.data(), 0.02f, xZero, yq.data());
            std::copy(yq.begin(), yq.end(), y);
          } else {
            std::copy(sum.begin(), sum.end(), y);
            ip.run(xq.data(), 0.02f, xZero, y, y);
          }
        },
        exact);
    break;
  }
  case 15: {
    // conv_integer with a 9-bit centered weight (a u8 weight with its own
    // zero point, as quantize_dynamic writes CNNs): N = 1-2, C = 1-40,
    // H, W = 1-40, OC = 1-70, a 1-3 x 1-3 window, strides 1-2, dilations
    // 1-3, pads 0-2 each side, u8 or s8 input with a zero point. Below
    // VNNI the AVX2 and AVX-512 tiers run opscope's exact s16 GEMM
    // (IntegerConvGemm), the reference tier oneDNN's int8 convolution in
    // parts: the model's integer sums either way, so equal.
    std::mt19937 rng(uint32_t(in.u8()) | uint32_t(in.u8()) << 8);
    Shape xs = {in.upTo(2), in.upTo(40), in.upTo(40), in.upTo(40)};
    Shape ws = {in.upTo(70), xs[1], in.upTo(3), in.upTo(3)};
    std::vector<int64_t> strides = {in.upTo(2), in.upTo(2)},
                         dilations = {in.upTo(3), in.upTo(3)},
                         pads = {in.u8() % 3, in.u8() % 3, in.u8() % 3,
                                 in.u8() % 3};
    Shape ys = {xs[0], ws[0]};
    for (int d = 0; d < 2; ++d) {
      int64_t span = (ws[2 + d] - 1) * dilations[d] + 1,
              padded = xs[2 + d] + pads[d] + pads[2 + d];
      if (padded < span)
        return 0;
      ys.push_back((padded - span) / strides[d] + 1);
    }
    const bool srcSigned = in.u8() & 1;
    const int32_t xZero = srcSigned ? int32_t(int8_t(in.u8())) : in.u8();
    std::vector<uint8_t> xq(size_t(xs[0] * xs[1] * xs[2] * xs[3]));
    for (uint8_t &v : xq)
      v = static_cast<uint8_t>(rng());
    std::vector<int32_t> centered(size_t(ws[0] * ws[1] * ws[2] * ws[3]));
    for (int32_t &v : centered)
      v = int32_t(rng() % 511) - 255;
    ConvParams p;
    p.input = xs;
    p.weight = ws;
    p.output = ys;
    p.strides = strides;
    p.dilations = dilations;
    p.pads = pads;
    acrossTiers<int32_t>(
        "conv_integer", size_t(ys[0] * ys[1] * ys[2] * ys[3]),
        [&](int32_t *y) {
          IntegerConv conv(p, srcSigned, centered.data());
          conv.run(xq.data(), xZero, y);
        },
        equal<int32_t>);
    break;
  }
  default: {
    // A block-sparse inner product of M = rows x 4 tokens, K = 4 * ceil(cols / 4),
    // N = 4 outputs per byte pair up to 64: f32, bf16 or s8 weights.
    int64_t m = rows * 4, k = (cols + 3) / 4 * 4, nOut = 4 * in.upTo(16);
    std::vector<float> w(size_t(nOut * k)), xs(size_t(m * k)), bias(nOut);
    for (float &v : w)
      v = in.u8() % 3 == 0 ? in.value(1.0f) : 0.0f;
    for (float &v : xs)
      v = in.value(4.0f);
    for (float &v : bias)
      v = in.value(1.0f);
    auto type = kernel == 10 ? sparse::ValueType::F32
                : in.u8() & 1 ? sparse::ValueType::BF16
                              : sparse::ValueType::S8;
    int64_t br = in.u8() & 1 ? 4 : 1;
    sparse::Header h = sparse::layout(
        type, nOut, k, sparse::countNonZeroBlocks(w.data(), nOut, k, br), br);
    std::vector<uint8_t> blobBytes(h.totalBytes + 64);
    void *blob = blobBytes.data() +
                 (64 - reinterpret_cast<uintptr_t>(blobBytes.data()) % 64) % 64;
    sparse::pack(w.data(), nOut, k, type, blob, br);
    size_t outs = size_t(m * nOut);
    if (type == sparse::ValueType::S8) {
      std::vector<uint8_t> xq(xs.size());
      for (size_t i = 0; i < xs.size(); ++i)
        xq[i] = in.u8();
      int32_t zero = in.u8();
      acrossTiers<float>("sparse s8", outs, [&](float *y) {
        SparseInnerProductS8 ip(m, blob, bias.data(), {});
        ip.run(xq.data(), 0.05f, zero, y);
      }, near(1e-5, 1e-4));
    } else {
      acrossTiers<float>(type == sparse::ValueType::F32 ? "sparse f32"
                                                        : "sparse bf16",
                         outs, [&](float *y) {
        SparseInnerProduct ip(m, blob, bias.data(), {});
        ip.run(xs.data(), y);
      }, near(1e-4, 1e-4));
    }
    break;
  }
  }
  return 0;
}
