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

/// The dimensions a Resize's scales, sizes and roi give: its `axes` from
/// opset 18 (normalized), else every dimension.
static FailureOr<SmallVector<int64_t>> resizeAxes(NodeContext &c,
                                                  int64_t rank) {
  if (auto a = c.intsAttr("axes"); a && c.opset >= 18)
    return c.normalizeAxes(*a, rank, "resize axis");
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < rank; ++d)
    all.push_back(d);
  return all;
}

/// Resize from opset 18: `axes` names the dimensions scales or sizes give
/// (the others keep their size), and keep_aspect_ratio_policy turns sizes
/// into one scale for those axes, the smallest (not_larger) or the largest
/// (not_smaller) of size / input, each size then input x scale rounded.
/// On return scales and sizes have one entry per dimension; `scaleAttr` is
/// the policy's scales (the coordinate mapping uses them).
static LogicalResult
readResize18(NodeContext &c, int64_t rank,
             std::optional<SmallVector<double>> &scales,
             std::optional<SmallVector<int64_t>> &sizes,
             SmallVector<float> &scaleAttr) {
  auto xt = typeOf(c.input(0));
  FailureOr<SmallVector<int64_t>> axesOr = resizeAxes(c, rank);
  if (failed(axesOr))
    return failure();
  SmallVector<int64_t> axes = std::move(*axesOr);
  auto expand = [&](auto &given, auto fill, StringRef what) -> LogicalResult {
    if (!given)
      return success();
    if (given->size() != axes.size()) {
      c.error() << what << " has " << given->size() << " entries; axes names "
                << axes.size() << " dimensions";
      return failure();
    }
    auto full = *given;
    full.clear();
    for (int64_t d = 0; d < rank; ++d)
      full.push_back(fill(d));
    for (auto [i, d] : llvm::enumerate(axes))
      full[d] = (*given)[i];
    *given = full;
    return success();
  };
  if (failed(expand(scales, [](int64_t) { return 1.0; }, "scales")) ||
      failed(expand(sizes, [&](int64_t d) { return xt.getDimSize(d); },
                    "sizes")))
    return failure();
  std::string policy = c.stringAttr("keep_aspect_ratio_policy", "stretch");
  if (!sizes || policy == "stretch")
    return success();
  if (policy != "not_larger" && policy != "not_smaller") {
    c.error() << "keep_aspect_ratio_policy '" << policy
              << "' is not one of stretch, not_larger, not_smaller";
    return failure();
  }
  double scale = policy == "not_larger" ? HUGE_VAL : 0.0;
  for (int64_t d : axes) {
    if (xt.getDimSize(d) == 0) {
      c.error() << "cannot keep the aspect ratio of an empty dimension " << d;
      return failure();
    }
    double r = static_cast<double>((*sizes)[d]) / xt.getDimSize(d);
    scale = policy == "not_larger" ? std::min(scale, r) : std::max(scale, r);
  }
  scaleAttr.assign(rank, 1.0f);
  for (int64_t d : axes) {
    (*sizes)[d] = static_cast<int64_t>(std::round(scale * xt.getDimSize(d)));
    scaleAttr[d] = static_cast<float>(scale);
  }
  return success();
}

/// The roi of a tf_crop_and_resize (input 1, opsets 11 on): starts, then
/// ends, one per dimension, or from opset 18 one per entry of `axes` (the
/// others keep the whole dimension, 0 to 1). It must be a constant.
static LogicalResult readResizeRoi(NodeContext &c, int64_t rank,
                                   std::optional<SmallVector<float>> &roi) {
  auto given = c.hasInput(1) ? c.constFloats(1) : std::nullopt;
  if (!given) {
    c.error() << "tf_crop_and_resize needs a constant roi (input 1"
              << (c.hasInput(1) ? ", '" + c.node.input(1) + "'" : "")
              << "); give its value with --freeze-input if it is a graph "
                 "input";
    return failure();
  }
  FailureOr<SmallVector<int64_t>> axesOr = resizeAxes(c, rank);
  if (failed(axesOr))
    return failure();
  SmallVector<int64_t> axes = std::move(*axesOr);
  size_t n = axes.size();
  if (given->size() != 2 * n) {
    c.error() << "roi has " << given->size() << " entries, expected " << 2 * n
              << " (starts, then ends, of " << n << " dimensions)";
    return failure();
  }
  roi = SmallVector<float>(rank, 0.0f);
  roi->append(rank, 1.0f);
  for (auto [i, d] : llvm::enumerate(axes)) {
    (*roi)[d] = static_cast<float>((*given)[i]);
    (*roi)[rank + d] = static_cast<float>((*given)[n + i]);
  }
  for (float v : *roi)
    if (!std::isfinite(v)) {
      c.error() << "roi entries must be finite";
      return failure();
    }
  return success();
}

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
    // Opset 18: pads name only the dimensions of `axes` (begin pads, then
    // end pads, in the axes' order); the others are not padded.
    if (c.opset >= 18 && c.hasInput(3)) {
      auto axes = c.requireConstInts(3, "axes");
      if (failed(axes))
        return failure();
      if (pads.size() != 2 * axes->size()) {
        c.error() << "pads has " << pads.size() << " entries, expected "
                  << 2 * axes->size() << " (two per entry of axes)";
        return failure();
      }
      auto dims = c.normalizeAxes(*axes, rank, "pad axis");
      if (failed(dims))
        return failure();
      SmallVector<int64_t> full(2 * rank, 0);
      for (auto [i, d] : llvm::enumerate(*dims)) {
        full[d] = pads[i];
        full[rank + d] = pads[dims->size() + i];
      }
      pads = full;
    }
    if (pads.size() != static_cast<size_t>(2 * rank)) {
      c.error() << "pads has " << pads.size() << " entries, expected "
                << 2 * rank;
      return failure();
    }
    std::string modeName = c.stringAttr("mode", "constant");
    // Opset 19's `wrap` (circular padding) is written as slices and concats.
    bool wrap = modeName == "wrap" && c.opset >= 19;
    auto mode = wrap ? PadMode::constant : symbolizePadMode(modeName);
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
    if (wrap) {
      // Each padded dimension: its last `begin` rows, the rows, its first
      // `end` rows.
      for (int64_t d = 0; d < rank; ++d) {
        auto xt = typeOf(x);
        int64_t size = xt.getDimSize(d), begin = pads[d], end = pads[rank + d];
        if (!begin && !end)
          continue;
        if (begin > size || end > size) {
          c.error() << "wrap pads " << begin << " and " << end
                    << " of dimension " << d << " exceed its size " << size;
          return failure();
        }
        auto part = [&](int64_t start, int64_t len) {
          SmallVector<int64_t> starts(rank, 0), sizes(xt.getShape()),
              steps(rank, 1);
          starts[d] = start;
          sizes[d] = len;
          return c.create<SliceOp>(tensorOf(sizes, elemOf(x)), x,
                                   i64Array(c, starts), i64Array(c, sizes),
                                   i64Array(c, steps));
        };
        SmallVector<Value> parts;
        if (begin)
          parts.push_back(part(size - begin, begin));
        parts.push_back(x);
        if (end)
          parts.push_back(part(0, end));
        SmallVector<int64_t> shape(xt.getShape());
        shape[d] += begin + end;
        x = c.create<ConcatOp>(tensorOf(shape, elemOf(x)), parts,
                               c.b.getI64IntegerAttr(d), /*nhwc=*/UnitAttr());
      }
      out.push_back(x);
      return success();
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
      if (!upsample && c.opset >= 18 &&
          failed(readResize18(c, rank, scales, sizes, scaleAttr)))
        return failure();
      std::string ctmName = c.stringAttr(
          "coordinate_transformation_mode",
          upsample || c.opset < 11 ? "asymmetric" : "half_pixel");
      std::optional<SmallVector<float>> roi;
      if (ctmName == "tf_crop_and_resize" && !upsample && c.opset >= 11 &&
          failed(readResizeRoi(c, rank, roi)))
        return failure();

      if (sizes && static_cast<int64_t>(sizes->size()) == rank) {
        shape = *sizes;
      } else if (scales && static_cast<int64_t>(scales->size()) == rank) {
        for (int64_t d = 0; d < rank; ++d) {
          // A crop's too: input x scale, as ONNX Runtime and ONNX's
          // reference compute it (the operator text scales the roi's
          // share of the input instead).
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
      auto ctm = symbolizeCoordinateTransform(ctmName);
      std::string nmName = c.stringAttr(
          "nearest_mode",
          upsample || c.opset < 11 ? "floor" : "round_prefer_floor");
      auto nm = symbolizeNearestMode(nmName);
      if (!mode || !ctm || !nm ||
          (*ctm == CoordinateTransform::tf_crop_and_resize && !roi)) {
        c.error() << "unsupported resize configuration (mode '" << modeName
                  << "', coordinate_transformation_mode '" << ctmName
                  << "', nearest_mode '" << nmName << "')";
        return failure();
      }
      // Opset 18's antialias widens the linear and cubic filters when
      // downscaling; the runtime's resize has no such filter. Where it
      // changes nothing (nearest, or no dimension shrinks) it is accepted.
      if (!upsample && c.opset >= 18 && c.intAttr("antialias", 0) &&
          *mode != ResizeMode::nearest) {
        for (int64_t d = 0; d < rank; ++d) {
          bool shrinks = scaleAttr.empty() ? shape[d] < xt.getDimSize(d)
                                           : scaleAttr[d] < 1.0f;
          if (shrinks) {
            c.error() << "antialias=1 with mode '" << modeName
                      << "' downscales dimension " << d << " ("
                      << xt.getDimSize(d) << " -> " << shape[d]
                      << "), which opscope cannot compute (model opset "
                      << c.opset << "); export with antialias=0";
            return failure();
          }
        }
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
          /*nhwc=*/UnitAttr(),
          roi ? c.b.getDenseF32ArrayAttr(*roi) : DenseF32ArrayAttr(),
          c.b.getF32FloatAttr(c.floatAttr("extrapolation_value", 0.0f))));
      return success();
    };
  };
  m["Resize"] = resize(false);
  m["Upsample"] = resize(true);
}
