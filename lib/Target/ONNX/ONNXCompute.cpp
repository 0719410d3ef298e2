//===- ONNXCompute.cpp - matmul, conv, pooling, normalisation -------------===//
//
// Part of opscope. Converters for the compute ONNX ops
// (MatMul, Gemm, Conv, ConvTranspose, pooling, BatchNormalization,
// LayerNormalization, Softmax) and the window attributes they share.
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

#include <numeric>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
using llvm::SmallVectorImpl;

FailureOr<Window> opscope::onnx_import::readWindow(NodeContext &c,
                                                   ArrayRef<int64_t> kernel,
                                                   ArrayRef<int64_t> inSpatial,
                                                   bool transposed) {
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
  for (size_t i = 0; i < n; ++i)
    if (w.strides[i] < 1 || w.dilations[i] < 1 || w.kernel[i] < 1) {
      c.error() << "strides, dilations and kernel sizes must be positive";
      return failure();
    }
  // Nothing beyond 2^40 along a dimension: the output-size arithmetic
  // would overflow int64 long before any tensor limit applies.
  const int64_t kMax = int64_t(1) << 40;
  auto inRange = [&](ArrayRef<int64_t> v, int64_t lo) {
    return llvm::all_of(v, [&](int64_t x) { return x >= lo && x <= kMax; });
  };
  if (!inRange(w.strides, 1) || !inRange(w.dilations, 1) ||
      !inRange(w.kernel, 1) || !inRange(w.pads, 0)) {
    c.error() << "strides, dilations, kernel sizes and pads must be in [0, "
                 "2^40] (pads) or [1, 2^40]";
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

namespace {
/// Conv and ConvTranspose: a float N x C x spatial... input (1 to 3 spatial
/// dimensions) and a weight of the same rank.
LogicalResult checkConvOperands(NodeContext &c, Value x, Value w) {
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

ArrayAttr noPostOps(NodeContext &c) { return c.b.getArrayAttr({}); }

} // namespace

void opscope::onnx_import::addComputeConverters(llvm::StringMap<Converter> &m) {
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
    auto shape = matmulShape(typeOf(a).getShape(), typeOf(b).getShape(), false,
                             false, err);
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
    Value y = c.create<MatMulOp>(
        tensorOf(*shape, elemOf(a)), a, b, ta ? c.b.getUnitAttr() : UnitAttr(),
        tb ? c.b.getUnitAttr() : UnitAttr(), c.b.getF32FloatAttr(alpha));
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
    auto win =
        readWindow(c, wt.getShape().drop_front(2), xt.getShape().drop_front(2));
    if (failed(win))
      return failure();
    int64_t groups = c.intAttr("group", 1);
    SmallVector<int64_t> shape = {xt.getDimSize(0), wt.getDimSize(0)};
    size_t n = win->kernel.size();
    for (size_t i = 0; i < n; ++i)
      shape.push_back(windowOutputSize(xt.getDimSize(2 + i), win->kernel[i],
                                       win->strides[i], win->pads[i],
                                       win->pads[n + i], win->dilations[i]));
    out.push_back(
        c.create<ConvOp>(tensorOf(shape, elemOf(x)), x, w, c.input(2), Value(),
                         i64Array(c, win->strides), i64Array(c, win->pads),
                         i64Array(c, win->dilations),
                         c.b.getI64IntegerAttr(groups), noPostOps(c)));
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
    auto bounded = [](ArrayRef<int64_t> v) {
      return llvm::all_of(
          v, [](int64_t x) { return x >= 0 && x <= (int64_t(1) << 40); });
    };
    if (!bounded(outPad) || (outputShape && !bounded(*outputShape)) ||
        groups < 1 || groups > (int64_t(1) << 40)) {
      c.error() << "output_padding, output_shape and group must be in [0, "
                   "2^40] (group >= 1)";
      return failure();
    }
    if (outputShape && outputShape->size() == n + 2)
      outputShape =
          SmallVector<int64_t>(outputShape->begin() + 2, outputShape->end());
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
        tensorOf(shape, elemOf(x)), x, w, c.input(2), i64Array(c, win->strides),
        i64Array(c, win->pads), i64Array(c, win->dilations),
        i64Array(c, outPad), c.b.getI64IntegerAttr(groups), noPostOps(c)));
    return success();
  };
  auto pool = [](PoolKind kind) {
    return [kind](NodeContext &c, SmallVectorImpl<Value> &out) {
      Value x = c.input(0);
      auto xt = typeOf(x);
      // MaxPool on i8/u8 (opset 12) or with its Indices output (opset 8)
      // runs opscope's own window scan (osc.indexed_max_pool); oneDNN's
      // pooling gives neither.
      bool integer = elemOf(x).isInteger(8);
      bool indexed = kind == PoolKind::max && (integer || c.outputUsed(1));
      if (!(indexed && integer) &&
          failed(requireFloat(c, x, "pooling input")))
        return failure();
      int64_t storageOrder = c.intAttr("storage_order", 0);
      if (indexed && storageOrder != 0 && storageOrder != 1) {
        c.error() << "storage_order must be 0 (row major) or 1 (column "
                     "major), got "
                  << storageOrder;
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
            xt.getDimSize(2 + i), win->kernel[i], win->strides[i], win->pads[i],
            win->pads[n + i], win->dilations[i], ceil));
      if (indexed) {
        auto yt = tensorOf(shape, elemOf(x));
        Type it = c.outputUsed(1) ? tensorOf(shape, c.b.getI64Type()) : Type();
        auto op = c.b.create<IndexedMaxPoolOp>(
            c.loc, yt, it, x, i64Array(c, win->kernel),
            i64Array(c, win->strides), i64Array(c, win->pads),
            i64Array(c, win->dilations), ceil ? c.b.getUnitAttr() : UnitAttr(),
            c.b.getI64IntegerAttr(storageOrder));
        out.push_back(op.getOutput());
        out.push_back(op.getIndices());
        return success();
      }
      bool countPad = c.intAttr("count_include_pad", 0);
      out.push_back(c.create<PoolOp>(
          tensorOf(shape, elemOf(x)), PoolKindAttr::get(c.b.getContext(), kind),
          x, i64Array(c, win->kernel), i64Array(c, win->strides),
          i64Array(c, win->pads), i64Array(c, win->dilations),
          ceil ? c.b.getUnitAttr() : UnitAttr(),
          countPad ? c.b.getUnitAttr() : UnitAttr(), /*nhwc=*/UnitAttr()));
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
      out.push_back(
          c.create<GlobalPoolOp>(tensorOf(shape, elemOf(x)), kind, x));
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
                                        c.b.getF32FloatAttr(epsilon), UnitAttr()));
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
          statType, ReduceKindAttr::get(c.b.getContext(), ReduceKind::mean), v,
          i64Array(c, axes), keep);
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
  // GroupNormalization (opset 18): each sample's channels in num_groups
  // groups, each group normalized over its channels and spatial positions
  // (osc.reduce mean and elementwise ops on an N x G x rest view), then
  // scaled and shifted: per group at opset 18, per channel from opset 21.
  m["GroupNormalization"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0), scale = c.input(1), bias = c.input(2);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    auto xt = typeOf(x);
    int64_t groups = c.intAttr("num_groups", 0);
    if (xt.getRank() < 2 || groups < 1 || xt.getDimSize(1) % groups) {
      c.error() << "num_groups " << groups << " must divide the channels of "
                << formatShape(xt.getShape()) << " (N x C x ...)";
      return failure();
    }
    int64_t n = xt.getDimSize(0), channels = xt.getDimSize(1);
    int64_t perGroup = xt.getNumElements() / std::max<int64_t>(1, n * groups);
    int64_t affine = c.opset >= 21 ? channels : groups;
    for (Value v : {scale, bias})
      if (typeOf(v).getNumElements() != affine || typeOf(v).getRank() != 1 ||
          elemOf(v) != elemOf(x)) {
        c.error() << "scale and bias must be " << affine << " elements of "
                  << elemOf(x) << " (one per "
                  << (c.opset >= 21 ? "channel" : "group") << " at opset "
                  << c.opset << "), got " << v.getType();
        return failure();
      }
    Value v = reshape(c, x, {n, groups, perGroup});
    auto statType = tensorOf({n, groups, 1}, elemOf(x));
    auto mean = [&](Value t) {
      return c.create<ReduceOp>(
          statType, ReduceKindAttr::get(c.b.getContext(), ReduceKind::mean), t,
          i64Array(c, {2}), c.b.getUnitAttr());
    };
    auto centered = binary(c, BinaryKind::sub, v, mean(v));
    if (failed(centered))
      return failure();
    auto squared = binary(c, BinaryKind::mul, *centered, *centered);
    if (failed(squared))
      return failure();
    auto var = binary(c, BinaryKind::add, mean(*squared),
                      splat(c, {}, elemOf(x), c.floatAttr("epsilon", 1e-5f)));
    if (failed(var))
      return failure();
    Value invStd =
        unary(c, UnaryKind::reciprocal, unary(c, UnaryKind::sqrt, *var));
    auto y = binary(c, BinaryKind::mul, *centered, invStd);
    if (failed(y))
      return failure();
    Value r = *y;
    // Scale and bias as a column per group (N x G x rest) or per channel
    // (N x C x spatial...).
    SmallVector<int64_t> affineShape;
    if (c.opset >= 21) {
      r = reshape(c, r, xt.getShape());
      affineShape.assign(xt.getRank() - 1, 1);
      affineShape[0] = channels;
    } else {
      affineShape = {groups, 1};
    }
    auto scaled = binary(c, BinaryKind::mul, r, reshape(c, scale, affineShape));
    if (failed(scaled))
      return failure();
    auto shifted =
        binary(c, BinaryKind::add, *scaled, reshape(c, bias, affineShape));
    if (failed(shifted))
      return failure();
    out.push_back(reshape(c, *shifted, xt.getShape()));
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
