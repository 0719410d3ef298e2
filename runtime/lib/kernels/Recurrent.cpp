//===- Recurrent.cpp - LSTM, GRU and simple RNN layers ---------------------===//
//
// Part of opscope's runtime. ONNX LSTM/GRU/RNN over a whole sequence. The
// input projection of every time step is one GEMM before the recurrence;
// each step then multiplies the hidden state by the recurrence weights (a
// second GEMM) and applies the gates elementwise. Both GEMMs are oneDNN's
// sgemm (AVX-512 when the CPU has it). Layers oneDNN's RNN primitives
// compute as ONNX does run on them instead (DnnlRecurrent.cpp); this kernel
// takes what they do not: sequence_lens, clip, input_forget, the other
// activations and their alphas and betas, batch-first with two directions,
// weights known only at run time.
//
//===----------------------------------------------------------------------===//

#include "DnnlCommon.h"

#include "opscope/runtime/kernels.h"

#include <dnnl.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <vector>

using namespace opscope;
using namespace opscope::rt;

namespace {
/// The unary kind (kinds.def) computing `f`, for the functions the two
/// tables share; Affine and ScaledTanh are the RNN's own.
std::optional<UnaryKind> sharedUnary(RnnActivation f) {
  switch (f) {
  case RnnActivation::Sigmoid:
    return UnaryKind::Sigmoid;
  case RnnActivation::Tanh:
    return UnaryKind::Tanh;
  case RnnActivation::Relu:
    return UnaryKind::Relu;
  case RnnActivation::LeakyRelu:
    return UnaryKind::LeakyRelu;
  case RnnActivation::ThresholdedRelu:
    return UnaryKind::ThresholdedRelu;
  case RnnActivation::HardSigmoid:
    return UnaryKind::HardSigmoid;
  case RnnActivation::Elu:
    return UnaryKind::Elu;
  case RnnActivation::Softsign:
    return UnaryKind::Softsign;
  case RnnActivation::Softplus:
    return UnaryKind::Softplus;
  case RnnActivation::Affine:
  case RnnActivation::ScaledTanh:
    break;
  }
  return std::nullopt;
}

/// Row-major C[m x n] = A[m x k] * B[n x k]^T.
void gemmNT(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
            const float *b, int64_t ldb, float *c, int64_t ldc) {
  if (m == 0 || n == 0)
    return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    return;
  }
  if (dnnl_sgemm('N', 'T', m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc) !=
      dnnl_success)
    throw std::runtime_error("rnn: oneDNN sgemm failed");
}

struct Activation {
  RnnActivation f;
  float alpha, beta;
  float operator()(float x) const {
    if (f == RnnActivation::Affine)
      return alpha * x + beta;
    if (f == RnnActivation::ScaledTanh)
      return alpha * std::tanh(beta * x);
    return unaryFloat<float>(*sharedUnary(f), x, alpha, beta);
  }
};
} // namespace

void opscope::rt::rnnLayer(const RnnDesc &d, const RnnBuffers &io) {
  dnnlx::context(); // applies OPSCOPE_MAX_ISA before sgemm's first JIT
  const int64_t S = d.seq, B = d.batch, I = d.input, H = d.hidden;
  const int64_t gates = d.cell == RnnCell::Lstm ? 4 : d.cell == RnnCell::Gru ? 3 : 1;
  const int64_t G = gates * H;
  const size_t perDir = d.cell == RnnCell::Lstm ? 3 : d.cell == RnnCell::Gru ? 2 : 1;
  const float clip = d.clip;
  auto clipped = [clip](float x) {
    return clip > 0 ? std::clamp(x, -clip, clip) : x;
  };
  // Row of X (and of the projected input) holding time t of batch b.
  auto xRow = [&](int64_t t, int64_t b) { return d.batchFirst ? b * S + t : t * B + b; };
  auto yAt = [&](int64_t t, int64_t dir, int64_t b) {
    return io.y + (d.batchFirst ? ((b * S + t) * d.dirs + dir) * H
                                : ((t * d.dirs + dir) * B + b) * H);
  };
  // Offset of (direction, batch) in the initial and last states.
  auto state = [&](int64_t dir, int64_t b) {
    return (d.batchFirst ? (b * d.dirs + dir) : (dir * B + b)) * H;
  };
  std::fill(io.y, io.y + S * d.dirs * B * H, 0.0f);

  std::vector<float> xw(static_cast<size_t>(S * B * G)), hr(B * G), h(B * H),
      c(B * H), rh(B * H);
  for (int64_t dir = 0; dir < d.dirs; ++dir) {
    bool backward = d.reverse || dir == 1;
    const float *w = io.w + dir * G * I, *r = io.r + dir * G * H;
    const float *wb = io.b ? io.b + dir * 2 * G : nullptr;
    const float *rb = wb ? wb + G : nullptr;
    const float *p = io.p ? io.p + dir * 3 * H : nullptr;
    Activation act[3];
    for (size_t k = 0; k < perDir; ++k) {
      size_t i = dir * perDir + k;
      act[k] = {d.activations[i], d.alpha[i], d.beta[i]};
    }
    // Every step's input projection in one GEMM, with the input bias.
    gemmNT(S * B, G, I, io.x, I, w, I, xw.data(), G);
    if (wb)
      for (int64_t row = 0; row < S * B; ++row)
        for (int64_t g = 0; g < G; ++g)
          xw[row * G + g] += wb[g];
    for (int64_t b = 0; b < B; ++b) {
      float *hb = h.data() + b * H, *cb = c.data() + b * H;
      if (io.h0)
        std::copy_n(io.h0 + state(dir, b), H, hb);
      else
        std::fill_n(hb, H, 0.0f);
      if (io.c0)
        std::copy_n(io.c0 + state(dir, b), H, cb);
      else
        std::fill_n(cb, H, 0.0f);
    }
    // The recurrence product for all gates but GRU's h gate without
    // linear_before_reset, whose input is r * h.
    bool resetFirst = d.cell == RnnCell::Gru && !d.linearBeforeReset;
    int64_t direct = resetFirst ? 2 * H : G;
    for (int64_t s = 0; s < S; ++s) {
      gemmNT(B, direct, H, h.data(), H, r, H, hr.data(), G);
      if (resetFirst) {
        // r = f(x Wr + h Rr + biases), then (r * h) Rh.
        for (int64_t b = 0; b < B; ++b) {
          int64_t len = io.lens ? io.lens[b] : S;
          int64_t t = backward ? len - 1 - s : s;
          if (s >= len)
            continue;
          const float *x = xw.data() + xRow(t, b) * G;
          for (int64_t j = 0; j < H; ++j) {
            float pre = x[H + j] + hr[b * G + H + j] + (rb ? rb[H + j] : 0.0f);
            rh[b * H + j] = act[0](clipped(pre)) * h[b * H + j];
          }
        }
        gemmNT(B, H, H, rh.data(), H, r + 2 * H * H, H, hr.data() + 2 * H, G);
      }
      for (int64_t b = 0; b < B; ++b) {
        int64_t len = io.lens ? io.lens[b] : S;
        if (s >= len)
          continue; // past this sequence's end: its state stays
        int64_t t = backward ? len - 1 - s : s;
        const float *x = xw.data() + xRow(t, b) * G;
        const float *q = hr.data() + b * G;
        float *hb = h.data() + b * H, *cb = c.data() + b * H;
        auto bias = [&](int64_t g) { return rb ? rb[g] : 0.0f; };
        if (d.cell == RnnCell::Lstm) {
          // Gate order i o f c.
          for (int64_t j = 0; j < H; ++j) {
            float cPrev = cb[j];
            float i = act[0](clipped(x[j] + q[j] + bias(j) +
                                     (p ? p[j] * cPrev : 0.0f)));
            float f = d.inputForget
                          ? 1.0f - i
                          : act[0](clipped(x[2 * H + j] + q[2 * H + j] +
                                           bias(2 * H + j) +
                                           (p ? p[2 * H + j] * cPrev : 0.0f)));
            float g = act[1](clipped(x[3 * H + j] + q[3 * H + j] + bias(3 * H + j)));
            float cNew = f * cPrev + i * g;
            float o = act[0](clipped(x[H + j] + q[H + j] + bias(H + j) +
                                     (p ? p[H + j] * cNew : 0.0f)));
            cb[j] = cNew;
            hb[j] = o * act[2](cNew);
          }
        } else if (d.cell == RnnCell::Gru) {
          // Gate order z r h.
          for (int64_t j = 0; j < H; ++j) {
            float z = act[0](clipped(x[j] + q[j] + bias(j)));
            float hh;
            if (d.linearBeforeReset) {
              float rr = act[0](clipped(x[H + j] + q[H + j] + bias(H + j)));
              hh = act[1](clipped(x[2 * H + j] + rr * (q[2 * H + j] + bias(2 * H + j))));
            } else {
              hh = act[1](clipped(x[2 * H + j] + q[2 * H + j] + bias(2 * H + j)));
            }
            hb[j] = (1.0f - z) * hh + z * hb[j];
          }
        } else {
          for (int64_t j = 0; j < H; ++j)
            hb[j] = act[0](clipped(x[j] + q[j] + bias(j)));
        }
        std::copy_n(hb, H, yAt(t, dir, b));
      }
    }
    for (int64_t b = 0; b < B; ++b) {
      // A sequence of length 0 has no last state: zero, as ONNX Runtime
      // gives (the spec is silent), not the initial state.
      bool empty = io.lens && io.lens[b] == 0;
      if (empty) {
        std::fill_n(h.data() + b * H, H, 0.0f);
        std::fill_n(c.data() + b * H, H, 0.0f);
      }
      if (io.yh)
        std::copy_n(h.data() + b * H, H, io.yh + state(dir, b));
      if (io.yc)
        std::copy_n(c.data() + b * H, H, io.yc + state(dir, b));
    }
  }
}
