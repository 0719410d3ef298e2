//===- ONNXRecurrent.cpp - LSTM, GRU and RNN ------------------------------===//
//
// Part of opscope. Converters for ONNX's recurrent layers, all onto
// osc.rnn: directions, initial states, sequence_lens, activations (with
// ONNX's default alphas and betas), clip and the opset-14 `layout`
// attribute carry over as the op's operands and attributes.
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
using llvm::SmallVectorImpl;

namespace {
/// An ONNX activation name (`LeakyRelu`) as its kinds.def name
/// (`leaky_relu`), or nullopt when osc.rnn has no such function.
std::optional<std::string> activationName(StringRef onnx) {
  std::string want = onnx.lower();
  for (const char *name : rt::KindTraits<rt::RnnActivation>::names) {
    std::string flat;
    for (const char *p = name; *p; ++p)
      if (*p != '_')
        flat += *p;
    if (flat == want)
      return std::string(name);
  }
  return std::nullopt;
}

/// ONNX's default alpha and beta of an activation, and how many of each
/// it consumes from activation_alpha / activation_beta.
struct ActivationDefaults {
  int alphas = 0, betas = 0;
  float alpha = 0, beta = 0;
};
ActivationDefaults defaultsOf(StringRef name) {
  if (name == "affine")
    return {1, 1, 1.0f, 0.0f};
  if (name == "leaky_relu")
    return {1, 0, 0.01f, 0.0f};
  if (name == "thresholded_relu")
    return {1, 0, 1.0f, 0.0f};
  if (name == "scaled_tanh")
    return {1, 1, 1.0f, 1.0f};
  if (name == "hard_sigmoid")
    return {1, 1, 0.2f, 0.5f};
  if (name == "elu")
    return {1, 0, 1.0f, 0.0f};
  return {};
}

LogicalResult convertRecurrent(NodeContext &c, SmallVectorImpl<Value> &out,
                               RnnCell cell) {
  Value x = c.input(0), w = c.input(1), r = c.input(2);
  for (auto [v, what] : {std::pair<Value, StringRef>{x, "X"}, {w, "W"}, {r, "R"}})
    if (typeOf(v).getRank() != 3) {
      c.error() << what << " must be 3-D, got "
                << formatShape(typeOf(v).getShape());
      return failure();
    }
  if (!elemOf(x).isF32()) {
    c.error() << "computes in f32 only; X is " << elemOf(x);
    return failure();
  }
  std::string direction = c.stringAttr("direction", "forward");
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional") {
    c.error() << "direction '" << direction
              << "' is not forward, reverse or bidirectional";
    return failure();
  }
  int64_t gates = rnnGates(cell);
  int64_t hidden = c.intAttr("hidden_size", typeOf(r).getDimSize(2));
  auto ws = typeOf(w).getShape(), rs = typeOf(r).getShape();
  if (ws[0] != dirs || ws[1] != gates * hidden || rs[0] != dirs ||
      rs[1] != gates * hidden || rs[2] != hidden) {
    c.error() << "W " << formatShape(ws) << " and R " << formatShape(rs)
              << " do not fit direction '" << direction << "' and hidden_size "
              << hidden << " (expected " << dirs << "x" << gates * hidden
              << "xI and " << dirs << "x" << gates * hidden << "x" << hidden
              << ")";
    return failure();
  }
  bool batchFirst = c.intAttr("layout", 0) == 1;
  auto xs = typeOf(x).getShape();
  int64_t seq = batchFirst ? xs[1] : xs[0], batch = batchFirst ? xs[0] : xs[1];

  // Activations: ONNX names in, kinds.def names out; alphas and betas are
  // consumed in order by the functions that take them (as ONNX Runtime does).
  int64_t perDir = rnnActivations(cell);
  SmallVector<std::string> names;
  if (const auto *a = c.attr("activations")) {
    for (const auto &s : a->strings()) {
      auto n = activationName(s);
      if (!n) {
        c.error() << "activation '" << s << "' is not supported";
        return failure();
      }
      names.push_back(*n);
    }
  } else {
    for (int64_t d = 0; d < dirs; ++d) {
      if (cell != RnnCell::rnn)
        names.push_back("sigmoid");
      names.push_back("tanh");
      if (cell == RnnCell::lstm)
        names.push_back("tanh");
    }
  }
  // ONNX documents RNN's default as "Tanh, Tanh"; one direction uses one.
  if (cell == RnnCell::rnn && dirs == 1 && names.size() == 2)
    names.resize(1);
  if (static_cast<int64_t>(names.size()) == perDir && dirs == 2)
    names.append(SmallVector<std::string>(names));
  if (static_cast<int64_t>(names.size()) != perDir * dirs) {
    c.error() << "has " << names.size() << " activations; "
              << (dirs == 2 ? "a bidirectional " : "a ")
              << c.node.op_type() << " takes " << perDir * dirs;
    return failure();
  }
  SmallVector<float> alphas = c.floatsAttr("activation_alpha").value_or(
      SmallVector<float>());
  SmallVector<float> betas = c.floatsAttr("activation_beta").value_or(
      SmallVector<float>());
  size_t ai = 0, bi = 0;
  SmallVector<float> alpha, beta;
  SmallVector<StringRef> nameRefs;
  for (const std::string &n : names) {
    ActivationDefaults d = defaultsOf(n);
    alpha.push_back(d.alphas && ai < alphas.size() ? alphas[ai++] : d.alpha);
    beta.push_back(d.betas && bi < betas.size() ? betas[bi++] : d.beta);
    nameRefs.push_back(n);
  }

  float clip = c.floatAttr("clip", 0.0f);
  if (c.attr("clip") && !(clip > 0)) {
    c.error() << "clip must be positive, got " << clip;
    return failure();
  }
  Value lens = c.input(4);
  if (lens && typeOf(lens).getShape() != ArrayRef<int64_t>{batch}) {
    c.error() << "sequence_lens has shape "
              << formatShape(typeOf(lens).getShape()) << "; expected "
              << batch << " (the batch)";
    return failure();
  }
  if (auto known = c.constInts(4))
    for (int64_t v : *known)
      if (v < 0 || v > seq) {
        c.error() << "sequence_lens holds " << v << ", outside [0, " << seq
                  << "]";
        return failure();
      }

  Type f32 = elemOf(x);
  SmallVector<int64_t> state = batchFirst
                                   ? SmallVector<int64_t>{batch, dirs, hidden}
                                   : SmallVector<int64_t>{dirs, batch, hidden};
  SmallVector<int64_t> all =
      batchFirst ? SmallVector<int64_t>{batch, seq, dirs, hidden}
                 : SmallVector<int64_t>{seq, dirs, batch, hidden};
  bool lstm = cell == RnnCell::lstm;
  Value initialC = lstm ? c.input(6) : Value();
  Value peepholes = lstm ? c.input(7) : Value();
  auto unit = [&](bool set) { return set ? c.b.getUnitAttr() : UnitAttr(); };
  auto op = c.b.create<RnnOp>(
      c.loc, tensorOf(all, f32), tensorOf(state, f32),
      lstm ? tensorOf(state, f32) : Type(),
      RnnCellAttr::get(c.b.getContext(), cell), x, w, r, c.input(3), lens,
      c.input(5), initialC, peepholes, c.b.getI64IntegerAttr(hidden),
      c.b.getStrArrayAttr(nameRefs), c.b.getDenseF32ArrayAttr(alpha),
      c.b.getDenseF32ArrayAttr(beta),
      c.attr("clip") ? c.b.getF32FloatAttr(clip) : FloatAttr(),
      unit(direction == "reverse"), unit(batchFirst),
      unit(lstm && c.intAttr("input_forget", 0) != 0),
      unit(cell == RnnCell::gru && c.intAttr("linear_before_reset", 0) != 0));
  for (Value v : op->getResults())
    out.push_back(v);
  return success();
}
} // namespace

void opscope::onnx_import::addRecurrentConverters(
    llvm::StringMap<Converter> &m) {
  m["LSTM"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    return convertRecurrent(c, out, RnnCell::lstm);
  };
  m["GRU"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    return convertRecurrent(c, out, RnnCell::gru);
  };
  m["RNN"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    return convertRecurrent(c, out, RnnCell::rnn);
  };
}
