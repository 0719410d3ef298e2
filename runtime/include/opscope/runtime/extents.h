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

} // namespace opscope::rt

#endif // OPSCOPE_RUNTIME_EXTENTS_H
