//===- ONNXElementwise.cpp - elementwise ONNX ops -------------------------===//
//
// Part of opscope. Converters for unary, binary, comparison,
// select and cast ONNX ops, onto osc.unary, osc.binary, osc.compare,
// osc.where and osc.cast (with numpy broadcasting checked here).
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
using llvm::SmallVectorImpl;

void opscope::onnx_import::addElementwiseConverters(
    llvm::StringMap<Converter> &m) {
  static const std::pair<const char *, UnaryKind> unaries[] = {
      {"Relu", UnaryKind::relu},       {"Tanh", UnaryKind::tanh},
      {"Sigmoid", UnaryKind::sigmoid}, {"Erf", UnaryKind::erf},
      {"Exp", UnaryKind::exp},         {"Log", UnaryKind::log},
      {"Sqrt", UnaryKind::sqrt},       {"Reciprocal", UnaryKind::reciprocal},
      {"Neg", UnaryKind::neg},         {"Abs", UnaryKind::abs},
      {"Floor", UnaryKind::floor},     {"Ceil", UnaryKind::ceil},
      {"Round", UnaryKind::round},
      {"Softplus", UnaryKind::softplus}, {"HardSwish", UnaryKind::hard_swish},
      {"Not", UnaryKind::not_},        {"Softsign", UnaryKind::softsign},
      {"Sin", UnaryKind::sin},         {"Cos", UnaryKind::cos},
      {"Tan", UnaryKind::tan},         {"Asin", UnaryKind::asin},
      {"Acos", UnaryKind::acos},       {"Atan", UnaryKind::atan},
      {"Sinh", UnaryKind::sinh},       {"Cosh", UnaryKind::cosh},
      {"Asinh", UnaryKind::asinh},     {"Acosh", UnaryKind::acosh},
      {"Atanh", UnaryKind::atanh},     {"Sign", UnaryKind::sign}};
  for (auto [name, kind] : unaries)
    m[name] = [kind = kind](NodeContext &c, SmallVectorImpl<Value> &out) {
      out.push_back(unary(c, kind, c.input(0)));
      return success();
    };
  // Mish (opset 18): x * tanh(softplus(x)).
  m["Mish"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    Value t = unary(c, UnaryKind::tanh, unary(c, UnaryKind::softplus, x));
    auto y = binary(c, BinaryKind::mul, x, t);
    if (failed(y))
      return failure();
    out.push_back(*y);
    return success();
  };
  // Gelu (opset 20): osc.gelu, exact (erf) or its tanh approximation.
  m["Gelu"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    std::string approximate = c.stringAttr("approximate", "none");
    if (approximate != "none" && approximate != "tanh") {
      c.error() << "approximate must be 'none' or 'tanh', got '"
                << approximate << "'";
      return failure();
    }
    out.push_back(c.create<GeluOp>(
        x.getType(),
        approximate == "tanh" ? GeluApproximation::tanh
                              : GeluApproximation::erf,
        x));
    return success();
  };
  m["LeakyRelu"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    out.push_back(unary(c, UnaryKind::leaky_relu, c.input(0),
                        c.floatAttr("alpha", 0.01f)));
    return success();
  };
  m["Elu"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    out.push_back(
        unary(c, UnaryKind::elu, c.input(0), c.floatAttr("alpha", 1.0f)));
    return success();
  };
  // Parameterized functions, with ONNX's attribute defaults.
  m["Selu"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    out.push_back(unary(c, UnaryKind::selu, c.input(0),
                        c.floatAttr("alpha", 1.67326319217681884765625f),
                        c.floatAttr("gamma", 1.05070102214813232421875f)));
    return success();
  };
  m["ThresholdedRelu"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    out.push_back(unary(c, UnaryKind::thresholded_relu, c.input(0),
                        c.floatAttr("alpha", 1.0f)));
    return success();
  };
  m["Shrink"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    out.push_back(unary(c, UnaryKind::shrink, c.input(0),
                        c.floatAttr("lambd", 0.5f), c.floatAttr("bias", 0.0f)));
    return success();
  };
  m["Celu"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    out.push_back(
        unary(c, UnaryKind::celu, c.input(0), c.floatAttr("alpha", 1.0f)));
    return success();
  };
  m["HardSigmoid"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    out.push_back(unary(c, UnaryKind::hard_sigmoid, c.input(0),
                        c.floatAttr("alpha", 0.2f), c.floatAttr("beta", 0.5f)));
    return success();
  };
  m["Clip"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    if (!isa<FloatType>(elemOf(x))) {
      // Integer Clip: max then min against the (constant or tensor) bounds.
      for (auto [i, kind] : {std::pair{1u, BinaryKind::max},
                             std::pair{2u, BinaryKind::min}}) {
        if (!c.hasInput(i))
          continue;
        auto r = binary(c, kind, x, c.input(i));
        if (failed(r))
          return failure();
        x = *r;
      }
      out.push_back(x);
      return success();
    }
    float lo = -std::numeric_limits<float>::infinity();
    float hi = std::numeric_limits<float>::infinity();
    if (c.opset < 11) {
      lo = c.floatAttr("min", lo);
      hi = c.floatAttr("max", hi);
    } else {
      for (unsigned i : {1u, 2u}) {
        if (!c.hasInput(i))
          continue;
        auto v = c.constFloats(i);
        if (!v || v->size() != 1) {
          c.error() << (i == 1 ? "min" : "max")
                    << " must be a constant scalar";
          return failure();
        }
        (i == 1 ? lo : hi) = static_cast<float>((*v)[0]);
      }
    }
    out.push_back(unary(c, UnaryKind::clip, x, lo, hi));
    return success();
  };
  m["PRelu"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    // y = x < 0 ? slope * x : x
    Value x = c.input(0), slope = c.input(1);
    auto scaled = binary(c, BinaryKind::mul, x, slope);
    if (failed(scaled))
      return failure();
    if (typeOf(*scaled) != typeOf(x)) {
      c.error() << "slope shape " << formatShape(typeOf(slope).getShape())
                << " must broadcast to the input shape "
                << formatShape(typeOf(x).getShape());
      return failure();
    }
    Value zero = splat(c, {}, elemOf(x), 0.0);
    Value neg = c.create<CompareOp>(
        tensorOf(typeOf(x).getShape(), c.b.getI1Type()), CompareKind::lt, x,
        zero);
    out.push_back(c.create<WhereOp>(x.getType(), neg, *scaled, x));
    return success();
  };

  static const std::pair<const char *, BinaryKind> binaries[] = {
      {"Add", BinaryKind::add}, {"Sub", BinaryKind::sub},
      {"Mul", BinaryKind::mul}, {"Div", BinaryKind::div},
      {"And", BinaryKind::and_}, {"Or", BinaryKind::or_},
      {"Xor", BinaryKind::xor_}};
  for (auto [name, kind] : binaries)
    m[name] = [kind = kind](NodeContext &c, SmallVectorImpl<Value> &out) {
      auto r = binary(c, kind, c.input(0), c.input(1));
      if (failed(r))
        return failure();
      out.push_back(*r);
      return success();
    };
  // IsNaN: x != x. IsInf: x == +inf and/or x == -inf.
  m["IsNaN"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    out.push_back(c.create<CompareOp>(
        tensorOf(typeOf(x).getShape(), c.b.getI1Type()), CompareKind::ne, x, x));
    return success();
  };
  m["IsInf"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    auto bools = tensorOf(typeOf(x).getShape(), c.b.getI1Type());
    const double inf = std::numeric_limits<double>::infinity();
    Value result;
    for (auto [attr, value] : {std::pair{"detect_positive", inf},
                               std::pair{"detect_negative", -inf}}) {
      if (!c.intAttr(attr, 1))
        continue;
      Value hit = c.create<CompareOp>(bools, CompareKind::eq, x,
                                      splat(c, {}, elemOf(x), value));
      result = result ? c.create<BinaryOp>(bools, BinaryKind::or_, result, hit)
                      : hit;
    }
    if (!result) // detects nothing: all false
      result = c.b.create<ConstantOp>(c.loc,
                                      DenseElementsAttr::get(bools, false));
    out.push_back(result);
    return success();
  };
  m["Mod"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    bool fmod = c.intAttr("fmod", 0) != 0;
    if (!fmod && isa<FloatType>(elemOf(c.input(0)))) {
      c.error() << "floating-point Mod needs fmod = 1 (ONNX)";
      return failure();
    }
    auto r = binary(c, fmod ? BinaryKind::fmod : BinaryKind::mod, c.input(0),
                    c.input(1));
    if (failed(r))
      return failure();
    out.push_back(*r);
    return success();
  };
  // BitShift (opset 11, unchanged to 21): unsigned integers only.
  m["BitShift"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    std::string direction = c.stringAttr("direction", "");
    if (direction != "LEFT" && direction != "RIGHT") {
      c.error() << "direction must be LEFT or RIGHT, got '" << direction
                << "'";
      return failure();
    }
    Value x = c.input(0);
    if (!elemOf(x).isUnsignedInteger()) {
      c.error() << "input must be an unsigned integer, got " << elemOf(x);
      return failure();
    }
    auto r = binary(c, direction == "LEFT" ? BinaryKind::shl : BinaryKind::shr,
                    x, c.input(1));
    if (failed(r))
      return failure();
    out.push_back(*r);
    return success();
  };
  m["Pow"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value base = c.input(0), exponent = c.input(1);
    // ONNX allows a differently typed exponent; osc computes in one type.
    if (elemOf(exponent) != elemOf(base))
      exponent = c.create<CastOp>(
          tensorOf(typeOf(exponent).getShape(), elemOf(base)), exponent);
    auto r = binary(c, BinaryKind::pow, base, exponent);
    if (failed(r))
      return failure();
    out.push_back(*r);
    return success();
  };
  // Variadic forms fold pairwise, left to right.
  static const std::pair<const char *, BinaryKind> variadics[] = {
      {"Sum", BinaryKind::add}, {"Max", BinaryKind::max},
      {"Min", BinaryKind::min}, {"Mean", BinaryKind::add}};
  for (auto [name, kind] : variadics)
    m[name] = [kind = kind, isMean = StringRef(name) == "Mean"](
                  NodeContext &c, SmallVectorImpl<Value> &out) {
      Value acc = c.input(0);
      for (unsigned i = 1; i < c.numInputs(); ++i) {
        auto r = binary(c, kind, acc, c.input(i));
        if (failed(r))
          return failure();
        acc = *r;
      }
      if (isMean && c.numInputs() > 1) {
        auto r = binary(c, BinaryKind::div, acc,
                        splat(c, {}, elemOf(acc), c.numInputs()));
        if (failed(r))
          return failure();
        acc = *r;
      }
      out.push_back(acc);
      return success();
    };

  static const std::pair<const char *, CompareKind> compares[] = {
      {"Equal", CompareKind::eq},
      {"Less", CompareKind::lt},
      {"LessOrEqual", CompareKind::le},
      {"Greater", CompareKind::gt},
      {"GreaterOrEqual", CompareKind::ge}};
  for (auto [name, kind] : compares)
    m[name] = [kind = kind](NodeContext &c, SmallVectorImpl<Value> &out) {
      Value a = c.input(0), b = c.input(1);
      auto shape = broadcastShapes(typeOf(a).getShape(), typeOf(b).getShape());
      if (!shape || elemOf(a) != elemOf(b)) {
        c.error() << "operands " << a.getType() << " and " << b.getType()
                  << " are not comparable";
        return failure();
      }
      out.push_back(
          c.create<CompareOp>(tensorOf(*shape, c.b.getI1Type()), kind, a, b));
      return success();
    };
  m["Where"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value cond = c.input(0), x = c.input(1), y = c.input(2);
    auto s1 = broadcastShapes(typeOf(cond).getShape(), typeOf(x).getShape());
    auto s2 = s1 ? broadcastShapes(*s1, typeOf(y).getShape()) : std::nullopt;
    if (!s2 || elemOf(x) != elemOf(y)) {
      c.error() << "operands " << cond.getType() << ", " << x.getType()
                << " and " << y.getType() << " do not broadcast";
      return failure();
    }
    out.push_back(c.create<WhereOp>(tensorOf(*s2, elemOf(x)), cond, x, y));
    return success();
  };
  auto cast = [](NodeContext &c, Value x, Type to) {
    return c.create<CastOp>(tensorOf(typeOf(x).getShape(), to), x);
  };
  m["Cast"] = [cast](NodeContext &c, SmallVectorImpl<Value> &out) {
    int64_t to = c.intAttr("to", 0);
    Type elem = elementTypeFor(to, c.b.getContext());
    if (!elem) {
      c.error() << "cast to " << onnxTypeName(to) << " is not supported";
      return failure();
    }
    out.push_back(cast(c, c.input(0), elem));
    return success();
  };
  m["CastLike"] = [cast](NodeContext &c, SmallVectorImpl<Value> &out) {
    out.push_back(cast(c, c.input(0), elemOf(c.input(1))));
    return success();
  };
}
