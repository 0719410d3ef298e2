//===- ONNXReductions.cpp - Reduce* ONNX ops ------------------------------===//
//
// Part of opscope. Converters for ReduceMean/Sum/Max/Min/Prod/
// SumSquare/L2 onto osc.reduce, axes from the attribute or, from the opset
// that moved them (13 for ReduceSum, 18 for the others), a constant input;
// ReduceL1, ReduceLogSum and ReduceLogSumExp as compositions of osc.reduce
// with elementwise ops. ReduceMax and ReduceMin of booleans (opset 20) are
// reduced as 0/1 bytes.
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
using llvm::SmallVectorImpl;

namespace {
/// A reduction's axes (sorted, normalized) and result shape, or the input
/// itself when noop_with_empty_axes leaves nothing to reduce.
struct Reduction {
  SmallVector<int64_t> axes, shape, keptShape;
  bool keep = true, noop = false;
};

/// `axesSince`: the opset from which the op takes its axes as an input.
FailureOr<Reduction> readReduction(NodeContext &c, int64_t axesSince) {
  auto xt = typeOf(c.input(0));
  Reduction r;
  if (c.opset >= axesSince) {
    if (c.hasInput(1)) {
      auto v = c.requireConstInts(1, "axes");
      if (failed(v))
        return failure();
      r.axes = *v;
    }
  } else if (auto a = c.intsAttr("axes")) {
    r.axes = *a;
  }
  if (r.axes.empty()) {
    if (c.intAttr("noop_with_empty_axes", 0)) {
      r.noop = true;
      return r;
    }
    for (int64_t d = 0; d < xt.getRank(); ++d)
      r.axes.push_back(d);
  }
  for (int64_t &a : r.axes) {
    auto n = c.normalizeAxis(a, xt.getRank(), "reduction axis");
    if (failed(n))
      return failure();
    a = *n;
  }
  llvm::sort(r.axes);
  r.axes.erase(std::unique(r.axes.begin(), r.axes.end()), r.axes.end());
  r.keep = c.intAttr("keepdims", 1);
  for (int64_t d = 0; d < xt.getRank(); ++d) {
    bool reduced = llvm::is_contained(r.axes, d);
    r.keptShape.push_back(reduced ? 1 : xt.getDimSize(d));
    if (!reduced)
      r.shape.push_back(xt.getDimSize(d));
    else if (r.keep)
      r.shape.push_back(1);
  }
  return r;
}

Value reduce(NodeContext &c, ReduceKind kind, Value x, const Reduction &r,
             bool keep) {
  return c.create<ReduceOp>(
      tensorOf(keep ? ArrayRef<int64_t>(r.keptShape) : ArrayRef<int64_t>(r.shape),
               elemOf(x)),
      ReduceKindAttr::get(c.b.getContext(), kind), x, i64Array(c, r.axes),
      keep ? c.b.getUnitAttr() : UnitAttr());
}
} // namespace

void opscope::onnx_import::addReductionConverters(
    llvm::StringMap<Converter> &m) {
  static const std::pair<const char *, ReduceKind> reductions[] = {
      {"ReduceMean", ReduceKind::mean},
      {"ReduceSum", ReduceKind::sum},
      {"ReduceMax", ReduceKind::max},
      {"ReduceMin", ReduceKind::min},
      {"ReduceProd", ReduceKind::prod},
      {"ReduceSumSquare", ReduceKind::sum_square},
      {"ReduceL2", ReduceKind::l2}};
  for (auto [name, kind] : reductions)
    m[name] = [kind = kind, axesSince = StringRef(name) == "ReduceSum" ? 13 : 18](
                  NodeContext &c, SmallVectorImpl<Value> &out) {
      auto r = readReduction(c, axesSince);
      if (failed(r))
        return failure();
      Value x = c.input(0);
      if (r->noop) {
        out.push_back(x);
        return success();
      }
      // Booleans (ReduceMax/ReduceMin, opset 20): any/all as the maximum
      // or minimum of 0/1 bytes, unsigned so that an empty reduction starts
      // from False for max (0) and True for min (255), as the spec has it.
      if (elemOf(x).isInteger(1)) {
        if (kind != ReduceKind::max && kind != ReduceKind::min) {
          c.error() << "cannot reduce booleans";
          return failure();
        }
        Type u8 = IntegerType::get(c.b.getContext(), 8, IntegerType::Unsigned);
        Value bytes = c.create<CastOp>(tensorOf(typeOf(x).getShape(), u8), x);
        Value y = reduce(c, kind, bytes, *r, r->keep);
        out.push_back(c.create<CastOp>(
            tensorOf(typeOf(y).getShape(), elemOf(x)), y));
        return success();
      }
      out.push_back(reduce(c, kind, x, *r, r->keep));
      return success();
    };
  // sum |x|, log sum x, and log sum exp x (with the maximum subtracted
  // first, as ONNX Runtime does, so large inputs do not overflow).
  m["ReduceL1"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    auto r = readReduction(c, 18);
    if (failed(r))
      return failure();
    Value x = c.input(0);
    out.push_back(r->noop ? x
                          : reduce(c, ReduceKind::sum,
                                   unary(c, UnaryKind::abs, x), *r, r->keep));
    return success();
  };
  m["ReduceLogSum"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    auto r = readReduction(c, 18);
    if (failed(r) || failed(requireFloat(c, c.input(0), "input")))
      return failure();
    Value x = c.input(0);
    out.push_back(r->noop ? unary(c, UnaryKind::log, x)
                          : unary(c, UnaryKind::log,
                                  reduce(c, ReduceKind::sum, x, *r, r->keep)));
    return success();
  };
  m["ReduceLogSumExp"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    auto r = readReduction(c, 18);
    if (failed(r) || failed(requireFloat(c, c.input(0), "input")))
      return failure();
    Value x = c.input(0);
    if (r->noop) {
      out.push_back(x);
      return success();
    }
    Value mx = reduce(c, ReduceKind::max, x, *r, /*keep=*/true);
    auto shifted = binary(c, BinaryKind::sub, x, mx);
    if (failed(shifted))
      return failure();
    Value sum = reduce(c, ReduceKind::sum, unary(c, UnaryKind::exp, *shifted),
                       *r, /*keep=*/true);
    auto lse = binary(c, BinaryKind::add, unary(c, UnaryKind::log, sum), mx);
    if (failed(lse))
      return failure();
    out.push_back(r->keep ? *lse : reshape(c, *lse, r->shape));
    return success();
  };
  // ArgMax / ArgMin onto osc.arg_reduce.
  for (bool min : {false, true})
    m[min ? "ArgMin" : "ArgMax"] = [min](NodeContext &c,
                                         SmallVectorImpl<Value> &out) {
      Value x = c.input(0);
      auto xt = typeOf(x);
      auto axis = c.normalizeAxis(c.intAttr("axis", 0), xt.getRank());
      if (failed(axis))
        return failure();
      if (xt.getDimSize(*axis) == 0) {
        c.error() << "cannot take an index along empty axis " << *axis;
        return failure();
      }
      bool keep = c.intAttr("keepdims", 1) != 0;
      SmallVector<int64_t> shape;
      for (int64_t d = 0; d < xt.getRank(); ++d)
        if (d != *axis)
          shape.push_back(xt.getDimSize(d));
        else if (keep)
          shape.push_back(1);
      out.push_back(c.create<ArgReduceOp>(
          tensorOf(shape, c.b.getI64Type()), x, c.b.getI64IntegerAttr(*axis),
          keep ? c.b.getUnitAttr() : UnitAttr(),
          min ? c.b.getUnitAttr() : UnitAttr(),
          c.intAttr("select_last_index", 0) ? c.b.getUnitAttr() : UnitAttr()));
      return success();
    };
  // Hardmax: 1 at the first maximum along the axis, 0 elsewhere (before
  // opset 13 over the input coerced to 2-D at the axis).
  m["Hardmax"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    auto xt = typeOf(x);
    auto axis = c.normalizeAxis(c.intAttr("axis", c.opset < 13 ? 1 : -1),
                                xt.getRank());
    if (failed(axis))
      return failure();
    Value v = x;
    int64_t ax = *axis;
    if (c.opset < 13) {
      int64_t rows = 1, cols = 1;
      for (int64_t d = 0; d < xt.getRank(); ++d)
        (d < ax ? rows : cols) *= xt.getDimSize(d);
      v = reshape(c, x, {rows, cols});
      ax = 1;
    }
    auto vt = typeOf(v);
    if (vt.getDimSize(ax) == 0) {
      out.push_back(x);
      return success();
    }
    SmallVector<int64_t> kept(vt.getShape()), classShape(vt.getRank(), 1);
    kept[ax] = 1;
    classShape[ax] = vt.getDimSize(ax);
    Value arg = c.create<ArgReduceOp>(tensorOf(kept, c.b.getI64Type()), v,
                                      c.b.getI64IntegerAttr(ax),
                                      c.b.getUnitAttr(), UnitAttr(), UnitAttr());
    Value hot = c.create<CompareOp>(tensorOf(vt.getShape(), c.b.getI1Type()),
                                    CompareKind::eq, arg,
                                    iota(c, classShape, c.b.getI64Type()));
    Value y = c.create<CastOp>(vt, hot);
    out.push_back(c.opset < 13 ? reshape(c, y, xt.getShape()) : y);
    return success();
  };
}
