//===- ONNXConstants.cpp - Shape, Size, ConstantOfShape, Range ------------===//
//
// Part of opscope. Converters for the ops that shape
// sub-graphs are made of; with static shapes they fold to constants at
// import.
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
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
