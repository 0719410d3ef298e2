//===- ONNXConstants.cpp - Shape, Size, ConstantOfShape, Range ------------===//
//
// Part of opscope. Converters for the ops that shape
// sub-graphs are made of; with static shapes they fold to constants at
// import.
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;

/// Largest Range (in elements) folded into a constant at import.
static constexpr int64_t kRangeFoldBudget = int64_t(1) << 20;
using llvm::SmallVectorImpl;

void opscope::onnx_import::addConstantConverters(
    llvm::StringMap<Converter> &m) {
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
    if (llvm::any_of(*shape, [](int64_t d) { return d < 0; })) {
      c.error() << "shape " << formatShape(*shape)
                << " has a negative dimension";
      return failure();
    }
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
          decodeTensor(t, c.modelDirectory(), c.b.getContext(), err);
      if (!decoded || decoded.getNumElements() != 1) {
        c.error() << "value must be a one-element tensor"
                  << (err.empty() ? "" : ": ") << err;
        return failure();
      }
      value = decoded.getValues<Attribute>()[0];
    }
    // A splat stays a splat (one element, whatever the shape): the
    // importer's size check and the memory planner decide what it costs.
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
    // Folded into a constant at import, within a budget: opscope has no
    // run-time Range kernel, so a longer range is refused rather than
    // materialised element by element (2^24 took 26 s and 2.3 GB).
    double count = std::ceil(((*limit)[0] - (*start)[0]) / (*delta)[0]);
    if (!(count <= static_cast<double>(kRangeFoldBudget))) {
      auto diag = c.error() << "Range of ";
      if (std::isfinite(count) && std::fabs(count) < 1e18)
        diag << static_cast<int64_t>(count);
      else
        diag << count;
      diag << " elements is larger than the fold budget (" << kRangeFoldBudget
           << " elements), and opscope has no run-time Range kernel";
      return failure();
    }
    int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
    auto type = tensorOf({n}, elem);
    auto at = [&](int64_t i) { return (*start)[0] + i * (*delta)[0]; };
    std::vector<char> raw;
    auto fill = [&](auto zero) {
      using T = decltype(zero);
      raw.resize(n * sizeof(T));
      for (int64_t i = 0; i < n; ++i) {
        double x = at(i);
        T v;
        if constexpr (std::is_integral_v<T>) { // no UB at the type's edges
          using L = std::numeric_limits<T>;
          v = x >= static_cast<double>(L::max())   ? L::max()
              : x <= static_cast<double>(L::min()) ? L::min()
                                                   : static_cast<T>(x);
        } else {
          v = static_cast<T>(x);
        }
        std::memcpy(raw.data() + i * sizeof(T), &v, sizeof(T));
      }
    };
    if (elem.isF32())
      fill(float());
    else if (elem.isF64())
      fill(double());
    else if (elem.isInteger(64))
      fill(int64_t());
    else if (elem.isInteger(32))
      fill(int32_t());
    else if (elem.isInteger(16))
      fill(int16_t());
    else {
      c.error() << "Range of " << elem << " is not supported";
      return failure();
    }
    out.push_back(c.b.create<ConstantOp>(
        c.loc, DenseElementsAttr::getFromRawBuffer(type, raw)));
    return success();
  };
}
