//===- indexing.h - scans, top-k, N-d gathers and scatters -------*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM). The kernels of the osc
// indexing ops (OscIndexingOps.td): ONNX CumSum, TopK, GatherND, ScatterND,
// ScatterElements and ReverseSequence on dense row-major tensors, and
// TfIdfVectorizer's n-gram lookup.
//
// Index tensors are i32 or i64; where ONNX allows negative indices they
// count from the end. A kernel that reads indices checks every one before it
// uses it and returns false on the first out of range (its caller reports
// the op), so a bad index never reads or writes outside a buffer; the
// output may then be partly written.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_INDEXING_H
#define OPSCOPE_RUNTIME_INDEXING_H

#include "opscope/runtime/generic.h"

#include <unordered_map>
#include <utility>

namespace opscope::rt {

/// ONNX CumSum of x (shape `shape`, type `t`) along `axis` into y: with
/// `exclusive` each sum leaves out its own element, with `reverse` sums run
/// from the end of the axis. Sums are taken in order in the element type
/// (integers wrap). f32 with elements after the axis adds whole rows with
/// the kernel table's arithRow.
void cumSum(DType t, const void *x, const Shape &shape, int64_t axis,
            bool exclusive, bool reverse, void *y);

/// ONNX TopK of x (shape `shape`) along `axis`: the k largest (or with
/// `smallest` the k smallest) elements of each slice along the axis, sorted
/// so, into `values` (x's shape with `bound` along the axis; -1: k) and
/// their positions along the axis into `indices`. Entries from k to the
/// bound are 0 (a run-time k's padding). Equal values keep the lower index
/// first; a NaN is larger than every number. 0 <= k <= bound <= the axis
/// length.
void topK(DType t, const void *x, const Shape &shape, int64_t axis, int64_t k,
          bool smallest, void *values, int64_t *indices, int64_t bound = -1);

/// ONNX GatherND: each tuple along the last axis of `indices` (i32 or i64,
/// negative counts from the end) indexes axes batchDims .. batchDims + m - 1
/// of `data` within its batch, and y takes the slice it selects. Returns
/// false on an index out of range (y partly written).
bool gatherND(const void *data, const Shape &dShape, const void *indices,
              DType indexType, const Shape &iShape, int64_t batchDims,
              void *y, size_t elemSize);

/// ONNX ScatterND: y = data, then for each tuple along the last axis of
/// `indices` (m indices into the first m axes of data; negative counts from
/// the end), in order, the slice it selects replaced by (or combined by
/// `reduction` with) the matching slice of `updates`. `y` may be `data`.
/// Every index is checked before anything is written: on one out of range
/// it returns false with y untouched (or, when y is not data, y holding
/// data's copy). f32 slices of more than one element under add or mul are
/// combined by the kernel table's arithRow.
bool scatterND(ScatterReduction reduction, DType t, const void *data,
               const Shape &dShape, const void *indices, DType indexType,
               const Shape &iShape, const void *updates, void *y);

/// ONNX ScatterElements: y = data, then each element of `updates` (the
/// shape of `indices`, data's rank) in row-major order replaces (or is
/// combined by `reduction` with) the element of y at its own position with
/// `axis` replaced by its index (negative counts from the end). `y` may be
/// `data`. Every index is checked before anything is written: on one out of
/// range it returns false with y untouched (or holding data's copy).
bool scatterElements(ScatterReduction reduction, DType t, const void *data,
                     const Shape &dShape, const void *indices, DType indexType,
                     const Shape &iShape, int64_t axis, const void *updates,
                     void *y);

/// ONNX ReverseSequence: y is x with, for each batch entry b (along
/// `batchAxis`), the first lens[b] elements along `timeAxis` reversed (the
/// axes are 0 and 1, one each). Returns false, before writing anything, when
/// a length is below 0 or above the time axis.
bool reverseSequence(const void *x, const Shape &shape, const void *lens,
                     DType lensType, int64_t batchAxis, int64_t timeAxis,
                     void *y, size_t elemSize);

/// ONNX TfIdfVectorizer over integer tokens. The pool's n-grams of the
/// wanted lengths become a trie, built once (at model init); run() counts
/// each row's n-grams and weighs the counts (osc.tfidf_vectorizer in
/// OscIndexingOps.td states the semantics).
struct TfIdfParams {
  TfIdfMode mode = TfIdfMode::Tf;
  int64_t minGram = 1, maxGram = 1, maxSkip = 0;
  std::vector<int64_t> ngramCounts, ngramIndexes, pool;
  /// One per pool n-gram (as ngram_indexes); empty means 1 for each.
  std::vector<float> weights;
};
class TfIdfVectorizer {
public:
  /// `p` must be valid (the verifier's tfidfConfigError passed).
  explicit TfIdfVectorizer(const TfIdfParams &p);
  /// Output row length, max(ngram_indexes) + 1.
  int64_t columns() const { return columns_; }
  /// `rows` rows of `length` tokens (i32 or i64) into rows x columns() f32.
  void run(const void *x, DType t, int64_t rows, int64_t length,
           float *y) const;

private:
  template <typename T>
  void weighRow(const T *row, int64_t length, float *out) const;
  /// The child of trie node `parent` for `token`, or -1.
  int64_t child(int64_t parent, int64_t token) const;

  TfIdfParams p_;
  int64_t columns_ = 0;
  /// Trie edges keyed by (parent node, token); node 0 is the root.
  struct EdgeHash {
    size_t operator()(const std::pair<int64_t, int64_t> &e) const;
  };
  std::unordered_map<std::pair<int64_t, int64_t>, int64_t, EdgeHash> edges_;
  /// Per node, the pool index of the n-gram ending there, or -1.
  std::vector<int64_t> ngram_;
};

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_INDEXING_H
