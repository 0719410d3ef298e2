//===- ONNXReductions.cpp - Reduce* ONNX ops ------------------------------===//
//
// Part of opscope. Converters for ReduceMean/Sum/Max/Min/Prod/
// SumSquare onto osc.reduce, axes from the attribute or (opset 18 style)
// a constant input.
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
using llvm::SmallVectorImpl;

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
      out.push_back(c.create<ReduceOp>(
          tensorOf(shape, elemOf(x)),
          ReduceKindAttr::get(c.b.getContext(), kind), x, i64Array(c, axes),
          keep ? c.b.getUnitAttr() : UnitAttr()));
      return success();
    };
}
