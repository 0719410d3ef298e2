//===- extents.h - kernels whose output extent depends on the data -*- C++ -*-===//
//
// Part of opscope's runtime (no MLIR, no LLVM). The kernels of the osc ops
// with a run-time extent (docs/architecture.md, "Data-dependent output
// shapes"): each writes its output in the layout of its static bound, with
// the valid entries first along the extent axis and zeros after them, and
// returns the extent.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_EXTENTS_H
#define OPSCOPE_RUNTIME_EXTENTS_H

#include "opscope/runtime/generic.h"

namespace opscope::rt {

/// Whether element `i` of x (type `t`) is non-zero: for floating types,
/// -0.0 is zero and NaN is not.
bool isNonZero(DType t, const void *x, int64_t i);

/// ONNX NonZero of x (shape `shape`): indices, rank x numElements(shape),
/// receives in column j the coordinates of the j-th non-zero element in
/// row-major order; columns from the count on are 0. Returns the count.
int64_t nonZero(DType t, const void *x, const Shape &shape, int64_t *indices);

/// ONNX Compress of x (shape `shape`, elements of `elemBytes`) along `axis`
/// (-1: the flattened x) by `cond` (`condLen` bytes, non-zero = keep;
/// entries past either end are dropped). y has x's shape with
/// min(axis length, condLen) along the axis; the kept slices come first,
/// zeros after them. Returns the number kept.
int64_t compress(size_t elemBytes, const void *x, const Shape &shape,
                 int64_t axis, const uint8_t *cond, int64_t condLen, void *y);

/// ONNX Unique of x (shape `shape`) along `axis` (-1: the flattened x):
/// the distinct slices, ascending (slices compared element by element in
/// row-major order; NaN equals NaN and sorts last) or, unless `sorted`, in
/// order of first occurrence, into y (x's shape, the distinct slices first
/// along the axis, zeros after); `indices` and `counts` (one per slice
/// position, zeros after the count) their first position and number of
/// occurrences, `inverse` (one per input slice) where each input slice's
/// value went. Element types: f32, f64, and the integer types and bool.
/// Returns the number of distinct slices, or -1 for another type.
int64_t unique(DType t, const void *x, const Shape &shape, int64_t axis,
               bool sorted, void *y, int64_t *indices, int64_t *inverse,
               int64_t *counts);

/// What NonMaxSuppression reads besides boxes and scores.
struct NmsParams {
  int64_t batches = 0, classes = 0, boxes = 0;
  bool centerPointBox = false; ///< boxes as [x_c, y_c, w, h], not corners
  int64_t maxPerClass = 0;     ///< boxes kept per class at most (<= 0: none)
  float iouThreshold = 0.0f;   ///< an IoU above it suppresses
  bool hasScoreThreshold = false;
  float scoreThreshold = 0.0f; ///< a score must be above it (when given)
};

/// ONNX NonMaxSuppression as ONNX Runtime computes it: boxes (batches x
/// boxes x 4, f32), scores (batches x classes x boxes). For each batch and
/// class, the candidates (score above the threshold, when there is one)
/// by descending score, equal scores by ascending index, NaN scores last;
/// each kept unless a box already kept for the class overlaps it by an IoU
/// above the threshold, until maxPerClass are kept. Writes rows [batch,
/// class, box] into `selected`, `boundRows` x 3, zeros after the last, and
/// returns the number of rows; -1 when more rows would be kept than the
/// bound holds (a bound that is not batches x classes x min(maxPerClass,
/// boxes)). The IoU step is the kernel table's iouSuppressRow.
int64_t nonMaxSuppression(const float *boxes, const float *scores,
                          const NmsParams &p, int64_t *selected,
                          int64_t boundRows);

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_EXTENTS_H
