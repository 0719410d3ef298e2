//===- DenseTest.cpp - oneDNN inner product vs a plain reference ----------===//
//
// Part of opscope. Odd sizes (1, 3, 17 rows; K and N not multiples of the
// vector width) and every post-op, including a sum that aliases the output.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/dense.h"
#include "opscope/runtime/generic.h"
#include "opscope/runtime/kernels.h"
#include "opscope/runtime/packed_weights.h"

#include "PostOpReference.h"
#include "Tiers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace opscope::rt;

namespace {
std::vector<float> randomVector(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// A bf16 output against the f32 result rounded: the same bits where the
/// products run on f32 kernels; where bf16 is native, oneDNN's bf16-output
/// primitive may block its sums differently from the f32-output one, so
/// each value within one bf16 step and at most 1% of them differing.
void expectSameBf16(const std::vector<uint16_t> &got,
                    const std::vector<uint16_t> &want) {
  ASSERT_EQ(got.size(), want.size());
  if (!nativeBf16()) {
    EXPECT_EQ(got, want);
    return;
  }
  size_t differ = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i])
      continue;
    ++differ;
    ASSERT_LE(std::abs(int(got[i]) - int(want[i])), 1) << "at " << i;
  }
  EXPECT_LE(differ, got.size() / 100) << differ << " of " << got.size();
}

double applyPostOp(const PostOp &p, double v, double sum) {
  return postops::referencePostOp(p, v, sum);
}

void check(int64_t m, int64_t k, int64_t n, bool bias,
           std::vector<PostOp> postOps, bool sumInPlace,
           InnerProductGemm gemm = InnerProductGemm::Auto) {
  auto x = randomVector(m * k, 1), w = randomVector(n * k, 2),
       b = randomVector(n, 3), r = randomVector(m * n, 4);
  InnerProduct ip(m, k, n, w.data(), bias ? b.data() : nullptr, postOps, gemm);
  EXPECT_EQ(ip.ownKernel(),
            gemm == InnerProductGemm::Auto && innerProductOnOwnGemm(m))
      << ip.implementation();
  // The weights were copied at construction: clobbering them must not matter.
  std::vector<float> wCopy = w;
  std::fill(w.begin(), w.end(), 0.0f);
  std::vector<float> y(m * n, 0.0f);
  if (sumInPlace)
    y = r;
  ip.run(x.data(), y.data(), sumInPlace ? y.data() : r.data());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = bias ? b[j] : 0.0;
      for (int64_t l = 0; l < k; ++l)
        acc += double(x[i * k + l]) * wCopy[j * k + l];
      for (PostOp p : postOps)
        acc = applyPostOp(p, acc, r[i * n + j]);
      ASSERT_NEAR(y[i * n + j], acc, 1e-4 + 1e-4 * std::fabs(acc))
          << "m=" << m << " k=" << k << " n=" << n << " at " << i << "," << j;
    }
}
} // namespace

TEST(InnerProduct, PlainAndBias) {
  for (int64_t m : {1, 3, 17})
    for (auto [k, n] : {std::pair<int64_t, int64_t>{5, 7}, {33, 64}, {768, 19}}) {
      check(m, k, n, false, {}, false);
      check(m, k, n, true, {}, false);
    }
}

TEST(InnerProduct, PostOps) {
  for (PostOp p : postops::everyActivation()) {
    SCOPED_TRACE(postOpName(p));
    check(3, 33, 17, true, {p}, false);
    // The packed GEMM's rows (AVX2 and up), then a sum after it.
    check(17, 64, 33, true, {p, PostOp::Sum}, false);
  }
}

TEST(InnerProduct, ResidualSum) {
  check(17, 64, 33, true, {PostOp::Sum}, false);
  check(17, 64, 33, true, {PostOp::Sum}, /*sumInPlace=*/true);
  // The conv-style order: sum, then the activation.
  check(3, 33, 17, true, {PostOp::Sum, PostOp::Relu}, false);
  check(3, 33, 17, true, {PostOp::GeluErf, PostOp::Sum}, false);
}

/// Whether OPSCOPE_GEMM=onednn keeps every inner product on oneDNN (the
/// kernel table then has no GEMM tile at any tier).
/// Both GEMMs at every kernel tier: opscope's packed one (Auto on the
/// AVX2 tier, 2 to 384 rows) and oneDNN's, over the packed GEMM's edges:
/// rows past its 6-row tiles and 192-row blocks, columns past its 16-column
/// panels, K across its 128-step blocks, one and two threads' column
/// chunks, and every order of the post-ops with the sum in place (a sum
/// after an activation is read from a copy).
TEST(InnerProduct, EveryGemmAtEveryTier) {
  tiers::forEachTier([&](IsaLevel level) {
    if ((level == IsaLevel::Avx2 || level == IsaLevel::Avx2Vnni) &&
        !tiers::gemmsOnOneDnn()) {
      EXPECT_TRUE(innerProductOnOwnGemm(128));
    }
    EXPECT_FALSE(innerProductOnOwnGemm(1)); // oneDNN's GEMV is faster
    EXPECT_FALSE(innerProductOnOwnGemm(512)); // and its GEMM from here
    for (InnerProductGemm gemm :
         {InnerProductGemm::Auto, InnerProductGemm::OneDnn}) {
      SCOPED_TRACE(gemm == InnerProductGemm::Auto ? "auto" : "onednn");
      for (int64_t m : {2, 7, 13, 130, 200, 400})
        for (auto [k, n] : {std::pair<int64_t, int64_t>{5, 3},
                            {300, 33},
                            {129, 272},
                            {64, 16}})
          check(m, k, n, true, {}, false, gemm);
      check(17, 300, 33, false, {PostOp::Sum}, true, gemm);
      check(17, 300, 33, true, {PostOp::Sum, PostOp::GeluErf}, true, gemm);
      check(17, 300, 33, true, {PostOp::GeluErf, PostOp::Sum}, true, gemm);
      // Two sums, in place (the second reads the copy): the packed GEMM's
      // only (oneDNN takes one sum post-op).
      if (gemm == InnerProductGemm::Auto && innerProductOnOwnGemm(17))
        check(17, 300, 33, true, {PostOp::Sum, PostOp::Relu, PostOp::Sum}, true,
              gemm);
      check(17, 300, 33, true, {PostOp::Relu, PostOp::Sum, PostOp::Tanh}, false,
            gemm);
    }
  });
}

/// Long sums: every tier's GEMM adds K = 3072 products within 1e-7 of
/// their sum of |x| |w| (against a double reference). The packed GEMM sums
/// each 128-step K block from zero and then adds the blocks (4e-8 of it
/// here); one chain over all of K, as it first did, reached 2.8e-7 and put
/// the DistilBERT-shaped model 4.2e-5 from ONNX Runtime (4.8e-6 on
/// oneDNN's).
TEST(InnerProduct, LongSumsStayAccurate) {
  const int64_t m = 12, k = 3072, n = 40;
  std::mt19937 rng(9);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(m * k), w(n * k);
  for (float &v : x)
    v = normal(rng);
  for (float &v : w)
    v = 0.05f * normal(rng);
  tiers::forEachTier([&](IsaLevel) {
    InnerProduct ip(m, k, n, w.data(), nullptr, {});
    std::vector<float> y(m * n);
    ip.run(x.data(), y.data());
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double ref = 0, mag = 0;
        for (int64_t l = 0; l < k; ++l) {
          ref += double(x[i * k + l]) * w[j * k + l];
          mag += std::fabs(double(x[i * k + l]) * w[j * k + l]);
        }
        ASSERT_LE(std::fabs(y[i * n + j] - ref), 1e-7 * mag)
            << ip.implementation() << " at " << i << "," << j;
      }
  });
}

TEST(InnerProduct, ReportsImplementation) {
  auto w = randomVector(16 * 16, 5);
  InnerProduct ip(4, 16, 16, w.data(), nullptr, {});
  EXPECT_FALSE(ip.implementation().empty());
}

//===----------------------------------------------------------------------===//
// MatMul, Conv, ConvTranspose, Pool against plain loops
//===----------------------------------------------------------------------===//

TEST(DenseMatMul, BatchedBroadcastTransposedScaled) {
  // a: 2 x 1 x K x M stored (transpose_a), b: 3 x N x K stored (transpose_b)
  const int64_t M = 5, K = 7, N = 3;
  auto a = randomVector(2 * K * M, 11), b = randomVector(3 * N * K, 12);
  for (bool constB : {false, true}) {
    MatMul mm({2, 1, K, M}, {3, N, K}, {2, 3, M, N}, true, true, 0.5f,
              constB ? b.data() : nullptr);
    std::vector<float> c(2 * 3 * M * N);
    mm.run(a.data(), b.data(), c.data());
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            double acc = 0;
            for (int64_t k = 0; k < K; ++k)
              acc += a[(i * K + k) * M + m] * b[(j * N + n) * K + k];
            ASSERT_NEAR(c[((i * 3 + j) * M + m) * N + n], 0.5 * acc, 1e-5);
          }
  }
}

TEST(DenseMatMul, VectorOperands) {
  auto a = randomVector(4, 13), b = randomVector(4 * 3, 14);
  MatMul mm({4}, {4, 3}, {3}, false, false, 1.0f);
  std::vector<float> c(3);
  mm.run(a.data(), b.data(), c.data());
  for (int n = 0; n < 3; ++n) {
    double acc = 0;
    for (int k = 0; k < 4; ++k)
      acc += a[k] * b[k * 3 + n];
    EXPECT_NEAR(c[n], acc, 1e-6);
  }
}

namespace {
/// Direct convolution (groups, strides, pads, dilations), NCHW.
std::vector<float> refConv(const std::vector<float> &x, const Dims &xs,
                           const std::vector<float> &w, const Dims &ws,
                           const std::vector<float> &bias, const Dims &ys,
                           const Dims &st, const Dims &pd, const Dims &dl,
                           int64_t g) {
  std::vector<float> y(ys[0] * ys[1] * ys[2] * ys[3]);
  int64_t cinG = xs[1] / g, coutG = ys[1] / g;
  for (int64_t n = 0; n < ys[0]; ++n)
    for (int64_t o = 0; o < ys[1]; ++o)
      for (int64_t oh = 0; oh < ys[2]; ++oh)
        for (int64_t ow = 0; ow < ys[3]; ++ow) {
          double acc = bias.empty() ? 0 : bias[o];
          int64_t grp = o / coutG;
          for (int64_t c = 0; c < cinG; ++c)
            for (int64_t kh = 0; kh < ws[2]; ++kh)
              for (int64_t kw = 0; kw < ws[3]; ++kw) {
                int64_t ih = oh * st[0] - pd[0] + kh * dl[0];
                int64_t iw = ow * st[1] - pd[1] + kw * dl[1];
                if (ih < 0 || iw < 0 || ih >= xs[2] || iw >= xs[3])
                  continue;
                acc += x[((n * xs[1] + grp * cinG + c) * xs[2] + ih) * xs[3] + iw] *
                       w[((o * cinG + c) * ws[2] + kh) * ws[3] + kw];
              }
          y[((n * ys[1] + o) * ys[2] + oh) * ys[3] + ow] = static_cast<float>(acc);
        }
  return y;
}
} // namespace

TEST(DenseConv, GroupsStridesPadsDilationsRelu) {
  ConvParams p;
  p.input = {1, 4, 9, 8};
  p.weight = {6, 2, 3, 3};
  p.groups = 2;
  p.strides = {2, 1};
  p.pads = {1, 2, 1, 0};
  p.dilations = {1, 2};
  // out = (in + pb + pe - ((k - 1) d + 1)) / s + 1
  p.output = {1, 6, (9 + 2 - 3) / 2 + 1, (8 + 2 - 5) / 1 + 1};
  p.postOps = {PostOp::Relu};
  auto x = randomVector(1 * 4 * 9 * 8, 21), w = randomVector(6 * 2 * 9, 22),
       b = randomVector(6, 23);
  auto ref = refConv(x, p.input, w, p.weight, b, p.output, p.strides,
                     {p.pads[0], p.pads[1]}, p.dilations, 2);
  for (bool constW : {true, false}) {
    Conv conv(p, constW ? w.data() : nullptr, constW ? b.data() : nullptr, true);
    std::vector<float> y(ref.size());
    conv.run(x.data(), w.data(), b.data(), y.data());
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_NEAR(y[i], std::max(ref[i], 0.0f), 1e-5) << i;
  }
}

/// 24 output channels (not a multiple of the 16-channel block): with
/// constant weights and bias the kernel computes 32 into a scratch and
/// copies the real 24 out, into NCHW or NHWC; batch 2, strides, a post-op;
/// without constant weights it computes 24 directly. Same results.
TEST(DenseConv, PaddedOutputChannels) {
  ConvParams p;
  p.input = {2, 5, 11, 9};
  p.weight = {24, 5, 3, 3};
  p.strides = {2, 1};
  p.pads = {1, 1, 1, 1};
  p.dilations = {1, 1};
  p.output = {2, 24, (11 + 2 - 3) / 2 + 1, 9};
  p.postOps = {PostOp::Relu};
  auto x = randomVector(2 * 5 * 11 * 9, 31), w = randomVector(24 * 5 * 9, 32),
       b = randomVector(24, 33);
  auto ref = refConv(x, p.input, w, p.weight, b, p.output, p.strides,
                     {p.pads[0], p.pads[1]}, p.dilations, 1);
  int64_t H = p.output[2], W = p.output[3], C = 24;
  for (bool nhwc : {false, true})
    for (bool constW : {true, false}) {
      SCOPED_TRACE(::testing::Message() << (nhwc ? "NHWC" : "NCHW") << " out, "
                                        << (constW ? "constant" : "run-time")
                                        << " weights");
      p.outputNhwc = nhwc;
      Conv conv(p, constW ? w.data() : nullptr, constW ? b.data() : nullptr,
                true);
      bool avx512 = cpuTier() >= IsaLevel::Avx512Core;
      EXPECT_EQ(conv.implementation().find(":oc24to32") != std::string::npos,
                constW && avx512)
          << conv.implementation();
      std::vector<float> y(ref.size(), -1.0f);
      conv.run(x.data(), w.data(), b.data(), y.data());
      for (int64_t n = 0; n < 2; ++n)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t i = 0; i < H * W; ++i) {
            float got = nhwc ? y[(n * H * W + i) * C + c]
                             : y[(n * C + c) * H * W + i];
            ASSERT_NEAR(got, std::max(ref[(n * C + c) * H * W + i], 0.0f), 1e-5)
                << "n " << n << " c " << c << " pixel " << i;
          }
    }
}

namespace {
/// An N x C x H x W tensor (shape `s`) from NCHW to NHWC memory order, or
/// back.
std::vector<float> relayout(const std::vector<float> &x, const Dims &s,
                            bool toChannelsLast) {
  std::vector<float> y(x.size());
  int64_t C = s[1], HW = s[2] * s[3];
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < HW; ++i) {
        int64_t nchw = (n * C + c) * HW + i, nhwc = (n * HW + i) * C + c;
        if (toChannelsLast)
          y[nhwc] = x[nchw];
        else
          y[nchw] = x[nhwc];
      }
  return y;
}
std::vector<float> toNhwc(const std::vector<float> &x, const Dims &s) {
  return relayout(x, s, true);
}
std::vector<float> fromNhwc(const std::vector<float> &x, const Dims &s) {
  return relayout(x, s, false);
}

/// The geometry of GroupsStridesPadsDilationsRelu (groups 2, strides,
/// uneven pads, dilation) with 32 output channels and batch 2.
ConvParams oddConv() {
  ConvParams p;
  p.input = {2, 8, 9, 8};
  p.weight = {32, 4, 3, 3};
  p.groups = 2;
  p.strides = {2, 1};
  p.pads = {1, 2, 1, 0};
  p.dilations = {1, 2};
  p.output = {2, 32, (9 + 2 - 3) / 2 + 1, (8 + 2 - 5) / 1 + 1};
  return p;
}
} // namespace

namespace {
ConvParams convOf(Dims input, Dims weight, int64_t groups, int64_t stride,
                  int64_t pad) {
  ConvParams p;
  p.input = input;
  p.weight = weight;
  p.groups = groups;
  p.strides = {stride, stride};
  p.pads = {pad, pad, pad, pad};
  p.dilations = {1, 1};
  p.output = {input[0], weight[0],
              (input[2] + 2 * pad - weight[2]) / stride + 1,
              (input[3] + 2 * pad - weight[3]) / stride + 1};
  return p;
}
} // namespace

namespace {
/// Runs `conv` on `xIn` (in p's input layout) with the residual `res` (in
/// its output layout), separate or in place, and returns y as NCHW.
std::vector<float> runConv(Conv &conv, const ConvParams &p,
                           const std::vector<float> &xIn,
                           const std::vector<float> &res, bool inPlace) {
  std::vector<float> y(res.size(), -7.0f);
  if (inPlace)
    y = res;
  conv.run(xIn.data(), nullptr, nullptr, y.data(),
           inPlace ? y.data() : res.data());
  return p.outputNhwc ? fromNhwc(y, p.output) : y;
}

/// The reference's value `v` through the post-ops (`sum` the residual).
double withPostOps(double v, const std::vector<PostOp> &postOps, double sum) {
  for (PostOp op : postOps)
    v = applyPostOp(op, v, sum);
  return v;
}
} // namespace

/// The convolutions of the corpus CNN and the OCR-like detector never run
/// oneDNN's `ref:any` (scalar loops, 200 ms for one of the detector's 1x1
/// convolutions below AVX-512), at whatever tier the CPU and
/// OPSCOPE_MAX_ISA give oneDNN (make test runs this natively and under the
/// avx2 cap): a plain NCHW side against a channels-last one (a chain's
/// ends) and a sum after an element-wise post-op (a MobileNet block's relu
/// then residual) included, and compute what the reference computes,
/// with the residual separate and in place. The 160-channel 1x1 over 5x5
/// is the shape whose SSE4.1 kernel stores partial sums in the destination.
TEST(DenseConv, NoReferenceKernelAtAnyLayoutOrPostOps) {
  const ConvParams shapes[] = {
      convOf({2, 3, 16, 16}, {16, 3, 3, 3}, 1, 2, 1),     // a stem
      convOf({1, 16, 12, 12}, {16, 16, 3, 3}, 1, 1, 1),   // 3x3
      convOf({1, 40, 10, 10}, {40, 40, 1, 1}, 1, 1, 0),   // 1x1
      convOf({1, 160, 5, 5}, {160, 160, 1, 1}, 1, 1, 0),  // 1x1, 160 channels
      convOf({1, 24, 10, 10}, {24, 1, 3, 3}, 24, 2, 1),   // depthwise
      convOf({2, 64, 8, 8}, {128, 64, 1, 1}, 1, 2, 0),    // strided 1x1
  };
  const std::vector<PostOp> postOpSets[] = {
      {},
      {PostOp::Relu},
      {PostOp::Sum, PostOp::Relu},
      {PostOp::Relu, PostOp::Sum},
      {PostOp::HardSwish, PostOp::Sum},
      {PostOp::Sum, PostOp::Relu6},
      // Darknet's leaky ReLU, a squeeze-excite gate, general clip bounds.
      {PostOp(PostOpKind::LeakyRelu, 0.1f)},
      {PostOp(PostOpKind::HardSigmoid, 0.2f, 0.5f), PostOp::Sum},
      {PostOp::Sum, PostOp(PostOpKind::Clip, -0.5f, 1.5f)},
      {PostOp(PostOpKind::Elu, 0.7f)}};
  unsigned seed = 100;
  for (ConvParams p : shapes) {
    auto x = randomVector(numElements(p.input), ++seed),
         w = randomVector(numElements(p.weight), ++seed),
         b = randomVector(p.output[1], ++seed),
         r = randomVector(numElements(p.output), ++seed);
    auto conv0 = refConv(x, p.input, w, p.weight, b, p.output, p.strides,
                         {p.pads[0], p.pads[1]}, p.dilations, p.groups);
    for (const auto &postOps : postOpSets)
      for (bool inNhwc : {false, true})
        for (bool outNhwc : {false, true}) {
          bool sum = std::find(postOps.begin(), postOps.end(), PostOp::Sum) !=
                     postOps.end();
          for (bool inPlace : sum ? std::vector<bool>{false, true}
                                  : std::vector<bool>{false}) {
            SCOPED_TRACE(::testing::Message()
                         << "input " << p.input[1] << "x" << p.input[2]
                         << " weight " << p.weight[0] << "x" << p.weight[1]
                         << "x" << p.weight[2] << ", " << postOps.size()
                         << " post-ops" << (sum && postOps[0] != PostOp::Sum
                                                ? " (sum last)"
                                                : "")
                         << ", " << (inNhwc ? "NHWC" : "NCHW") << " to "
                         << (outNhwc ? "NHWC" : "NCHW")
                         << (inPlace ? ", residual in place" : ""));
            p.postOps = postOps;
            p.inputNhwc = inNhwc;
            p.outputNhwc = outNhwc;
            Conv conv(p, w.data(), b.data(), true);
            EXPECT_EQ(conv.implementation().find("ref"), std::string::npos)
                << conv.implementation();
            auto y = runConv(conv, p, inNhwc ? toNhwc(x, p.input) : x,
                             outNhwc ? toNhwc(r, p.output) : r, inPlace);
            for (size_t i = 0; i < y.size(); ++i) {
              double want = withPostOps(conv0[i], postOps, r[i]);
              ASSERT_NEAR(y[i], want, 1e-4 + 1e-4 * std::fabs(want)) << i;
            }
          }
        }
  }
}

/// Winograd, F(2x2, 3x3) and F(4x4, 3x3), at every kernel tier against
/// the direct reference (within a bound scaled by sum |x| |w|): the detector's
/// 96 -> 24 over 20 x 20, channel counts that are not a multiple of 8 (input
/// and output), each panel width (8, 16, 24 output channels), odd output sizes
/// (a tile half outside), uneven and zero pads, batches, no bias; channels-last
/// and channels-first outputs; with the post-ops in either order and the
/// residual separate and in place.
class WinogradConvTier : public tiers::TierTest {};

TEST_P(WinogradConvTier, MatchesDirectReference) {
  struct Shape {
    Dims input;
    int64_t outC;
    Dims pads; // top, left, bottom, right
    bool bias;
  };
  const Shape shapes[] = {
      {{1, 96, 20, 20}, 24, {1, 1, 1, 1}, true},
      {{2, 5, 7, 9}, 12, {1, 1, 1, 1}, true},
      {{1, 16, 6, 5}, 40, {0, 2, 1, 0}, false},
      {{3, 32, 4, 4}, 16, {1, 1, 1, 1}, true},
      {{1, 8, 3, 3}, 8, {0, 0, 0, 0}, true},
      {{2, 19, 11, 4}, 33, {2, 1, 0, 1}, true},
      // Several GEMM panels: AVX2 4 x 16, 3 x 24; AVX-512 2 x 32, 3 x 48.
      {{1, 8, 6, 6}, 64, {1, 1, 1, 1}, true},
      {{1, 8, 6, 6}, 72, {1, 1, 1, 1}, true},
      {{1, 8, 6, 6}, 144, {1, 1, 1, 1}, true},
      // F(4x4, 3x3) tiles (GEMM rows) past AVX2's register tiles: 7 = 4
      // + 2 + 1 at its panels of 8 and 24, 11 = 6 + 4 + 1 and 8 = 4 + 4
      // at 16.
      {{7, 8, 4, 4}, 8, {1, 1, 1, 1}, true},
      {{7, 8, 4, 4}, 24, {1, 1, 1, 1}, false},
      {{11, 8, 4, 4}, 16, {1, 1, 1, 1}, true},
      {{8, 8, 4, 4}, 16, {1, 1, 1, 1}, true},
  };
  const std::vector<PostOp> postOpSets[] = {{},
                                            {PostOp::Relu},
                                            {PostOp::Sum, PostOp::Relu},
                                            {PostOp::HardSwish, PostOp::Sum},
                                            {PostOp::Sigmoid},
                                            {PostOp::Sum, PostOp::Relu6},
                                            {PostOp(PostOpKind::LeakyRelu, 0.1f)},
                                            {PostOp::Sum,
                                             PostOp(PostOpKind::Clip, -0.5f,
                                                    1.5f)}};
  unsigned seed = 500;
  for (const Shape &s : shapes) {
    ConvParams p;
    p.input = s.input;
    p.weight = {s.outC, s.input[1], 3, 3};
    p.strides = {1, 1};
    p.dilations = {1, 1};
    p.pads = s.pads;
    p.output = {s.input[0], s.outC, s.input[2] + s.pads[0] + s.pads[2] - 2,
                s.input[3] + s.pads[1] + s.pads[3] - 2};
    p.inputNhwc = true;
    auto x = randomVector(numElements(p.input), ++seed),
         w = randomVector(numElements(p.weight), ++seed),
         b = s.bias ? randomVector(s.outC, ++seed) : std::vector<float>(),
         r = randomVector(numElements(p.output), ++seed);
    auto conv0 = refConv(x, p.input, w, p.weight, b, p.output, p.strides,
                         {p.pads[0], p.pads[1]}, p.dilations, 1);
    // The sums' magnitudes: Winograd's error is that of reassociated sums
    // of products, scaled by sum |x| |w|, not by |y|.
    auto absOf = [](std::vector<float> v) {
      for (float &e : v)
        e = std::fabs(e);
      return v;
    };
    auto magnitude =
        refConv(absOf(x), p.input, absOf(w), p.weight, absOf(b), p.output,
                p.strides, {p.pads[0], p.pads[1]}, p.dilations, 1);
    auto xIn = toNhwc(x, p.input);
    for (int tile : {2, 4})
      for (bool outNhwc : {true, false})
        for (const auto &postOps : postOpSets) {
          p.algorithm = tile == 2 ? ConvAlgorithm::WinogradF2x3
                                  : ConvAlgorithm::WinogradF4x3;
          p.outputNhwc = outNhwc;
          auto res = outNhwc ? toNhwc(r, p.output) : r;
          bool sum = std::find(postOps.begin(), postOps.end(), PostOp::Sum) !=
                     postOps.end();
          for (bool inPlace : sum ? std::vector<bool>{false, true}
                                  : std::vector<bool>{false}) {
            SCOPED_TRACE(::testing::Message()
                         << "input " << s.input[0] << "x" << s.input[1] << "x"
                         << s.input[2] << "x" << s.input[3] << " to " << s.outC
                         << ", F(" << tile << "x" << tile << ", 3x3)"
                         << (outNhwc ? " NHWC" : " NCHW") << ", "
                         << postOps.size() << " post-ops"
                         << (inPlace ? ", residual in place" : ""));
            p.postOps = postOps;
            Conv conv(p, w.data(), s.bias ? b.data() : nullptr, s.bias);
            EXPECT_TRUE(conv.ownKernel());
            EXPECT_EQ(
                conv.implementation(),
                std::string(tile == 2 ? "winograd_f2x3:" : "winograd_f4x3:") +
                    (GetParam() == IsaLevel::Sse41        ? "reference"
                     : GetParam() >= IsaLevel::Avx512Core ? "avx512"
                                                          : "avx2"));
            auto y = runConv(conv, p, xIn, res, inPlace);
            for (size_t i = 0; i < y.size(); ++i) {
              double want = withPostOps(conv0[i], postOps, r[i]);
              // Measured worst: 1.9e-7 (2x2), 2.3e-6 (4x4) of the magnitude;
              // a wrong coefficient would be off by |x| |w| ~ 0.1.
              double rel = tile == 2 ? 1e-6 : 1e-5;
              ASSERT_NEAR(y[i], want, rel * magnitude[i] + 1e-6) << i;
            }
          }
        }
  }
}

INSTANTIATE_TEST_SUITE_P(Tiers, WinogradConvTier,
                         ::testing::ValuesIn(tiers::kernelLevels()),
                         tiers::levelParamName);

/// im2col and the packed GEMM (ConvAlgorithm::Im2colGemm), at every kernel
/// tier, against the direct reference: 3x3 and 5x5 kernels, uneven pads,
/// stride 2, dilation 2, a batch of two, channels-first and channels-last
/// input and output, no bias, the post-ops (a sum with a channels-last
/// output, separate and in place); and Auto takes it only where pays()
/// says so (YOLOv3-tiny's 256 -> 512 over 13x13) and the tier's inner
/// products run on the packed GEMM.
class GemmConvTier : public tiers::TierTest {};

TEST_P(GemmConvTier, MatchesDirectReference) {
  struct Shape {
    Dims input, weight, strides, pads, dilations;
    bool bias;
  };
  const Shape shapes[] = {
      {{1, 24, 13, 13}, {40, 24, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, true},
      {{2, 9, 7, 10}, {17, 9, 3, 3}, {2, 2}, {0, 1, 1, 0}, {1, 1}, true},
      {{1, 16, 9, 9}, {8, 16, 3, 3}, {1, 1}, {2, 2, 2, 2}, {2, 2}, false},
      {{1, 8, 8, 8}, {12, 8, 5, 5}, {1, 1}, {2, 2, 2, 2}, {1, 1}, true},
  };
  const std::vector<PostOp> postOpSets[] = {
      {},
      {PostOp(PostOpKind::LeakyRelu, 0.1f)},
      {PostOp::Sum, PostOp::Relu},
      {PostOp(PostOpKind::HardSigmoid, 0.2f, 0.5f), PostOp::Sum}};
  unsigned seed = 900;
  for (const Shape &s : shapes) {
    ConvParams p;
    p.input = s.input;
    p.weight = s.weight;
    p.strides = s.strides;
    p.dilations = s.dilations;
    p.pads = s.pads;
    p.output = {s.input[0], s.weight[0], 0, 0};
    for (int i = 0; i < 2; ++i)
      p.output[2 + i] = (s.input[2 + i] + s.pads[i] + s.pads[2 + i] -
                         s.dilations[i] * (s.weight[2 + i] - 1) - 1) /
                            s.strides[i] +
                        1;
    auto x = randomVector(numElements(p.input), ++seed),
         w = randomVector(numElements(p.weight), ++seed),
         b = s.bias ? randomVector(s.weight[0], ++seed) : std::vector<float>(),
         r = randomVector(numElements(p.output), ++seed);
    auto conv0 = refConv(x, p.input, w, p.weight, b, p.output, p.strides,
                         {p.pads[0], p.pads[1]}, p.dilations, 1);
    for (bool inNhwc : {true, false})
      for (bool outNhwc : {true, false})
        for (const auto &postOps : postOpSets) {
          bool sum = std::find(postOps.begin(), postOps.end(), PostOp::Sum) !=
                     postOps.end();
          if (sum && !outNhwc)
            continue; // applies() refuses it: checked below
          for (bool inPlace : sum ? std::vector<bool>{false, true}
                                  : std::vector<bool>{false}) {
            SCOPED_TRACE(::testing::Message()
                         << "input " << s.input[0] << "x" << s.input[1] << "x"
                         << s.input[2] << "x" << s.input[3] << " kernel "
                         << s.weight[2] << ", " << (inNhwc ? "NHWC" : "NCHW")
                         << " to " << (outNhwc ? "NHWC" : "NCHW") << ", "
                         << postOps.size() << " post-ops"
                         << (inPlace ? ", residual in place" : ""));
            p.postOps = postOps;
            p.inputNhwc = inNhwc;
            p.outputNhwc = outNhwc;
            p.algorithm = ConvAlgorithm::Im2colGemm;
            Conv conv(p, w.data(), s.bias ? b.data() : nullptr, s.bias);
            EXPECT_TRUE(conv.ownKernel());
            EXPECT_EQ(conv.implementation().rfind("im2col_gemm:", 0), 0u)
                << conv.implementation();
            auto y = runConv(conv, p, inNhwc ? toNhwc(x, p.input) : x,
                             outNhwc ? toNhwc(r, p.output) : r, inPlace);
            for (size_t i = 0; i < y.size(); ++i) {
              double want = withPostOps(conv0[i], postOps, r[i]);
              ASSERT_NEAR(y[i], want, 1e-4 + 1e-4 * std::fabs(want)) << i;
            }
          }
        }
  }
  // What it refuses, and what Auto picks.
  ConvParams p = convOf({1, 256, 13, 13}, {512, 256, 3, 3}, 1, 1, 1);
  p.inputNhwc = true;
  p.postOps = {PostOp::Sum};
  p.algorithm = ConvAlgorithm::Im2colGemm;
  std::vector<float> w(numElements(p.weight), 0.01f);
  EXPECT_THROW(Conv(p, w.data(), nullptr, false), std::invalid_argument);
  p.postOps = {};
  ConvParams one = convOf({1, 256, 13, 13}, {512, 256, 1, 1}, 1, 1, 0);
  one.algorithm = ConvAlgorithm::Im2colGemm;
  EXPECT_THROW(Conv(one, w.data(), nullptr, false), std::invalid_argument);
  p.algorithm = ConvAlgorithm::Auto;
  Conv yolo(p, w.data(), nullptr, false);
  EXPECT_EQ(yolo.implementation().rfind("im2col_gemm:", 0) == 0,
            innerProductOnOwnGemm(169))
      << yolo.implementation();
  // 128 -> 128 over 16x16 stays with oneDNN's direct form.
  ConvParams small = convOf({1, 128, 16, 16}, {128, 128, 3, 3}, 1, 1, 1);
  small.inputNhwc = true;
  Conv direct(small, w.data(), nullptr, false);
  EXPECT_EQ(direct.implementation().find("im2col_gemm"), std::string::npos)
      << direct.implementation();
}

INSTANTIATE_TEST_SUITE_P(Tiers, GemmConvTier,
                         ::testing::ValuesIn(tiers::kernelLevels()),
                         tiers::levelParamName);

/// The transformed weights of a weight inside a model's mapping are made
/// once and shared by every session's convolution (packed_weights.h), as
/// oneDNN's packed weights are: the second Winograd convolution over the
/// same weights is a cache hit, per tile size, and computes the same.
TEST(DenseConv, WinogradSharesTransformedWeights) {
  ConvParams p = convOf({1, 16, 9, 9}, {24, 16, 3, 3}, 1, 1, 1);
  p.inputNhwc = p.outputNhwc = true;
  auto w = randomVector(numElements(p.weight), 611), b = randomVector(24, 612),
       x = randomVector(numElements(p.input), 613);
  PackedWeightCache cache(w.data(), w.size() * sizeof(float));
  PackedWeightScope scope(&cache);
  std::vector<float> y[3];
  const ConvAlgorithm forms[] = {ConvAlgorithm::WinogradF4x3,
                                 ConvAlgorithm::WinogradF4x3,
                                 ConvAlgorithm::WinogradF2x3};
  for (int i = 0; i < 3; ++i) {
    p.algorithm = forms[i];
    Conv conv(p, w.data(), b.data(), true);
    y[i].assign(numElements(p.output), 0.0f);
    conv.run(x.data(), nullptr, nullptr, y[i].data());
  }
  EXPECT_EQ(cache.size(), 2u); // one entry per tile size
  EXPECT_EQ(cache.hits(), 1);
  // The 2x2 tiles got their own transformed weights, not the 4x4 ones.
  for (size_t i = 0; i < y[0].size(); ++i)
    ASSERT_NEAR(y[2][i], y[0][i], 1e-4) << i;
}

/// ConvAlgorithm::Auto takes Winograd exactly where the kernel table
/// prefers it (the AVX2 and AVX-512 tiers) and the convolution is one it
/// computes, with 4x4 tiles, but not where the transformed weights would
/// outgrow the budget (512 -> 512, a ResNet's last stage: the direct form
/// is faster there); 256 -> 256 takes 2x2 tiles. Direct never does;
/// asking for Winograd where it does not apply (stride 2, NCHW
/// activations, run-time weights) is an error.
TEST(DenseConv, WinogradWhereTheTablePrefersIt) {
  ConvParams p = convOf({1, 16, 12, 12}, {24, 16, 3, 3}, 1, 1, 1);
  p.inputNhwc = p.outputNhwc = true;
  auto w = randomVector(numElements(p.weight), 601), b = randomVector(24, 602);
  tiers::forEachTier([&](IsaLevel) {
    Conv autoConv(p, w.data(), b.data(), true);
    EXPECT_EQ(autoConv.ownKernel(), convWinogradPreferred())
        << autoConv.implementation();
    // 4x4 tiles, or 2x2 where OPSCOPE_WINOGRAD=f2x3 limits them.
    const char *limit = std::getenv("OPSCOPE_WINOGRAD");
    bool f2 = limit && std::string(limit) == "f2x3";
    if (convWinogradPreferred()) {
      EXPECT_EQ(autoConv.implementation().rfind(
                    f2 ? "winograd_f2x3:" : "winograd_f4x3:", 0),
                0u)
          << autoConv.implementation();
    }
    ConvParams direct = p;
    direct.algorithm = ConvAlgorithm::Direct;
    EXPECT_FALSE(Conv(direct, w.data(), b.data(), true).ownKernel());
  });
  for (int64_t channels : {256, 512}) {
    ConvParams wide =
        convOf({1, channels, 7, 7}, {channels, channels, 3, 3}, 1, 1, 1);
    wide.inputNhwc = wide.outputNhwc = true;
    std::vector<float> ww(numElements(wide.weight), 0.01f);
    Conv c(wide, ww.data(), nullptr, false);
    bool winograd = convWinogradPreferred() && channels == 256;
    // 512 -> 512 over 7x7: im2col and the packed GEMM where the tier's
    // inner products run on it (GemmConv::pays), else oneDNN's direct form.
    bool gemm = !winograd && innerProductOnOwnGemm(49);
    EXPECT_EQ(c.ownKernel(), winograd || gemm) << c.implementation();
    if (winograd) {
      EXPECT_EQ(c.implementation().rfind("winograd_f2x3:", 0), 0u)
          << c.implementation();
    }
    if (gemm) {
      EXPECT_EQ(c.implementation().rfind("im2col_gemm:", 0), 0u)
          << c.implementation();
    }
  }
  ConvParams q = p;
  q.algorithm = ConvAlgorithm::WinogradF2x3;
  EXPECT_THROW(Conv(q, static_cast<const float *>(nullptr), b.data(), true),
               std::invalid_argument);
  q.inputNhwc = false;
  EXPECT_THROW(Conv(q, w.data(), b.data(), true), std::invalid_argument);
  q.inputNhwc = true;
  q.outputNhwc = false; // a chain's last convolution
  EXPECT_TRUE(Conv(q, w.data(), b.data(), true).ownKernel());
  ConvParams strided = convOf({1, 16, 12, 12}, {24, 16, 3, 3}, 1, 2, 1);
  strided.inputNhwc = strided.outputNhwc = true;
  strided.algorithm = ConvAlgorithm::WinogradF2x3;
  EXPECT_THROW(Conv(strided, w.data(), b.data(), true), std::invalid_argument);
}

/// int8 (--precision int8, QDQ convolutions): the f32 input quantized to
/// u8 with the op's scale and zero point, s8 weights with per-channel
/// scales, f32 bias, sum and ReLU; against the f32 reference on the
/// dequantized operands (padding is zero there, as in ONNX), for zero
/// points 0 and 37 (a run-time oneDNN zero point), NCHW and NHWC buffers.
TEST(DenseConv, Int8MatchesQuantizedReference) {
  ConvParams p = oddConv();
  p.postOps = {PostOp::Sum, PostOp::Relu};
  int64_t O = p.weight[0], perChannel = 4 * 3 * 3;
  auto x = randomVector(2 * 8 * 9 * 8, 41), b = randomVector(O, 42);
  std::mt19937 rng(43);
  std::vector<int8_t> wq(O * perChannel);
  for (auto &v : wq)
    v = static_cast<int8_t>(int(rng() % 255) - 127);
  p.weightScales.resize(O);
  for (auto &v : p.weightScales)
    v = 0.001f + 0.01f * (rng() % 100) / 100.0f;
  std::vector<float> wf(wq.size());
  for (size_t i = 0; i < wq.size(); ++i)
    wf[i] = p.weightScales[i / perChannel] * wq[i];
  auto residual = randomVector(2 * 32 * p.output[2] * p.output[3], 44);
  for (int32_t zero : {0, 37}) {
    p.inputScale = 0.013f;
    p.inputZero = zero;
    std::vector<float> xd(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      float q = std::clamp(std::nearbyint(x[i] / p.inputScale) + zero, 0.0f,
                           255.0f);
      xd[i] = (q - zero) * p.inputScale;
    }
    auto ref = refConv(xd, p.input, wf, p.weight, b, p.output, p.strides,
                       {p.pads[0], p.pads[1]}, p.dilations, p.groups);
    for (size_t i = 0; i < ref.size(); ++i)
      ref[i] = std::max(ref[i] + residual[i], 0.0f);
    for (bool nhwc : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "zero point " << zero << ", "
                                        << (nhwc ? "NHWC" : "NCHW"));
      p.inputNhwc = p.outputNhwc = nhwc;
      Conv conv(p, wq.data(), b.data(), true);
      // 8-bit weights without VNNI compute in f32 (oneDNN's int8
      // kernels would saturate them): the same reference either way.
      EXPECT_NE(conv.implementation().find(int8SaturationFree() ? "int8"
                                                                : ":f32"),
                std::string::npos)
          << conv.implementation();
      std::vector<float> in = nhwc ? toNhwc(x, p.input) : x;
      std::vector<float> want = nhwc ? toNhwc(ref, p.output) : ref;
      std::vector<float> y = nhwc ? toNhwc(residual, p.output) : residual;
      conv.run(in.data(), nullptr, nullptr, y.data(), y.data());
      double worst = 0;
      for (size_t i = 0; i < y.size(); ++i)
        worst = std::max(worst, std::fabs(y[i] - want[i]) /
                                    (1.0 + std::fabs(want[i])));
      EXPECT_LT(worst, 1e-4);
    }
  }
  // The kernel refuses what it cannot compute.
  p.weightScales.pop_back();
  EXPECT_THROW(Conv(p, wq.data(), b.data(), true), std::invalid_argument);
}

/// int8 chains (osc-int8-chains): a convolution that writes its result in u8
/// with the next one's input quantization, and the next one reading that u8
/// buffer as it is, compute what the f32 hand-over computes (the consumer
/// quantizing the f32 result on entry): the u8 values are the same
/// integers, so the consumer's results are too.
TEST(DenseConv, Int8ChainCarriesU8) {
  ConvParams a = oddConv();
  a.postOps = {PostOp::Relu};
  a.inputScale = 0.013f;
  a.inputZero = 37;
  ConvParams b;
  b.input = a.output;
  b.weight = {8, 32, 3, 3};
  b.strides = {1, 1};
  b.pads = {1, 1, 1, 1};
  b.dilations = {1, 1};
  b.output = {a.output[0], 8, a.output[2], a.output[3]};
  b.inputScale = 0.021f;
  b.inputZero = 3;
  std::mt19937 rng(61);
  auto quantized = [&](ConvParams &p) {
    std::vector<int8_t> w(p.weight[0] * p.weight[1] * p.weight[2] *
                          p.weight[3]);
    for (auto &v : w)
      v = static_cast<int8_t>(int(rng() % (2 * int8WeightLimit() + 1)) -
                              int8WeightLimit());
    p.weightScales.assign(p.weight[0], 0.0f);
    for (auto &v : p.weightScales)
      v = 0.001f + 0.01f * (rng() % 100) / 100.0f;
    return w;
  };
  std::vector<int8_t> wa = quantized(a), wb = quantized(b);
  auto x = randomVector(2 * 8 * 9 * 8, 62), ba = randomVector(32, 63),
       bb = randomVector(8, 64);
  size_t mid = 2 * 32 * a.output[2] * a.output[3];
  for (bool nhwc : {false, true}) {
    SCOPED_TRACE(nhwc ? "NHWC" : "NCHW");
    a.inputNhwc = a.outputNhwc = b.inputNhwc = b.outputNhwc = nhwc;
    a.outputU8 = b.inputU8 = false;
    Conv fa(a, wa.data(), ba.data(), true), fb(b, wb.data(), bb.data(), true);
    std::vector<float> h(mid), want(2 * 8 * b.output[2] * b.output[3]);
    fa.run(x.data(), nullptr, nullptr, h.data());
    fb.run(h.data(), nullptr, nullptr, want.data());

    a.outputU8 = true;
    a.outputScale = b.inputScale;
    a.outputZero = b.inputZero;
    b.inputU8 = true;
    Conv qa(a, wa.data(), ba.data(), true), qb(b, wb.data(), bb.data(), true);
    std::vector<uint8_t> hq(mid), href(mid);
    std::vector<float> y(want.size());
    qa.run(x.data(), nullptr, nullptr, hq.data());
    qb.run(hq.data(), nullptr, nullptr, y.data());
    quantizeU8(h.data(), href.data(), static_cast<int64_t>(mid),
               b.inputScale, b.inputZero);
    size_t differ = 0, distinct = 0;
    for (size_t i = 0; i < mid; ++i) {
      differ += hq[i] != href[i];
      EXPECT_LE(std::abs(int(hq[i]) - int(href[i])), 1) << i;
      distinct += hq[i] != hq[0];
    }
    // Rounding a value that sits on a half step may go either way.
    EXPECT_LE(differ, mid / 1000) << differ << " of " << mid;
    EXPECT_GT(distinct, mid / 2); // not all saturated or zero
    double worst = 0;
    for (size_t i = 0; i < y.size(); ++i)
      worst = std::max(worst, std::fabs(y[i] - want[i]) /
                                  (1.0 + std::fabs(want[i])));
    EXPECT_LT(worst, differ ? 0.05 : 1e-5);
  }
  // A u8 result takes no sum post-op.
  a.postOps = {PostOp::Sum};
  EXPECT_THROW(Conv(a, wa.data(), ba.data(), true), std::invalid_argument);
}

/// bf16 (--precision bf16): the weights given in bf16, the input rounded
/// to bf16 on entry; against the reference on the rounded operands
/// (products exact in f32). Without native bf16 the f32 kernels run on the
/// bf16 weights and the f32 input as it is, and the implementation says so.
TEST(DenseConv, Bf16MatchesRoundedReference) {
  ConvParams p = oddConv();
  p.postOps = {PostOp::Relu};
  auto x = randomVector(2 * 8 * 9 * 8, 51), w = randomVector(32 * 36, 52),
       b = randomVector(32, 53);
  std::vector<uint16_t> wb(w.size());
  roundToBf16(w.data(), wb.data(), static_cast<int64_t>(w.size()));
  std::vector<float> wr(w.size()), xr(x.size());
  bf16ToF32(wb.data(), wr.data(), static_cast<int64_t>(w.size()));
  roundToBf16AsF32(x.data(), xr.data(), static_cast<int64_t>(x.size()));
  auto ref = refConv(nativeBf16() ? xr : x, p.input, wr, p.weight, b, p.output, p.strides,
                     {p.pads[0], p.pads[1]}, p.dilations, p.groups);
  for (bool nhwc : {false, true}) {
    SCOPED_TRACE(nhwc ? "NHWC" : "NCHW");
    p.inputNhwc = p.outputNhwc = nhwc;
    Conv conv(p, wb.data(), b.data(), true);
    std::string impl = conv.implementation();
    EXPECT_EQ(impl.size() > 4 && impl.compare(impl.size() - 4, 4, ":f32") == 0,
              !nativeBf16())
        << impl;
    std::vector<float> in = nhwc ? toNhwc(x, p.input) : x;
    std::vector<float> want = nhwc ? toNhwc(ref, p.output) : ref;
    std::vector<float> y(want.size());
    conv.run(in.data(), nullptr, nullptr, y.data());
    double worst = 0;
    for (size_t i = 0; i < y.size(); ++i)
      worst = std::max(worst, std::fabs(y[i] - std::max(want[i], 0.0f)) /
                                  (1.0 + std::fabs(want[i])));
    EXPECT_LT(worst, 1e-4);
  }
}

/// bf16 chains (osc-bf16-chains): a bf16 convolution that writes bf16
/// writes exactly its f32 result rounded, and one that reads a bf16 input
/// computes exactly what it computes on an f32 input of the same values
/// (the f32 input is rounded on entry with native bf16 and read as it is
/// without); NCHW and NHWC, and 24 output channels (on f32 kernels
/// computed padded to 32 and copied out). A bf16 output refuses a sum post-op, f32 weights
/// refuse bf16 activations.
TEST(DenseConv, Bf16ChainCarriesBf16) {
  for (int64_t outC : {32, 24}) {
    ConvParams p = oddConv();
    if (outC == 24) { // ungrouped: the padded-channel path
      p.groups = 1;
      p.weight[1] = 8;
    }
    p.weight[0] = outC;
    p.output[1] = outC;
    p.postOps = {PostOp::Relu};
    int64_t outElems = 1, wElems = 1;
    for (int64_t d : p.output)
      outElems *= d;
    for (int64_t d : p.weight)
      wElems *= d;
    auto x = randomVector(2 * 8 * 9 * 8, 91), w = randomVector(wElems, 92),
         b = randomVector(outC, 93);
    std::vector<uint16_t> wb(w.size()), xb(x.size());
    roundToBf16(w.data(), wb.data(), static_cast<int64_t>(w.size()));
    for (bool nhwc : {false, true}) {
      SCOPED_TRACE(::testing::Message() << outC << " channels, "
                                        << (nhwc ? "NHWC" : "NCHW"));
      p.inputNhwc = p.outputNhwc = nhwc;
      std::vector<float> in = nhwc ? toNhwc(x, p.input) : x;
      roundToBf16AsF32(in.data(), in.data(), static_cast<int64_t>(in.size()));
      roundToBf16(in.data(), xb.data(), static_cast<int64_t>(in.size()));
      Conv f32Out(p, wb.data(), b.data(), true);
      // The padding follows the tier's block of output channels: 16 on
      // AVX-512 (24 -> 32), 8 below (24 needs none).
      if (outC == 24 && !nativeBf16() && cpuTier() >= IsaLevel::Avx512Core) {
        EXPECT_NE(f32Out.implementation().find(":oc24to32"), std::string::npos)
            << f32Out.implementation();
      }
      if (cpuTier() < IsaLevel::Avx512Core) {
        EXPECT_EQ(f32Out.implementation().find(":oc"), std::string::npos)
            << f32Out.implementation();
      }
      std::vector<float> y(outElems), yFromBf16(outElems);
      f32Out.run(in.data(), nullptr, nullptr, y.data());
      ConvParams pin = p;
      pin.bf16.input = true;
      Conv bf16In(pin, wb.data(), b.data(), true);
      bf16In.run(xb.data(), nullptr, nullptr, yFromBf16.data());
      ASSERT_EQ(y, yFromBf16) << "a bf16 input is the rounded f32 one";
      std::vector<uint16_t> want(outElems), got(outElems);
      roundToBf16(y.data(), want.data(), outElems);
      for (bool bf16Input : {false, true}) {
        ConvParams pout = p;
        pout.bf16 = {bf16Input, true};
        Conv bf16Out(pout, wb.data(), b.data(), true);
        std::fill(got.begin(), got.end(), 0);
        bf16Out.run(bf16Input ? static_cast<const void *>(xb.data())
                              : in.data(),
                    nullptr, nullptr, got.data());
        SCOPED_TRACE(bf16Input ? "bf16 in, bf16 out" : "bf16 out");
        expectSameBf16(got, want);
      }
    }
  }
  ConvParams p = oddConv();
  auto w = randomVector(32 * 36, 94);
  std::vector<uint16_t> wb(w.size());
  roundToBf16(w.data(), wb.data(), static_cast<int64_t>(w.size()));
  p.bf16.output = true;
  p.postOps = {PostOp::Sum};
  EXPECT_THROW(Conv(p, wb.data(), nullptr, false), std::invalid_argument);
  p.postOps = {};
  EXPECT_THROW(Conv(p, w.data(), nullptr, false), std::invalid_argument);
}

namespace {
/// The scatter reference of a 3x3, stride 2, pad 1 transposed convolution
/// of a 1 x C x 3 x 3 input into 1 x (OCg * groups) x 5 x 5, weights C x OCg
/// x 3 x 3: every input pixel adds x * w to the outputs its taps land on,
/// channel g * OCg + j for input channel c of group g = c / (C / groups).
std::vector<double> scatterConvTranspose(const std::vector<double> &x,
                                         const std::vector<double> &w,
                                         const std::vector<double> &bias,
                                         int64_t c, int64_t ocg,
                                         int64_t groups) {
  std::vector<double> ref(ocg * groups * 25, 0.0);
  for (size_t o = 0; o < bias.size(); ++o)
    for (int64_t i = 0; i < 25; ++i)
      ref[o * 25 + i] = bias[o];
  for (int64_t ci = 0; ci < c; ++ci)
    for (int64_t ih = 0; ih < 3; ++ih)
      for (int64_t iw = 0; iw < 3; ++iw)
        for (int64_t j = 0; j < ocg; ++j)
          for (int64_t kh = 0; kh < 3; ++kh)
            for (int64_t kw = 0; kw < 3; ++kw) {
              int64_t oh = ih * 2 - 1 + kh, ow = iw * 2 - 1 + kw;
              if (oh < 0 || ow < 0 || oh >= 5 || ow >= 5)
                continue;
              int64_t o = ci / (c / groups) * ocg + j;
              ref[(o * 5 + oh) * 5 + ow] +=
                  x[(ci * 3 + ih) * 3 + iw] *
                  w[((ci * ocg + j) * 3 + kh) * 3 + kw];
            }
  return ref;
}

/// 3x3 stride-2 pad-1 transposed convolution parameters over a 1 x c x 3 x
/// 3 input (output 5 x 5).
ConvParams convTranspose3x3(int64_t c, int64_t ocg, int64_t groups) {
  ConvParams p;
  p.transposed = true;
  p.groups = groups;
  p.input = {1, c, 3, 3};
  p.weight = {c, ocg, 3, 3}; // I x O/g x kh x kw
  p.strides = {2, 2};
  p.pads = {1, 1, 1, 1};
  p.dilations = {1, 1};
  p.output = {1, ocg * groups, 5, 5}; // (3 - 1) * 2 + 3 - 2
  return p;
}

std::vector<double> toDouble(const std::vector<float> &v) {
  return {v.begin(), v.end()};
}
} // namespace

TEST(DenseConvTranspose, MatchesScatterReference) {
  ConvParams p = convTranspose3x3(2, 3, 1);
  auto x = randomVector(18, 31), w = randomVector(54, 32);
  auto ref = scatterConvTranspose(toDouble(x), toDouble(w), {}, 2, 3, 1);
  Conv conv(p, w.data(), nullptr, false);
  std::vector<float> y(75);
  conv.run(x.data(), nullptr, nullptr, y.data());
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(y[i], ref[i], 1e-5) << i;
}

/// A transposed convolution in an osc-conv-layout chain reads and writes
/// channels-last buffers (either side or both), with groups, a bias and a
/// post-op: the plain results, transposed, and no `ref` kernel at the tier
/// in force.
TEST(DenseConvTranspose, NhwcMatchesPlain) {
  ConvParams p = convTranspose3x3(8, 4, 2);
  p.input = {2, 8, 6, 5};
  p.output = {2, 8, 11, 9}; // (in - 1) * 2 + 3 - 2
  p.postOps = {PostOp::Relu};
  auto x = randomVector(2 * 8 * 6 * 5, 51), w = randomVector(8 * 4 * 9, 52),
       b = randomVector(8, 53);
  Conv plain(p, w.data(), b.data(), true);
  std::vector<float> want(2 * 8 * 11 * 9);
  plain.run(x.data(), nullptr, nullptr, want.data());
  for (bool inNhwc : {false, true})
    for (bool outNhwc : {false, true}) {
      if (!inNhwc && !outNhwc)
        continue;
      SCOPED_TRACE(::testing::Message() << (inNhwc ? "NHWC" : "NCHW") << " to "
                                        << (outNhwc ? "NHWC" : "NCHW"));
      p.inputNhwc = inNhwc;
      p.outputNhwc = outNhwc;
      Conv conv(p, w.data(), b.data(), true);
      EXPECT_EQ(conv.implementation().find("ref"), std::string::npos)
          << conv.implementation();
      std::vector<float> xIn = inNhwc ? toNhwc(x, p.input) : x;
      std::vector<float> y(want.size(), -9.0f);
      conv.run(xIn.data(), nullptr, nullptr, y.data());
      if (outNhwc)
        y = fromNhwc(y, p.output);
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(y[i], want[i], 1e-5) << i;
    }
}

/// bf16 transposed convolution (--precision bf16): the same scatter on the
/// bf16-rounded input and weights (products exact in f32), 2 groups, a
/// bias; oneDNN's bf16 deconvolution, or its f32 one on the rounded
/// weights and the f32 input as it is without native bf16.
TEST(DenseConvTranspose, Bf16MatchesRoundedReference) {
  ConvParams p = convTranspose3x3(4, 3, 2);
  auto x = randomVector(36, 33), w = randomVector(108, 34),
       b = randomVector(6, 35);
  std::vector<uint16_t> wb(w.size());
  roundToBf16(w.data(), wb.data(), static_cast<int64_t>(w.size()));
  std::vector<float> wr(w.size()), xr(x.size());
  bf16ToF32(wb.data(), wr.data(), static_cast<int64_t>(w.size()));
  roundToBf16AsF32(x.data(), xr.data(), static_cast<int64_t>(x.size()));
  auto ref = scatterConvTranspose(toDouble(nativeBf16() ? xr : x), toDouble(wr),
                                  toDouble(b), 4, 3, 2);
  Conv conv(p, wb.data(), b.data(), true);
  std::string impl = conv.implementation();
  EXPECT_EQ(impl.size() > 4 && impl.compare(impl.size() - 4, 4, ":f32") == 0,
            !nativeBf16())
      << impl;
  std::vector<float> y(150);
  conv.run(x.data(), nullptr, b.data(), y.data());
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(y[i], ref[i], 1e-5 + 1e-5 * std::fabs(ref[i])) << i;
}

/// int8 transposed convolution (--precision int8): s8 weights per output
/// channel (channel g * OC/g + j over the C x OC/g x k layout), the f32
/// input quantized to u8 with a zero point (0 and 37), per-channel output
/// scales, bias and ReLU; against the scatter on the dequantized values
/// (exact integer sums, so only the f32 epilogue differs).
TEST(DenseConvTranspose, Int8MatchesQuantizedReference) {
  ConvParams p = convTranspose3x3(4, 3, 2);
  p.postOps = {PostOp::Relu};
  auto x = randomVector(36, 36), b = randomVector(6, 37);
  std::mt19937 rng(38);
  std::vector<int8_t> wq(108);
  for (auto &v : wq)
    v = static_cast<int8_t>(int(rng() % 255) - 127);
  p.weightScales.resize(6);
  for (auto &v : p.weightScales)
    v = 0.001f + 0.01f * (rng() % 100) / 100.0f;
  // Element [c, j, kh, kw] belongs to output channel (c / 2) * 3 + j.
  std::vector<double> wd(wq.size());
  for (size_t i = 0; i < wq.size(); ++i) {
    int64_t c = i / 27, j = (i / 9) % 3;
    wd[i] = double(p.weightScales[c / 2 * 3 + j]) * wq[i];
  }
  for (int32_t zero : {0, 37}) {
    SCOPED_TRACE(::testing::Message() << "zero point " << zero);
    p.inputScale = 0.011f;
    p.inputZero = zero;
    std::vector<double> xd(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      float q = std::clamp(std::nearbyint(x[i] / p.inputScale) + zero, 0.0f,
                           255.0f);
      xd[i] = (q - zero) * double(p.inputScale);
    }
    auto ref = scatterConvTranspose(xd, wd, toDouble(b), 4, 3, 2);
    Conv conv(p, wq.data(), b.data(), true);
    EXPECT_NE(conv.implementation().find(int8SaturationFree() ? "8" : ":f32"),
              std::string::npos)
        << conv.implementation(); // jit_deconvolution / gemm_s8u8s32
    std::vector<float> y(150);
    conv.run(x.data(), nullptr, b.data(), y.data());
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_NEAR(y[i], std::max(ref[i], 0.0), 1e-4 + 1e-4 * std::fabs(ref[i]))
          << i;
  }
}

TEST(DensePool, IncludePadCountsExplicitPadsNotOverhang) {
  // 1 x 1 x 4 x 4 of ones, kernel 3, stride 2, pads 1: output 3 x 3 in ceil
  // mode. Explicit padding counts (zeros in the average), the overhang of
  // the last window does not.
  std::vector<float> x(16, 1.0f);
  PoolParams p;
  p.input = {1, 1, 4, 4};
  p.kernel = {3, 3};
  p.strides = {2, 2};
  p.pads = {1, 1, 1, 1};
  p.dilations = {1, 1};
  p.output = {1, 1, 3, 3};
  p.isMax = false;
  p.countIncludePad = true;
  Pool pool(p);
  std::vector<float> y(9);
  pool.run(x.data(), y.data());
  // Window rows: [-1, 1] (pad + 2 rows), [1, 3], [3, 5] (3..4 padded, 5 out).
  // Counted rows: 3, 3, 2 -> ones in them: 2, 3, 1.
  double rows[3][2] = {{2, 3}, {3, 3}, {1, 2}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(y[i * 3 + j],
                  rows[i][0] * rows[j][0] / (rows[i][1] * rows[j][1]), 1e-6)
          << i << "," << j;
}

/// Channels-last pooling (osc-conv-layout chains): max and average, with
/// and without counting padding, with a ceil-mode overhang (average
/// pooling then pads its input in memory order first), batch 2, 13
/// channels: the NCHW results, transposed, and no `ref` kernel.
TEST(DensePool, NhwcMatchesPlain) {
  PoolParams p;
  p.input = {2, 13, 8, 6};
  p.kernel = {3, 3};
  p.strides = {2, 2};
  p.pads = {1, 1, 1, 1};
  p.dilations = {1, 1};
  // ceil((8 + 2 - 3) / 2) + 1 = 5 rows: the last row window overhangs the
  // end pad; floor((6 + 2 - 3) / 2) + 1 = 3 columns.
  p.output = {2, 13, 5, 3};
  auto x = randomVector(2 * 13 * 8 * 6, 47);
  for (bool isMax : {true, false})
    for (bool countPad : {false, true}) {
      if (isMax && countPad)
        continue;
      SCOPED_TRACE(::testing::Message() << (isMax ? "max" : "avg")
                                        << (countPad ? ", counting pads" : ""));
      p.isMax = isMax;
      p.countIncludePad = countPad;
      p.nhwc = false;
      Pool plain(p);
      std::vector<float> want(2 * 13 * 5 * 3);
      plain.run(x.data(), want.data());
      p.nhwc = true;
      Pool nhwc(p);
      EXPECT_EQ(nhwc.implementation().find("ref"), std::string::npos)
          << nhwc.implementation();
      std::vector<float> xh = toNhwc(x, p.input), yh(want.size(), -9.0f);
      nhwc.run(xh.data(), yh.data());
      std::vector<float> got = fromNhwc(yh, p.output);
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-6) << i;
    }
}

TEST(DensePool, MaxAndAverageWithCeilPadding) {
  auto x = randomVector(1 * 1 * 5 * 5, 41);
  for (bool isMax : {true, false})
    for (bool includePad : {false, true}) {
      PoolParams p;
      p.input = {1, 1, 5, 5};
      p.kernel = {2, 2};
      p.strides = {2, 2};
      p.pads = {0, 0, 0, 0};
      p.dilations = {1, 1};
      p.output = {1, 1, 3, 3}; // ceil mode: the last window is partial
      p.isMax = isMax;
      p.countIncludePad = includePad;
      Pool pool(p);
      std::vector<float> y(9);
      pool.run(x.data(), y.data());
      for (int oh = 0; oh < 3; ++oh)
        for (int ow = 0; ow < 3; ++ow) {
          double acc = isMax ? -INFINITY : 0;
          int n = 0;
          for (int kh = 0; kh < 2; ++kh)
            for (int kw = 0; kw < 2; ++kw) {
              int ih = oh * 2 + kh, iw = ow * 2 + kw;
              if (ih >= 5 || iw >= 5)
                continue;
              double v = x[ih * 5 + iw];
              acc = isMax ? std::max(acc, v) : acc + v;
              ++n;
            }
          // The ceil-mode overhang is not padding: it never counts.
          double want = isMax ? acc : acc / n;
          EXPECT_NEAR(y[oh * 3 + ow], want, 1e-6)
              << "max " << isMax << " at " << oh << "," << ow;
        }
    }
}

namespace {
/// The int8 inner product against the same quantized operands in double:
/// only oneDNN's f32 epilogue rounds.
TEST(QuantizedInnerProduct, MatchesQuantizedReference) {
  for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{1, 4, 3},
                         {17, 36, 67}, {128, 768, 96}}) {
    SCOPED_TRACE(::testing::Message() << m << "x" << k << "x" << n);
    auto w = randomVector(n * k, 5), b = randomVector(n, 6),
         r = randomVector(m * n, 7);
    std::vector<uint8_t> x(m * k);
    std::mt19937 rng(8);
    for (auto &v : x)
      v = static_cast<uint8_t>(rng() & 0xff);
    const float xScale = 0.03f;
    QuantizedInnerProduct ip(m, k, n, w.data(), b.data(),
                             {PostOp::Sum, PostOp::Relu});
    const auto &ws = ip.weightScales();
    std::vector<float> y = r;
    ip.run(x.data(), xScale, y.data(), y.data());
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t c = 0; c < k; ++c) {
          double q = std::clamp(std::nearbyint(w[j * k + c] / ws[j]), -127.0f,
                                127.0f);
          acc += double(x[i * k + c]) * q;
        }
        double want = std::max(0.0, xScale * ws[j] * acc + b[j] + r[i * n + j]);
        worst = std::max(worst, std::fabs(y[i * n + j] - want) /
                                    (1.0 + std::fabs(want)));
      }
    EXPECT_LT(worst, 1e-5);
  }
}
} // namespace

/// int8 chains (osc-int8-chains): a feed-forward block whose first inner
/// product (GELU) writes u8 with the second's input quantization, and the
/// second reading that u8 buffer as it is, computes what the f32 hand-over
/// computes (the second quantizing the f32 result on entry): the same
/// integers, so the same output. Both an f32 and a u8 input to the first.
TEST(QuantizedInnerProduct, Int8ChainCarriesU8) {
  const int64_t m = 33, k = 64, h = 96, n = 40;
  std::mt19937 rng(71);
  auto weights = [&](int64_t rows, int64_t cols, std::vector<int8_t> &wq,
                     std::vector<float> &ws) {
    wq.resize(rows * cols);
    ws.resize(rows);
    for (auto &v : wq)
      v = static_cast<int8_t>(int(rng() % 255) - 127);
    for (auto &v : ws)
      v = 0.0005f + 0.002f * (rng() % 100) / 100.0f;
  };
  std::vector<int8_t> w1, w2;
  std::vector<float> s1, s2;
  weights(h, k, w1, s1);
  weights(n, h, w2, s2);
  auto x = randomVector(m * k, 72), b1 = randomVector(h, 73),
       b2 = randomVector(n, 74);
  const float xScale = 0.009f, hScale = 0.0125f;
  const int32_t xZero = 120, hZero = 21;
  QuantizedInnerProduct up(m, k, h, w1.data(), s1.data(), b1.data(),
                           {PostOp::GeluErf});
  QuantizedInnerProduct down(m, h, n, w2.data(), s2.data(), b2.data(), {});
  std::vector<float> hf(m * h), want(m * n);
  up.run(x.data(), xScale, xZero, hf.data());
  down.run(hf.data(), hScale, hZero, want.data());
  std::vector<uint8_t> href(m * h);
  quantizeU8(hf.data(), href.data(), m * h, hScale, hZero);

  QuantizedInnerProduct upU8(m, k, h, w1.data(), s1.data(), b1.data(),
                             {PostOp::GeluErf}, std::make_pair(hScale, hZero));
  std::vector<uint8_t> xq(m * k), hq(m * h);
  quantizeU8(x.data(), xq.data(), m * k, xScale, xZero);
  for (bool u8In : {false, true}) {
    SCOPED_TRACE(u8In ? "u8 input" : "f32 input");
    std::fill(hq.begin(), hq.end(), uint8_t(0));
    upU8.runU8Out(u8In ? xq.data() : upU8.quantized(x.data(), xScale, xZero),
                  xScale, xZero, hq.data());
    size_t differ = 0, distinct = 0;
    for (int64_t i = 0; i < m * h; ++i) {
      differ += hq[i] != href[i];
      EXPECT_LE(std::abs(int(hq[i]) - int(href[i])), 1) << i;
      distinct += hq[i] != hq[0];
    }
    EXPECT_LE(differ, size_t(m * h / 1000)) << differ; // half steps
    EXPECT_GT(distinct, size_t(m * h / 2));            // not saturated
    std::vector<float> y(m * n);
    down.run(hq.data(), hScale, hZero, y.data());
    double worst = 0;
    for (int64_t i = 0; i < m * n; ++i)
      worst = std::max(worst, std::fabs(y[i] - want[i]) /
                                  (1.0 + std::fabs(want[i])));
    EXPECT_LT(worst, differ ? 0.05 : 1e-5);
  }
  // A u8 output is run through runU8Out, and takes no sum post-op.
  std::vector<float> y(m * h);
  EXPECT_THROW(upU8.run(x.data(), xScale, xZero, y.data()), std::logic_error);
  EXPECT_THROW(QuantizedInnerProduct(m, k, h, w1.data(), s1.data(), b1.data(),
                                     {PostOp::Sum}, std::make_pair(hScale, 0)),
               std::invalid_argument);
}

namespace {
/// The form a QuantizedInnerProduct of 8-bit weights runs in: with VNNI
/// (hasVnni) oneDNN's int8 kernels as they are, or on avx2_vnni the
/// table's vpdpbusd GEMM where it applies (gemm:u8s8); without VNNI the
/// exact s16 GEMM where the table has it (gemm:s16), else the two 7-bit
/// halves (`:s8w7x2`) on oneDNN's.
void expectInt8Form(const QuantizedInnerProduct &ip, int64_t m, int64_t k) {
  const std::string impl = ip.implementation();
  const bool halves = impl.find(":s8w7x2") != std::string::npos;
  const bool quads = kernelTier() == IsaLevel::Avx2Vnni && !tiers::gemmsOnOneDnn();
  if (int8SaturationFree() && !quads) {
    EXPECT_FALSE(halves) << impl;
    EXPECT_FALSE(ip.ownKernel()) << impl;
    return;
  }
  EXPECT_EQ(ip.ownKernel(), int8InnerProductOnOwnGemm(m, k)) << impl;
  EXPECT_EQ(halves, !ip.ownKernel() && !int8SaturationFree()) << impl;
  if (ip.ownKernel()) {
    EXPECT_EQ(impl.rfind(quads ? "gemm:u8s8:" : "gemm:s16:", 0), 0u) << impl;
  }
}

/// The exact s16 GEMM's shapes at every tier (below VNNI the AVX2 and
/// AVX-512 tiers run it, the reference tier the halves; from VNNI up
/// oneDNN's int8 kernels): M across its 6- and 8-row tiles and two row
/// blocks (192 and 256 rows; past 384 oneDNN takes over), an odd K across
/// 256-step blocks (128 pairs), N across 16- and 32-column panels and
/// their chunks; weights over the whole s8 range, zero points at both
/// ends; post-ops with a sum in place, and a u8 output. Against the exact
/// integer sums in double.
TEST(QuantizedInnerProduct, ExactGemmAtEveryTier) {
  tiers::forEachTier([&](IsaLevel level) {
    // The AVX2 tier and AVX-512 below VNNI have the s16 tile, avx2_vnni
    // the vpdpbusd one.
    if ((level == IsaLevel::Avx2 || level == IsaLevel::Avx2Vnni ||
         level == IsaLevel::Avx512Core) &&
        !tiers::gemmsOnOneDnn()) {
      EXPECT_TRUE(int8InnerProductOnOwnGemm(128, 768));
    }
    EXPECT_FALSE(int8InnerProductOnOwnGemm(1, 768));
    EXPECT_FALSE(int8InnerProductOnOwnGemm(512, 768));
    for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{2, 5, 3},
                           {7, 601, 272},
                           {300, 64, 16},
                           {400, 33, 19}}) {
      SCOPED_TRACE(::testing::Message() << m << "x" << k << "x" << n);
      std::mt19937 rng(static_cast<unsigned>(m * 131 + k));
      std::vector<int8_t> wq(n * k);
      for (auto &v : wq)
        v = static_cast<int8_t>(int(rng() % 256) - 128);
      wq[0] = -128; // a saturating pair for vpmaddubsw at any tier
      std::vector<float> ws(n), b(n), r(m * n);
      for (auto &v : ws)
        v = 0.0005f + 0.001f * (rng() % 100) / 100.0f;
      for (auto &v : b)
        v = (int(rng() % 200) - 100) / 50.0f;
      for (auto &v : r)
        v = (int(rng() % 200) - 100) / 25.0f;
      std::vector<uint8_t> x(m * k);
      for (auto &v : x)
        v = static_cast<uint8_t>(rng() & 0xff);
      const float xScale = 0.02f;
      for (int32_t xZero : {0, 255}) {
        SCOPED_TRACE(xZero);
        QuantizedInnerProduct ip(m, k, n, wq.data(), ws.data(), b.data(),
                                 {PostOp::Sum, PostOp::GeluErf});
        expectInt8Form(ip, m, k);
        const float yScale = 0.5f;
        const int32_t yZero = 128;
        QuantizedInnerProduct ipU8(m, k, n, wq.data(), ws.data(), nullptr,
                                   {PostOp::Relu},
                                   std::make_pair(yScale, yZero));
        std::vector<float> y = r;
        ip.run(x.data(), xScale, xZero, y.data(), y.data());
        std::vector<uint8_t> yq(m * n);
        ipU8.runU8Out(x.data(), xScale, xZero, yq.data());
        double worst = 0;
        int64_t offByMoreThanOne = 0;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            int64_t acc = 0;
            for (int64_t c = 0; c < k; ++c)
              acc += int64_t(int(x[i * k + c]) - xZero) * wq[j * k + c];
            double v = double(xScale) * ws[j] * double(acc);
            double s = v + b[j] + r[i * n + j];
            double want = 0.5 * s * (1.0 + std::erf(s / std::sqrt(2.0)));
            worst = std::max(worst, std::fabs(y[i * n + j] - want) /
                                        (1.0 + std::fabs(want)));
            double q = std::clamp(
                std::nearbyint(std::max(0.0, v) / yScale) + yZero, 0.0, 255.0);
            // A value near a half step may round either way.
            offByMoreThanOne += std::abs(int(yq[i * n + j]) - int(q)) > 1;
          }
        EXPECT_LT(worst, 1e-5) << ip.implementation();
        EXPECT_EQ(offByMoreThanOne, 0) << ipU8.implementation();
      }
    }
  });
}

/// --precision int8: weights quantized at compile time (s8 + row scales),
/// an f32 input quantized on entry with a zero point, a bias without one
/// (the zero point's compensation must still happen). Against the same
/// quantized operands in double.
TEST(QuantizedInnerProduct, S8WeightsWithZeroPoint) {
  for (bool withBias : {true, false})
    for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{1, 4, 3},
                           {17, 36, 67}, {128, 768, 96}}) {
      SCOPED_TRACE(::testing::Message() << m << "x" << k << "x" << n
                                        << (withBias ? " bias" : ""));
      auto x = randomVector(m * k, 15), b = randomVector(n, 16);
      std::vector<int8_t> wq(n * k);
      std::vector<float> ws(n);
      std::mt19937 rng(17);
      for (auto &v : wq)
        v = static_cast<int8_t>(int(rng() % 255) - 127);
      for (auto &v : ws)
        v = 0.001f + 0.01f * (rng() % 100) / 100.0f;
      // An asymmetric range, as calibration gives a post-GELU tensor.
      const float xScale = 0.011f;
      const int32_t xZero = 37;
      QuantizedInnerProduct ip(m, k, n, wq.data(), ws.data(),
                               withBias ? b.data() : nullptr, {PostOp::Relu});
      // 8-bit weights where the tier's int8 kernels would saturate (no
      // VNNI) run on opscope's exact s16 GEMM, or split in two 7-bit
      // halves, and the kernel's name says which: the same integers, never
      // saturated ones.
      expectInt8Form(ip, m, k);
      std::vector<float> y(m * n);
      ip.run(x.data(), xScale, xZero, y.data());
      double worst = 0;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double acc = 0;
          for (int64_t c = 0; c < k; ++c) {
            double q = std::clamp(std::nearbyint(x[i * k + c] / xScale) + xZero,
                                  0.0f, 255.0f);
            acc += (q - xZero) * wq[j * k + c];
          }
          double want =
              std::max(0.0, xScale * ws[j] * acc + (withBias ? b[j] : 0.0));
          worst = std::max(worst, std::fabs(y[i * n + j] - want) /
                                      (1.0 + std::fabs(want)));
        }
      EXPECT_LT(worst, 1e-4);
      // Calling again with another zero point recomputes the compensation.
      ip.run(x.data(), xScale, 0, y.data());
      double acc0 = 0;
      for (int64_t c = 0; c < k; ++c)
        acc0 += std::clamp(std::nearbyint(x[c] / xScale), 0.0f, 255.0f) *
                wq[c];
      EXPECT_NEAR(y[0], std::max(0.0, xScale * ws[0] * acc0 +
                                          (withBias ? b[0] : 0.0)),
                  1e-4 * (1 + std::fabs(y[0])));
    }
}
} // namespace

namespace {
/// 8-bit weights on the worst input for a 16-bit multiply-add: u8 255
/// against 127 and -128, whose pairs (64770, -65280) saturate vpmaddubsw's
/// 16-bit lanes on oneDNN's int8 kernels without VNNI. Every tier
/// gives the exact integer sums (the split 7-bit form there), with a
/// zero point, a bias and a u8 output too; odd sizes for the tails.
TEST(QuantizedInnerProduct, EightBitWeightsNeverSaturate) {
  for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{1, 2, 1},
                         {3, 37, 5}, {17, 256, 19}}) {
    SCOPED_TRACE(::testing::Message() << m << "x" << k << "x" << n);
    std::vector<int8_t> wq(n * k);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t c = 0; c < k; ++c) // rows of 127, of -128, then mixed
        wq[j * k + c] = j % 3 == 0   ? 127
                        : j % 3 == 1 ? -128
                                     : ((c / 2) % 2 ? 127 : -128);
    std::vector<float> ws(n, 1.0f / 1024), b(n, 0.25f);
    std::vector<uint8_t> x(m * k, 255);
    for (int64_t i = 1; i < m; ++i) // other rows: other large values
      for (int64_t c = 0; c < k; ++c)
        x[i * k + c] = uint8_t(200 + (i * 7 + c * 3) % 56);
    for (int32_t xZero : {0, 3}) {
      SCOPED_TRACE(xZero);
      const float xScale = 0.5f;
      QuantizedInnerProduct ip(m, k, n, wq.data(), ws.data(), b.data(), {});
      expectInt8Form(ip, m, k);
      // Scales of powers of two: the exact sum survives f32 for k <= 256.
      std::vector<float> y(m * n);
      ip.run(x.data(), xScale, xZero, y.data());
      const float yScale = 64.0f;
      const int32_t yZero = 100;
      QuantizedInnerProduct ipU8(m, k, n, wq.data(), ws.data(), b.data(), {},
                                 std::make_pair(yScale, yZero));
      std::vector<uint8_t> yq(m * n);
      ipU8.runU8Out(x.data(), xScale, xZero, yq.data());
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          int64_t acc = 0;
          for (int64_t c = 0; c < k; ++c)
            acc += int64_t(int(x[i * k + c]) - xZero) * wq[j * k + c];
          double want = double(xScale) * ws[j] * double(acc) + b[j];
          EXPECT_NEAR(y[i * n + j], want, 1e-6 * (1 + std::fabs(want)))
              << i << "," << j << " sum " << acc;
          double q = std::clamp(std::nearbyint(want / yScale) + yZero, 0.0,
                                255.0);
          EXPECT_EQ(int(yq[i * n + j]), int(q)) << i << "," << j;
        }
    }
  }
}
} // namespace

namespace {
/// The bf16 inner product against a double reference on the bf16-rounded
/// operands (products of bf16 values are exact in f32).
TEST(Bf16InnerProduct, MatchesRoundedReference) {
  auto bf16 = [](float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u += 0x7fffu + ((u >> 16) & 1);
    return static_cast<uint16_t>(u >> 16);
  };
  auto back = [](uint16_t b) {
    uint32_t u = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  };
  for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{1, 4, 3},
                         {17, 36, 67}, {128, 768, 96}}) {
    SCOPED_TRACE(::testing::Message() << m << "x" << k << "x" << n);
    auto w = randomVector(n * k, 9), b = randomVector(n, 10),
         x = randomVector(m * k, 11), r = randomVector(m * n, 12);
    std::vector<uint16_t> xb(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      xb[i] = bf16(x[i]);
    Bf16InnerProduct ip(m, k, n, w.data(), b.data(), {PostOp::Sum},
                        Bf16Activations{true, false});
    // Without native bf16 the f32 kernels run on the rounded operands.
    std::string impl = ip.implementation();
    EXPECT_EQ(impl.size() > 4 && impl.compare(impl.size() - 4, 4, ":f32") == 0,
              !nativeBf16())
        << impl;
    std::vector<float> y = r;
    ip.runRaw(xb.data(), y.data(), y.data());
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = b[j] + r[i * n + j];
        for (int64_t c = 0; c < k; ++c)
          acc += double(back(xb[i * k + c])) * back(bf16(w[j * k + c]));
        worst = std::max(worst, std::fabs(y[i * n + j] - acc) /
                                    (1.0 + std::fabs(acc)));
      }
    EXPECT_LT(worst, 1e-4);
  }
}
} // namespace

namespace {
/// The bf16 matmul (--precision bf16 attention): both operands rounded to
/// bf16, products exact in f32, against a double reference on the rounded
/// values; batched with transpose_b and a scale, and with a constant rhs.
/// Without native bf16 only a constant rhs (weights) is rounded.
TEST(MatMul, Bf16MatchesRoundedReference) {
  if (hostIsaLevel() < IsaLevel::Avx512Core)
    GTEST_SKIP() << "bf16 matmuls need AVX-512";
  auto round = [](float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u += 0x7fffu + ((u >> 16) & 1);
    u &= 0xffff0000u;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  };
  const int64_t B = 3, M = 5, K = 37, N = 7;
  auto a = randomVector(B * M * K, 41), b = randomVector(B * N * K, 42);
  for (bool constant : {false, true}) {
    SCOPED_TRACE(constant ? "constant rhs" : "activation rhs");
    MatMul mm({B, M, K}, {B, N, K}, {B, M, N}, false, true, 0.5f,
              constant ? b.data() : nullptr, /*bf16=*/true);
    // brg:avx512_core_bf16 with AVX512-BF16, brg:avx512_core_amx on AMX
    // Xeons, f32 kernels on the rounded operands without native bf16.
    std::string impl = mm.implementation();
    EXPECT_EQ(impl.find("ref"), std::string::npos) << impl;
    EXPECT_EQ(impl.size() > 4 && impl.compare(impl.size() - 4, 4, ":f32") == 0,
              !nativeBf16())
        << impl;
    std::vector<float> c(B * M * N);
    mm.run(a.data(), b.data(), c.data());
    double worst = 0;
    for (int64_t s = 0; s < B; ++s)
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          double acc = 0;
          for (int64_t k = 0; k < K; ++k) {
            float av = a[(s * M + i) * K + k], bv = b[(s * N + j) * K + k];
            acc += double(nativeBf16() ? round(av) : av) *
                   (nativeBf16() || constant ? round(bv) : bv);
          }
          double want = 0.5 * acc;
          worst = std::max(worst, std::fabs(c[(s * M + i) * N + j] - want) /
                                      (1.0 + std::fabs(want)));
        }
    EXPECT_LT(worst, 1e-5);
  }
}
} // namespace

namespace {
/// bf16 chains (osc-bf16-chains): a bf16 inner product that writes bf16
/// writes exactly its f32 result rounded, and one that reads a bf16 input
/// computes exactly what it computes on an f32 input of the same values
/// (the chain changes no bit). A bf16 output refuses a sum post-op, and
/// each object refuses the other output type.
TEST(Bf16InnerProduct, ChainCarriesBf16) {
  for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{3, 20, 33},
                         {128, 768, 96}}) {
    SCOPED_TRACE(::testing::Message() << m << "x" << k << "x" << n);
    auto w32 = randomVector(n * k, 71), b = randomVector(n, 72),
         x = randomVector(m * k, 73);
    std::vector<uint16_t> w(n * k), x16(m * k);
    roundToBf16(w32.data(), w.data(), n * k);
    // bf16 values in f32: an f32 input is read as it is without native
    // bf16, rounded with it, so both tiers see the bf16 input's values.
    roundToBf16AsF32(x.data(), x.data(), m * k);
    roundToBf16(x.data(), x16.data(), m * k);
    std::vector<PostOp> gelu = {PostOp::GeluErf};
    Bf16InnerProduct f32Out(m, k, n, w.data(), b.data(), gelu);
    Bf16InnerProduct bf16In(m, k, n, w.data(), b.data(), gelu, {true, false});
    std::vector<float> y(m * n), yFromBf16(m * n);
    f32Out.run(x.data(), y.data());
    bf16In.runRaw(x16.data(), yFromBf16.data());
    ASSERT_EQ(y, yFromBf16) << "a bf16 input is the rounded f32 one";
    std::vector<uint16_t> want(m * n), got(m * n), gotFromBf16(m * n);
    roundToBf16(y.data(), want.data(), m * n);
    Bf16InnerProduct bf16Out(m, k, n, w.data(), b.data(), gelu, {false, true});
    Bf16InnerProduct bf16Both(m, k, n, w.data(), b.data(), gelu, {true, true});
    bf16Out.runRaw(x.data(), got.data());
    bf16Both.runRaw(x16.data(), gotFromBf16.data());
    expectSameBf16(got, want);
    expectSameBf16(gotFromBf16, want);
    EXPECT_THROW(bf16Out.run(x.data(), y.data()), std::logic_error);
    EXPECT_THROW(bf16In.run(x.data(), y.data()), std::logic_error);
  }
  std::vector<uint16_t> w(8 * 4, 0x3f80);
  EXPECT_THROW(Bf16InnerProduct(2, 4, 8, w.data(), nullptr, {PostOp::Sum},
                                Bf16Activations{false, true}),
               std::invalid_argument);
}

/// The rounding copies live in a per-thread scratch the bf16 kernels
/// share: two threads running inner products at once (as sessions of a
/// throughput benchmark do), and one thread alternating
/// a small and a large one (the scratch grows, then is reused), each get
/// the results a lone run gives.
TEST(Bf16InnerProduct, SharedScratchAcrossOpsAndThreads) {
  auto w = randomVector(512 * 256, 75), b = randomVector(512, 76);
  std::vector<uint16_t> w16(w.size());
  roundToBf16(w.data(), w16.data(), static_cast<int64_t>(w.size()));
  struct Case {
    int64_t m, k, n;
    std::vector<float> x, want;
  };
  // Two threads on same-sized ops (the same scratch slot sizes, different
  // inputs), then a small and a large one on one thread.
  std::vector<Case> cases = {{3, 64, 32, {}, {}},
                             {96, 256, 512, {}, {}},
                             {96, 256, 512, {}, {}}};
  // The expected results from a lone run each, on a thread of their own
  // (so this thread's scratch starts empty for the growth below).
  std::thread([&] {
    for (size_t i = 0; i < cases.size(); ++i) {
      Case &c = cases[i];
      c.x = randomVector(c.m * c.k, 77 + unsigned(i));
      c.want.resize(c.m * c.n);
      Bf16InnerProduct ip(c.m, c.k, c.n, w16.data(), b.data(), {});
      ip.run(c.x.data(), c.want.data());
    }
  }).join();
  auto runMany = [&](const Case &c, int times, bool &same) {
    Bf16InnerProduct ip(c.m, c.k, c.n, w16.data(), b.data(), {});
    std::vector<float> y(c.m * c.n);
    same = true;
    for (int i = 0; i < times; ++i) {
      std::fill(y.begin(), y.end(), 0.0f);
      ip.run(c.x.data(), y.data());
      same = same && y == c.want;
    }
  };
  bool same0 = false, same1 = false;
  std::thread t0([&] { runMany(cases[1], 40, same0); });
  std::thread t1([&] { runMany(cases[2], 40, same1); });
  t0.join();
  t1.join();
  EXPECT_TRUE(same0);
  EXPECT_TRUE(same1);
  Bf16InnerProduct small(3, 64, 32, w16.data(), b.data(), {});
  Bf16InnerProduct large(96, 256, 512, w16.data(), b.data(), {});
  for (int i = 0; i < 3; ++i) {
    std::vector<float> ys(3 * 32), yl(96 * 512);
    small.run(cases[0].x.data(), ys.data());
    large.run(cases[1].x.data(), yl.data());
    EXPECT_EQ(ys, cases[0].want);
    EXPECT_EQ(yl, cases[1].want);
  }
}

/// The same for a bf16 matmul: bf16 operands (one or both) and a bf16
/// output give the bits of the f32-operand matmul, rounded.
TEST(MatMul, Bf16ChainCarriesBf16) {
  if (hostIsaLevel() < IsaLevel::Avx512Core)
    GTEST_SKIP() << "bf16 matmuls need AVX-512";
  const int64_t B = 2, M = 9, K = 64, N = 33;
  auto a = randomVector(B * M * K, 81), b = randomVector(B * K * N, 82);
  // bf16 values in f32 (f32 operands are read as they are without native
  // bf16), so every form sees the bf16 operands' values.
  roundToBf16AsF32(a.data(), a.data(), a.size());
  roundToBf16AsF32(b.data(), b.data(), b.size());
  std::vector<uint16_t> a16(a.size()), b16(b.size());
  roundToBf16(a.data(), a16.data(), a.size());
  roundToBf16(b.data(), b16.data(), b.size());
  MatMul plain({B, M, K}, {B, K, N}, {B, M, N}, false, false, 0.125f, nullptr,
               true);
  std::vector<float> want(B * M * N);
  plain.run(a.data(), b.data(), want.data());
  std::vector<uint16_t> want16(want.size());
  roundToBf16(want.data(), want16.data(), want.size());
  for (MatMulBf16Io io : {MatMulBf16Io{true, false, false},
                          MatMulBf16Io{false, true, false},
                          MatMulBf16Io{true, true, true},
                          MatMulBf16Io{false, false, true}}) {
    SCOPED_TRACE(::testing::Message() << "bf16 a " << io.a << " b " << io.b
                                      << " c " << io.c);
    MatMul mm({B, M, K}, {B, K, N}, {B, M, N}, false, false, 0.125f, nullptr,
              true, false, io);
    const void *ap = io.a ? static_cast<const void *>(a16.data()) : a.data();
    const void *bp = io.b ? static_cast<const void *>(b16.data()) : b.data();
    if (io.c) {
      std::vector<uint16_t> c(want.size());
      mm.runRaw(ap, bp, c.data());
      expectSameBf16(c, want16);
    } else {
      std::vector<float> c(want.size());
      mm.runRaw(ap, bp, c.data());
      EXPECT_EQ(c, want);
    }
    EXPECT_THROW(mm.run(a.data(), b.data(), want.data()), std::logic_error);
  }
  // A constant rhs (packed once from f32) with bf16 a and c.
  MatMul constPlain({B, M, K}, {B, K, N}, {B, M, N}, false, false, 0.125f,
                    b.data(), true);
  std::vector<float> wantConst(want.size());
  constPlain.run(a.data(), nullptr, wantConst.data());
  std::vector<uint16_t> wantConst16(want.size()), gotConst(want.size());
  roundToBf16(wantConst.data(), wantConst16.data(), want.size());
  MatMul constChain({B, M, K}, {B, K, N}, {B, M, N}, false, false, 0.125f,
                    b.data(), true, false, MatMulBf16Io{true, false, true});
  constChain.runRaw(a16.data(), nullptr, gotConst.data());
  expectSameBf16(gotConst, wantConst16);
  EXPECT_THROW(MatMul({M, K}, {K, N}, {M, N}, false, false, 1.0f, b.data(),
                      true, false, MatMulBf16Io{false, true, false}),
               std::invalid_argument);
  EXPECT_THROW(MatMul({M, K}, {K, N}, {M, N}, false, false, 1.0f, nullptr,
                      false, false, MatMulBf16Io{true, false, false}),
               std::invalid_argument);
}
} // namespace

namespace {
/// The int8 matmul (--precision int8 attention): both operands quantized
/// symmetrically per tensor from their ranges on each run; against a
/// reference doing the same quantization in double with exact integer
/// sums. A second run with other ranges rescales (the scale is a run-time
/// post-op, not fixed at construction); a constant rhs is quantized once.
TEST(MatMul, Int8MatchesDynamicQuantizedReference) {
  const int64_t B = 3, M = 5, K = 37, N = 7;
  auto a = randomVector(B * M * K, 61), b = randomVector(B * N * K, 62);
  // The rhs (oneDNN's weights) takes 7 bits where the tier's int8 kernels
  // would saturate (int8WeightLimit), the lhs 8.
  auto quantize = [](const std::vector<float> &x, int limit = 127) {
    double amax = 0;
    for (float v : x)
      amax = std::max(amax, std::fabs(double(v)));
    double scale = amax / limit;
    std::vector<double> q(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      q[i] = std::nearbyint(x[i] / scale) * scale;
    return q;
  };
  for (bool constant : {false, true}) {
    SCOPED_TRACE(constant ? "constant rhs" : "activation rhs");
    MatMul mm({B, M, K}, {B, N, K}, {B, M, N}, false, true, 0.5f,
              constant ? b.data() : nullptr, /*bf16=*/false, /*int8=*/true);
    std::string impl = mm.implementation();
    EXPECT_EQ(impl.find("ref"), std::string::npos) << impl;
    for (float grow : {1.0f, 3.0f}) {
      SCOPED_TRACE(::testing::Message() << "lhs x " << grow);
      std::vector<float> a2 = a;
      for (float &v : a2)
        v *= grow;
      auto qa = quantize(a2), qb = quantize(b, int8WeightLimit());
      std::vector<float> c(B * M * N);
      mm.run(a2.data(), b.data(), c.data());
      double worst = 0;
      for (int64_t s = 0; s < B; ++s)
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            double acc = 0;
            for (int64_t k = 0; k < K; ++k)
              acc += qa[(s * M + i) * K + k] * qb[(s * N + j) * K + k];
            double want = 0.5 * acc;
            worst = std::max(worst, std::fabs(c[(s * M + i) * N + j] - want) /
                                        (1.0 + std::fabs(want)));
          }
      EXPECT_LT(worst, 1e-5);
    }
  }
  EXPECT_THROW(MatMul({M, K}, {K, N}, {M, N}, false, false, 1.0f, nullptr,
                      true, true),
               std::invalid_argument);
}
} // namespace

namespace {
/// The inner product on oneDNN's matmul primitive (--kernels tuned picks it
/// where it measured faster) equals the inner-product primitive: bias,
/// GELU and an aliasing residual sum included.
TEST(MatMulInnerProduct, MatchesInnerProduct) {
  for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{1, 4, 3},
                         {17, 36, 67}, {128, 768, 96}}) {
    SCOPED_TRACE(::testing::Message() << m << "x" << k << "x" << n);
    auto x = randomVector(m * k, 51), w = randomVector(n * k, 52),
         b = randomVector(n, 53), r = randomVector(m * n, 54);
    std::vector<PostOp> post = {PostOp::GeluErf, PostOp::Sum};
    InnerProduct ip(m, k, n, w.data(), b.data(), post);
    MatMulInnerProduct mm(m, k, n, w.data(), b.data(), post);
    std::vector<float> want = r, got = r;
    ip.run(x.data(), want.data(), want.data());
    mm.run(x.data(), got.data(), got.data());
    double worst = 0;
    for (size_t i = 0; i < want.size(); ++i)
      worst = std::max(worst, double(std::fabs(want[i] - got[i])) /
                                  (1.0 + std::fabs(want[i])));
    // The two sum K = 768 products of [-1, 1] in different orders (on the
    // AVX2 tier the inner product is the packed GEMM's: 128-step blocks,
    // from the bias): 1.04e-5 apart at worst (9.5e-6 with the bias added
    // last). A wrong bias, GELU or sum is off by far more.
    EXPECT_LT(worst, 3e-5);
    // Below AVX-512 oneDNN 2.6 runs this matmul only on its reference loop
    // (the binding then takes the inner product primitive instead).
    if (cpuTier() >= IsaLevel::Avx512Core) {
      EXPECT_EQ(mm.implementation().find("ref"), std::string::npos)
          << mm.implementation();
    }
  }
}
} // namespace
