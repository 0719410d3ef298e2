//===- ONNXIndexing.cpp - scans, top-k, N-d gathers, scatters -------------===//
//
// Part of opscope. Converters for the ONNX ops that compute or move elements
// by index (OscIndexingOps.td): CumSum, TopK, GatherND, ScatterND,
// ScatterElements (and the deprecated Scatter), ReverseSequence,
// TfIdfVectorizer (a lookup of token n-grams), and the ops whose output
// extent depends on the data: NonZero, Compress, Unique, NonMaxSuppression.
//
//===----------------------------------------------------------------------===//

#include "ONNXHelpers.h"

#include <sstream>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::onnx_import;

using llvm::SmallVector;
using llvm::SmallVectorImpl;

namespace {
/// GatherND's and ScatterND's indices against data (both ONNX ops share the
/// rules): rank 1 or more, a last axis m with 1 <= m <= rank(data) -
/// batchDims, batch axes equal. On success `slice` is data's shape after
/// the indexed axes.
LogicalResult checkTupleIndices(NodeContext &c, RankedTensorType data,
                                RankedTensorType idx, int64_t batchDims,
                                SmallVectorImpl<int64_t> &slice) {
  int64_t r = data.getRank(), q = idx.getRank();
  if (r < 1 || q < 1) {
    c.error() << "data " << formatShape(data.getShape()) << " and indices "
              << formatShape(idx.getShape()) << " must have rank 1 or more";
    return failure();
  }
  if (batchDims < 0 || batchDims >= std::min(q, r)) {
    c.error() << "batch_dims " << batchDims
              << " must be non-negative and below the ranks of data ("
              << r << ") and indices (" << q << ")";
    return failure();
  }
  int64_t m = idx.getShape().back();
  if (m < 1 || m > r - batchDims) {
    c.error() << "indices " << formatShape(idx.getShape())
              << " hold tuples of " << m << " indices; data "
              << formatShape(data.getShape()) << " has " << r - batchDims
              << " axes after the batch axes";
    return failure();
  }
  for (int64_t d = 0; d < batchDims; ++d)
    if (idx.getDimSize(d) != data.getDimSize(d)) {
      c.error() << "batch axis " << d << " of indices "
                << formatShape(idx.getShape()) << " differs from data "
                << formatShape(data.getShape());
      return failure();
    }
  slice.assign(data.getShape().begin() + batchDims + m, data.getShape().end());
  return success();
}

/// A scatter's `reduction` (ScatterND and ScatterElements: none until
/// opset 16, add and mul from 16, max and min from 18).
FailureOr<ScatterReduction> scatterReduction(NodeContext &c, Value data) {
  std::string name = c.stringAttr("reduction", "none");
  auto r = symbolizeScatterReduction(name);
  int64_t since = !r                               ? 0
                  : *r == ScatterReduction::none   ? 1
                  : *r == ScatterReduction::add ||
                          *r == ScatterReduction::mul
                      ? 16
                      : 18;
  if (!r || c.opset < since) {
    c.error() << "reduction '" << name << "' is not defined at opset "
              << c.opset << " (none; add and mul from opset 16; max and min "
              << "from 18)";
    return failure();
  }
  if (*r != ScatterReduction::none && elemOf(data).isInteger(1)) {
    c.error() << "reduction '" << name << "' on booleans is not supported";
    return failure();
  }
  return *r;
}
} // namespace

void opscope::onnx_import::addIndexingConverters(
    llvm::StringMap<Converter> &m) {
  // CumSum-11 and -14 (14 only admits 16-bit floats): the axis is an input,
  // which must be a compile-time constant.
  m["CumSum"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    auto axisValue = constIntScalar(c, 1, "axis");
    if (failed(axisValue))
      return failure();
    auto axis = c.normalizeAxis(*axisValue, xt.getRank());
    if (failed(axis))
      return failure();
    UnitAttr exclusive =
        c.intAttr("exclusive", 0) ? c.b.getUnitAttr() : UnitAttr();
    UnitAttr reverse = c.intAttr("reverse", 0) ? c.b.getUnitAttr() : UnitAttr();
    out.push_back(c.create<CumSumOp>(xt, x, c.b.getI64IntegerAttr(*axis),
                                     exclusive, reverse));
    return success();
  };

  // TopK-1 (k an attribute), -10 (k an input) and -11 (largest, sorted).
  // The results are always sorted, which sorted = 0 permits. A k known
  // only at run time gives bounded results: the axis's whole length, k of
  // it valid (docs/architecture.md, "Data-dependent output shapes").
  m["TopK"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    auto axis = c.normalizeAxis(c.intAttr("axis", -1), xt.getRank());
    if (failed(axis))
      return failure();
    int64_t len = xt.getDimSize(*axis);
    bool largest = c.opset < 11 || c.intAttr("largest", 1);
    UnitAttr smallest = largest ? UnitAttr() : c.b.getUnitAttr();
    auto i64 = c.b.getI64Type();
    int64_t k;
    if (c.opset < 10) {
      if (!c.attr("k")) {
        c.error() << "missing attribute 'k'";
        return failure();
      }
      k = c.intAttr("k", 0);
    } else {
      if (c.hasInput(1) && !c.constInts(1)) {
        // Read at run time: the kernel checks 0 <= k <= len.
        if (elemOf(c.input(1)) != i64 ||
            c.inputType(1).getNumElements() != 1) {
          c.error() << "input 'K' must hold one i64 value, got "
                    << c.inputType(1);
          return failure();
        }
        auto op = c.b.create<TopKOp>(c.loc, xt,
                                     tensorOf(xt.getShape(), i64),
                                     tensorOf({}, i64), x, c.input(1),
                                     c.b.getI64IntegerAttr(*axis), smallest);
        out.push_back(op.getValues());
        out.push_back(op.getIndices());
        return success();
      }
      auto kValue = constIntScalar(c, 1, "K");
      if (failed(kValue))
        return failure();
      k = *kValue;
    }
    if (k < 0 || k > len) {
      c.error() << "k " << k << " is out of range for " << len
                << " elements along axis " << *axis << " of "
                << formatShape(xt.getShape());
      return failure();
    }
    SmallVector<int64_t> shape(xt.getShape());
    shape[*axis] = k;
    auto op = c.b.create<TopKOp>(c.loc, tensorOf(shape, elemOf(x)),
                                 tensorOf(shape, i64), Type(), x, Value(),
                                 c.b.getI64IntegerAttr(*axis), smallest);
    out.push_back(op.getValues());
    out.push_back(op.getIndices());
    return success();
  };

  // NonZero-9 and -13: indices whose second extent is the number of
  // non-zero elements, known only at run time: the result is bounded by
  // the element count (docs/architecture.md, "Data-dependent output
  // shapes").
  m["NonZero"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    auto op = c.b.create<NonZeroOp>(
        c.loc,
        tensorOf({xt.getRank(), xt.getNumElements()}, c.b.getI64Type()),
        tensorOf({}, c.b.getI64Type()), x);
    out.push_back(op.getIndices());
    return success();
  };

  // Compress-9 and -11 (negative axis): the number of slices kept is known
  // only at run time; the result is bounded by min(axis length, condition
  // length).
  m["Compress"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0), cond = c.input(1);
    auto xt = typeOf(x), ct = typeOf(cond);
    if (ct.getRank() != 1 || !elemOf(cond).isInteger(1)) {
      c.error() << "condition must be a 1-D bool tensor, got " << ct;
      return failure();
    }
    SmallVector<int64_t> shape;
    IntegerAttr axisAttr;
    if (c.attr("axis")) {
      auto axis = c.normalizeAxis(c.intAttr("axis", 0), xt.getRank());
      if (failed(axis))
        return failure();
      shape.assign(xt.getShape().begin(), xt.getShape().end());
      shape[*axis] = std::min(shape[*axis], ct.getDimSize(0));
      axisAttr = c.b.getI64IntegerAttr(*axis);
    } else {
      shape.push_back(std::min(xt.getNumElements(), ct.getDimSize(0)));
    }
    auto op = c.b.create<CompressOp>(c.loc, tensorOf(shape, elemOf(x)),
                                     tensorOf({}, c.b.getI64Type()), x, cond,
                                     axisAttr);
    out.push_back(op.getOutput());
    return success();
  };

  // Unique-11 (sorted, axis): the number of distinct slices is known only
  // at run time; Y, indices and counts are bounded by the axis length (the
  // element count when flattened), inverse_indices is static.
  m["Unique"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    SmallVector<int64_t> shape{xt.getNumElements()};
    int64_t len = xt.getNumElements();
    IntegerAttr axisAttr;
    if (c.attr("axis")) {
      auto axis = c.normalizeAxis(c.intAttr("axis", 0), xt.getRank());
      if (failed(axis))
        return failure();
      shape.assign(xt.getShape().begin(), xt.getShape().end());
      len = shape[*axis];
      axisAttr = c.b.getI64IntegerAttr(*axis);
    }
    auto i64 = c.b.getI64Type();
    auto op = c.b.create<UniqueOp>(
        c.loc, tensorOf(shape, elemOf(x)), tensorOf({len}, i64),
        tensorOf({len}, i64), tensorOf({len}, i64), tensorOf({}, i64), x,
        axisAttr, c.intAttr("sorted", 1) ? UnitAttr() : c.b.getUnitAttr());
    out.push_back(op.getOutput());
    out.push_back(op.getIndices());
    out.push_back(op.getInverseIndices());
    out.push_back(op.getCounts());
    return success();
  };

  // NonMaxSuppression-10 and -11 (the same op; unchanged up to opset 21):
  // the number of boxes kept is known only at run time; the rows are
  // bounded by batches x classes x min(limit, boxes), the limit being
  // max_output_boxes_per_class when it is a constant, else the number of
  // boxes. The thresholds may be run-time values.
  m["NonMaxSuppression"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value boxes = c.input(0), scores = c.input(1);
    auto bt = typeOf(boxes), st = typeOf(scores);
    if (!elemOf(boxes).isF32() || !elemOf(scores).isF32()) {
      c.error() << "boxes and scores must be float tensors, got " << bt
                << " and " << st;
      return failure();
    }
    if (bt.getRank() != 3 || bt.getDimSize(2) != 4) {
      c.error() << "boxes " << formatShape(bt.getShape())
                << " must be batches x boxes x 4";
      return failure();
    }
    if (st.getRank() != 3 || st.getDimSize(0) != bt.getDimSize(0) ||
        st.getDimSize(2) != bt.getDimSize(1)) {
      c.error() << "scores " << formatShape(st.getShape())
                << " must be batches x classes x boxes (" << bt.getDimSize(0)
                << " x classes x " << bt.getDimSize(1) << ")";
      return failure();
    }
    int64_t center = c.intAttr("center_point_box", 0);
    if (center != 0 && center != 1) {
      c.error() << "center_point_box " << center << " must be 0 or 1";
      return failure();
    }
    static const char *const names[] = {"max_output_boxes_per_class",
                                        "iou_threshold", "score_threshold"};
    for (unsigned i = 2; i < 5; ++i) {
      if (!c.hasInput(i))
        continue;
      Type want = i == 2 ? Type(c.b.getI64Type()) : Type(c.b.getF32Type());
      if (elemOf(c.input(i)) != want || c.inputType(i).getNumElements() != 1) {
        c.error() << "input '" << names[i - 2] << "' must hold one " << want
                  << " value, got " << c.inputType(i);
        return failure();
      }
    }
    if (c.hasInput(3))
      if (auto iou = c.constFloats(3);
          iou && !((*iou)[0] >= 0 && (*iou)[0] <= 1)) {
        std::ostringstream v;
        v << static_cast<float>((*iou)[0]);
        c.error() << "iou_threshold " << v.str() << " is outside [0, 1]";
        return failure();
      }
    // A constant limit (0 when absent: ONNX's default selects nothing)
    // sets the bound; a run-time one is read by the kernel.
    Value maxRuntime;
    IntegerAttr maxConst = c.b.getI64IntegerAttr(0);
    if (c.hasInput(2)) {
      if (auto v = c.constInts(2)) {
        maxConst = c.b.getI64IntegerAttr(std::max<int64_t>((*v)[0], 0));
      } else {
        maxRuntime = c.input(2);
        maxConst = {};
      }
    }
    int64_t perClass = maxConst ? std::min(maxConst.getInt(), bt.getDimSize(1))
                                : bt.getDimSize(1);
    auto i64 = c.b.getI64Type();
    auto op = c.b.create<NonMaxSuppressionOp>(
        c.loc,
        tensorOf({bt.getDimSize(0) * st.getDimSize(1) * perClass, 3}, i64),
        tensorOf({}, i64), boxes, scores, maxRuntime, c.input(3), c.input(4),
        maxConst, center ? c.b.getUnitAttr() : UnitAttr());
    out.push_back(op.getSelected());
    return success();
  };

  // GatherND-11, -12 and -13 (batch_dims from 12; 13 adds bfloat16).
  m["GatherND"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0), idx = c.input(1);
    auto xt = typeOf(x), it = typeOf(idx);
    int64_t batchDims = c.intAttr("batch_dims", 0);
    SmallVector<int64_t> slice;
    if (failed(checkTupleIndices(c, xt, it, batchDims, slice)))
      return failure();
    SmallVector<int64_t> shape(it.getShape().drop_back());
    llvm::append_range(shape, slice);
    out.push_back(c.create<GatherNDOp>(tensorOf(shape, elemOf(x)), x, idx,
                                       c.b.getI64IntegerAttr(batchDims)));
    return success();
  };

  // ScatterND-11, -13, -16 (reduction add, mul) and -18 (max, min).
  m["ScatterND"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0), idx = c.input(1), upd = c.input(2);
    auto xt = typeOf(x), it = typeOf(idx), ut = typeOf(upd);
    auto reduction = scatterReduction(c, x);
    if (failed(reduction))
      return failure();
    SmallVector<int64_t> slice;
    if (failed(checkTupleIndices(c, xt, it, 0, slice)))
      return failure();
    SmallVector<int64_t> expected(it.getShape().drop_back());
    llvm::append_range(expected, slice);
    if (ut.getShape() != ArrayRef<int64_t>(expected) ||
        ut.getElementType() != xt.getElementType()) {
      c.error() << "updates " << formatShape(ut.getShape()) << " must be "
                << formatShape(expected)
                << " (indices without their last axis, then data's axes "
                   "after the indexed ones) of data's element type";
      return failure();
    }
    out.push_back(c.create<ScatterNDOp>(
        xt, ScatterReductionAttr::get(c.b.getContext(), *reduction), x, idx,
        upd));
    return success();
  };

  // ScatterElements-11, -13, -16 (reduction add, mul) and -18 (max, min);
  // Scatter-9 (deprecated at 11) is ScatterElements without a reduction.
  auto scatterElements = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0), idx = c.input(1), upd = c.input(2);
    auto xt = typeOf(x), it = typeOf(idx), ut = typeOf(upd);
    auto reduction = scatterReduction(c, x);
    if (failed(reduction))
      return failure();
    auto axis = c.normalizeAxis(c.intAttr("axis", 0), xt.getRank());
    if (failed(axis))
      return failure();
    if (it.getRank() != xt.getRank() || ut.getShape() != it.getShape() ||
        ut.getElementType() != xt.getElementType()) {
      c.error() << "indices " << formatShape(it.getShape())
                << " must have the rank of data "
                << formatShape(xt.getShape()) << " and updates "
                << formatShape(ut.getShape())
                << " their shape and data's element type";
      return failure();
    }
    for (int64_t d = 0; d < xt.getRank(); ++d)
      if (d != *axis && it.getDimSize(d) > xt.getDimSize(d)) {
        c.error() << "indices " << formatShape(it.getShape())
                  << " exceed data " << formatShape(xt.getShape())
                  << " along axis " << d;
        return failure();
      }
    out.push_back(c.create<ScatterElementsOp>(
        xt, ScatterReductionAttr::get(c.b.getContext(), *reduction), x, idx,
        upd, c.b.getI64IntegerAttr(*axis)));
    return success();
  };
  m["ScatterElements"] = scatterElements;
  m["Scatter"] = scatterElements;

  // ReverseSequence-10.
  m["ReverseSequence"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0), lens = c.input(1);
    auto xt = typeOf(x), lt = typeOf(lens);
    int64_t b = c.intAttr("batch_axis", 1), t = c.intAttr("time_axis", 0);
    if (xt.getRank() < 2 || (b != 0 && b != 1) || (t != 0 && t != 1) ||
        b == t) {
      c.error() << "batch_axis " << b << " and time_axis " << t
                << " must be 0 and 1, one each, of an input of rank 2 or "
                   "more (got "
                << formatShape(xt.getShape()) << ")";
      return failure();
    }
    if (lt.getRank() != 1 || lt.getDimSize(0) != xt.getDimSize(b)) {
      c.error() << "sequence_lens " << formatShape(lt.getShape())
                << " must hold one length per batch entry ("
                << xt.getDimSize(b) << ")";
      return failure();
    }
    out.push_back(c.create<ReverseSequenceOp>(xt, x, lens,
                                              c.b.getI64IntegerAttr(b),
                                              c.b.getI64IntegerAttr(t)));
    return success();
  };

  // TfIdfVectorizer-9 over integer tokens (string tensors are not in osc).
  m["TfIdfVectorizer"] = [](NodeContext &c, SmallVectorImpl<Value> &out) {
    Value x = c.input(0);
    auto xt = typeOf(x);
    if (c.attr("pool_strings")) {
      c.error() << "pool_strings (string tokens) is not supported: osc has "
                   "no string tensors; give integer tokens and pool_int64s";
      return failure();
    }
    if (!xt.getElementType().isInteger(32) &&
        !xt.getElementType().isInteger(64)) {
      c.error() << "input must hold int32 or int64 tokens, got "
                << xt.getElementType();
      return failure();
    }
    if (xt.getRank() != 1 && xt.getRank() != 2) {
      c.error() << "input " << formatShape(xt.getShape())
                << " must be a row (C) or rows (N x C)";
      return failure();
    }
    std::string modeName = c.stringAttr("mode", "");
    std::optional<TfIdfMode> mode =
        modeName == "TF"      ? std::optional(TfIdfMode::tf)
        : modeName == "IDF"   ? std::optional(TfIdfMode::idf)
        : modeName == "TFIDF" ? std::optional(TfIdfMode::tfidf)
                              : std::nullopt;
    if (!mode) {
      c.error() << "mode '" << modeName << "' is not one of TF, IDF, TFIDF";
      return failure();
    }
    for (const char *name : {"min_gram_length", "max_gram_length",
                             "max_skip_count", "ngram_counts",
                             "ngram_indexes", "pool_int64s"})
      if (!c.attr(name)) {
        c.error() << "missing attribute '" << name << "'";
        return failure();
      }
    int64_t minN = c.intAttr("min_gram_length", 0),
            maxN = c.intAttr("max_gram_length", 0),
            skip = c.intAttr("max_skip_count", 0);
    SmallVector<int64_t> counts = *c.intsAttr("ngram_counts"),
                         indexes = *c.intsAttr("ngram_indexes"),
                         pool = *c.intsAttr("pool_int64s");
    auto weights = c.floatsAttr("weights");
    std::optional<ArrayRef<float>> w;
    if (weights)
      w = ArrayRef<float>(*weights);
    int64_t columns = 0;
    std::string error = tfidfConfigError(minN, maxN, skip, counts, indexes,
                                         pool, w, columns);
    if (!error.empty()) {
      c.error() << error;
      return failure();
    }
    SmallVector<int64_t> shape;
    if (xt.getRank() == 2)
      shape.push_back(xt.getDimSize(0));
    shape.push_back(columns);
    out.push_back(c.create<TfIdfVectorizerOp>(
        tensorOf(shape, c.b.getF32Type()),
        TfIdfModeAttr::get(c.b.getContext(), *mode), x,
        c.b.getI64IntegerAttr(minN), c.b.getI64IntegerAttr(maxN),
        c.b.getI64IntegerAttr(skip), c.b.getDenseI64ArrayAttr(counts),
        c.b.getDenseI64ArrayAttr(indexes), c.b.getDenseI64ArrayAttr(pool),
        weights ? c.b.getDenseF32ArrayAttr(*weights) : DenseF32ArrayAttr()));
    return success();
  };
}
