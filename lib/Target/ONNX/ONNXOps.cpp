//===- ONNXOps.cpp - ONNX node to osc op converters -----------------------===//
//
// Part of opscope. One converter per ONNX op type. Converters compute result
// shapes themselves (every shape is static after input binding), build osc ops
// with createOrFold so shape sub-graphs fold as they are imported, and report
// unsupported attribute combinations as errors naming the node.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "opscope/Dialect/Osc/IR/OscShapes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
using llvm::SmallVectorImpl;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}
static Type elemOf(Value v) { return typeOf(v).getElementType(); }
static RankedTensorType tensorOf(ArrayRef<int64_t> shape, Type elem) {
  return RankedTensorType::get(shape, elem);
}

static Value splat(NodeContext &c, ArrayRef<int64_t> shape, Type elem,
                   double value) {
  Attribute a;
  if (auto ft = dyn_cast<FloatType>(elem))
    a = FloatAttr::get(ft, value);
  else
    a = IntegerAttr::get(elem, static_cast<int64_t>(value));
  return c.b.create<ConstantOp>(
      c.loc, DenseElementsAttr::get(tensorOf(shape, elem), a));
}

static Value reshape(NodeContext &c, Value v, ArrayRef<int64_t> shape) {
  return c.create<ReshapeOp>(tensorOf(shape, elemOf(v)), v);
}

static FailureOr<Value> binary(NodeContext &c, BinaryKind kind, Value a,
                               Value b) {
  if (elemOf(a) != elemOf(b)) {
    c.error() << "operand element types differ (" << elemOf(a) << " and "
              << elemOf(b) << ")";
    return failure();
  }
  auto shape = broadcastShapes(typeOf(a).getShape(), typeOf(b).getShape());
  if (!shape) {
    c.error() << "operand shapes " << formatShape(typeOf(a).getShape())
              << " and " << formatShape(typeOf(b).getShape())
              << " do not broadcast";
    return failure();
  }
  return c.create<BinaryOp>(tensorOf(*shape, elemOf(a)), kind, a, b);
}

static Value unary(NodeContext &c, UnaryKind kind, Value x,
                   std::optional<float> alpha = std::nullopt,
                   std::optional<float> beta = std::nullopt) {
  FloatAttr a = alpha ? c.b.getF32FloatAttr(*alpha) : FloatAttr();
  FloatAttr bt = beta ? c.b.getF32FloatAttr(*beta) : FloatAttr();
  return c.create<UnaryOp>(x.getType(), kind, x, a, bt);
}

static LogicalResult requireFloat(NodeContext &c, Value v, StringRef what) {
  if (isa<FloatType>(elemOf(v)))
    return success();
  c.error() << what << " must be floating point, got " << elemOf(v);
  return failure();
}

static DenseI64ArrayAttr i64Array(NodeContext &c, ArrayRef<int64_t> values) {
  return c.b.getDenseI64ArrayAttr(values);
}

/// Window attributes shared by Conv, ConvTranspose and the pools.
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, pads;
};

static FailureOr<Window> readWindow(NodeContext &c, ArrayRef<int64_t> kernel,
                                    ArrayRef<int64_t> inSpatial,
                                    bool transposed = false) {
  size_t n = kernel.size();
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides = c.intsAttr("strides").value_or(SmallVector<int64_t>(n, 1));
  w.dilations = c.intsAttr("dilations").value_or(SmallVector<int64_t>(n, 1));
  w.pads = c.intsAttr("pads").value_or(SmallVector<int64_t>(2 * n, 0));
  if (w.strides.size() != n || w.dilations.size() != n ||
      w.pads.size() != 2 * n) {
    c.error() << "strides, dilations and pads must have " << n << ", " << n
              << " and " << 2 * n << " entries for " << n
              << " spatial dimensions";
    return failure();
  }
  std::string autoPad = c.stringAttr("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    std::fill(w.pads.begin(), w.pads.end(), 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    if (transposed)
      return w; // ConvTranspose derives its pads from the output shape.
    for (size_t i = 0; i < n; ++i) {
      int64_t out = (inSpatial[i] + w.strides[i] - 1) / w.strides[i];
      int64_t span = (w.kernel[i] - 1) * w.dilations[i] + 1;
      int64_t total =
          std::max<int64_t>(0, (out - 1) * w.strides[i] + span - inSpatial[i]);
      int64_t small = total / 2, large = total - small;
      w.pads[i] = autoPad == "SAME_UPPER" ? small : large;
      w.pads[n + i] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (autoPad != "NOTSET") {
    c.error() << "unknown auto_pad '" << autoPad << "'";
    return failure();
  }
  return w;
}

/// Conv and ConvTranspose: a float N x C x spatial... input (1 to 3 spatial
/// dimensions) and a weight of the same rank.
static LogicalResult checkConvOperands(NodeContext &c, Value x, Value w) {
  auto xt = typeOf(x), wt = typeOf(w);
  if (failed(requireFloat(c, x, "input")))
    return failure();
  if (xt.getRank() < 3 || xt.getRank() > 5 || wt.getRank() != xt.getRank()) {
    c.error() << "expects N x C x spatial... input (1 to 3 spatial dims) and "
                 "a weight of the same rank, got "
              << formatShape(xt.getShape()) << " and "
              << formatShape(wt.getShape());
    return failure();
  }
  return success();
}

static ArrayAttr noPostOps(NodeContext &c) { return c.b.getArrayAttr({}); }

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

static void addElementwise(llvm::StringMap<Converter> &m) {
  static const std::pair<const char *, UnaryKind> unaries[] = {
      {"Relu", UnaryKind::relu},       {"Tanh", UnaryKind::tanh},
      {"Sigmoid", UnaryKind::sigmoid}, {"Erf", UnaryKind::erf},
      {"Exp", UnaryKind::exp},         {"Log", UnaryKind::log},
      {"Sqrt", UnaryKind::sqrt},       {"Reciprocal", UnaryKind::reciprocal},
      {"Neg", UnaryKind::neg},         {"Abs", UnaryKind::abs},
      {"Floor", UnaryKind::floor},     {"Ceil", UnaryKind::ceil},
      {"Softplus", UnaryKind::softplus}, {"HardSwish", UnaryKind::hard_swish},
      {"Not", UnaryKind::not_}};
  for (auto [name, kind] : unaries)
    m[name] = [kind = kind](NodeContext &c, SmallVectorImpl<Value> &out) {
      out.push_back(unary(c, kind, c.input(0)));
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

//===----------------------------------------------------------------------===//
// Linear algebra, convolution, pooling, normalization
//===----------------------------------------------------------------------===//

static void addCompute(llvm::StringMap<Converter> &m) {
  m["MatMul"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value a = c.input(0), b = c.input(1);
    if (failed(requireFloat(c, a, "MatMul input")))
      return failure();
    bool aVec = typeOf(a).getRank() == 1, bVec = typeOf(b).getRank() == 1;
    if (aVec)
      a = reshape(c, a, {1, typeOf(a).getDimSize(0)});
    if (bVec)
      b = reshape(c, b, {typeOf(b).getDimSize(0), 1});
    std::string err;
    auto shape = matmulShape(typeOf(a).getShape(), typeOf(b).getShape(),
                             false, false, err);
    if (!shape) {
      c.error() << err << " (" << formatShape(typeOf(c.input(0)).getShape())
                << " x " << formatShape(typeOf(c.input(1)).getShape()) << ")";
      return failure();
    }
    Value r = c.create<MatMulOp>(tensorOf(*shape, elemOf(a)), a, b, UnitAttr(),
                                 UnitAttr(), c.b.getF32FloatAttr(1.0f));
    if (aVec || bVec) {
      SmallVector<int64_t> s(shape->begin(), shape->end() - 2);
      if (!aVec)
        s.push_back((*shape)[shape->size() - 2]);
      if (!bVec)
        s.push_back(shape->back());
      r = reshape(c, r, s);
    }
    out.push_back(r);
    return success();
  };
  m["Gemm"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value a = c.input(0), b = c.input(1);
    if (failed(requireFloat(c, a, "Gemm input")))
      return failure();
    bool ta = c.intAttr("transA", 0), tb = c.intAttr("transB", 0);
    float alpha = c.floatAttr("alpha", 1.0f), beta = c.floatAttr("beta", 1.0f);
    if (typeOf(a).getRank() != 2 || typeOf(b).getRank() != 2) {
      c.error() << "A and B must be matrices, got "
                << formatShape(typeOf(a).getShape()) << " and "
                << formatShape(typeOf(b).getShape());
      return failure();
    }
    std::string err;
    auto shape =
        matmulShape(typeOf(a).getShape(), typeOf(b).getShape(), ta, tb, err);
    if (!shape) {
      c.error() << err;
      return failure();
    }
    Value y = c.create<MatMulOp>(tensorOf(*shape, elemOf(a)), a, b,
                                 ta ? c.b.getUnitAttr() : UnitAttr(),
                                 tb ? c.b.getUnitAttr() : UnitAttr(),
                                 c.b.getF32FloatAttr(alpha));
    if (c.hasInput(2) && beta != 0.0f) {
      Value bias = c.input(2);
      if (beta != 1.0f) {
        auto scaled =
            binary(c, BinaryKind::mul, bias, splat(c, {}, elemOf(bias), beta));
        if (failed(scaled))
          return failure();
        bias = *scaled;
      }
      auto sum = binary(c, BinaryKind::add, y, bias);
      if (failed(sum))
        return failure();
      if (typeOf(*sum) != typeOf(y)) {
        c.error() << "C of shape " << formatShape(typeOf(bias).getShape())
                  << " does not broadcast to " << formatShape(*shape);
        return failure();
      }
      y = *sum;
    }
    out.push_back(y);
    return success();
  };
  m["Conv"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0), w = c.input(1);
    auto xt = typeOf(x), wt = typeOf(w);
    if (failed(checkConvOperands(c, x, w)))
      return failure();
    auto win = readWindow(c, wt.getShape().drop_front(2),
                          xt.getShape().drop_front(2));
    if (failed(win))
      return failure();
    int64_t groups = c.intAttr("group", 1);
    SmallVector<int64_t> shape = {xt.getDimSize(0), wt.getDimSize(0)};
    size_t n = win->kernel.size();
    for (size_t i = 0; i < n; ++i)
      shape.push_back(windowOutputSize(
          xt.getDimSize(2 + i), win->kernel[i], win->strides[i], win->pads[i],
          win->pads[n + i], win->dilations[i]));
    out.push_back(c.create<ConvOp>(
        tensorOf(shape, elemOf(x)), x, w, c.input(2), Value(),
        i64Array(c, win->strides), i64Array(c, win->pads),
        i64Array(c, win->dilations), c.b.getI64IntegerAttr(groups),
        noPostOps(c)));
    return success();
  };
  m["ConvTranspose"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0), w = c.input(1);
    auto xt = typeOf(x), wt = typeOf(w);
    if (failed(checkConvOperands(c, x, w)))
      return failure();
    auto win = readWindow(c, wt.getShape().drop_front(2),
                          xt.getShape().drop_front(2), /*transposed=*/true);
    if (failed(win))
      return failure();
    size_t n = win->kernel.size();
    SmallVector<int64_t> outPad =
        c.intsAttr("output_padding").value_or(SmallVector<int64_t>(n, 0));
    int64_t groups = c.intAttr("group", 1);
    std::string autoPad = c.stringAttr("auto_pad", "NOTSET");
    auto outputShape = c.intsAttr("output_shape");
    if (outputShape && outputShape->size() == n + 2)
      outputShape = SmallVector<int64_t>(outputShape->begin() + 2,
                                         outputShape->end());
    if (outputShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      // Pads follow from the requested output size (ONNX's formula).
      for (size_t i = 0; i < n; ++i) {
        int64_t in = xt.getDimSize(2 + i);
        int64_t target = outputShape ? (*outputShape)[i] : in * win->strides[i];
        int64_t total = win->strides[i] * (in - 1) + outPad[i] +
                        (win->kernel[i] - 1) * win->dilations[i] + 1 - target;
        if (total < 0) {
          // A larger requested output than the kernel covers: the extra
          // rows/columns are output padding at the end (as ONNX Runtime does).
          outPad[i] -= total;
          total = 0;
        }
        bool upper = autoPad == "SAME_UPPER";
        win->pads[i] = upper ? total / 2 : total - total / 2;
        win->pads[n + i] = upper ? total - total / 2 : total / 2;
      }
    }
    SmallVector<int64_t> shape = {xt.getDimSize(0), wt.getDimSize(1) * groups};
    for (size_t i = 0; i < n; ++i)
      shape.push_back(transposedWindowOutputSize(
          xt.getDimSize(2 + i), win->kernel[i], win->strides[i], win->pads[i],
          win->pads[n + i], win->dilations[i], outPad[i]));
    out.push_back(c.create<ConvTransposeOp>(
        tensorOf(shape, elemOf(x)), x, w, c.input(2),
        i64Array(c, win->strides), i64Array(c, win->pads),
        i64Array(c, win->dilations), i64Array(c, outPad),
        c.b.getI64IntegerAttr(groups), noPostOps(c)));
    return success();
  };
  auto pool = [](PoolKind kind) {
    return [kind](NodeContext &c, SmallVectorImpl<Value> &out) {
      Value x = c.input(0);
      auto xt = typeOf(x);
      if (failed(requireFloat(c, x, "pooling input")))
        return failure();
      if (c.outputUsed(1)) {
        c.error() << "the Indices output is not supported";
        return failure();
      }
      auto kernel = c.intsAttr("kernel_shape");
      if (!kernel || xt.getRank() < 3 ||
          kernel->size() != static_cast<size_t>(xt.getRank() - 2)) {
        c.error() << "needs kernel_shape with one entry per spatial dimension "
                     "of input "
                  << formatShape(xt.getShape());
        return failure();
      }
      auto win = readWindow(c, *kernel, xt.getShape().drop_front(2));
      if (failed(win))
        return failure();
      bool ceil = c.intAttr("ceil_mode", 0);
      size_t n = kernel->size();
      SmallVector<int64_t> shape = {xt.getDimSize(0), xt.getDimSize(1)};
      for (size_t i = 0; i < n; ++i)
        shape.push_back(windowOutputSize(
            xt.getDimSize(2 + i), win->kernel[i], win->strides[i],
            win->pads[i], win->pads[n + i], win->dilations[i], ceil));
      bool countPad = c.intAttr("count_include_pad", 0);
      out.push_back(c.create<PoolOp>(
          tensorOf(shape, elemOf(x)), PoolKindAttr::get(c.b.getContext(), kind), x,
          i64Array(c, win->kernel),
          i64Array(c, win->strides), i64Array(c, win->pads),
          i64Array(c, win->dilations), ceil ? c.b.getUnitAttr() : UnitAttr(),
          countPad ? c.b.getUnitAttr() : UnitAttr()));
      out.push_back(Value());
      return success();
    };
  };
  m["MaxPool"] = pool(PoolKind::max);
  m["AveragePool"] = pool(PoolKind::avg);
  auto globalPool = [](PoolKind kind) {
    return [kind](NodeContext &c, SmallVectorImpl<Value> &out) {
      Value x = c.input(0);
      auto xt = typeOf(x);
      if (xt.getRank() < 3) {
        c.error() << "expects N x C x spatial..., got "
                  << formatShape(xt.getShape());
        return failure();
      }
      SmallVector<int64_t> shape(xt.getRank(), 1);
      shape[0] = xt.getDimSize(0);
      shape[1] = xt.getDimSize(1);
      out.push_back(c.create<GlobalPoolOp>(tensorOf(shape, elemOf(x)), kind, x));
      return success();
    };
  };
  m["GlobalAveragePool"] = globalPool(PoolKind::avg);
  m["GlobalMaxPool"] = globalPool(PoolKind::max);
  m["BatchNormalization"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    if (c.intAttr("training_mode", 0) || c.outputUsed(1) || c.outputUsed(2)) {
      c.error() << "training mode (running mean/variance outputs) is not "
                   "supported; export the model in inference mode";
      return failure();
    }
    Value x = c.input(0);
    out.push_back(c.create<BatchNormOp>(
        x.getType(), x, c.input(1), c.input(2), c.input(3), c.input(4),
        c.b.getF32FloatAttr(c.floatAttr("epsilon", 1e-5f))));
    return success();
  };
  m["LayerNormalization"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    auto axis = c.normalizeAxis(c.intAttr("axis", -1), xt.getRank());
    if (failed(axis))
      return failure();
    ArrayRef<int64_t> normalized = xt.getShape().drop_front(*axis);
    // ONNX lets scale and bias broadcast to the normalized shape; osc wants
    // them exactly that shape.
    auto fit = [&](Value v) -> FailureOr<Value> {
      if (!v || typeOf(v).getShape() == normalized)
        return v;
      auto b = broadcastShapes(typeOf(v).getShape(), normalized);
      if (!b || ArrayRef<int64_t>(*b) != normalized) {
        c.error() << "scale/bias shape " << formatShape(typeOf(v).getShape())
                  << " does not broadcast to the normalized shape "
                  << formatShape(normalized);
        return failure();
      }
      return c.create<BroadcastToOp>(tensorOf(normalized, elemOf(v)), v);
    };
    auto scale = fit(c.input(1));
    auto bias = fit(c.input(2));
    if (failed(scale) || failed(bias))
      return failure();
    float epsilon = c.floatAttr("epsilon", 1e-5f);
    out.push_back(c.create<LayerNormOp>(x.getType(), x, *scale, *bias,
                                        c.b.getI64IntegerAttr(*axis),
                                        c.b.getF32FloatAttr(epsilon)));
    if (!c.outputUsed(1) && !c.outputUsed(2))
      return success();
    // The statistics outputs (rarely used outside training) are computed
    // separately: Mean, and InvStdDev = 1 / sqrt(var + epsilon).
    SmallVector<int64_t> axes, statShape(xt.getShape());
    for (int64_t d = *axis; d < xt.getRank(); ++d) {
      axes.push_back(d);
      statShape[d] = 1;
    }
    auto statType = tensorOf(statShape, elemOf(x));
    auto keep = c.b.getUnitAttr();
    auto mean = [&](Value v) {
      return c.create<ReduceOp>(
          statType, ReduceKindAttr::get(c.b.getContext(), ReduceKind::mean),
          v, i64Array(c, axes), keep);
    };
    Value mu = mean(x);
    auto centered = binary(c, BinaryKind::sub, x, mu);
    auto squared = binary(c, BinaryKind::mul, *centered, *centered);
    auto var = binary(c, BinaryKind::add, mean(*squared),
                      splat(c, {}, elemOf(x), epsilon));
    Value invStd =
        unary(c, UnaryKind::reciprocal, unary(c, UnaryKind::sqrt, *var));
    out.push_back(mu);
    out.push_back(invStd);
    return success();
  };
  auto softmax = [](bool log) {
    return [log](NodeContext &c, SmallVectorImpl<Value> &out) {
      Value x = c.input(0);
      auto xt = typeOf(x);
      if (failed(requireFloat(c, x, "Softmax input")))
        return failure();
      int64_t rank = xt.getRank();
      auto axis =
          c.normalizeAxis(c.intAttr("axis", c.opset < 13 ? 1 : -1), rank);
      if (failed(axis))
        return failure();
      auto build = [&](Value v, int64_t ax) {
        return c.create<SoftmaxOp>(v.getType(), v, Value(),
                                   c.b.getI64IntegerAttr(ax),
                                   log ? c.b.getUnitAttr() : UnitAttr());
      };
      if (c.opset >= 13 || *axis == rank - 1) {
        out.push_back(build(x, *axis));
        return success();
      }
      // Before opset 13 the input is coerced to 2-D at `axis`.
      int64_t rows = 1, cols = 1;
      for (int64_t d = 0; d < rank; ++d)
        (d < *axis ? rows : cols) *= xt.getDimSize(d);
      Value flat = reshape(c, x, {rows, cols});
      out.push_back(reshape(c, build(flat, 1), xt.getShape()));
      return success();
    };
  };
  m["Softmax"] = softmax(false);
  m["LogSoftmax"] = softmax(true);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

static void addReductions(llvm::StringMap<Converter> &m) {
  static const std::pair<const char *, ReduceKind> reductions[] = {
      {"ReduceMean", ReduceKind::mean},
      {"ReduceSum", ReduceKind::sum},
      {"ReduceMax", ReduceKind::max},
      {"ReduceMin", ReduceKind::min},
      {"ReduceProd", ReduceKind::prod},
      {"ReduceSumSquare", ReduceKind::sum_square},
      {"ReduceL2", ReduceKind::l2}};
  for (auto [name, kind] : reductions)
    m[name] = [kind = kind, isSum = StringRef(name) == "ReduceSum"](
                  NodeContext &c, SmallVectorImpl<Value> &out) {
      Value x = c.input(0);
      auto xt = typeOf(x);
      SmallVector<int64_t> axes;
      if (isSum && c.opset >= 13) {
        if (c.hasInput(1)) {
          auto v = c.requireConstInts(1, "axes");
          if (failed(v))
            return failure();
          axes = *v;
        }
      } else if (auto a = c.intsAttr("axes")) {
        axes = *a;
      }
      if (axes.empty()) {
        if (c.intAttr("noop_with_empty_axes", 0)) {
          out.push_back(x);
          return success();
        }
        for (int64_t d = 0; d < xt.getRank(); ++d)
          axes.push_back(d);
      }
      for (int64_t &a : axes) {
        auto n = c.normalizeAxis(a, xt.getRank(), "reduction axis");
        if (failed(n))
          return failure();
        a = *n;
      }
      llvm::sort(axes);
      axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
      bool keep = c.intAttr("keepdims", 1);
      SmallVector<int64_t> shape;
      for (int64_t d = 0; d < xt.getRank(); ++d) {
        if (!llvm::is_contained(axes, d))
          shape.push_back(xt.getDimSize(d));
        else if (keep)
          shape.push_back(1);
      }
      out.push_back(c.create<ReduceOp>(tensorOf(shape, elemOf(x)),
                                       ReduceKindAttr::get(c.b.getContext(), kind), x,
                                       i64Array(c, axes),
                                       keep ? c.b.getUnitAttr() : UnitAttr()));
      return success();
    };
}

//===----------------------------------------------------------------------===//
// Shapes and data movement
//===----------------------------------------------------------------------===//

static void addDataMovement(llvm::StringMap<Converter> &m) {
  m["Identity"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    out.push_back(c.input(0));
    return success();
  };
  m["Dropout"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    // Inference: the identity, and a mask that keeps everything.
    auto training = c.hasInput(2) ? c.constInts(2) : SmallVector<int64_t>{0};
    if (!training || (*training)[0] != 0) {
      c.error() << "training mode is not supported (inference only)";
      return failure();
    }
    Value x = c.input(0);
    out.push_back(x);
    if (c.outputUsed(1))
      out.push_back(c.b.create<ConstantOp>(
          c.loc, DenseElementsAttr::get(
                     tensorOf(typeOf(x).getShape(), c.b.getI1Type()), true)));
    return success();
  };

  m["Reshape"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    auto target = c.requireConstInts(1, "shape");
    if (failed(target))
      return failure();
    bool allowZero = c.intAttr("allowzero", 0);
    SmallVector<int64_t> shape(*target);
    int64_t known = 1, inferred = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == 0 && !allowZero) {
        if (static_cast<int64_t>(i) >= xt.getRank()) {
          c.error() << "shape entry " << i << " copies a dimension the input "
                    << formatShape(xt.getShape()) << " does not have";
          return failure();
        }
        shape[i] = xt.getDimSize(i);
      }
      if (shape[i] == -1) {
        if (inferred >= 0) {
          c.error() << "shape has more than one -1";
          return failure();
        }
        inferred = i;
      } else if (shape[i] < 0) {
        c.error() << "shape entry " << shape[i] << " is invalid";
        return failure();
      } else {
        known *= shape[i];
      }
    }
    if (inferred >= 0)
      shape[inferred] = known ? xt.getNumElements() / known : 0;
    int64_t total = 1;
    for (int64_t d : shape)
      total *= d;
    if (total != xt.getNumElements()) {
      c.error() << "cannot reshape " << formatShape(xt.getShape()) << " to "
                << formatShape(*target);
      return failure();
    }
    out.push_back(reshape(c, x, shape));
    return success();
  };
  m["Flatten"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    int64_t axis = c.intAttr("axis", 1);
    if (axis < 0)
      axis += xt.getRank();
    if (axis < 0 || axis > xt.getRank()) {
      c.error() << "axis " << c.intAttr("axis", 1)
                << " is out of range for rank " << xt.getRank();
      return failure();
    }
    int64_t rows = 1, cols = 1;
    for (int64_t d = 0; d < xt.getRank(); ++d)
      (d < axis ? rows : cols) *= xt.getDimSize(d);
    out.push_back(reshape(c, x, {rows, cols}));
    return success();
  };
  m["Squeeze"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    std::optional<SmallVector<int64_t>> axes;
    if (c.opset >= 13) {
      if (c.hasInput(1)) {
        auto v = c.requireConstInts(1, "axes");
        if (failed(v))
          return failure();
        axes = *v;
      }
    } else {
      axes = c.intsAttr("axes");
    }
    SmallVector<bool> drop(xt.getRank(), false);
    if (axes) {
      for (int64_t a : *axes) {
        auto n = c.normalizeAxis(a, xt.getRank());
        if (failed(n))
          return failure();
        if (xt.getDimSize(*n) != 1) {
          c.error() << "cannot squeeze dimension " << *n << " of size "
                    << xt.getDimSize(*n);
          return failure();
        }
        drop[*n] = true;
      }
    } else {
      for (int64_t d = 0; d < xt.getRank(); ++d)
        drop[d] = xt.getDimSize(d) == 1;
    }
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < xt.getRank(); ++d)
      if (!drop[d])
        shape.push_back(xt.getDimSize(d));
    out.push_back(reshape(c, x, shape));
    return success();
  };
  m["Unsqueeze"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    SmallVector<int64_t> axes;
    if (c.opset >= 13) {
      auto v = c.requireConstInts(1, "axes");
      if (failed(v))
        return failure();
      axes = *v;
    } else {
      axes = c.intsAttr("axes").value_or(SmallVector<int64_t>());
    }
    int64_t outRank = xt.getRank() + axes.size();
    SmallVector<bool> inserted(outRank, false);
    for (int64_t a : axes) {
      auto n = c.normalizeAxis(a, outRank);
      if (failed(n))
        return failure();
      if (inserted[*n]) {
        c.error() << "axis " << *n << " appears more than once";
        return failure();
      }
      inserted[*n] = true;
    }
    SmallVector<int64_t> shape;
    int64_t next = 0;
    for (int64_t d = 0; d < outRank; ++d)
      shape.push_back(inserted[d] ? 1 : xt.getDimSize(next++));
    out.push_back(reshape(c, x, shape));
    return success();
  };
  m["Transpose"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    SmallVector<int64_t> perm;
    if (auto p = c.intsAttr("perm"))
      perm = *p;
    else
      for (int64_t d = xt.getRank() - 1; d >= 0; --d)
        perm.push_back(d);
    if (perm.size() != static_cast<size_t>(xt.getRank())) {
      c.error() << "perm has " << perm.size() << " entries for rank "
                << xt.getRank();
      return failure();
    }
    SmallVector<int64_t> shape;
    for (int64_t p : perm) {
      if (p < 0 || p >= xt.getRank()) {
        c.error() << "perm entry " << p << " is out of range";
        return failure();
      }
      shape.push_back(xt.getDimSize(p));
    }
    out.push_back(c.create<TransposeOp>(tensorOf(shape, elemOf(x)), x,
                                        i64Array(c, perm)));
    return success();
  };
  m["Concat"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    SmallVector<Value> inputs;
    for (unsigned i = 0; i < c.numInputs(); ++i)
      if (c.hasInput(i))
        inputs.push_back(c.input(i));
    if (inputs.empty()) {
      c.error() << "needs at least one input";
      return failure();
    }
    auto first = typeOf(inputs[0]);
    auto axis = c.normalizeAxis(c.intAttr("axis", 0), first.getRank());
    if (failed(axis))
      return failure();
    SmallVector<int64_t> shape(first.getShape());
    shape[*axis] = 0;
    for (Value v : inputs) {
      if (typeOf(v).getRank() != first.getRank()) {
        c.error() << "inputs have different ranks";
        return failure();
      }
      shape[*axis] += typeOf(v).getDimSize(*axis);
    }
    out.push_back(c.create<ConcatOp>(tensorOf(shape, first.getElementType()),
                                     inputs, c.b.getI64IntegerAttr(*axis)));
    return success();
  };
  m["Split"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    auto axis = c.normalizeAxis(c.intAttr("axis", 0), xt.getRank());
    if (failed(axis))
      return failure();
    int64_t dim = xt.getDimSize(*axis);
    int64_t parts = c.node.output_size();
    SmallVector<int64_t> sizes;
    if (c.opset >= 13 && c.hasInput(1)) {
      auto v = c.requireConstInts(1, "split");
      if (failed(v))
        return failure();
      sizes = *v;
    } else if (auto s = c.intsAttr("split")) {
      sizes = *s;
    } else {
      if (dim % parts) {
        c.error() << "dimension " << dim << " does not split evenly into "
                  << parts << " outputs";
        return failure();
      }
      sizes.assign(parts, dim / parts);
    }
    if (static_cast<int64_t>(sizes.size()) != parts ||
        std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != dim) {
      c.error() << "split sizes do not add up to dimension " << dim;
      return failure();
    }
    int64_t start = 0;
    for (int64_t size : sizes) {
      SmallVector<int64_t> starts(xt.getRank(), 0), steps(xt.getRank(), 1);
      SmallVector<int64_t> shape(xt.getShape());
      starts[*axis] = start;
      shape[*axis] = size;
      out.push_back(c.create<SliceOp>(tensorOf(shape, elemOf(x)), x,
                                      i64Array(c, starts), i64Array(c, shape),
                                      i64Array(c, steps)));
      start += size;
    }
    return success();
  };
  m["Slice"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    int64_t rank = xt.getRank();
    SmallVector<int64_t> starts, ends, axes, steps;
    if (c.opset < 10) {
      starts = c.intsAttr("starts").value_or(SmallVector<int64_t>());
      ends = c.intsAttr("ends").value_or(SmallVector<int64_t>());
      axes = c.intsAttr("axes").value_or(SmallVector<int64_t>());
    } else {
      auto s = c.requireConstInts(1, "starts");
      auto e = c.requireConstInts(2, "ends");
      if (failed(s) || failed(e))
        return failure();
      starts = *s;
      ends = *e;
      if (c.hasInput(3)) {
        auto a = c.requireConstInts(3, "axes");
        if (failed(a))
          return failure();
        axes = *a;
      }
      if (c.hasInput(4)) {
        auto st = c.requireConstInts(4, "steps");
        if (failed(st))
          return failure();
        steps = *st;
      }
    }
    if (axes.empty())
      for (size_t i = 0; i < starts.size(); ++i)
        axes.push_back(i);
    if (steps.empty())
      steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() ||
        steps.size() != starts.size()) {
      c.error() << "starts, ends, axes and steps differ in length";
      return failure();
    }
    SmallVector<int64_t> oStarts(rank, 0), oSizes(xt.getShape()),
        oSteps(rank, 1);
    for (size_t i = 0; i < starts.size(); ++i) {
      auto axis = c.normalizeAxis(axes[i], rank);
      if (failed(axis))
        return failure();
      int64_t dim = xt.getDimSize(*axis), step = steps[i];
      if (step == 0) {
        c.error() << "step of axis " << *axis << " is zero";
        return failure();
      }
      // ONNX clamping: negative indices count from the end; positive steps
      // clamp to [0, dim], negative ones to [-1, dim - 1].
      int64_t start = starts[i], end = ends[i];
      if (start < 0)
        start = start < -dim ? -1 : start + dim;
      if (end < 0)
        end = end < -dim ? -1 : end + dim;
      int64_t size;
      if (step > 0) {
        start = std::clamp<int64_t>(start, 0, dim);
        end = std::clamp<int64_t>(end, 0, dim);
        size = end > start ? (end - start + step - 1) / step : 0;
      } else {
        start = std::clamp<int64_t>(start, -1, dim - 1);
        end = std::clamp<int64_t>(end, -1, dim - 1);
        size = start > end ? (start - end - step - 1) / -step : 0;
      }
      oStarts[*axis] = size ? start : 0;
      oSizes[*axis] = size;
      oSteps[*axis] = step;
    }
    out.push_back(c.create<SliceOp>(tensorOf(oSizes, elemOf(x)), x,
                                    i64Array(c, oStarts), i64Array(c, oSizes),
                                    i64Array(c, oSteps)));
    return success();
  };
  m["Gather"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value data = c.input(0), indices = c.input(1);
    auto dt = typeOf(data);
    auto axis = c.normalizeAxis(c.intAttr("axis", 0), dt.getRank());
    if (failed(axis))
      return failure();
    SmallVector<int64_t> shape(dt.getShape().take_front(*axis));
    llvm::append_range(shape, typeOf(indices).getShape());
    llvm::append_range(shape, dt.getShape().drop_front(*axis + 1));
    out.push_back(c.create<GatherOp>(tensorOf(shape, dt.getElementType()),
                                     data, indices,
                                     c.b.getI64IntegerAttr(*axis)));
    return success();
  };
  m["Expand"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto target = c.requireConstInts(1, "shape");
    if (failed(target))
      return failure();
    auto shape = broadcastShapes(typeOf(x).getShape(), *target);
    if (!shape) {
      c.error() << "input shape " << formatShape(typeOf(x).getShape())
                << " does not broadcast with " << formatShape(*target);
      return failure();
    }
    out.push_back(c.create<BroadcastToOp>(tensorOf(*shape, elemOf(x)), x));
    return success();
  };
  m["Pad"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    int64_t rank = xt.getRank();
    SmallVector<int64_t> pads;
    float value = 0.0f;
    if (c.opset < 11) {
      pads = c.intsAttr("pads").value_or(SmallVector<int64_t>());
      value = c.floatAttr("value", 0.0f);
    } else {
      auto p = c.requireConstInts(1, "pads");
      if (failed(p))
        return failure();
      pads = *p;
      if (c.hasInput(2)) {
        auto v = c.constFloats(2);
        if (!v || v->size() != 1) {
          c.error() << "constant_value must be a constant scalar";
          return failure();
        }
        value = (*v)[0];
      }
    }
    if (pads.size() != static_cast<size_t>(2 * rank)) {
      c.error() << "pads has " << pads.size() << " entries, expected "
                << 2 * rank;
      return failure();
    }
    std::string modeName = c.stringAttr("mode", "constant");
    auto mode = symbolizePadMode(modeName);
    if (!mode) {
      c.error() << "pad mode '" << modeName << "' is not supported";
      return failure();
    }
    // Negative pads crop: a slice first, then the non-negative padding.
    if (llvm::any_of(pads, [](int64_t p) { return p < 0; })) {
      SmallVector<int64_t> starts(rank, 0), sizes(xt.getShape()),
          steps(rank, 1);
      for (int64_t d = 0; d < rank; ++d) {
        int64_t cropBegin = std::max<int64_t>(0, -pads[d]);
        int64_t cropEnd = std::max<int64_t>(0, -pads[rank + d]);
        starts[d] = cropBegin;
        sizes[d] = std::max<int64_t>(0, sizes[d] - cropBegin - cropEnd);
        pads[d] = std::max<int64_t>(0, pads[d]);
        pads[rank + d] = std::max<int64_t>(0, pads[rank + d]);
      }
      x = c.create<SliceOp>(tensorOf(sizes, elemOf(x)), x,
                            i64Array(c, starts), i64Array(c, sizes),
                            i64Array(c, steps));
    }
    SmallVector<int64_t> shape(typeOf(x).getShape());
    for (int64_t d = 0; d < rank; ++d)
      shape[d] += pads[d] + pads[rank + d];
    out.push_back(c.create<PadOp>(tensorOf(shape, elemOf(x)),
                                  PadModeAttr::get(c.b.getContext(), *mode), x,
                                  i64Array(c, pads),
                                  c.b.getF32FloatAttr(value)));
    return success();
  };
  auto resize = [](bool upsample) {
    return [upsample](NodeContext &c, SmallVectorImpl<Value> &out) {
      Value x = c.input(0);
      auto xt = typeOf(x);
      if (failed(requireFloat(c, x, "Resize input")))
        return failure();
      int64_t rank = xt.getRank();
      std::optional<SmallVector<double>> scales;
      std::optional<SmallVector<int64_t>> sizes;
      if (upsample) {
        if (c.hasInput(1))
          scales = c.constFloats(1);
        else if (auto s = c.floatsAttr("scales"))
          scales = SmallVector<double>(s->begin(), s->end());
      } else {
        unsigned scalesIdx = c.opset < 11 ? 1 : 2;
        if (c.hasInput(scalesIdx)) {
          scales = c.constFloats(scalesIdx);
          if (scales && scales->empty())
            scales.reset();
        }
        if (c.opset >= 11 && c.hasInput(3))
          sizes = c.constInts(3);
      }
      SmallVector<int64_t> shape;
      SmallVector<float> scaleAttr;
      if (sizes && static_cast<int64_t>(sizes->size()) == rank) {
        shape = *sizes;
      } else if (scales && static_cast<int64_t>(scales->size()) == rank) {
        for (int64_t d = 0; d < rank; ++d) {
          shape.push_back(static_cast<int64_t>(
              std::floor(xt.getDimSize(d) * (*scales)[d])));
          scaleAttr.push_back((*scales)[d]);
        }
      } else {
        c.error() << "needs constant scales or sizes with one entry per "
                     "dimension of input "
                  << formatShape(xt.getShape());
        return failure();
      }
      std::string modeName = c.stringAttr("mode", "nearest");
      auto mode = symbolizeResizeMode(modeName == "bilinear" ? "linear"
                                                             : modeName);
      std::string ctmName = c.stringAttr(
          "coordinate_transformation_mode",
          upsample || c.opset < 11 ? "asymmetric" : "half_pixel");
      auto ctm = symbolizeCoordinateTransform(ctmName);
      std::string nmName = c.stringAttr(
          "nearest_mode",
          upsample || c.opset < 11 ? "floor" : "round_prefer_floor");
      auto nm = symbolizeNearestMode(nmName);
      if (!mode || !ctm || !nm) {
        c.error() << "unsupported resize configuration (mode '" << modeName
                  << "', coordinate_transformation_mode '" << ctmName
                  << "', nearest_mode '" << nmName << "')";
        return failure();
      }
      out.push_back(c.create<ResizeOp>(
          tensorOf(shape, elemOf(x)), ResizeModeAttr::get(c.b.getContext(), *mode),
          CoordinateTransformAttr::get(c.b.getContext(), *ctm),
          NearestModeAttr::get(c.b.getContext(), *nm), x,
          c.b.getF32FloatAttr(c.floatAttr("cubic_coeff_a", -0.75f)),
          c.intAttr("exclude_outside", 0) ? c.b.getUnitAttr() : UnitAttr(),
          scaleAttr.empty() ? DenseF32ArrayAttr()
                            : c.b.getDenseF32ArrayAttr(scaleAttr)));
      return success();
    };
  };
  m["Resize"] = resize(false);
  m["Upsample"] = resize(true);
}

//===----------------------------------------------------------------------===//
// Shape computations and constants (evaluated at import)
//===----------------------------------------------------------------------===//

static void addConstants(llvm::StringMap<Converter> &m) {
  m["Shape"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    auto shape = typeOf(c.input(0)).getShape();
    int64_t rank = shape.size();
    int64_t start = c.intAttr("start", 0), end = c.intAttr("end", rank);
    if (start < 0)
      start += rank;
    if (end < 0)
      end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    SmallVector<int64_t> dims(shape.begin() + start, shape.begin() + end);
    out.push_back(c.b.create<ConstantOp>(
        c.loc, DenseElementsAttr::get(
                   tensorOf({static_cast<int64_t>(dims.size())},
                            c.b.getI64Type()),
                   ArrayRef<int64_t>(dims))));
    return success();
  };
  m["Size"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    out.push_back(splat(c, {}, c.b.getI64Type(),
                        typeOf(c.input(0)).getNumElements()));
    return success();
  };
  m["ConstantOfShape"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    auto shape = c.requireConstInts(0, "shape");
    if (failed(shape))
      return failure();
    Type elem = c.b.getF32Type();
    Attribute value = c.b.getF32FloatAttr(0.0f);
    if (const onnx::AttributeProto *a = c.attr("value")) {
      const onnx::TensorProto &t = a->t();
      elem = elementTypeFor(t.data_type(), c.b.getContext());
      if (!elem) {
        c.error() << "value of type " << onnxTypeName(t.data_type())
                  << " is not supported";
        return failure();
      }
      std::string err;
      ElementsAttr decoded =
          decodeTensor(t, /*modelDir=*/"", c.b.getContext(), err);
      if (!decoded || decoded.getNumElements() != 1) {
        c.error() << "value must be a one-element tensor"
                  << (err.empty() ? "" : ": ") << err;
        return failure();
      }
      value = decoded.getValues<Attribute>()[0];
    }
    out.push_back(c.b.create<ConstantOp>(
        c.loc, DenseElementsAttr::get(tensorOf(*shape, elem), value)));
    return success();
  };
  m["Range"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Type elem = elemOf(c.input(0));
    auto start = c.constFloats(0), limit = c.constFloats(1),
         delta = c.constFloats(2);
    if (!start || !limit || !delta || start->size() != 1 ||
        limit->size() != 1 || delta->size() != 1 || (*delta)[0] == 0.0) {
      c.error() << "start, limit and delta must be constant scalars (delta "
                   "non-zero)";
      return failure();
    }
    int64_t n = std::max<int64_t>(
        0, static_cast<int64_t>(std::ceil(((*limit)[0] - (*start)[0]) /
                                          (*delta)[0])));
    SmallVector<Attribute> values;
    for (int64_t i = 0; i < n; ++i) {
      double v = (*start)[0] + i * (*delta)[0];
      values.push_back(isa<FloatType>(elem)
                           ? Attribute(FloatAttr::get(elem, v))
                           : Attribute(IntegerAttr::get(
                                 elem, static_cast<int64_t>(v))));
    }
    out.push_back(c.b.create<ConstantOp>(
        c.loc, DenseElementsAttr::get(tensorOf({n}, elem), values)));
    return success();
  };
}

const llvm::StringMap<Converter> &opscope::onnx_import::converters() {
  static const llvm::StringMap<Converter> table = [] {
    llvm::StringMap<Converter> m;
    addElementwise(m);
    addCompute(m);
    addReductions(m);
    addDataMovement(m);
    addConstants(m);
    // `Constant` is handled by the graph importer, which owns tensor decoding.
    m["Constant"] = nullptr;
    return m;
  }();
  return table;
}
