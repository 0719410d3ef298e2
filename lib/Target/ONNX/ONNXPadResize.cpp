//===- ONNXPadResize.cpp - Pad, Resize, Upsample --------------------------===//
//
// Part of opscope. Converters for Pad (constant, reflect,
// edge) and Resize/Upsample (every ONNX coordinate and rounding mode osc
// supports).
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

void opscope::onnx_import::addPadResizeConverters(
    llvm::StringMap<Converter> &m) {
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
    // No pad can make a tensor larger than any limit allows (2^40
    // elements along one dimension): beyond that the sums below would
    // overflow int64.
    for (int64_t p : pads)
      if (p > (int64_t(1) << 40) || p < -(int64_t(1) << 40)) {
        c.error() << "pad " << p << " is out of range";
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
          double size = std::floor(xt.getDimSize(d) * (*scales)[d]);
          // Checked before converting: a huge or NaN scale is undefined
          // behaviour to cast (the size limit then applies to the result).
          if (!(size >= 0 && size < 9.2e18)) {
            c.error() << "scale " << (*scales)[d] << " of dimension " << d
                      << " gives an output size out of range";
            return failure();
          }
          shape.push_back(static_cast<int64_t>(size));
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
          tensorOf(shape, elemOf(x)),
          ResizeModeAttr::get(c.b.getContext(), *mode),
          CoordinateTransformAttr::get(c.b.getContext(), *ctm),
          NearestModeAttr::get(c.b.getContext(), *nm), x,
          c.b.getF32FloatAttr(c.floatAttr("cubic_coeff_a", -0.75f)),
          c.intAttr("exclude_outside", 0) ? c.b.getUnitAttr() : UnitAttr(),
          scaleAttr.empty() ? DenseF32ArrayAttr()
                            : c.b.getDenseF32ArrayAttr(scaleAttr),
          /*nhwc=*/UnitAttr()));
      return success();
    };
  };
  m["Resize"] = resize(false);
  m["Upsample"] = resize(true);
}
