//===- ONNXVision.cpp - per-image normalisation and sampling --------------===//
//
// Part of opscope. Converters for the image ops of vision and style-transfer
// models: InstanceNormalization, MeanVarianceNormalization, LRN, MaxUnpool,
// GridSample, RoiAlign.
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
using llvm::SmallVectorImpl;

void opscope::onnx_import::addVisionConverters(llvm::StringMap<Converter> &m) {
  // InstanceNormalization (opsets 1 and 6; 6 dropped consumed_inputs):
  // osc.instance_norm, one pass per sample's channel for its statistics
  // and one that writes, against the ten of a reduce/elementwise
  // composition.
  m["InstanceNormalization"] = [](NodeContext &c,
                                  SmallVectorImpl<Value> &out) {
    Value x = c.input(0), scale = c.input(1), bias = c.input(2);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    auto xt = typeOf(x);
    if (xt.getRank() < 3) {
      c.error() << "expects an N x C x D1 x ... input (rank 3 or more), got "
                << formatShape(xt.getShape());
      return failure();
    }
    for (Value v : {scale, bias})
      if (typeOf(v).getRank() != 1 ||
          typeOf(v).getDimSize(0) != xt.getDimSize(1) ||
          elemOf(v) != elemOf(x)) {
        c.error() << "scale and bias must be " << xt.getDimSize(1)
                  << " elements of " << elemOf(x)
                  << " (one per channel), got " << v.getType();
        return failure();
      }
    out.push_back(c.create<InstanceNormOp>(
        x.getType(), x, scale, bias,
        c.b.getF32FloatAttr(c.floatAttr("epsilon", 1e-5f))));
    return success();
  };
  // MeanVarianceNormalization (opsets 9, 13): y = (x - mean) / (std +
  // 1e-9) over `axes` (default N, H, W), lowered to osc.reduce and
  // elementwise ops. ONNX's function body takes the variance as
  // E[x^2] - E[x]^2; this takes E[(x - mean)^2], equal in exact arithmetic
  // and never negative (the body's form can round below zero and give NaN
  // for a constant slice). A rare op, left as a composition.
  m["MeanVarianceNormalization"] = [](NodeContext &c,
                                      SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    auto xt = typeOf(x);
    auto axes = c.normalizeAxes(
        c.intsAttr("axes").value_or(SmallVector<int64_t>{0, 2, 3}),
        xt.getRank());
    if (failed(axes))
      return failure();
    llvm::sort(*axes);
    SmallVector<int64_t> statShape(xt.getShape());
    for (int64_t a : *axes)
      statShape[a] = 1;
    auto mean = [&](Value v) {
      return c.create<ReduceOp>(
          tensorOf(statShape, elemOf(x)),
          ReduceKindAttr::get(c.b.getContext(), ReduceKind::mean), v,
          i64Array(c, *axes), c.b.getUnitAttr());
    };
    auto centered = binary(c, BinaryKind::sub, x, mean(x));
    if (failed(centered))
      return failure();
    auto squared = binary(c, BinaryKind::mul, *centered, *centered);
    if (failed(squared))
      return failure();
    auto dev = binary(c, BinaryKind::add,
                      unary(c, UnaryKind::sqrt, mean(*squared)),
                      splat(c, {}, elemOf(x), 1e-9));
    if (failed(dev))
      return failure();
    auto y = binary(c, BinaryKind::div, *centered, *dev);
    if (failed(y))
      return failure();
    out.push_back(*y);
    return success();
  };
  // LRN (opsets 1, 13): osc.lrn, the window's squares summed per channel
  // row and the power taken in the same pass.
  m["LRN"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    auto xt = typeOf(x);
    int64_t size = c.intAttr("size", 0);
    if (xt.getRank() < 2 || size < 1) {
      c.error() << "expects an N x C x ... input and a size of at least 1, "
                   "got "
                << formatShape(xt.getShape()) << " and size " << size;
      return failure();
    }
    out.push_back(c.create<LrnOp>(
        x.getType(), x, c.b.getF32FloatAttr(c.floatAttr("alpha", 1e-4f)),
        c.b.getF32FloatAttr(c.floatAttr("beta", 0.75f)),
        c.b.getF32FloatAttr(c.floatAttr("bias", 1.0f)),
        c.b.getI64IntegerAttr(size)));
    return success();
  };
  // MaxUnpool (opsets 9, 11): osc.max_unpool. The output's spatial sizes
  // are (in - 1) * stride + kernel - pad begin - pad end; a constant
  // `output_shape` input (opset 11) pads that with osc.pad.
  m["MaxUnpool"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0), indices = c.input(1);
    auto xt = typeOf(x);
    int64_t rank = xt.getRank(), spatial = rank - 2;
    if (rank < 3 || typeOf(indices).getShape() != xt.getShape() ||
        !elemOf(indices).isInteger(64)) {
      c.error() << "expects an N x C x spatial... input and i64 indices of "
                   "its shape, got "
                << formatShape(xt.getShape()) << " and " << indices.getType();
      return failure();
    }
    auto kernel = c.intsAttr("kernel_shape");
    auto strides =
        c.intsAttr("strides").value_or(SmallVector<int64_t>(spatial, 1));
    auto pads = c.intsAttr("pads").value_or(SmallVector<int64_t>(2 * spatial, 0));
    if (!kernel || static_cast<int64_t>(kernel->size()) != spatial ||
        static_cast<int64_t>(strides.size()) != spatial ||
        static_cast<int64_t>(pads.size()) != 2 * spatial) {
      c.error() << "kernel_shape and strides need " << spatial
                << " entries and pads " << 2 * spatial;
      return failure();
    }
    // The indices are flat positions in the shape ONNX's formula gives;
    // an `output_shape` at least as large extends it with zeros at the end
    // of each spatial dimension (ONNX's reference and backend tests).
    SmallVector<int64_t> shape(xt.getShape());
    for (int64_t i = 0; i < spatial; ++i) {
      shape[2 + i] = (xt.getDimSize(2 + i) - 1) * strides[i] + (*kernel)[i] -
                     pads[i] - pads[spatial + i];
      if (shape[2 + i] < 0) {
        c.error() << "pads leave spatial dimension " << i
                  << " a negative size";
        return failure();
      }
    }
    SmallVector<int64_t> target(shape);
    if (c.hasInput(2)) {
      auto given = c.requireConstInts(2, "output_shape");
      if (failed(given))
        return failure();
      bool fits = static_cast<int64_t>(given->size()) == rank;
      for (int64_t d = 0; fits && d < rank; ++d)
        fits = d < 2 ? (*given)[d] == shape[d] : (*given)[d] >= shape[d];
      if (!fits) {
        c.error() << "output_shape " << formatShape(*given)
                  << " must keep the input's N and C and be at least the "
                     "unpooled shape "
                  << formatShape(shape);
        return failure();
      }
      target = *given;
    }
    Value y = c.create<MaxUnpoolOp>(tensorOf(shape, elemOf(x)), x, indices);
    if (target != shape) {
      SmallVector<int64_t> padding(2 * rank, 0);
      for (int64_t d = 0; d < rank; ++d)
        padding[rank + d] = target[d] - shape[d];
      y = c.create<PadOp>(tensorOf(target, elemOf(x)),
                          PadModeAttr::get(c.b.getContext(), PadMode::constant),
                          y, i64Array(c, padding), c.b.getF32FloatAttr(0.0f));
    }
    out.push_back(y);
    return success();
  };
  // GridSample: opset 16's 4-D form (modes bilinear, nearest, bicubic)
  // and opset 20's N-D one (linear, nearest, cubic) onto osc.grid_sample.
  m["GridSample"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0), grid = c.input(1);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    auto xt = typeOf(x), gt = typeOf(grid);
    int64_t k = xt.getRank() - 2;
    bool nd = c.opset >= 20;
    if (k < 1 || (!nd && k != 2) || gt.getRank() != k + 2 ||
        gt.getDimSize(0) != xt.getDimSize(0) || gt.getDimSize(k + 1) != k ||
        elemOf(grid) != elemOf(x)) {
      c.error() << "expects an N x C x " << (nd ? "D1 x ... x Dk" : "H x W")
                << " input and an N x " << (nd ? "O1 x ... x Ok x k" : "Ho x Wo x 2")
                << " grid of its type (opset " << c.opset << "), got "
                << x.getType() << " and " << grid.getType();
      return failure();
    }
    std::string modeName = c.stringAttr("mode", nd ? "linear" : "bilinear");
    ResizeMode mode;
    if (modeName == (nd ? "linear" : "bilinear"))
      mode = ResizeMode::linear;
    else if (modeName == "nearest")
      mode = ResizeMode::nearest;
    else if (modeName == (nd ? "cubic" : "bicubic"))
      mode = ResizeMode::cubic;
    else {
      c.error() << "unknown mode '" << modeName << "' (opset " << c.opset
                << (nd ? ": linear, nearest, cubic)" : ": bilinear, nearest, bicubic)");
      return failure();
    }
    std::string padName = c.stringAttr("padding_mode", "zeros");
    PadMode pad;
    if (padName == "zeros")
      pad = PadMode::constant;
    else if (padName == "border")
      pad = PadMode::edge;
    else if (padName == "reflection")
      pad = PadMode::reflect;
    else {
      c.error() << "unknown padding_mode '" << padName
                << "' (zeros, border, reflection)";
      return failure();
    }
    SmallVector<int64_t> shape{xt.getDimSize(0), xt.getDimSize(1)};
    for (int64_t d = 1; d <= k; ++d)
      shape.push_back(gt.getDimSize(d));
    out.push_back(c.create<GridSampleOp>(
        tensorOf(shape, elemOf(x)),
        ResizeModeAttr::get(c.b.getContext(), mode),
        PadModeAttr::get(c.b.getContext(), pad), x, grid,
        c.intAttr("align_corners", 0) ? c.b.getUnitAttr() : UnitAttr()));
    return success();
  };
  // RoiAlign (opsets 10 and 16): osc.roi_align. Opset 10 has no
  // coordinate_transformation_mode; its behaviour is output_half_pixel's.
  m["RoiAlign"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0), rois = c.input(1), idx = c.input(2);
    if (failed(requireFloat(c, x, "input")))
      return failure();
    auto xt = typeOf(x), rt = typeOf(rois), it = typeOf(idx);
    if (xt.getRank() != 4 || rt.getRank() != 2 || rt.getDimSize(1) != 4 ||
        it.getRank() != 1 || it.getDimSize(0) != rt.getDimSize(0) ||
        !elemOf(idx).isInteger(64) || elemOf(rois) != elemOf(x)) {
      c.error() << "expects an N x C x H x W input, R x 4 rois of its type "
                   "and R int64 batch indices, got "
                << x.getType() << ", " << rois.getType() << " and "
                << idx.getType();
      return failure();
    }
    std::string modeName = c.stringAttr("mode", "avg");
    std::string ctm = c.stringAttr(
        "coordinate_transformation_mode",
        c.opset >= 16 ? "half_pixel" : "output_half_pixel");
    if ((modeName != "avg" && modeName != "max") ||
        (ctm != "half_pixel" && ctm != "output_half_pixel")) {
      c.error() << "mode must be avg or max and "
                   "coordinate_transformation_mode half_pixel or "
                   "output_half_pixel, got '"
                << modeName << "' and '" << ctm << "'";
      return failure();
    }
    int64_t oh = c.intAttr("output_height", 1), ow = c.intAttr("output_width", 1);
    int64_t ratio = c.intAttr("sampling_ratio", 0);
    if (oh < 1 || ow < 1 || ratio < 0) {
      c.error() << "output_height and output_width must be positive and "
                   "sampling_ratio not negative, got "
                << oh << ", " << ow << " and " << ratio;
      return failure();
    }
    out.push_back(c.create<RoiAlignOp>(
        tensorOf({rt.getDimSize(0), xt.getDimSize(1), oh, ow}, elemOf(x)), x,
        rois, idx, modeName == "max" ? c.b.getUnitAttr() : UnitAttr(),
        ctm == "half_pixel" ? c.b.getUnitAttr() : UnitAttr(),
        c.b.getI64IntegerAttr(ratio),
        c.b.getF32FloatAttr(c.floatAttr("spatial_scale", 1.0f))));
    return success();
  };
}
