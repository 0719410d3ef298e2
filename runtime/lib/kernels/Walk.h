//===- Walk.h - strided row walks shared by the generic kernels -*- C++ -*-===//
//
// Part of opscope's runtime (internal to runtime/lib/kernels). Every generic
// kernel walks its output in rows: a strided N-d loop over all but the
// innermost dimension, after merging dimensions that are contiguous for
// every operand, so a same-shape add is one row of n elements and a bias add
// is rows of the bias length. The row bodies are simple loops the compiler
// vectorises.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_WALK_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_WALK_H

#include "opscope/runtime/generic.h"

#include <array>
#include <cassert>
#include <cstdint>
#include <vector>

namespace opscope::rt::detail {

/// Row-major element strides of a contiguous tensor.
Shape contiguousStrides(const Shape &s);

/// Strides of `in` read as if broadcast to `out` (right-aligned, 0 where
/// broadcast).
Shape broadcastStrides(const Shape &in, const Shape &out);

/// Merges the walk of `shape` for operands with the given element strides:
/// dimensions of size 1 are dropped and dimensions contiguous for all
/// operands merged.
StridedWalk makeWalk(const Shape &shape, const std::vector<Shape> &strides);

/// Calls f(offsets, rowLength, innerStrides) once per row of the walk's
/// first N operands.
template <size_t N, typename F> void walkRows(const StridedWalk &w, F &&f) {
  std::array<int64_t, N> off{};
  std::array<int64_t, N> inner{};
  for (size_t k = 0; k < N; ++k)
    off[k] = w.base[k];
  if (w.dims.empty()) {
    f(off, int64_t(1), inner);
    return;
  }
  for (size_t k = 0; k < N; ++k)
    inner[k] = w.strides[k].back();
  size_t outerRank = w.dims.size() - 1;
  int64_t rows = 1;
  for (size_t d = 0; d < outerRank; ++d)
    rows *= w.dims[d];
  // The odometer lives on the stack up to rank 17 (no allocation per call).
  int64_t stackIdx[16] = {};
  std::vector<int64_t> heapIdx;
  int64_t *idx = stackIdx;
  if (outerRank > 16) {
    heapIdx.assign(outerRank, 0);
    idx = heapIdx.data();
  }
  for (int64_t r = 0; r < rows; ++r) {
    f(off, w.dims.back(), inner);
    for (size_t d = outerRank; d-- > 0;) {
      ++idx[d];
      for (size_t k = 0; k < N; ++k)
        off[k] += w.strides[k][d];
      if (idx[d] < w.dims[d])
        break;
      for (size_t k = 0; k < N; ++k)
        off[k] -= w.strides[k][d] * w.dims[d];
      idx[d] = 0;
    }
  }
}

/// Calls f with a typed null pointer of the computable type t.
template <typename F> void dispatchType(DType t, F &&f) {
  switch (t) {
  case DType::F32:
    return f(static_cast<float *>(nullptr));
  case DType::F64:
    return f(static_cast<double *>(nullptr));
  case DType::I1:
  case DType::U8:
    return f(static_cast<uint8_t *>(nullptr));
  case DType::I8:
    return f(static_cast<int8_t *>(nullptr));
  case DType::I16:
    return f(static_cast<int16_t *>(nullptr));
  case DType::I32:
    return f(static_cast<int32_t *>(nullptr));
  case DType::I64:
    return f(static_cast<int64_t *>(nullptr));
  case DType::U16:
    return f(static_cast<uint16_t *>(nullptr));
  case DType::U32:
    return f(static_cast<uint32_t *>(nullptr));
  case DType::U64:
    return f(static_cast<uint64_t *>(nullptr));
  case DType::F16:
  case DType::BF16:
    break;
  }
  assert(false && "f16/bf16 are rejected when the model is loaded");
}

/// Copies elements of `size` bytes along rows.
template <size_t N, typename F> void dispatchSize(size_t size, F &&f) {
  switch (size) {
  case 1:
    return f(static_cast<uint8_t *>(nullptr));
  case 2:
    return f(static_cast<uint16_t *>(nullptr));
  case 4:
    return f(static_cast<uint32_t *>(nullptr));
  default:
    return f(static_cast<uint64_t *>(nullptr));
  }
}


} // namespace opscope::rt::detail

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_WALK_H
