//===- DnnlRecurrent.cpp - LSTM, GRU and RNN layers on oneDNN --------------===//
//
// Part of opscope's runtime. The recurrent layers oneDNN's RNN primitives
// compute as ONNX defines them: the default activations (LSTM sigmoid,
// tanh, tanh; GRU sigmoid, tanh; RNN tanh, relu or sigmoid), no clip, no
// coupled input-forget gate, every sequence running to its end. What else
// ONNX allows (sequence_lens, clip, other activations, batch-first with two
// directions) runs on opscope's own kernel (Recurrent.cpp).
//
// ONNX and oneDNN agree on the equations but not on the order of the
// gates: ONNX keeps LSTM's as i, o, f, c and oneDNN as i, f, c, o (the
// peepholes as i, o, f and i, f, o); GRU's z, r, h are oneDNN's u, r, o.
// ONNX's weights [D, G*H, I] are oneDNN's `ldgoi` once the gates are in
// oneDNN's order; they are reordered into the layout the primitive picks
// (`any`) once, at construction. The two ONNX biases (input and
// recurrence) add into oneDNN's one, except the recurrence bias of a
// linear-before-reset GRU's candidate gate, oneDNN's fourth bias gate.
//
//===----------------------------------------------------------------------===//

#include "DnnlCommon.h"

#include "opscope/runtime/kernels.h"

#include <cstring>
#include <stdexcept>
#include <unordered_map>

using namespace opscope;
using namespace opscope::rt;
using namespace opscope::rt::dnnlx;

namespace {
using md = dnnl::memory::desc;

int64_t gatesOf(RnnCell cell) {
  return cell == RnnCell::Lstm ? 4 : cell == RnnCell::Gru ? 3 : 1;
}

/// ONNX's gate index of oneDNN's gate g.
int64_t onnxGate(RnnCell cell, int64_t g) {
  static const int64_t lstm[] = {0, 2, 3, 1}; // i f c o <- i o f c
  return cell == RnnCell::Lstm ? lstm[g] : g;
}

/// [D, G*H, cols] in ONNX's gate order to the same shape in oneDNN's.
std::vector<float> permuteGates(RnnCell cell, const float *w, int64_t dirs,
                                int64_t hidden, int64_t cols) {
  int64_t gates = gatesOf(cell), block = hidden * cols;
  std::vector<float> out(dirs * gates * block);
  for (int64_t d = 0; d < dirs; ++d)
    for (int64_t g = 0; g < gates; ++g)
      std::memcpy(&out[(d * gates + g) * block],
                  w + (d * gates + onnxGate(cell, g)) * block,
                  block * sizeof(float));
  return out;
}

std::optional<dnnl::algorithm> vanillaActivation(RnnActivation f) {
  switch (f) {
  case RnnActivation::Tanh:
    return dnnl::algorithm::eltwise_tanh;
  case RnnActivation::Relu:
    return dnnl::algorithm::eltwise_relu;
  case RnnActivation::Sigmoid:
    return dnnl::algorithm::eltwise_logistic;
  default:
    return std::nullopt;
  }
}

bool defaultActivations(const RnnDesc &d) {
  std::vector<RnnActivation> want;
  if (d.cell == RnnCell::Lstm)
    want = {RnnActivation::Sigmoid, RnnActivation::Tanh, RnnActivation::Tanh};
  else if (d.cell == RnnCell::Gru)
    want = {RnnActivation::Sigmoid, RnnActivation::Tanh};
  else if (!d.activations.empty() && vanillaActivation(d.activations[0]))
    want = {d.activations[0]}; // one function, the same in both directions
  else
    return false;
  if (d.activations.size() != want.size() * d.dirs)
    return false;
  for (size_t i = 0; i < d.activations.size(); ++i)
    if (d.activations[i] != want[i % want.size()])
      return false;
  return true;
}
} // namespace

bool DnnlRnnLayer::fits(const RnnDesc &d, bool hasLengths) {
  return !hasLengths && d.clip == 0 && !d.inputForget && defaultActivations(d) &&
         (d.dirs == 1 || (d.dirs == 2 && !d.batchFirst && !d.reverse)) &&
         d.seq > 0 && d.batch > 0 && d.input > 0 && d.hidden > 0;
}

struct DnnlRnnLayer::Impl {
  RnnDesc d;
  dnnl::primitive prim;
  std::string impl;
  dnnl::memory srcLayer, srcIter, srcIterC, dstLayer, dstIter, dstIterC;
  std::unordered_map<int, dnnl::memory> args;
  std::vector<float> bias;
  /// Two directions: oneDNN's [T, N, 2H] before it becomes ONNX's
  /// [T, 2, N, H].
  std::vector<float> concat;
  /// An LSTM given one initial state: the other, zero.
  std::vector<float> zeroState;
};

DnnlRnnLayer::DnnlRnnLayer(const RnnDesc &desc, const float *w,
                           const float *r, const float *b, const float *p,
                           bool hasH0, bool hasC0)
    : impl(std::make_unique<Impl>()) {
  if (!fits(desc, false))
    throw std::invalid_argument("oneDNN's RNN primitives do not compute this "
                                "layer as ONNX does");
  Impl &I = *impl;
  I.d = desc;
  const RnnDesc &d = I.d;
  Context &ctx = context();
  int64_t T = d.seq, N = d.batch, C = d.input, H = d.hidden, D = d.dirs;
  int64_t G = gatesOf(d.cell);
  bool lstm = d.cell == RnnCell::Lstm;
  bool lbr = d.cell == RnnCell::Gru && d.linearBeforeReset;
  tag seqTag = d.batchFirst ? tag::ntc : tag::tnc;

  md srcLayerMd({T, N, C}, dt::f32, seqTag);
  md iterMd({1, D, N, H}, dt::f32, tag::ldnc);
  // oneDNN's LSTM takes both initial states or neither: one given alone
  // gets a zero partner (ONNX's default for a missing state).
  bool oneState = lstm && hasH0 != hasC0;
  md srcIterMd = hasH0 || oneState ? iterMd : md();
  md srcIterCMd = lstm && (hasC0 || oneState) ? iterMd : md();
  if (oneState)
    I.zeroState.assign(D * N * H, 0.0f);
  md anyLayer({1, D, C, G, H}, dt::f32, tag::any);
  md anyIter({1, D, H, G, H}, dt::f32, tag::any);
  md peepMd = lstm && p ? md({1, D, 3, H}, dt::f32, tag::ldgo) : md();
  int64_t biasGates = lbr ? 4 : G;
  md biasMd({1, D, biasGates, H}, dt::f32, tag::ldgo);
  md dstLayerMd({T, N, D * H}, dt::f32, seqTag);
  md dstIterCMd = lstm ? iterMd : md();
  dnnl::rnn_direction dir =
      D == 2 ? dnnl::rnn_direction::bidirectional_concat
      : d.reverse ? dnnl::rnn_direction::unidirectional_right2left
                  : dnnl::rnn_direction::unidirectional_left2right;
  auto inference = dnnl::prop_kind::forward_inference;

  md layerWeights, iterWeights;
  // Each cell has its own primitive class; `L` is it.
  auto take = [&](auto prim, const auto &pd) {
    layerWeights = pd.weights_layer_desc();
    iterWeights = pd.weights_iter_desc();
    I.impl = pd.impl_info_str();
    I.prim = decltype(prim)(pd);
  };
  if (lstm) {
    using L = dnnl::lstm_forward;
    take(L(), L::primitive_desc(
        L::desc(inference, dir, srcLayerMd, srcIterMd, srcIterCMd, anyLayer,
                anyIter, peepMd, biasMd, dstLayerMd, iterMd, dstIterCMd),
        ctx.engine));
  } else if (lbr) {
    using L = dnnl::lbr_gru_forward;
    take(L(), L::primitive_desc(L::desc(inference, dir, srcLayerMd, srcIterMd,
                                   anyLayer, anyIter, biasMd, dstLayerMd,
                                   iterMd),
                           ctx.engine));
  } else if (d.cell == RnnCell::Gru) {
    using L = dnnl::gru_forward;
    take(L(), L::primitive_desc(L::desc(inference, dir, srcLayerMd, srcIterMd,
                                   anyLayer, anyIter, biasMd, dstLayerMd,
                                   iterMd),
                           ctx.engine));
  } else {
    using L = dnnl::vanilla_rnn_forward;
    take(L(), L::primitive_desc(
        L::desc(inference, *vanillaActivation(d.activations[0]), dir,
                srcLayerMd, srcIterMd, anyLayer, anyIter, biasMd, dstLayerMd,
                iterMd),
        ctx.engine));
  }

  // Weights: gates into oneDNN's order (ldgoi), then into the chosen layout.
  std::vector<float> wl = permuteGates(d.cell, w, D, H, C);
  std::vector<float> wi = permuteGates(d.cell, r, D, H, H);
  dnnl::memory weightsLayer =
      packed(md({1, D, C, G, H}, dt::f32, tag::ldgoi), layerWeights, wl.data());
  dnnl::memory weightsIter =
      packed(md({1, D, H, G, H}, dt::f32, tag::ldgoi), iterWeights, wi.data());

  // Bias: ONNX's Wb and Rb (each [D, G*H]) summed per gate; a
  // linear-before-reset GRU keeps Rb of the candidate gate apart.
  I.bias.assign(D * biasGates * H, 0.0f);
  if (b)
    for (int64_t dd = 0; dd < D; ++dd)
      for (int64_t g = 0; g < G; ++g)
        for (int64_t h = 0; h < H; ++h) {
          const float *wb = b + dd * 2 * G * H, *rb = wb + G * H;
          int64_t o = onnxGate(d.cell, g) * H + h;
          float *dst = &I.bias[(dd * biasGates + g) * H + h];
          if (lbr && g == 2) {
            *dst = wb[o];
            I.bias[(dd * biasGates + 3) * H + h] = rb[o];
          } else {
            *dst = wb[o] + rb[o];
          }
        }
  dnnl::memory biasMem(biasMd, ctx.engine, I.bias.data());

  I.args = {{DNNL_ARG_WEIGHTS_LAYER, weightsLayer},
            {DNNL_ARG_WEIGHTS_ITER, weightsIter},
            {DNNL_ARG_BIAS, biasMem}};
  if (lstm && p) {
    // Peepholes: ONNX's i, o, f as oneDNN's i, f, o, copied into the memory.
    dnnl::memory peep(peepMd, ctx.engine);
    float *dst = static_cast<float *>(peep.get_data_handle());
    static const int64_t order[] = {0, 2, 1};
    for (int64_t dd = 0; dd < D; ++dd)
      for (int64_t g = 0; g < 3; ++g)
        std::memcpy(dst + (dd * 3 + g) * H, p + (dd * 3 + order[g]) * H,
                    H * sizeof(float));
    I.args[DNNL_ARG_WEIGHTS_PEEPHOLE] = peep;
  }
  ctx.stream.wait();

  // Activations and states are views whose pointers run() sets.
  auto view = [&](const md &m, int arg, dnnl::memory &mem) {
    if (m.is_zero())
      return;
    mem = dnnl::memory(m, ctx.engine, DNNL_MEMORY_NONE);
    I.args[arg] = mem;
  };
  view(srcLayerMd, DNNL_ARG_SRC_LAYER, I.srcLayer);
  view(srcIterMd, DNNL_ARG_SRC_ITER, I.srcIter);
  view(srcIterCMd, DNNL_ARG_SRC_ITER_C, I.srcIterC);
  view(dstLayerMd, DNNL_ARG_DST_LAYER, I.dstLayer);
  view(iterMd, DNNL_ARG_DST_ITER, I.dstIter);
  view(dstIterCMd, DNNL_ARG_DST_ITER_C, I.dstIterC);
  if (D == 2)
    I.concat.resize(T * N * 2 * H);
}

DnnlRnnLayer::~DnnlRnnLayer() = default;

void DnnlRnnLayer::run(const float *x, const float *h0, const float *c0,
                       float *y, float *yh, float *yc) {
  Impl &I = *impl;
  const RnnDesc &d = I.d;
  auto bind = [](dnnl::memory &m, const void *ptr) {
    if (m)
      m.set_data_handle(const_cast<void *>(ptr));
  };
  bind(I.srcLayer, x);
  const float *zero = I.zeroState.empty() ? nullptr : I.zeroState.data();
  bind(I.srcIter, h0 ? h0 : zero);
  bind(I.srcIterC, c0 ? c0 : zero);
  bind(I.dstLayer, d.dirs == 2 ? I.concat.data() : y);
  bind(I.dstIter, yh);
  bind(I.dstIterC, yc);
  Context &ctx = context();
  I.prim.execute(ctx.stream, I.args);
  ctx.stream.wait();
  if (d.dirs == 2) { // [T, N, 2, H] -> [T, 2, N, H]
    int64_t T = d.seq, N = d.batch, H = d.hidden;
    for (int64_t t = 0; t < T; ++t)
      for (int64_t dd = 0; dd < 2; ++dd)
        for (int64_t n = 0; n < N; ++n)
          std::memcpy(y + ((t * 2 + dd) * N + n) * H,
                      &I.concat[((t * N + n) * 2 + dd) * H], H * sizeof(float));
  }
}

std::string DnnlRnnLayer::implementation() const { return impl->impl; }
