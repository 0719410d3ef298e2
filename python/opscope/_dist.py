"""Per-op statistics computed exactly as opscope-analyze computes them.

opscope-analyze (runtime/lib/analysis/Analysis.cpp, ``Distribution``) keeps
up to 4096 samples per op exactly and then moves them into a log-bucketed
histogram (buckets 0.5% wide); percentiles are nearest-rank. The functions
here reproduce both regimes, so a frame's p50/p99 equal the analyzer's
figures for the same trace, not merely come close to them.
"""
import math

import numpy as np

EXACT_SAMPLES = 4096
_BUCKET_RATIO = 1.005
_LOG_RATIO = math.log(_BUCKET_RATIO)
_ZERO_BUCKET = -(2 ** 31)  # INT32_MIN: values <= 0


def _bucket(v):
    if v <= 0.0:
        return _ZERO_BUCKET
    # math.log is the C library's log, as std::log in the analyzer: the same
    # bucket for a value on a bucket edge.
    return math.floor(math.log(v) / _LOG_RATIO)


def _rank(p, n):
    """Nearest rank (1-based) of percentile p in [0, 100] among n values."""
    return max(1, math.ceil(p / 100.0 * float(n)))


def percentiles(values, ps):
    """Nearest-rank percentiles of `values` (a 1-D array) for each p in `ps`.

    Exact for up to EXACT_SAMPLES values; beyond, the middle of the
    analyzer's histogram bucket (within 0.25%), clamped to the observed range.
    NaN for an empty array.
    """
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if n == 0:
        return [math.nan for _ in ps]
    if n <= EXACT_SAMPLES:
        ordered = np.sort(values)
        return [float(ordered[_rank(p, n) - 1]) for p in ps]
    lo, hi = float(values.min()), float(values.max())
    buckets, counts = np.unique(np.fromiter((_bucket(float(v)) for v in values),
                                            dtype=np.int64, count=n),
                                return_counts=True)
    seen = np.cumsum(counts)
    out = []
    for p in ps:
        k = int(np.searchsorted(seen, _rank(p, n)))
        if k >= len(buckets):
            out.append(hi)
        elif buckets[k] == _ZERO_BUCKET:
            out.append(0.0)
        else:
            mid = math.pow(_BUCKET_RATIO, int(buckets[k]) + 0.5)
            out.append(min(max(mid, lo), hi))
    return out
