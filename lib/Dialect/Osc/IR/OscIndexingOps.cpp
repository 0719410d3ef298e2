//===- OscIndexingOps.cpp - verifiers of the indexing ops -----------------===//
//
// Part of opscope. The verifiers of the ops of OscIndexingOps.td (cumsum,
// top_k, gather_nd, scatter_nd, scatter_elements, reverse_sequence,
// tfidf_vectorizer) and of the ops with a run-time extent (non_zero,
// compress, unique, non_max_suppression).
//
//===----------------------------------------------------------------------===//

#include "OscVerify.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>

using namespace mlir;
using namespace opscope;
using namespace opscope::osc;
using namespace opscope::osc::verify;

/// `axis` is a dimension of a tensor of `rank`.
static LogicalResult verifyAxis(Operation *op, int64_t axis, size_t rank,
                                StringRef what = "axis") {
  if (axis < 0 || axis >= static_cast<int64_t>(rank))
    return op->emitOpError()
           << what << " " << axis << " is out of range for rank " << rank;
  return success();
}

LogicalResult CumSumOp::verify() {
  if (failed(verifyAxis(*this, getAxis(), tensorType(getInput()).getRank())))
    return failure();
  if (tensorType(getInput()) != tensorType(getOutput()))
    return emitOpError("result type ")
           << getOutput().getType() << " differs from input type "
           << getInput().getType();
  return success();
}

LogicalResult TopKOp::verify() {
  auto in = tensorType(getInput()).getShape();
  int64_t axis = getAxis();
  if (failed(verifyAxis(*this, axis, in.size())))
    return failure();
  if (failed(verifySameElementType(*this, getInput(), "input", getValues(),
                                   "values")))
    return failure();
  auto values = tensorType(getValues()).getShape();
  if (values.size() != in.size() || values[axis] > in[axis])
    return emitOpError("values ")
           << formatShape(values) << " must keep at most the input's "
           << in[axis] << " elements along axis " << axis << " of input "
           << formatShape(in);
  if (static_cast<bool>(getK()) != static_cast<bool>(getCount()))
    return emitOpError("takes a run-time k exactly when it has a count "
                       "result");
  if (getK()) {
    if (tensorType(getK()).getNumElements() != 1)
      return emitOpError("k must hold one value, not ")
             << tensorType(getK()).getNumElements();
    // Bounded: the results keep the whole axis, k of it valid at run time.
    if (values[axis] != in[axis])
      return emitOpError("values ")
             << formatShape(values) << " must keep the input's " << in[axis]
             << " elements along axis " << axis
             << " as their bound when k is read at run time";
  }
  SmallVector<int64_t> expected(in);
  expected[axis] = values[axis];
  if (failed(verifyResultShape(*this, getValues(), expected)))
    return failure();
  return verifyResultShape(*this, getIndices(), expected);
}

/// GatherND's and ScatterND's shared rules: `indices` has rank >= 1, its
/// last axis m indexes data axes b .. b + m - 1 (1 <= m <= rank - b), and
/// its first b axes match data's. The slice shape is data's after b + m.
static LogicalResult verifyTupleIndices(Operation *op, ArrayRef<int64_t> data,
                                        ArrayRef<int64_t> idx, int64_t b,
                                        SmallVectorImpl<int64_t> &slice) {
  int64_t r = data.size(), q = idx.size();
  if (q < 1 || r < 1)
    return op->emitOpError("data ")
           << formatShape(data) << " and indices " << formatShape(idx)
           << " must have rank 1 or more";
  if (b < 0 || b >= std::min(q, r))
    return op->emitOpError("batch_dims ")
           << b << " must be below the ranks of data " << formatShape(data)
           << " and indices " << formatShape(idx);
  int64_t m = idx.back();
  if (m < 1 || m > r - b)
    return op->emitOpError("indices ")
           << formatShape(idx) << " index " << m << " axes; data "
           << formatShape(data) << " has " << r - b << " after the batch axes";
  for (int64_t d = 0; d < b; ++d)
    if (idx[d] != data[d])
      return op->emitOpError("batch axis ")
             << d << " of indices " << formatShape(idx) << " differs from data "
             << formatShape(data);
  slice.assign(data.begin() + b + m, data.end());
  return success();
}

LogicalResult GatherNDOp::verify() {
  auto data = tensorType(getData()).getShape();
  auto idx = tensorType(getIndices()).getShape();
  SmallVector<int64_t> slice;
  if (failed(verifyTupleIndices(*this, data, idx, getBatchDims(), slice)) ||
      failed(verifySameElementType(*this, getData(), "data", getOutput(),
                                   "result")))
    return failure();
  SmallVector<int64_t> expected(idx.drop_back());
  llvm::append_range(expected, slice);
  return verifyResultShape(*this, getOutput(), expected);
}

/// A scatter's result is its data's type, updated with elements of that
/// type; no reduction but `none` on booleans.
static LogicalResult verifyScatterTypes(Operation *op, Value data,
                                        Value updates, Value output,
                                        ScatterReduction reduction) {
  if (tensorType(output) != tensorType(data))
    return op->emitOpError("result type ")
           << output.getType() << " differs from data type " << data.getType();
  if (failed(verifySameElementType(op, updates, "updates", data, "data")))
    return failure();
  if (reduction != ScatterReduction::none &&
      tensorType(data).getElementType().isInteger(1))
    return op->emitOpError("reduction ")
           << stringifyScatterReduction(reduction)
           << " is not defined on booleans";
  return success();
}

LogicalResult ScatterNDOp::verify() {
  auto data = tensorType(getData()).getShape();
  auto idx = tensorType(getIndices()).getShape();
  SmallVector<int64_t> slice;
  if (failed(verifyTupleIndices(*this, data, idx, 0, slice)) ||
      failed(verifyScatterTypes(*this, getData(), getUpdates(), getOutput(),
                                getReduction())))
    return failure();
  SmallVector<int64_t> expected(idx.drop_back());
  llvm::append_range(expected, slice);
  if (tensorType(getUpdates()).getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("updates ")
           << shapeOf(getUpdates()) << " must be " << formatShape(expected)
           << " (indices without their last axis, then data's axes after "
              "the indexed ones)";
  return success();
}

LogicalResult ScatterElementsOp::verify() {
  auto data = tensorType(getData()).getShape();
  auto idx = tensorType(getIndices()).getShape();
  int64_t axis = getAxis();
  if (failed(verifyAxis(*this, axis, data.size())) ||
      failed(verifyScatterTypes(*this, getData(), getUpdates(), getOutput(),
                                getReduction())))
    return failure();
  if (tensorType(getUpdates()).getShape() != idx)
    return emitOpError("updates ")
           << shapeOf(getUpdates()) << " must have the shape of indices "
           << formatShape(idx);
  if (idx.size() != data.size())
    return emitOpError("indices ")
           << formatShape(idx) << " must have the rank of data "
           << formatShape(data);
  for (size_t d = 0; d < data.size(); ++d)
    if (static_cast<int64_t>(d) != axis && idx[d] > data[d])
      return emitOpError("indices ")
             << formatShape(idx) << " exceed data " << formatShape(data)
             << " along axis " << d;
  return success();
}

LogicalResult ReverseSequenceOp::verify() {
  auto in = tensorType(getInput()).getShape();
  int64_t b = getBatchAxis(), t = getTimeAxis();
  if (in.size() < 2)
    return emitOpError("input ") << formatShape(in) << " must have rank 2 or more";
  if ((b != 0 && b != 1) || (t != 0 && t != 1) || b == t)
    return emitOpError("batch_axis ")
           << b << " and time_axis " << t << " must be 0 and 1, one each";
  auto lens = tensorType(getSequenceLens()).getShape();
  if (lens.size() != 1 || lens[0] != in[b])
    return emitOpError("sequence_lens ")
           << formatShape(lens) << " must hold one length per batch entry ("
           << in[b] << ")";
  if (tensorType(getOutput()) != tensorType(getInput()))
    return emitOpError("result type ")
           << getOutput().getType() << " differs from input type "
           << getInput().getType();
  return success();
}

LogicalResult NonZeroOp::verify() {
  auto in = tensorType(getInput());
  SmallVector<int64_t> bound{in.getRank(), in.getNumElements()};
  return verifyResultShape(*this, getIndices(), bound);
}

LogicalResult CompressOp::verify() {
  auto in = tensorType(getInput()).getShape();
  if (failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "output")))
    return failure();
  auto cond = tensorType(getCondition()).getShape();
  if (cond.size() != 1)
    return emitOpError("condition must be 1-D, got ") << formatShape(cond);
  SmallVector<int64_t> bound;
  if (auto axis = getAxis()) {
    if (failed(verifyAxis(*this, *axis, in.size())))
      return failure();
    bound.assign(in.begin(), in.end());
    bound[*axis] = std::min(bound[*axis], cond[0]);
  } else {
    bound.push_back(std::min(tensorType(getInput()).getNumElements(), cond[0]));
  }
  return verifyResultShape(*this, getOutput(), bound);
}

LogicalResult UniqueOp::verify() {
  auto in = tensorType(getInput()).getShape();
  if (failed(verifySameElementType(*this, getInput(), "input", getOutput(),
                                   "output")))
    return failure();
  int64_t len = tensorType(getInput()).getNumElements();
  SmallVector<int64_t> bound{len};
  if (auto axis = getAxis()) {
    if (failed(verifyAxis(*this, *axis, in.size())))
      return failure();
    bound.assign(in.begin(), in.end());
    len = in[*axis];
  }
  if (failed(verifyResultShape(*this, getOutput(), bound)) ||
      failed(verifyResultShape(*this, getIndices(), {len})) ||
      failed(verifyResultShape(*this, getInverseIndices(), {len})))
    return failure();
  return verifyResultShape(*this, getCounts(), {len});
}

std::string osc::tfidfConfigError(int64_t minN, int64_t maxN, int64_t maxSkip,
                                  ArrayRef<int64_t> counts,
                                  ArrayRef<int64_t> indexes,
                                  ArrayRef<int64_t> pool,
                                  std::optional<ArrayRef<float>> weights,
                                  int64_t &columns) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  if (minN < 1 || maxN < minN || maxN > static_cast<int64_t>(counts.size())) {
    os << "min_gram_length " << minN << " and max_gram_length " << maxN
       << " must satisfy 1 <= min <= max <= " << counts.size()
       << " (the entries of ngram_counts)";
    return msg;
  }
  if (maxSkip < 0 || maxSkip > (int64_t(1) << 40)) {
    os << "max_skip_count " << maxSkip << " must be in [0, 2^40]";
    return msg;
  }
  // The pool's n-grams, level by level; the in-range ones must be distinct.
  int64_t ngrams = 0, size = static_cast<int64_t>(pool.size());
  llvm::DenseSet<ArrayRef<int64_t>> seen;
  for (size_t level = 0; level < counts.size(); ++level) {
    int64_t n = level + 1, begin = counts[level];
    int64_t end = level + 1 < counts.size() ? counts[level + 1] : size;
    if (begin < 0 || end < begin || end > size || (end - begin) % n) {
      os << "ngram_counts entry " << level << " gives pool items [" << begin
         << ", " << end << ") for " << n << "-grams: out of order, outside "
         << "the pool (" << size << " items) or not whole " << n << "-grams";
      return msg;
    }
    for (int64_t i = begin; i < end; i += n, ++ngrams)
      if (n >= minN && n <= maxN && !seen.insert(pool.slice(i, n)).second) {
        os << "the pool holds the " << n << "-gram at item " << i
           << " twice";
        return msg;
      }
  }
  if (static_cast<int64_t>(indexes.size()) != ngrams) {
    os << "ngram_indexes has " << indexes.size() << " entries; the pool holds "
       << ngrams << " n-grams";
    return msg;
  }
  if (indexes.empty() || llvm::any_of(indexes, [](int64_t i) {
        return i < 0 || i > (int64_t(1) << 40);
      })) {
    os << "ngram_indexes must be non-empty and in [0, 2^40]";
    return msg;
  }
  columns = *llvm::max_element(indexes) + 1;
  if (weights && weights->size() != indexes.size()) {
    os << "weights has " << weights->size() << " entries; it needs one per "
       << "pool n-gram, as ngram_indexes (" << indexes.size() << ")";
    return msg;
  }
  return msg;
}

LogicalResult TfIdfVectorizerOp::verify() {
  auto in = tensorType(getInput()).getShape();
  if (in.size() != 1 && in.size() != 2)
    return emitOpError("input ")
           << formatShape(in) << " must be a row (C) or rows (N x C)";
  int64_t columns = 0;
  std::optional<ArrayRef<float>> weights;
  if (auto w = getWeights())
    weights = *w;
  std::string error = tfidfConfigError(
      getMinGramLength(), getMaxGramLength(), getMaxSkipCount(),
      getNgramCounts(), getNgramIndexes(), getPool(), weights, columns);
  if (!error.empty())
    return emitOpError(error);
  SmallVector<int64_t> expected;
  if (in.size() == 2)
    expected.push_back(in[0]);
  expected.push_back(columns);
  return verifyResultShape(*this, getOutput(), expected);
}

/// `v`, when present, holds one value (a scalar, or one element).
static LogicalResult verifyOneValue(Operation *op, Value v, StringRef what) {
  if (v && tensorType(v).getNumElements() != 1)
    return op->emitOpError()
           << what << " " << formatShape(tensorType(v).getShape())
           << " must hold one value";
  return success();
}

LogicalResult NonMaxSuppressionOp::verify() {
  auto boxes = tensorType(getBoxes()).getShape();
  auto scores = tensorType(getScores()).getShape();
  if (boxes.size() != 3 || boxes[2] != 4)
    return emitOpError("boxes ")
           << formatShape(boxes) << " must be batches x boxes x 4";
  if (scores.size() != 3 || scores[0] != boxes[0] || scores[2] != boxes[1])
    return emitOpError("scores ")
           << formatShape(scores) << " must be batches x classes x boxes ("
           << boxes[0] << " x classes x " << boxes[1] << ")";
  if (failed(verifyOneValue(*this, getMaxOutputBoxesPerClass(),
                            "max_output_boxes_per_class")) ||
      failed(verifyOneValue(*this, getIouThreshold(), "iou_threshold")) ||
      failed(verifyOneValue(*this, getScoreThreshold(), "score_threshold")))
    return failure();
  int64_t perClass = boxes[1];
  if (auto limit = getMaxPerClass()) {
    if (getMaxOutputBoxesPerClass())
      return emitOpError("takes max_per_class or a "
                         "max_output_boxes_per_class operand, not both");
    perClass = std::clamp<int64_t>(*limit, 0, boxes[1]);
  } else if (!getMaxOutputBoxesPerClass()) {
    perClass = 0; // ONNX's default limit: nothing selected
  }
  return verifyResultShape(*this, getSelected(),
                           {boxes[0] * scores[1] * perClass, 3});
}
