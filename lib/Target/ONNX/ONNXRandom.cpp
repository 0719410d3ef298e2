//===- ONNXRandom.cpp - random draws --------------------------------------===//
//
// Part of opscope. Converters for RandomUniform, RandomNormal (opset 1),
// their *Like forms (opset 1) and Bernoulli (opset 15) onto the ops of
// OscRandomOps.td. None changed up to opset 21. A *Like input gives only
// the shape (and, without `dtype`, the element type); its values are not
// read, so the op takes no operand. float16 draws are f32 ones, as every
// f16 value is inside a graph (docs/precision.md).
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

#include <cmath>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
using llvm::SmallVectorImpl;

namespace {
/// The `seed` attribute, or null (each run then draws afresh).
FailureOr<FloatAttr> seedAttr(NodeContext &c) {
  if (!c.attr("seed"))
    return FloatAttr();
  float seed = c.floatAttr("seed", 0);
  if (!std::isfinite(seed)) {
    c.error() << "seed must be finite, got " << seed;
    return failure();
  }
  return c.b.getF32FloatAttr(seed);
}

/// The element type of a draw: `dtype` when given, else `like`'s (the
/// *Like input's; null for RandomUniform and RandomNormal, whose default is
/// FLOAT). Only float16, float and double are draws.
FailureOr<Type> drawType(NodeContext &c, Type like) {
  Type elem = like;
  std::string name = "the input's type";
  if (const auto *dt = c.attr("dtype")) {
    auto t = static_cast<int32_t>(dt->i());
    elem = elementTypeFor(t, c.b.getContext());
    name = "dtype " + onnxTypeName(t);
  } else if (!like) {
    elem = c.b.getF32Type();
  }
  if (!elem || !(elem.isF32() || elem.isF64())) {
    c.error() << name
              << " is not a type it draws (float16, float or double)";
    return failure();
  }
  return elem;
}

/// The result type: the `shape` attribute's (RandomUniform, RandomNormal)
/// or the input's (the *Like forms).
FailureOr<RankedTensorType> drawResultType(NodeContext &c, bool like) {
  if (like) {
    auto xt = c.inputType(0);
    auto elem = drawType(c, xt.getElementType());
    if (failed(elem))
      return failure();
    return tensorOf(xt.getShape(), *elem);
  }
  auto shape = c.intsAttr("shape");
  if (!shape) {
    c.error() << "needs a 'shape' attribute";
    return failure();
  }
  for (int64_t d : *shape)
    if (d < 0) {
      c.error() << "shape " << formatShape(*shape)
                << " has a negative dimension";
      return failure();
    }
  auto elem = drawType(c, Type());
  if (failed(elem))
    return failure();
  return tensorOf(*shape, *elem);
}

LogicalResult uniform(NodeContext &c, SmallVectorImpl<Value> &out, bool like) {
  auto type = drawResultType(c, like);
  auto seed = seedAttr(c);
  if (failed(type) || failed(seed))
    return failure();
  float low = c.floatAttr("low", 0), high = c.floatAttr("high", 1);
  if (!std::isfinite(low) || !std::isfinite(high) || low > high) {
    c.error() << "needs finite low <= high, got low " << low << " and high "
              << high;
    return failure();
  }
  out.push_back(c.b.create<RandomUniformOp>(
      c.loc, *type, c.b.getF32FloatAttr(low), c.b.getF32FloatAttr(high),
      *seed));
  return success();
}

LogicalResult normal(NodeContext &c, SmallVectorImpl<Value> &out, bool like) {
  auto type = drawResultType(c, like);
  auto seed = seedAttr(c);
  if (failed(type) || failed(seed))
    return failure();
  float mean = c.floatAttr("mean", 0), scale = c.floatAttr("scale", 1);
  if (!std::isfinite(mean) || !std::isfinite(scale) || scale < 0) {
    c.error() << "needs a finite mean and a finite scale >= 0, got mean "
              << mean << " and scale " << scale;
    return failure();
  }
  out.push_back(c.b.create<RandomNormalOp>(
      c.loc, *type, c.b.getF32FloatAttr(mean), c.b.getF32FloatAttr(scale),
      *seed));
  return success();
}
} // namespace

void opscope::onnx_import::addRandomConverters(llvm::StringMap<Converter> &m) {
  // RandomUniform-1, RandomUniformLike-1.
  m["RandomUniform"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    return uniform(c, out, /*like=*/false);
  };
  m["RandomUniformLike"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    return uniform(c, out, /*like=*/true);
  };
  // RandomNormal-1, RandomNormalLike-1.
  m["RandomNormal"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    return normal(c, out, /*like=*/false);
  };
  m["RandomNormalLike"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    return normal(c, out, /*like=*/true);
  };
  // Bernoulli-15: the result's type is `dtype`, else the input's.
  m["Bernoulli"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value p = c.input(0);
    auto pt = typeOf(p);
    if (!(pt.getElementType().isF32() || pt.getElementType().isF64())) {
      c.error() << "input must be float16, float or double, got "
                << pt.getElementType();
      return failure();
    }
    Type elem = pt.getElementType();
    if (const auto *dt = c.attr("dtype")) {
      auto t = static_cast<int32_t>(dt->i());
      elem = elementTypeFor(t, c.b.getContext());
      if (!elem) {
        c.error() << "dtype " << onnxTypeName(t) << " is not supported";
        return failure();
      }
    }
    auto seed = seedAttr(c);
    if (failed(seed))
      return failure();
    out.push_back(c.b.create<BernoulliOp>(c.loc, tensorOf(pt.getShape(), elem),
                                          p, *seed));
    return success();
  };
}
