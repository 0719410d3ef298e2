//===- RecurrentBindings.cpp - LSTM, GRU and simple RNN layers -------------===//
//
// Part of opscope's runtime. osc.rnn on oneDNN's RNN primitives where they
// compute the layer as ONNX does with constant weights (DnnlRecurrent.cpp),
// else on opscope's recurrent kernel (kernels.h: rnnLayer, whose products
// run on oneDNN's sgemm).
//
//===----------------------------------------------------------------------===//

#include "../KernelRegistry.h"

#include "opscope/runtime/kernels.h"

#include <memory>
#include <string>
#include <vector>

using namespace opscope;
using namespace opscope::rt;

namespace {
/// The layer's description from its attributes and shapes.
RnnDesc rnnDesc(const OpContext &c) {
  const BufferRef &x = c.in(0);
  c.requireF32(x, "input");
  RnnDesc d;
  d.cell = c.enumAttr<RnnCell>("cell");
  d.batchFirst = c.flag("batch_first");
  d.reverse = c.flag("reverse");
  d.inputForget = c.flag("input_forget");
  d.linearBeforeReset = c.flag("linear_before_reset");
  d.clip = static_cast<float>(c.floatAttr("clip", 0.0));
  d.hidden = c.intAttr("hidden_size");
  if (x.shape.size() != 3 || c.in(1).shape.size() != 3)
    c.fail("expects a 3-D input and weight");
  d.seq = d.batchFirst ? x.shape[1] : x.shape[0];
  d.batch = d.batchFirst ? x.shape[0] : x.shape[1];
  d.input = x.shape[2];
  d.dirs = c.in(1).shape[0];
  for (const std::string &name : c.strings("activations")) {
    auto f = parseKind<RnnActivation>(name);
    if (!f)
      c.fail("unknown activation '" + name + "'");
    d.activations.push_back(*f);
  }
  d.alpha = c.floats("activation_alpha");
  d.beta = c.floats("activation_beta");
  size_t perDir = d.cell == RnnCell::Lstm ? 3 : d.cell == RnnCell::Gru ? 2 : 1;
  if (d.activations.size() != perDir * d.dirs ||
      d.alpha.size() != d.activations.size() ||
      d.beta.size() != d.activations.size())
    c.fail("needs " + std::to_string(perDir * d.dirs) +
           " activations with one alpha and beta each");
  for (size_t i = 0; i < 8; ++i)
    if (i != 4 && c.has(i))
      c.requireF32(c.in(i), "parameter");
  return d;
}

/// oneDNN's RNN primitive, for layers it computes as ONNX does whose
/// weights are constant (they are packed once, at bind time).
bool dnnlAccepts(const OpContext &c) {
  if (!c.constF32(c.in(1)) || !c.constF32(c.in(2)))
    return false;
  for (size_t i : {3, 7})
    if (c.has(i) && !c.constF32(c.in(i)))
      return false;
  return DnnlRnnLayer::fits(rnnDesc(c), c.has(4));
}

BoundKernel dnnlRnnOp(const OpContext &c, std::string &kernel) {
  RnnDesc d = rnnDesc(c);
  bool lstm = d.cell == RnnCell::Lstm;
  auto layer = dnnlCreate(c, [&] {
    return std::make_shared<DnnlRnnLayer>(
        d, c.constF32(c.in(1)), c.constF32(c.in(2)),
        c.has(3) ? c.constF32(c.in(3)) : nullptr,
        lstm && c.has(7) ? c.constF32(c.in(7)) : nullptr, c.has(5),
        lstm && c.has(6));
  });
  kernel = "onednn:rnn:" + layer->implementation();
  const float *x = c.ptr<const float>(c.in(0));
  const float *h0 = c.has(5) ? c.ptr<const float>(c.in(5)) : nullptr;
  const float *c0 = lstm && c.has(6) ? c.ptr<const float>(c.in(6)) : nullptr;
  float *y = c.ptr<float>(c.out(0)), *yh = c.ptr<float>(c.out(1));
  float *yc = lstm ? c.ptr<float>(c.out(2)) : nullptr;
  return [=] {
    layer->run(x, h0, c0, y, yh, yc);
    return std::string();
  };
}

BoundKernel rnnOp(const OpContext &c, std::string &kernel) {
  RnnDesc d = rnnDesc(c);
  const BufferRef &x = c.in(0);
  RnnBuffers io;
  io.x = c.ptr<const float>(x);
  io.w = c.ptr<const float>(c.in(1));
  io.r = c.ptr<const float>(c.in(2));
  io.b = c.has(3) ? c.ptr<const float>(c.in(3)) : nullptr;
  io.h0 = c.has(5) ? c.ptr<const float>(c.in(5)) : nullptr;
  io.c0 = c.has(6) ? c.ptr<const float>(c.in(6)) : nullptr;
  io.p = c.has(7) ? c.ptr<const float>(c.in(7)) : nullptr;
  io.y = c.ptr<float>(c.out(0));
  io.yh = c.ptr<float>(c.out(1));
  io.yc = d.cell == RnnCell::Lstm ? c.ptr<float>(c.out(2)) : nullptr;
  const void *lens = c.has(4) ? c.ptr<const void>(c.in(4)) : nullptr;
  bool lens64 = c.has(4) && c.in(4).dtype == DType::I64;
  if (c.has(4) && !lens64 && c.in(4).dtype != DType::I32)
    c.fail("sequence_lens must be i32 or i64");
  kernel = c.ownKernel();
  return [=] {
    RnnBuffers run = io;
    std::vector<int64_t> len;
    if (lens) {
      len.resize(d.batch);
      for (int64_t b = 0; b < d.batch; ++b) {
        len[b] = lens64 ? static_cast<const int64_t *>(lens)[b]
                        : static_cast<const int32_t *>(lens)[b];
        if (len[b] < 0 || len[b] > d.seq)
          return "sequence_lens[" + std::to_string(b) + "] is " +
                 std::to_string(len[b]) + ", outside [0, " +
                 std::to_string(d.seq) + "]";
      }
      run.lens = len.data();
    }
    rnnLayer(d, run);
    return std::string();
  };
}
} // namespace

void opscope::rt::registerRecurrentKernels(KernelRegistry &r) {
  r.add(OpKind::Rnn, {"onednn", dnnlAccepts, dnnlRnnOp});
  r.add(OpKind::Rnn, {"opscope", {}, rnnOp});
}
