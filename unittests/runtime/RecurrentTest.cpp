//===- RecurrentTest.cpp - rnnLayer vs a plain reference -------------------===//
//
// Part of opscope. The recurrent kernel (GEMM-based: every step's input
// projection at once, oneDNN sgemm per step) against a direct,
// double-precision evaluation of ONNX's LSTM/GRU/RNN equations, dot product
// by dot product, on odd sizes with two directions, batch-first layout,
// sequence lengths (one of them 0), peepholes, clip, input_forget and both
// GRU variants; and oneDNN's RNN primitives (DnnlRnnLayer) against the same
// reference on the layers they accept.
//
//===----------------------------------------------------------------------===//

#include "opscope/runtime/kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

using namespace opscope::rt;

namespace {
constexpr int64_t S = 4, B = 3, I = 5, H = 7;

std::vector<float> randomVector(size_t n, float scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

double act(RnnActivation f, double x, double a, double b) {
  switch (f) {
  case RnnActivation::Sigmoid:
    return 1 / (1 + std::exp(-x));
  case RnnActivation::Tanh:
    return std::tanh(x);
  case RnnActivation::Relu:
    return x > 0 ? x : 0;
  case RnnActivation::HardSigmoid:
    return std::clamp(a * x + b, 0.0, 1.0);
  default:
    ADD_FAILURE() << "reference lacks this activation";
    return 0;
  }
}

struct Case {
  RnnDesc d;
  bool lens = false, h0 = false, c0 = false, peep = false;
};

struct Result {
  std::vector<float> y, yh, yc;
};

enum class Engine { Reference, Own, Dnnl };

Result run(const Case &k, Engine engine) {
  const RnnDesc &d = k.d;
  int64_t gates = d.cell == RnnCell::Lstm ? 4 : d.cell == RnnCell::Gru ? 3 : 1;
  int64_t G = gates * H, D = d.dirs;
  auto x = randomVector(S * B * I, 1.0f, 1);
  auto w = randomVector(D * G * I, 0.4f, 2), r = randomVector(D * G * H, 0.4f, 3);
  auto bias = randomVector(D * 2 * G, 0.2f, 4);
  auto h0 = randomVector(D * B * H, 0.5f, 5), c0 = randomVector(D * B * H, 0.5f, 6);
  auto p = randomVector(D * 3 * H, 0.3f, 7);
  std::vector<int64_t> lens = {S, 2, 0};
  Result out;
  out.y.assign(S * D * B * H, -1.0f);
  out.yh.assign(D * B * H, -1.0f);
  out.yc.assign(D * B * H, -1.0f);
  if (engine == Engine::Dnnl) {
    bool lstm = d.cell == RnnCell::Lstm;
    DnnlRnnLayer layer(d, w.data(), r.data(), bias.data(),
                       k.peep ? p.data() : nullptr, k.h0, k.c0 && lstm);
    EXPECT_FALSE(layer.implementation().empty());
    layer.run(x.data(), k.h0 ? h0.data() : nullptr,
              k.c0 && lstm ? c0.data() : nullptr, out.y.data(), out.yh.data(),
              lstm ? out.yc.data() : nullptr);
    return out;
  }
  if (engine == Engine::Own) {
    RnnBuffers io;
    io.x = x.data(), io.w = w.data(), io.r = r.data(), io.b = bias.data();
    io.h0 = k.h0 ? h0.data() : nullptr;
    io.c0 = k.c0 ? c0.data() : nullptr;
    io.p = k.peep ? p.data() : nullptr;
    io.lens = k.lens ? lens.data() : nullptr;
    io.y = out.y.data(), io.yh = out.yh.data();
    io.yc = d.cell == RnnCell::Lstm ? out.yc.data() : nullptr;
    rnnLayer(d, io);
    return out;
  }
  // Layout helpers (batch-first or sequence-first).
  auto X = [&](int64_t t, int64_t b, int64_t i) {
    return double(x[(d.batchFirst ? b * S + t : t * B + b) * I + i]);
  };
  auto stateIdx = [&](int64_t dir, int64_t b) {
    return (d.batchFirst ? b * D + dir : dir * B + b) * H;
  };
  std::fill(out.y.begin(), out.y.end(), 0.0f);
  size_t per = d.cell == RnnCell::Lstm ? 3 : d.cell == RnnCell::Gru ? 2 : 1;
  for (int64_t dir = 0; dir < D; ++dir) {
    bool back = d.reverse || dir == 1;
    auto F = [&](size_t k, double v) {
      size_t i = dir * per + k;
      if (d.clip > 0)
        v = std::clamp(v, -double(d.clip), double(d.clip));
      return act(d.activations[i], v, d.alpha[i], d.beta[i]);
    };
    for (int64_t b = 0; b < B; ++b) {
      int64_t len = k.lens ? lens[b] : S;
      std::vector<double> h(H, 0.0), c(H, 0.0);
      for (int64_t j = 0; j < H; ++j) {
        if (k.h0)
          h[j] = h0[stateIdx(dir, b) + j];
        if (k.c0)
          c[j] = c0[stateIdx(dir, b) + j];
      }
      for (int64_t s = 0; s < len; ++s) {
        int64_t t = back ? len - 1 - s : s;
        // Input part, recurrence part (of `hv`) and both biases of row g.
        auto xw = [&](int64_t g) {
          double v = bias[dir * 2 * G + g];
          for (int64_t i = 0; i < I; ++i)
            v += X(t, b, i) * w[(dir * G + g) * I + i];
          return v;
        };
        auto hr = [&](int64_t g, const std::vector<double> &hv) {
          double v = bias[dir * 2 * G + G + g];
          for (int64_t m = 0; m < H; ++m)
            v += hv[m] * r[(dir * G + g) * H + m];
          return v;
        };
        std::vector<double> hn(H);
        if (d.cell == RnnCell::Lstm) {
          for (int64_t j = 0; j < H; ++j) {
            double pi = k.peep ? p[dir * 3 * H + j] : 0;
            double po = k.peep ? p[dir * 3 * H + H + j] : 0;
            double pf = k.peep ? p[dir * 3 * H + 2 * H + j] : 0;
            double ig = F(0, xw(j) + hr(j, h) + pi * c[j]);
            double fg = d.inputForget
                            ? 1 - ig
                            : F(0, xw(2 * H + j) + hr(2 * H + j, h) + pf * c[j]);
            double cc = F(1, xw(3 * H + j) + hr(3 * H + j, h));
            double cn = fg * c[j] + ig * cc;
            double og = F(0, xw(H + j) + hr(H + j, h) + po * cn);
            c[j] = cn;
            hn[j] = og * F(2, cn);
          }
        } else if (d.cell == RnnCell::Gru) {
          std::vector<double> rh(H), rg(H);
          for (int64_t j = 0; j < H; ++j) {
            rg[j] = F(0, xw(H + j) + hr(H + j, h));
            rh[j] = rg[j] * h[j];
          }
          for (int64_t j = 0; j < H; ++j) {
            double z = F(0, xw(j) + hr(j, h));
            double hh = d.linearBeforeReset
                            ? F(1, xw(2 * H + j) + rg[j] * hr(2 * H + j, h))
                            : F(1, xw(2 * H + j) + hr(2 * H + j, rh));
            hn[j] = (1 - z) * hh + z * h[j];
          }
        } else {
          for (int64_t j = 0; j < H; ++j)
            hn[j] = F(0, xw(j) + hr(j, h));
        }
        h = hn;
        for (int64_t j = 0; j < H; ++j)
          out.y[(d.batchFirst ? ((b * S + t) * D + dir) : ((t * D + dir) * B + b)) * H + j] =
              static_cast<float>(h[j]);
      }
      for (int64_t j = 0; j < H; ++j) {
        out.yh[stateIdx(dir, b) + j] = len ? static_cast<float>(h[j]) : 0.0f;
        out.yc[stateIdx(dir, b) + j] = len ? static_cast<float>(c[j]) : 0.0f;
      }
    }
  }
  return out;
}

void expectClose(const std::vector<float> &a, const std::vector<float> &b,
                 const char *what) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], b[i], 1e-4 + 1e-4 * std::fabs(b[i])) << what << "[" << i << "]";
}

void check(const Case &k, Engine engine = Engine::Own) {
  Result got = run(k, engine), want = run(k, Engine::Reference);
  expectClose(got.y, want.y, "y");
  expectClose(got.yh, want.yh, "y_h");
  if (k.d.cell == RnnCell::Lstm)
    expectClose(got.yc, want.yc, "y_c");
}

RnnDesc desc(RnnCell cell, int64_t dirs, std::vector<RnnActivation> acts) {
  RnnDesc d;
  d.cell = cell;
  d.seq = S, d.batch = B, d.input = I, d.hidden = H, d.dirs = dirs;
  for (int64_t i = 0; i < dirs; ++i)
    d.activations.insert(d.activations.end(), acts.begin(), acts.end());
  d.alpha.assign(d.activations.size(), 0.0f);
  d.beta.assign(d.activations.size(), 0.0f);
  return d;
}

const std::vector<RnnActivation> kLstm = {RnnActivation::Sigmoid, RnnActivation::Tanh,
                                          RnnActivation::Tanh};
const std::vector<RnnActivation> kGru = {RnnActivation::Sigmoid, RnnActivation::Tanh};
} // namespace

TEST(RecurrentTest, LstmBidirectionalPeepholesLengths) {
  Case k{desc(RnnCell::Lstm, 2, kLstm), true, true, true, true};
  check(k);
}

TEST(RecurrentTest, LstmBatchFirstClipInputForgetReverse) {
  Case k{desc(RnnCell::Lstm, 1, kLstm), true, true, false, false};
  k.d.batchFirst = true;
  k.d.clip = 0.8f;
  k.d.inputForget = true;
  k.d.reverse = true;
  check(k);
}

TEST(RecurrentTest, GruBothResetVariants) {
  for (bool lbr : {false, true}) {
    Case k{desc(RnnCell::Gru, 2, kGru), true, true, false, false};
    k.d.linearBeforeReset = lbr;
    check(k);
  }
}

TEST(RecurrentTest, GruHardSigmoidBatchFirst) {
  Case k{desc(RnnCell::Gru, 1, {RnnActivation::HardSigmoid, RnnActivation::Tanh}),
         false, false, false, false};
  k.d.alpha = {0.3f, 0.0f};
  k.d.beta = {0.4f, 0.0f};
  k.d.batchFirst = true;
  check(k);
}

TEST(RecurrentTest, RnnReluReverseLengths) {
  Case k{desc(RnnCell::Rnn, 1, {RnnActivation::Relu}), true, true, false, false};
  k.d.reverse = true;
  check(k);
}

// oneDNN's RNN primitives, on the layers they compute as ONNX does.

TEST(RecurrentTest, DnnlLstmBidirectionalPeepholesStates) {
  Case k{desc(RnnCell::Lstm, 2, kLstm), false, true, true, true};
  ASSERT_TRUE(DnnlRnnLayer::fits(k.d, false));
  check(k, Engine::Dnnl);
}

TEST(RecurrentTest, DnnlLstmReverseAndBatchFirstWithoutStates) {
  for (bool batchFirst : {false, true}) {
    Case k{desc(RnnCell::Lstm, 1, kLstm), false, false, false, false};
    k.d.reverse = !batchFirst;
    k.d.batchFirst = batchFirst;
    ASSERT_TRUE(DnnlRnnLayer::fits(k.d, false));
    check(k, Engine::Dnnl);
  }
}

// oneDNN's LSTM takes both initial states or neither: one alone gets a
// zero partner.
TEST(RecurrentTest, DnnlLstmOneInitialState) {
  for (bool h0 : {true, false}) {
    Case k{desc(RnnCell::Lstm, 2, kLstm), false, h0, !h0, false};
    check(k, Engine::Dnnl);
  }
}

TEST(RecurrentTest, DnnlGruBothResetVariants) {
  for (bool lbr : {false, true}) {
    Case k{desc(RnnCell::Gru, 2, kGru), false, true, false, false};
    k.d.linearBeforeReset = lbr;
    ASSERT_TRUE(DnnlRnnLayer::fits(k.d, false));
    check(k, Engine::Dnnl);
  }
}

TEST(RecurrentTest, DnnlRnnEachActivation) {
  for (RnnActivation f :
       {RnnActivation::Tanh, RnnActivation::Relu, RnnActivation::Sigmoid}) {
    Case k{desc(RnnCell::Rnn, 2, {f}), false, true, false, false};
    ASSERT_TRUE(DnnlRnnLayer::fits(k.d, false));
    check(k, Engine::Dnnl);
  }
}

// What oneDNN does not compute as ONNX does stays on the own kernel.
TEST(RecurrentTest, DnnlDeclinesWhatItCannotCompute) {
  RnnDesc lstm = desc(RnnCell::Lstm, 1, kLstm);
  EXPECT_TRUE(DnnlRnnLayer::fits(lstm, false));
  EXPECT_FALSE(DnnlRnnLayer::fits(lstm, true)); // sequence_lens
  RnnDesc d = lstm;
  d.clip = 0.5f;
  EXPECT_FALSE(DnnlRnnLayer::fits(d, false));
  d = lstm;
  d.inputForget = true;
  EXPECT_FALSE(DnnlRnnLayer::fits(d, false));
  d = desc(RnnCell::Lstm, 2, kLstm);
  d.batchFirst = true;
  EXPECT_FALSE(DnnlRnnLayer::fits(d, false));
  d = desc(RnnCell::Gru, 1, {RnnActivation::HardSigmoid, RnnActivation::Tanh});
  EXPECT_FALSE(DnnlRnnLayer::fits(d, false));
  d = desc(RnnCell::Rnn, 2, {RnnActivation::Tanh});
  d.activations[1] = RnnActivation::Relu; // a different one per direction
  EXPECT_FALSE(DnnlRnnLayer::fits(d, false));
  EXPECT_THROW(DnnlRnnLayer(d, nullptr, nullptr, nullptr, nullptr, false, false),
               std::invalid_argument);
}
