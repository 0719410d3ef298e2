//===- QuantTest.cpp - conv_integer against a plain reference -------------===//
//
// Part of opscope. The u8/i8 convolution with zero points (ONNX
// ConvInteger, and QLinearConv's integer part) against a reference that
// pads with the input zero point element by element, on 1-, 2- and 3-D
// windows with strides, dilations, asymmetric pads and groups; u8 and i8
// operands; weight zero points absent, per tensor and per output channel.
// Integer results must match exactly.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/dense.h"
#include "opscope/runtime/kernels.h"
#include "opscope/runtime/quantize.h"

#include "Tiers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace opscope::rt;

namespace {
struct ConvCase {
  Shape x, w; // N x C x spatial..., OC x C/g x kernel...
  std::vector<int64_t> strides, dilations, pads;
  int64_t groups;
  DType xType, wType;
  int wZeros; // 0 none, 1 per tensor, 2 per output channel
};

int32_t value(const std::vector<uint8_t> &raw, DType t, int64_t i) {
  return t == DType::U8 ? int32_t(raw[i]) : int32_t(int8_t(raw[i]));
}

int64_t product(const Shape &s) {
  int64_t p = 1;
  for (int64_t d : s)
    p *= d;
  return p;
}

/// N x OC x the output spatial sizes of a convolution window.
Shape convOutput(const Shape &x, const Shape &w,
                 const std::vector<int64_t> &strides,
                 const std::vector<int64_t> &dilations,
                 const std::vector<int64_t> &pads) {
  size_t sp = x.size() - 2;
  Shape y = {x[0], w[0]};
  for (size_t i = 0; i < sp; ++i) {
    int64_t span = (w[2 + i] - 1) * dilations[i] + 1;
    y.push_back((x[2 + i] + pads[i] + pads[sp + i] - span) / strides[i] + 1);
  }
  return y;
}
} // namespace

TEST(ConvInteger, MatchesReference) {
  const ConvCase cases[] = {
      {{1, 3, 9}, {4, 3, 3}, {2}, {1}, {1, 2}, 1, DType::U8, DType::I8, 0},
      {{2, 4, 7, 6}, {6, 2, 3, 2}, {1, 2}, {2, 1}, {2, 0, 1, 1}, 2,
       DType::U8, DType::I8, 2},
      {{1, 2, 5, 5}, {2, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 1, DType::I8,
       DType::U8, 1},
      {{1, 3, 4, 5, 4}, {3, 1, 2, 3, 2}, {1, 2, 1}, {1, 1, 2}, {1, 0, 0, 0, 1, 1},
       3, DType::U8, DType::U8, 2},
  };
  std::mt19937 rng(42);
  for (const ConvCase &tc : cases) {
    SCOPED_TRACE(::testing::Message() << "rank " << tc.x.size() << " groups "
                                      << tc.groups << " wZeros " << tc.wZeros);
    size_t sp = tc.x.size() - 2;
    Shape y = convOutput(tc.x, tc.w, tc.strides, tc.dilations, tc.pads);
    std::vector<uint8_t> x(product(tc.x)), w(product(tc.w));
    for (auto &v : x)
      v = uint8_t(rng());
    for (auto &v : w)
      v = uint8_t(rng());
    uint8_t xz = uint8_t(rng());
    std::vector<uint8_t> wz(tc.wZeros == 2 ? tc.w[0] : 1);
    for (auto &v : wz)
      v = uint8_t(rng());
    ConvIntegerWindow win{tc.strides, tc.dilations, tc.pads, tc.groups};
    std::vector<int32_t> got(product(y), -1);
    auto centered = centerWeights(w.data(), tc.wType, tc.w,
                                  tc.wZeros ? wz.data() : nullptr,
                                  int64_t(wz.size()));
    convInteger(x.data(), tc.xType, tc.x, centered.data(), tc.w, &xz, win,
                got.data(), y);

    // Reference: every output by its full index, padding read as xz.
    int64_t c = tc.x[1], oc = tc.w[0], cg = c / tc.groups;
    int64_t ocg = oc / tc.groups;
    std::vector<int64_t> oi(sp), ki(sp);
    int64_t outPlane = product(Shape(y.begin() + 2, y.end()));
    int64_t kVol = product(Shape(tc.w.begin() + 2, tc.w.end()));
    for (int64_t b = 0; b < y[0]; ++b)
      for (int64_t o = 0; o < oc; ++o)
        for (int64_t p = 0; p < outPlane; ++p) {
          for (int64_t r = p, d = int64_t(sp) - 1; d >= 0; --d) {
            oi[d] = r % y[2 + d];
            r /= y[2 + d];
          }
          int32_t wzo =
              tc.wZeros ? value(wz, tc.wType, tc.wZeros == 2 ? o : 0) : 0;
          int64_t want = 0;
          for (int64_t ic = 0; ic < cg; ++ic)
            for (int64_t kq = 0; kq < kVol; ++kq) {
              for (int64_t r = kq, d = int64_t(sp) - 1; d >= 0; --d) {
                ki[d] = r % tc.w[2 + d];
                r /= tc.w[2 + d];
              }
              int64_t xi = b * c + (o / ocg) * cg + ic;
              bool inside = true;
              for (size_t d = 0; d < sp; ++d) {
                int64_t pos = oi[d] * tc.strides[d] - tc.pads[d] +
                              ki[d] * tc.dilations[d];
                inside = inside && pos >= 0 && pos < tc.x[2 + d];
                xi = xi * tc.x[2 + d] + pos;
              }
              int32_t xv = inside ? value(x, tc.xType, xi)
                                  : value({xz}, tc.xType, 0);
              int32_t wv =
                  value(w, tc.wType, (o * cg + ic) * kVol + kq) - wzo;
              want += int64_t(xv - value({xz}, tc.xType, 0)) * wv;
            }
          ASSERT_EQ(got[(b * oc + o) * outPlane + p], want)
              << "batch " << b << " channel " << o << " position " << p;
        }
  }
}

// oneDNN's int8 convolution (what conv_integer runs on for a constant
// weight that fits s8 once its zero point is subtracted) against the
// portable kernel: exact i32 sums, the input zero point applied at run time
// (two different ones on the same primitive) and padding contributing
// nothing.
TEST(ConvInteger, OneDnnMatchesPortable) {
  struct Case {
    Shape x, w;
    std::vector<int64_t> strides, dilations, pads;
    int64_t groups;
    DType xType;
  };
  const Case cases[] = {
      {{1, 8, 9, 9}, {16, 8, 3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 1, DType::U8},
      {{2, 6, 7, 6}, {6, 2, 3, 2}, {2, 1}, {1, 2}, {2, 0, 1, 1}, 3, DType::I8},
      {{1, 4, 11}, {8, 4, 3}, {2}, {1}, {1, 1}, 1, DType::U8},
  };
  std::mt19937 rng(7);
  for (const Case &tc : cases) {
    SCOPED_TRACE(::testing::Message() << "rank " << tc.x.size());
    Shape y = convOutput(tc.x, tc.w, tc.strides, tc.dilations, tc.pads);
    std::vector<uint8_t> x(product(tc.x));
    std::vector<int8_t> w(product(tc.w));
    for (auto &v : x)
      v = uint8_t(rng());
    // Where oneDNN's int8 kernels would saturate (no VNNI), they take
    // 7-bit weights only, and refuse others (the portable kernel runs);
    // from VNNI up every s8 weight, -128 included.
    const int limit = int8WeightLimit();
    for (auto &v : w)
      v = int8SaturationFree() ? int8_t(rng())
                               : int8_t(int(rng() % (2 * limit + 1)) - limit);
    if (int8SaturationFree())
      w[0] = -128;
    ConvParams p;
    p.input = tc.x;
    p.weight = tc.w;
    p.output = y;
    p.strides = tc.strides;
    p.pads = tc.pads;
    p.dilations = tc.dilations;
    p.groups = tc.groups;
    if (limit < 127) {
      std::vector<int8_t> full = w;
      full[0] = -128;
      EXPECT_THROW(IntegerConv(p, tc.xType == DType::I8, full.data()),
                   std::invalid_argument);
    }
    IntegerConv conv(p, tc.xType == DType::I8, w.data());
    auto centered = centerWeights(w.data(), DType::I8, tc.w, nullptr, 0);
    EXPECT_NE(conv.implementation(), "");
    ConvIntegerWindow win{tc.strides, tc.dilations, tc.pads, tc.groups};
    for (int zero : {tc.xType == DType::U8 ? 128 : -3, 0}) {
      std::vector<int32_t> want(product(y)), got(product(y), -1);
      uint8_t z = uint8_t(zero);
      convInteger(x.data(), tc.xType, tc.x, centered.data(), tc.w, &z, win,
                  want.data(), y);
      conv.run(x.data(), zero, got.data());
      ASSERT_EQ(got, want) << "zero point " << zero << ", "
                           << conv.implementation();
    }
  }
}

// conv_integer with a u8 weight and its own zero point per channel (ONNX
// Runtime's quantize_dynamic, QUInt8: centered weights of 9 bits) on each
// tier: below VNNI on opscope's exact s16 GEMM (IntegerConvGemm), in one
// pass, else on oneDNN's int8 convolution in parts; either way the sums
// must be the portable kernel's exactly. The cases cover output channels
// across row tiles and task groups (200 > 192), K across K blocks (2700)
// and odd (3), pixel blocks crossing output rows (33 wide) and blocks of
// one row read from the input in place (32 and 48 wide), strides,
// dilations, asymmetric pads, 1x1 windows, a batch, s8 inputs, zero points
// 0 to 255, one and two threads.
TEST(ConvInteger, NineBitWeightsMatchPortableAtEveryTier) {
  struct Case {
    Shape x, w;
    std::vector<int64_t> strides, dilations, pads;
    DType xType;
  };
  const Case cases[] = {
      {{1, 8, 9, 9}, {16, 8, 3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, DType::U8},
      {{2, 5, 13, 11}, {7, 5, 3, 3}, {2, 1}, {1, 2}, {2, 0, 1, 1}, DType::I8},
      {{1, 3, 20, 17}, {33, 3, 1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, DType::U8},
      {{1, 16, 10, 10}, {200, 16, 3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1},
       DType::U8},
      {{1, 300, 6, 5}, {8, 300, 3, 3}, {1, 1}, {2, 2}, {2, 2, 2, 2},
       DType::U8},
      {{1, 4, 40, 33}, {5, 4, 3, 3}, {1, 1}, {4, 4}, {4, 4, 4, 4}, DType::U8},
      {{1, 3, 31, 29}, {6, 3, 3, 3}, {2, 2}, {1, 1}, {1, 1, 0, 1}, DType::I8},
      // Rows of 32 pixels: blocks of one row, read from the input's rows
      // where the window lies inside them.
      {{1, 6, 5, 32}, {9, 6, 3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, DType::U8},
      {{2, 4, 9, 48}, {13, 4, 3, 3}, {1, 1}, {2, 2}, {2, 2, 2, 2}, DType::U8},
  };
  std::mt19937 rng(11);
  tiers::forEachTier([&](IsaLevel level) {
    for (int threads : {1, 2}) {
      setDenseThreads(threads);
      for (const Case &tc : cases) {
        SCOPED_TRACE(::testing::Message()
                     << "input " << tc.x[1] << "x" << tc.x[2] << "x" << tc.x[3]
                     << ", weight " << tc.w[0] << "x" << tc.w[1] << "x"
                     << tc.w[2] << "x" << tc.w[3] << ", " << threads
                     << " threads");
        Shape y = convOutput(tc.x, tc.w, tc.strides, tc.dilations, tc.pads);
        std::vector<uint8_t> x(product(tc.x)), w(product(tc.w)),
            wz(tc.w[0]);
        for (auto &v : x)
          v = uint8_t(rng());
        for (auto &v : w)
          v = uint8_t(rng());
        for (auto &v : wz)
          v = uint8_t(rng());
        w[0] = 255;
        wz[0] = 0; // +255 and, below, -255: the widest centered values
        w[w.size() - 1] = 0;
        wz[tc.w[0] - 1] = 255;
        auto centered =
            centerWeights(w.data(), DType::U8, tc.w, wz.data(), tc.w[0]);
        ConvParams p;
        p.input = tc.x;
        p.weight = tc.w;
        p.output = y;
        p.strides = tc.strides;
        p.pads = tc.pads;
        p.dilations = tc.dilations;
        IntegerConv conv(p, tc.xType == DType::I8, centered.data());
        // The s16 tile is the table's below VNNI (the avx2 and avx512_core
        // tiers); the reference tier and VNNI tiers keep oneDNN.
        EXPECT_EQ(conv.ownKernel(),
                  level != IsaLevel::Sse41 && !hasVnni(level))
            << conv.implementation();
        ConvIntegerWindow win{tc.strides, tc.dilations, tc.pads, 1};
        for (int zero : tc.xType == DType::U8 ? std::vector<int>{0, 131, 255}
                                              : std::vector<int>{-128, -3, 127}) {
          std::vector<int32_t> want(product(y)), got(product(y), -1);
          uint8_t z = uint8_t(zero);
          convInteger(x.data(), tc.xType, tc.x, centered.data(), tc.w, &z, win,
                      want.data(), y);
          conv.run(x.data(), zero, got.data());
          ASSERT_EQ(got, want) << "zero point " << zero << ", "
                               << conv.implementation();
        }
      }
    }
    setDenseThreads(1);
  });
}

namespace {
/// DynamicQuantizeLinear as the portable loop computed it before the
/// kernel table had its passes: ONNX's arithmetic in f32.
void dynamicQuantizeOracle(const std::vector<float> &x, std::vector<uint8_t> &y,
                           float &scale, uint8_t &zero) {
  float lo = 0, hi = 0;
  for (float v : x) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  float s = (hi - lo) / 255.0f;
  float z = s > 0 ? std::clamp(std::nearbyint(0.0f - lo / s), 0.0f, 255.0f) : 0;
  scale = s;
  zero = static_cast<uint8_t>(z);
  y.resize(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = static_cast<uint8_t>(
        s > 0 ? std::clamp(std::nearbyint(x[i] / s) + z, 0.0f, 255.0f) : z);
}
} // namespace

/// The vectorized passes (KernelTable::rangeWithZero, quantizeU8Div) give
/// the portable loop's bits at every tier: random data of odd lengths
/// (tails past the vectors), all-positive and all-negative data (0 widens
/// the range), all zeros (scale 0), -0, and ties: values whose x / scale is
/// exactly k + 0.5, which round to the even neighbour.
TEST(DynamicQuantizeLinear, MatchesPortableLoopAtEveryTier) {
  std::vector<std::vector<float>> inputs;
  std::mt19937 rng(53);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (int64_t n : {1, 7, 8, 15, 16, 17, 33, 1000, 4099}) {
    std::vector<float> x(n);
    for (auto &v : x)
      v = normal(rng);
    inputs.push_back(x);
    for (auto &v : x)
      v = std::fabs(v) + 0.5f;
    inputs.push_back(x);
    for (auto &v : x)
      v = -v;
    inputs.push_back(x);
  }
  inputs.push_back(std::vector<float>(37, 0.0f));
  inputs.push_back(std::vector<float>(37, -0.0f));
  // Range [-127.5, 127.5]: scale 1, zero point 128 (127.5 rounds to the
  // even 128), and x = k + 0.5 everywhere between.
  std::vector<float> ties;
  for (int k = -128; k < 128; ++k)
    ties.push_back(k + 0.5f);
  ties.push_back(-0.0f);
  inputs.push_back(ties);
  // Range [0, 255 * 0.25]: scale 0.25, every x / scale a half step.
  std::vector<float> quarter;
  for (int k = 0; k < 255; ++k)
    quarter.push_back((k + 0.5f) * 0.25f);
  quarter.push_back(255 * 0.25f);
  inputs.push_back(quarter);
  tiers::forEachTier([&](IsaLevel) {
    for (size_t t = 0; t < inputs.size(); ++t) {
      SCOPED_TRACE(::testing::Message() << "input " << t << ", "
                                        << inputs[t].size() << " values");
      const std::vector<float> &x = inputs[t];
      std::vector<uint8_t> want, got(x.size());
      float wantScale, gotScale;
      uint8_t wantZero, gotZero;
      dynamicQuantizeOracle(x, want, wantScale, wantZero);
      dynamicQuantizeLinear(x.data(), static_cast<int64_t>(x.size()),
                            got.data(), &gotScale, &gotZero);
      EXPECT_EQ(std::memcmp(&gotScale, &wantScale, 4), 0)
          << gotScale << " vs " << wantScale;
      EXPECT_EQ(gotZero, wantZero);
      EXPECT_EQ(got, want);
      float s2;
      uint8_t z2;
      dynamicQuantizeParams(x.data(), static_cast<int64_t>(x.size()), &s2, &z2);
      EXPECT_EQ(std::memcmp(&s2, &wantScale, 4), 0);
      EXPECT_EQ(z2, wantZero);
    }
  });
}

// A u8 weight with its own zero point (quantize_dynamic's QUInt8) spans 9
// bits once centered: IntegerConv splits it into two parts within the
// tier's int8 limit L (127 with VNNI, 64 below), each a convolution, and
// sums their exact i32 results; bit for bit the portable kernel's. Zero
// point 3 (widest 252): clamped parts with VNNI, base-65 digits below;
// zero point 255 (widest 255, every value <= 0): base-(L+1) digits on
// both. The tier caps of make test run this at each limit. Two groups:
// a single group below VNNI takes the s16 GEMM instead (above).
TEST(ConvInteger, CenteredNineBitWeightsSplitIntoExactParts) {
  const Shape xs = {1, 6, 8, 7}, ws = {6, 3, 3, 3};
  const std::vector<int64_t> strides = {1, 1}, dilations = {2, 2},
                             pads = {2, 2, 2, 2};
  Shape y = convOutput(xs, ws, strides, dilations, pads);
  std::mt19937 rng(13);
  std::vector<uint8_t> x(product(xs)), w(product(ws));
  for (auto &v : x)
    v = uint8_t(rng());
  for (auto &v : w)
    v = uint8_t(rng());
  w[0] = 255, w[1] = 0; // the widest: 255 - 3 and 0 - 3
  for (uint8_t wz : {uint8_t(3), uint8_t(255)}) {
    SCOPED_TRACE("weight zero point " + std::to_string(wz));
    auto centered = centerWeights(w.data(), DType::U8, ws, &wz, 1);
    ConvParams p;
    p.input = xs;
    p.weight = ws;
    p.output = y;
    p.strides = strides;
    p.pads = pads;
    p.dilations = dilations;
    p.groups = 2;
    IntegerConv conv(p, /*srcSigned=*/false, centered.data());
    EXPECT_NE(conv.implementation().find(":x2"), std::string::npos)
        << conv.implementation();
    ConvIntegerWindow win{strides, dilations, pads, 2};
    for (int zero : {128, 0}) {
      std::vector<int32_t> want(product(y)), got(product(y), -1);
      uint8_t z = uint8_t(zero);
      convInteger(x.data(), DType::U8, xs, centered.data(), ws, &z, win,
                  want.data(), y);
      conv.run(x.data(), zero, got.data());
      ASSERT_EQ(got, want) << "zero point " << zero;
    }
  }
}
