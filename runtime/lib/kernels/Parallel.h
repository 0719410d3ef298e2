//===- Parallel.h - splitting memory-bound loops over threads -*- C++ -*-===//
//
// Part of opscope's runtime (internal). Element-wise and data-movement
// kernels (unary rows, concat, channels-last resize) split their outermost
// loop over the OpenMP threads in force (opscope-run --threads, the
// session's thread count), in contiguous ranges of at least `grain`
// iterations so that a small op stays on one thread: a parallel region
// costs a few microseconds, more than such an op takes.
//
//===----------------------------------------------------------------------===//

#ifndef OPSCOPE_RUNTIME_LIB_KERNELS_PARALLEL_H
#define OPSCOPE_RUNTIME_LIB_KERNELS_PARALLEL_H

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace opscope::rt::detail {

/// Calls f(begin, end) over [0, n) in at most one range per thread, each
/// of at least `grain` iterations (one call on one thread when n < 2 *
/// grain or one thread is in force).
template <typename F> void parallelRanges(int64_t n, int64_t grain, F &&f) {
  int64_t threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  int64_t parts = std::min<int64_t>(threads, n / std::max<int64_t>(grain, 1));
  if (parts <= 1) {
    if (n > 0)
      f(int64_t(0), n);
    return;
  }
#pragma omp parallel for num_threads(parts) schedule(static)
  for (int64_t p = 0; p < parts; ++p)
    f(n * p / parts, n * (p + 1) / parts);
}

} // namespace opscope::rt::detail

#endif // OPSCOPE_RUNTIME_LIB_KERNELS_PARALLEL_H
