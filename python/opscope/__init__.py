"""opscope from Python: compile, run and profile models; traces and
profile CSVs as pandas DataFrames.

``compile`` drives opscope-compile (and its cache), ``Session`` runs a
compiled model through the runtime (numpy in, numpy out, the GIL released
while it runs), and ``profile`` is a block whose sessions record their
probes, with labelled spans, opscope-analyze's tables and the trace's
frames (docs/python.md). Those three need the extension ``make build``
builds; the loaders below do not.

A trace (``opscope-run --profile --trace``, ``OPSCOPE_PROFILE``) loads into
``events`` (one row per op execution), ``iterations`` (one row per
iteration span), ``ops`` (one row per probe: the probe table's columns and
the per-op statistics opscope-analyze prints) and ``summary`` (one row: the
run summary). A profile CSV (``--csv``) loads into ``ops`` (its per-op part)
and ``summary`` (its network totals). An opscope-sweep results directory
loads into one frame, a row per point and host (``load_sweep``,
docs/sweep.md). Standard library, numpy and pandas only. See
docs/python.md.

Example, on the files of
``opscope-run mlp.so --profile --iterations 20 --warmup 3 --trace trace.json --csv profile.csv``
(``mlp.so`` compiled from ``models/generate.py``'s mlp-opset14 with
``--input-shape input=4x784``):

>>> import opscope
>>> t = opscope.load_trace("trace.json")
>>> t
<opscope.Trace 'trace.json': model 'mlp-opset14', 3 probes, 69 op events, 23 iterations>
>>> t.summary["iterations"].item()     # warm-up left out, as opscope-analyze does
20
>>> t.ops[["id", "name", "type", "post_ops", "count"]]
   id       name           type post_ops  count
0   0  /fc1/Gemm  inner_product   [relu]     20
1   1  /fc2/Gemm  inner_product   [relu]     20
2   2  /fc3/Gemm  inner_product       []     20
>>> t.ops.loc[0, "input_shapes"], t.ops.loc[0, "weight_shape"]
([[4, 784]], [512, 784])
>>> t.ops["self_percent"].sum().round(6)
100.0
>>> t.events.groupby("label")["probe"].count()
label
measure    60
warm up     9
Name: probe, dtype: int64
>>> p = opscope.read_profile_csv("profile.csv")
>>> p.ops[["operator_name", "count", "sparse_support"]]
  operator_name  count  sparse_support
0     /fc1/Gemm     20            True
1     /fc2/Gemm     20            True
2     /fc3/Gemm     20            True
>>> p.summary["iterations"].item(), p.ops["count"].dtype
(20, dtype('int64'))
"""
from .errors import CompileError, LoadError, RunError
from .profile_csv import ProfileCsv, read_profile_csv
from .profiler import profile
from .runtime import CompiledModel, Model, Session, TensorInfo, compile, tool_path
from .sweep_results import load_sweep
from .trace import (ANALYZE_OP_COLUMNS, ANALYZE_SUMMARY_COLUMNS, Trace,
                    load_trace, loads_trace)

# `compile` is left out of __all__: a star import would hide the builtin.
__all__ = ["Session", "Model", "CompiledModel", "TensorInfo", "profile",
           "tool_path", "load", "load_trace", "loads_trace", "read_profile_csv",
           "load_sweep", "Trace", "ProfileCsv", "LoadError", "CompileError", "RunError",
           "ANALYZE_OP_COLUMNS", "ANALYZE_SUMMARY_COLUMNS"]


def load(path, **selection):
    """A trace or a profile CSV, told apart by content (a trace is JSON).

    Keyword arguments (label, include_warmup, skip_iterations) apply to
    traces only.
    """
    with open(path, "rb") as f:
        head = f.read(64).lstrip()
    if head.startswith(b"{"):
        return load_trace(path, **selection)
    if selection:
        raise TypeError("%s: label, include_warmup and skip_iterations apply to "
                        "traces, not profile CSVs" % path)
    return read_profile_csv(path)
