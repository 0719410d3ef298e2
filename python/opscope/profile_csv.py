"""Reading the profile CSV (docs/profile-csv.md) into pandas frames.

The file holds two tables, the per-op rows and, after a blank line, the
network totals; ``pd.read_csv`` on it reads the totals as junk op rows and
every count as a float. This reader splits the parts and types each column.
"""
import csv
import io
import math

import numpy as np
import pandas as pd

from .errors import LoadError

_LIST = "list"        # ';'-separated
_SHAPES = "shapes"    # ';'-separated shapes, each 'AxBxC' -> [[A, B, C], ...]
_SHAPE = "shape"      # one shape, empty -> None
_FLOAT = "float"      # empty -> NaN
_INT = "int"
_BOOL = "bool"
_TEXT = "text"
_OPTIONAL_TEXT = "optional text"  # empty -> None
_EXTENT = "extent"    # '3' -> 3, '2..5' -> (2, 5), empty -> None

#: Per-op columns and how each is typed; other columns stay text.
OP_COLUMNS = {
    "operator_type": _TEXT, "post_op": _LIST, "operator_name": _TEXT,
    "input_tensor_names": _LIST, "input_shapes": _SHAPES, "input_dtypes": _LIST,
    "output_tensor_names": _LIST, "output_shapes": _SHAPES,
    "output_dtypes": _LIST, "weight_shape": _SHAPE,
    "weight_sparse_ratio": _FLOAT, "weight_block_sparse_ratio": _FLOAT,
    "sparse_block": _OPTIONAL_TEXT, "sparse_support": _BOOL,
    "kernel": _TEXT, "count": _INT, "latency_mean_ms": _FLOAT,
    "latency_p50_ms": _FLOAT, "latency_p99_ms": _FLOAT, "gflops_per_s": _FLOAT,
    "output_extent": _EXTENT,
}

#: Columns a CSV written by an older opscope lacks.
_OPTIONAL_COLUMNS = {"output_extent"}

#: Network-total columns and their types.
NETWORK_COLUMNS = {
    "network": _TEXT, "iterations": _INT, "latency_mean_ms": _FLOAT,
    "latency_p50_ms": _FLOAT, "latency_p90_ms": _FLOAT,
    "latency_p99_ms": _FLOAT, "op_time_mean_ms": _FLOAT,
    "op_coverage_percent": _FLOAT, "probe_cost_ns": _FLOAT,
    "dropped_events": _INT,
}

# Columns whose list length is the number of inputs (outputs): a scalar's
# shape is empty, so the shapes field alone cannot tell one scalar from none.
_COUNT_FROM = {"input_shapes": "input_dtypes", "output_shapes": "output_dtypes"}


class ProfileCsv:
    """A profile CSV as pandas frames.

    Attributes:
      path        the file read
      ops         the per-op part, one row per probe, typed: ``count`` int64,
                  ``sparse_support`` bool, shapes as lists of ints, ``;``
                  lists as Python lists, empty numbers NaN,
                  ``output_extent`` an int, a (min, max) pair or None
      summary     the network totals, one row (``iterations`` and
                  ``dropped_events`` int64)
      events, iterations   None: the CSV holds statistics, not events
    """

    events = None
    iterations = None

    def __init__(self, path, ops, summary):
        self.path = str(path)
        self.ops = ops
        self.summary = summary

    @property
    def model(self):
        return self.summary["network"].iloc[0] if len(self.summary) else ""

    def __repr__(self):
        return "<opscope.ProfileCsv %r: network %r, %d ops>" % (
            self.path, self.model, len(self.ops))


def read_profile_csv(path):
    """Reads a profile CSV (``opscope-run --profile --csv``).

    Raises LoadError (naming the file) for a file that is not a profile CSV,
    and OSError when the file cannot be read.
    """
    path = str(path)
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"operator_type,"):
        raise LoadError(path, "not an opscope profile CSV: the first line should be "
                              "the per-op header (operator_type,...)")
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline=""),
                               strict=True))
    except (csv.Error, UnicodeDecodeError) as e:
        raise LoadError(path, "not an opscope profile CSV: %s" % e) from None
    try:
        blank = rows.index([])
    except ValueError:
        raise LoadError(path, "no network totals: the blank line between the per-op "
                              "rows and the totals is missing (truncated?)") from None
    op_rows, rest = rows[:blank], [r for r in rows[blank + 1:] if r]
    if len(rest) != 2 or rest[0][:1] != ["network"]:
        raise LoadError(path, "after the blank line, expected the network totals "
                              "header and one row")
    ops = _frame(path, op_rows[0], op_rows[1:], OP_COLUMNS, first_line=2)
    summary = _frame(path, rest[0], rest[1:], NETWORK_COLUMNS,
                     first_line=blank + 3)
    return ProfileCsv(path, ops, summary)


def _frame(path, header, body, kinds, first_line):
    missing = [c for c in kinds if c not in header and c not in _OPTIONAL_COLUMNS]
    if missing:
        raise LoadError(path, "missing column(s) %s" % ", ".join(missing))
    columns = {name: [] for name in header}
    for k, row in enumerate(body):
        if len(row) != len(header):
            raise LoadError(path, "line %d has %d fields, the header %d"
                                  % (first_line + k, len(row), len(header)))
        fields = dict(zip(header, row))
        for name in header:
            kind = kinds.get(name, _TEXT)
            try:
                if name in _COUNT_FROM:
                    n = len(_split(fields[_COUNT_FROM[name]]))
                    value = _shapes(fields[name], n)
                else:
                    value = _PARSE[kind](fields[name])
            except ValueError as e:
                raise LoadError(path, "line %d, column %s: %s"
                                      % (first_line + k, name, e)) from None
            columns[name].append(value)
    dtypes = {_INT: np.int64, _FLOAT: np.float64, _BOOL: bool}
    return pd.DataFrame({name: pd.Series(values, dtype=dtypes.get(kinds.get(name), object))
                         for name, values in columns.items()})


def _split(text):
    return text.split(";") if text else []


def _shape(text):
    if not text:
        return None
    return [int(d) for d in text.split("x")]


def _shapes(text, n):
    parts = text.split(";") if n else []
    if len(parts) != n:
        raise ValueError("%d shapes for %d tensors: '%s'" % (len(parts), n, text))
    return [[int(d) for d in p.split("x")] if p else [] for p in parts]


def _float(text):
    return math.nan if text == "" else float(text)


def _int(text):
    try:
        return int(text)
    except ValueError:
        raise ValueError("expected an integer, got '%s'" % text) from None


def _extent(text):
    if not text:
        return None
    lo, sep, hi = text.partition("..")
    try:
        return (int(lo), int(hi)) if sep else int(text)
    except ValueError:
        raise ValueError("expected an extent (N or MIN..MAX), got '%s'" % text) from None


def _bool(text):
    if text not in ("true", "false"):
        raise ValueError("expected true or false, got '%s'" % text)
    return text == "true"


_PARSE = {
    _LIST: _split, _SHAPES: lambda t: _shapes(t, len(_split(t))), _SHAPE: _shape,
    _FLOAT: _float, _INT: _int, _BOOL: _bool, _TEXT: str,
    _OPTIONAL_TEXT: lambda t: t or None, _EXTENT: _extent,
}
