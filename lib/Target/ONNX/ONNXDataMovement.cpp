//===- ONNXDataMovement.cpp - reshapes, transposes, slices ----------------===//
//
// Part of opscope. Converters for the ONNX ops that move
// data without computing: Identity, Dropout (inference), Reshape, Flatten,
// Squeeze, Unsqueeze, Transpose, Concat, Split, Slice, Gather, Expand.
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

#include "llvm/Support/MathExtras.h"

#include <limits>
#include <numeric>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
using llvm::SmallVectorImpl;

/// `v` before any reshapes (Unsqueeze, Squeeze and Reshape import as
/// osc.reshape, which keeps the values).
static Value peelReshapes(Value v) {
  while (auto r = v.getDefiningOp<ReshapeOp>())
    v = r.getInput();
  return v;
}

/// The integer `v` holds when it is a one-element constant.
static std::optional<int64_t> oneConstInt(Value v) {
  auto k = peelReshapes(v).getDefiningOp<ConstantOp>();
  auto a = k ? dyn_cast<DenseIntElementsAttr>(k.getValue()) : nullptr;
  if (!a || a.getNumElements() != 1)
    return std::nullopt;
  return (*a.begin()).getSExtValue();
}

/// Slice(x, s, s + k) along one axis, step 1, with a run-time start s and a
/// constant k: a Loop body's rows at its iteration number. Its extent k is
/// static, so it is a gather of s + [0, k) along the axis. ONNX clamps an
/// end past the axis and returns fewer rows, which a static shape cannot:
/// here such an index is a run-time error (gather's range check). None
/// when the slice is not of that form (the caller reports the inputs that
/// must be constant).
static std::optional<Value> offsetSlice(NodeContext &c) {
  Value x = c.input(0), s = c.input(1), e = c.input(2);
  if (typeOf(s).getNumElements() != 1 || typeOf(e).getNumElements() != 1)
    return std::nullopt;
  int64_t axis = 0, rank = typeOf(x).getRank();
  if (c.hasInput(3)) {
    auto a = c.constInts(3);
    if (!a || a->size() != 1)
      return std::nullopt;
    axis = (*a)[0] < 0 ? (*a)[0] + rank : (*a)[0];
  }
  if (c.hasInput(4)) {
    auto st = c.constInts(4);
    if (!st || st->size() != 1 || (*st)[0] != 1)
      return std::nullopt;
  }
  if (axis < 0 || axis >= rank)
    return std::nullopt;
  auto add = peelReshapes(e).getDefiningOp<BinaryOp>();
  if (!add || add.getKind() != BinaryKind::add)
    return std::nullopt;
  Value base = peelReshapes(s);
  std::optional<int64_t> k;
  if (peelReshapes(add.getLhs()) == base)
    k = oneConstInt(add.getRhs());
  else if (peelReshapes(add.getRhs()) == base)
    k = oneConstInt(add.getLhs());
  int64_t dim = typeOf(x).getDimSize(axis);
  if (!k || *k <= 0 || *k > dim)
    return std::nullopt;
  Type i64 = c.b.getI64Type();
  Value start = typeOf(base).getRank() == 0 ? base : reshape(c, s, {});
  if (elemOf(start) != i64)
    start = c.create<CastOp>(tensorOf({}, i64), start);
  Value index = c.create<BinaryOp>(tensorOf({*k}, i64), BinaryKind::add, start,
                                   iota(c, {*k}, i64));
  SmallVector<int64_t> shape(typeOf(x).getShape());
  shape[axis] = *k;
  return c.create<GatherOp>(tensorOf(shape, elemOf(x)), x, index,
                            c.b.getI64IntegerAttr(axis));
}

void opscope::onnx_import::addDataMovementConverters(
    llvm::StringMap<Converter> &m) {
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
      } else if (llvm::MulOverflow(known, shape[i], known)) {
        c.error() << "shape " << formatShape(*target)
                  << " has more elements than int64 can count";
        return failure();
      }
    }
    if (inferred >= 0)
      shape[inferred] = known ? xt.getNumElements() / known : 0;
    int64_t total = 1;
    bool overflow = false;
    for (int64_t d : shape)
      overflow |= llvm::MulOverflow(total, d, total);
    if (overflow || total != xt.getNumElements()) {
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
  // DepthToSpace and SpaceToDepth: a 4-D NCHW input and a positive
  // blocksize (0: an error reported).
  auto blockSize = [](NodeContext &c) -> int64_t {
    auto xt = typeOf(c.input(0));
    int64_t b = c.intAttr("blocksize", 0);
    if (xt.getRank() != 4 || b < 1) {
      c.error() << "takes a 4-D NCHW input and a positive blocksize, got "
                << formatShape(xt.getShape()) << " and " << b;
      return 0;
    }
    return b;
  };
  // DepthToSpace: osc.depth_to_space, which osc-conv-layout can keep
  // channels-last inside a chain of convolutions (a super-resolution
  // network's pixel shuffle, a transposed convolution's sub-pixel form).
  m["DepthToSpace"] = [blockSize](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    int64_t b = blockSize(c);
    if (!b)
      return failure();
    auto s = typeOf(x).getShape();
    if (s[1] % (b * b)) {
      c.error() << "channels (" << s[1] << ") must be a multiple of blocksize^2 ("
                << b * b << ")";
      return failure();
    }
    std::string mode = c.stringAttr("mode", "DCR");
    if (mode != "DCR" && mode != "CRD") {
      c.error() << "mode must be DCR or CRD, got '" << mode << "'";
      return failure();
    }
    out.push_back(c.create<DepthToSpaceOp>(
        tensorOf({s[0], s[1] / (b * b), s[2] * b, s[3] * b}, elemOf(x)), x,
        c.b.getI64IntegerAttr(b),
        mode == "CRD" ? c.b.getUnitAttr() : UnitAttr(), UnitAttr()));
    return success();
  };
  // SpaceToDepth: a 6-D view, one transpose, and back.
  m["SpaceToDepth"] = [blockSize](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    int64_t b = blockSize(c);
    if (!b)
      return failure();
    auto s = typeOf(x).getShape();
    int64_t n = s[0], ch = s[1], h = s[2], w = s[3];
    if (h % b || w % b) {
      c.error() << "height and width (" << h << "x" << w
                << ") must be multiples of blocksize " << b;
      return failure();
    }
    SmallVector<int64_t> view{n, ch, h / b, b, w / b, b}, perm{0, 3, 5, 1, 2, 4};
    Value v = reshape(c, x, view);
    SmallVector<int64_t> permuted;
    for (int64_t p : perm)
      permuted.push_back(view[p]);
    v = c.create<TransposeOp>(tensorOf(permuted, elemOf(x)), v,
                              i64Array(c, perm));
    out.push_back(reshape(c, v, {n, ch * b * b, h / b, w / b}));
    return success();
  };
  // Trilu: the kept triangle as a constant mask, selected with osc.where.
  m["Trilu"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    if (xt.getRank() < 2) {
      c.error() << "input must have rank 2 or more, got "
                << formatShape(xt.getShape());
      return failure();
    }
    int64_t k = 0;
    if (c.hasInput(1)) {
      auto v = c.requireConstInts(1, "k");
      if (failed(v))
        return failure();
      if (v->size() != 1) {
        c.error() << "k must be a scalar";
        return failure();
      }
      k = (*v)[0];
    }
    bool upper = c.intAttr("upper", 1) != 0;
    int64_t rows = xt.getDimSize(xt.getRank() - 2),
            cols = xt.getDimSize(xt.getRank() - 1);
    SmallVector<bool> keep;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        keep.push_back(upper ? j - i >= k : j - i <= k);
    Value mask = c.b.create<ConstantOp>(
        c.loc, DenseElementsAttr::get(tensorOf({rows, cols}, c.b.getI1Type()),
                                      ArrayRef<bool>(keep)));
    out.push_back(c.create<WhereOp>(x.getType(), mask, x,
                                    splat(c, {}, elemOf(x), 0.0)));
    return success();
  };
  // OneHot: the indices against the class index (negative indices count
  // from depth), selecting between the two values.
  m["OneHot"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value idx = c.input(0), values = c.input(2);
    auto depthV = c.constFloats(1);
    if (!depthV || depthV->size() != 1 || (*depthV)[0] < 1) {
      c.error() << "depth must be a positive compile-time scalar";
      return failure();
    }
    int64_t depth = static_cast<int64_t>((*depthV)[0]);
    if (typeOf(values).getNumElements() != 2) {
      c.error() << "values must hold two elements (off, on), got "
                << formatShape(typeOf(values).getShape());
      return failure();
    }
    Type i64 = c.b.getI64Type();
    if (elemOf(idx) != i64)
      idx = c.create<CastOp>(tensorOf(typeOf(idx).getShape(), i64), idx);
    auto it = typeOf(idx);
    Value neg = c.create<CompareOp>(tensorOf(it.getShape(), c.b.getI1Type()),
                                    CompareKind::lt, idx, splat(c, {}, i64, 0));
    auto wrapped = binary(c, BinaryKind::add, idx, splat(c, {}, i64, depth));
    if (failed(wrapped))
      return failure();
    idx = c.create<WhereOp>(it, neg, *wrapped, idx);
    auto axis = c.normalizeAxis(c.intAttr("axis", -1), it.getRank() + 1);
    if (failed(axis))
      return failure();
    SmallVector<int64_t> unsq(it.getShape()), outShape(it.getShape()),
        classShape(it.getRank() + 1, 1);
    unsq.insert(unsq.begin() + *axis, 1);
    outShape.insert(outShape.begin() + *axis, depth);
    classShape[*axis] = depth;
    Value classes = iota(c, classShape, i64);
    Value hot = c.create<CompareOp>(tensorOf(outShape, c.b.getI1Type()),
                                    CompareKind::eq, reshape(c, idx, unsq),
                                    classes);
    Value flat = reshape(c, values, {2});
    Type ve = elemOf(values);
    auto pick = [&](int64_t i) {
      return c.create<GatherOp>(tensorOf({}, ve), flat, splat(c, {}, i64, i),
                                c.b.getI64IntegerAttr(0));
    };
    out.push_back(c.create<WhereOp>(tensorOf(outShape, ve), hot, pick(1),
                                    pick(0)));
    return success();
  };
  m["GatherElements"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0), idx = c.input(1);
    auto xt = typeOf(x), it = typeOf(idx);
    auto axis = c.normalizeAxis(c.intAttr("axis", 0), xt.getRank());
    if (failed(axis))
      return failure();
    if (it.getRank() != xt.getRank()) {
      c.error() << "indices " << formatShape(it.getShape())
                << " must have the rank of data " << formatShape(xt.getShape());
      return failure();
    }
    out.push_back(c.create<GatherElementsOp>(tensorOf(it.getShape(), elemOf(x)),
                                             x, idx,
                                             c.b.getI64IntegerAttr(*axis)));
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
                                     inputs, c.b.getI64IntegerAttr(*axis),
                                     /*nhwc=*/UnitAttr()));
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
    const onnx::AttributeProto *numOutputs =
        c.opset >= 18 ? c.attr("num_outputs") : nullptr;
    if (numOutputs && c.hasInput(1)) {
      c.error() << "has both the 'split' input and 'num_outputs' (opset "
                << c.opset << " takes one or the other)";
      return failure();
    }
    if (numOutputs) {
      // Opset 18: chunks of ceil(dim / n), the last one smaller.
      int64_t n = numOutputs->i();
      if (n != parts) {
        c.error() << "num_outputs is " << n << " but the node has " << parts
                  << " outputs";
        return failure();
      }
      int64_t chunk = (dim + n - 1) / n;
      int64_t last = dim - chunk * (n - 1);
      if (last < 0) {
        c.error() << "dimension " << dim << " cannot be split into " << n
                  << " chunks of " << chunk << " (num_outputs, opset "
                  << c.opset << ")";
        return failure();
      }
      sizes.assign(n - 1, chunk);
      sizes.push_back(last);
    } else if (c.opset >= 13 && c.hasInput(1)) {
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
      if (!c.constInts(1) || !c.constInts(2))
        if (std::optional<Value> rows = offsetSlice(c)) {
          out.push_back(*rows);
          return success();
        }
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
        // ceil((end - start) / step) without overflowing for huge steps.
        size = end > start ? (end - start - 1) / step + 1 : 0;
      } else {
        start = std::clamp<int64_t>(start, -1, dim - 1);
        end = std::clamp<int64_t>(end, -1, dim - 1);
        // INT64_MIN cannot be negated: any step at or below -dim takes
        // one element.
        size = start > end ? (step <= -dim ? 1 : (start - end - 1) / -step + 1)
                           : 0;
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
  // Tile with constant repeats: each dimension d becomes 1 x d, broadcast
  // to repeats x d, and the pairs merge back.
  m["Tile"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xs = typeOf(x).getShape();
    auto repeats = c.requireConstInts(1, "repeats");
    if (failed(repeats))
      return failure();
    if (repeats->size() != xs.size() ||
        llvm::any_of(*repeats, [](int64_t r) { return r < 0; })) {
      c.error() << "repeats must hold " << xs.size()
                << " non-negative values, one per input dimension";
      return failure();
    }
    SmallVector<int64_t> pairs, wide, shape;
    for (size_t d = 0; d < xs.size(); ++d) {
      pairs.append({1, xs[d]});
      wide.append({(*repeats)[d], xs[d]});
      shape.push_back((*repeats)[d] * xs[d]);
    }
    Value v = c.create<BroadcastToOp>(tensorOf(wide, elemOf(x)),
                                      reshape(c, x, pairs));
    out.push_back(reshape(c, v, shape));
    return success();
  };
  // EyeLike: a constant of the input's 2-D shape, ones on diagonal k.
  m["EyeLike"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    auto xt = typeOf(c.input(0));
    if (xt.getRank() != 2) {
      c.error() << "input must be 2-D, got " << formatShape(xt.getShape());
      return failure();
    }
    Type elem = xt.getElementType();
    if (const auto *dt = c.attr("dtype")) {
      elem = elementTypeFor(static_cast<int32_t>(dt->i()), c.b.getContext());
      if (!elem) {
        c.error() << "dtype " << onnxTypeName(static_cast<int32_t>(dt->i()))
                  << " is not supported";
        return failure();
      }
    }
    int64_t k = c.intAttr("k", 0), rows = xt.getDimSize(0),
            cols = xt.getDimSize(1);
    SmallVector<Attribute> values;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        double v = j - i == k ? 1.0 : 0.0;
        if (auto ft = dyn_cast<FloatType>(elem))
          values.push_back(FloatAttr::get(ft, v));
        else
          values.push_back(IntegerAttr::get(elem, static_cast<int64_t>(v)));
      }
    out.push_back(c.b.create<ConstantOp>(
        c.loc, DenseElementsAttr::get(tensorOf({rows, cols}, elem), values)));
    return success();
  };
}
