"""Loading an opscope trace (docs/trace-format.md) into pandas frames."""
import json
import math

import numpy as np
import pandas as pd

from ._dist import percentiles
from .errors import LoadError

SCHEMA_VERSION = 1
WARM_UP_LABEL = "warm up"

#: opscope-analyze's per-op JSON keys -> columns of ``Trace.ops``.
ANALYZE_OP_COLUMNS = {
    "id": "id", "name": "name", "type": "type", "count": "count",
    "self_ms": "self_ms", "self_%": "self_percent", "mean_us": "mean_us",
    "p50_us": "p50_us", "p99_us": "p99_us", "gflop/s": "gflops_per_s",
    "gb/s": "gb_per_s",
}

#: opscope-analyze's summary metrics -> columns of ``Trace.summary``.
ANALYZE_SUMMARY_COLUMNS = {
    "model": "model", "iterations": "iterations",
    "latency_min": "latency_min_ms", "latency_mean": "latency_mean_ms",
    "latency_p50": "latency_p50_ms", "latency_p90": "latency_p90_ms",
    "latency_p95": "latency_p95_ms", "latency_p99": "latency_p99_ms",
    "latency_p99.9": "latency_p99_9_ms", "latency_max": "latency_max_ms",
    "op_time_per_iteration": "op_time_per_iteration_ms",
    "coverage_of_wall_time": "coverage_of_wall_time_percent",
    "op_events": "op_events", "probe_cost": "probe_cost_ns",
    "probe_overhead_per_iteration": "probe_overhead_per_iteration_ms",
    "op_time_without_probe_cost": "op_time_without_probe_cost_ms",
    "dropped_events": "dropped_events",
    "startup_load": "startup_load_ms",
    "startup_map_weights": "startup_map_weights_ms",
    "startup_create_kernels": "startup_create_kernels_ms",
    "startup_slowest_kernel": "startup_slowest_kernel",
    "startup_slowest_kernel_time": "startup_slowest_kernel_ms",
    "startup_first_run": "startup_first_run_ms",
    "arena_planned": "arena_planned_mib",
    "arena_peak_live": "arena_peak_live_mib",
    "arena_peak_op": "arena_peak_op",
    "weights_mapped": "weights_mapped_mib",
}

# Key sets of docs/trace-format.md: like opscope-analyze, the loader refuses
# others, so a file one accepts the other does too.
_ALLOWED_TOP_KEYS = {"traceEvents", "opscope", "displayTimeUnit", "otherData"}
_HEADER_KEYS = {"schema_version", "model", "machine", "run", "memory",
                "startup", "probes", "probe_cost_ns", "dropped_events",
                "labels", "tuning_db"}
_MEMORY_KEYS = {"arena_bytes", "weight_bytes", "peak_live_bytes", "peak_op",
                "peak_probe"}
_STARTUP_KEYS = {"load_ms", "map_weights_ms", "create_kernels_ms",
                 "slowest_kernel", "slowest_kernel_ms", "first_run_ms"}
_MACHINE_KEYS = {"cpu", "isa", "tier", "amx_available", "amx_used", "threads"}
_PROBE_KEYS = {"id", "name", "type", "post_ops", "source_nodes", "inputs",
               "outputs", "weight_shape", "weight_sparsity", "block_sparsity",
               "sparse_block", "sparse_support", "flops", "bytes", "live_bytes",
               "kernel", "kernel_choice"}
_OP_ARGS_KEYS = {"probe", "iteration", "label", "loop", "loop_iteration",
                 "extent", "output_shapes"}


def _known_keys(path, obj, allowed, where):
    for key in obj:
        if key not in allowed:
            raise LoadError(path, "unknown key '%s' in %s" % (key, where))


class Trace:
    """One trace file as pandas frames.

    Attributes:
      path        the file read
      header      the ``opscope`` object without its probe table (model,
                  machine, run, labels, probe_cost_ns, dropped_events, ...)
      labels      labels the header declares, then any other an event carries
      events      one row per op execution (every label), ``selected`` True
                  for those the selection counts; ``extent`` the run-time
                  extent of an op with bounded outputs (-1 for the others)
      iterations  one row per iteration span (every label), with ``selected``
      ops         one row per probe: the probe table's columns and the
                  statistics of the selected events (opscope-analyze's)
      summary     one row: the run summary of opscope-analyze
      startup     one row per start-up span (load, map weights, create
                  kernels and one "create kernel: OP" per op, first run)
      memory      the "arena live bytes" counter: one row per op end
      selection   the keyword arguments the statistics were computed with
    """

    def __init__(self, path, header, probes, events, iterations, selection,
                 startup=None, memory=None):
        self.path = str(path)
        self.startup = startup
        self.memory = memory
        self.header = header
        self.labels = list(header.get("labels", []))
        self.events = events
        self.iterations = iterations
        self.selection = selection
        self._probes = probes
        self.ops, self.summary = _statistics(header, probes, events, iterations)

    @property
    def model(self):
        return self.header.get("model", "")

    def select(self, label=None, include_warmup=False, skip_iterations=0):
        """The same trace with statistics over another selection."""
        events, iterations = self.events.copy(), self.iterations.copy()
        _mark_selected(self.path, self.labels, events, iterations, label,
                       include_warmup, skip_iterations)
        return Trace(self.path, self.header, self._probes, events, iterations,
                     dict(label=label, include_warmup=include_warmup,
                          skip_iterations=skip_iterations),
                     self.startup, self.memory)

    def __repr__(self):
        return "<opscope.Trace %r: model %r, %d probes, %d op events, %d iterations>" % (
            self.path, self.model, len(self.ops), len(self.events),
            len(self.iterations))


def load_trace(path, label=None, include_warmup=False, skip_iterations=0):
    """Reads an opscope trace (``opscope-run --trace``, ``OPSCOPE_PROFILE``).

    The statistics (``ops``, ``summary``) cover the events opscope-analyze
    counts with the same options: by default every event except those
    recorded under ``warm up``; ``label="measure"`` only that label (a
    label the trace does not have is an error listing those it has);
    ``include_warmup=True`` counts warm-up too; ``skip_iterations=N`` drops
    iterations numbered below N. ``events`` and ``iterations`` keep every
    event, with a ``selected`` column.

    Raises LoadError (naming the file) for a file that is not an opscope
    trace, and OSError when the file cannot be read.
    """
    path = str(path)
    with open(path, "rb") as f:
        data = f.read()
    return loads_trace(data, path, label=label, include_warmup=include_warmup,
                       skip_iterations=skip_iterations)


def loads_trace(data, name="<trace>", label=None, include_warmup=False,
                skip_iterations=0):
    """A trace held in memory (``str`` or ``bytes``), as ``load_trace``
    reads a file: the Python profiler's (``opscope.profile``) is one.
    ``name`` stands for the file in ``Trace.path`` and in errors."""
    path = str(name)
    try:
        doc = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise LoadError(path, "not valid JSON (truncated or not a trace?): %s" % e) from None
    except RecursionError:
        raise LoadError(path, "JSON nested too deeply to be a trace") from None
    if not isinstance(doc, dict):
        raise LoadError(path, "not an opscope trace: the top level is not a JSON object")
    for key in doc:
        if key not in _ALLOWED_TOP_KEYS:
            raise LoadError(path, "unknown top-level key '%s'" % key)
    if "opscope" not in doc:
        raise LoadError(path, "no top-level 'opscope' object; not an opscope trace "
                              "(schema in docs/trace-format.md)")
    if not isinstance(doc.get("traceEvents"), list):
        raise LoadError(path, "no 'traceEvents' array")
    header, probes = _header(path, doc["opscope"])
    events, iterations, event_labels, startup, memory = _events(
        path, doc["traceEvents"], len(probes))
    for l in event_labels:
        if l not in header["labels"]:
            header["labels"].append(l)
    _mark_selected(path, header["labels"], events, iterations, label,
                   include_warmup, skip_iterations)
    return Trace(path, header, probes, events, iterations,
                 dict(label=label, include_warmup=include_warmup,
                      skip_iterations=skip_iterations), startup, memory)


def _header(path, obj):
    if not isinstance(obj, dict):
        raise LoadError(path, "the opscope object is not a JSON object")
    _known_keys(path, obj, _HEADER_KEYS, "the opscope object")
    if not isinstance(obj.get("machine", {}), dict):
        raise LoadError(path, "opscope.machine is not an object")
    _known_keys(path, obj.get("machine", {}), _MACHINE_KEYS, "opscope.machine")
    for key, allowed in (("memory", _MEMORY_KEYS), ("startup", _STARTUP_KEYS)):
        if not isinstance(obj.get(key, {}), dict):
            raise LoadError(path, "opscope.%s is not an object" % key)
        _known_keys(path, obj.get(key, {}), allowed, "opscope." + key)
    version = obj.get("schema_version")
    if version != SCHEMA_VERSION:
        raise LoadError(path, "schema version %s is not supported (this loader reads "
                              "version %d)" % (version, SCHEMA_VERSION))
    probes = obj.get("probes")
    if not isinstance(probes, list):
        raise LoadError(path, "opscope.probes is missing or not an array")
    header = {k: v for k, v in obj.items() if k != "probes"}
    header["labels"] = [l for l in obj.get("labels") or [] if isinstance(l, str)]
    header.setdefault("model", "")
    header.setdefault("machine", {})
    header.setdefault("run", {})
    header.setdefault("probe_cost_ns", 0.0)
    header.setdefault("dropped_events", 0)
    rows = []
    for i, p in enumerate(probes):
        where = "opscope.probes[%d]" % i
        if not isinstance(p, dict):
            raise LoadError(path, "%s is not an object" % where)
        _known_keys(path, p, _PROBE_KEYS, where)
        for key in ("id", "name", "type"):
            if key not in p:
                raise LoadError(path, "%s has no '%s'" % (where, key))
        if p["id"] != i:
            raise LoadError(path, "%s has id %s; probe ids must be dense, in order"
                                  % (where, p["id"]))
        try:
            rows.append(_probe_row(p))
        except (TypeError, ValueError, KeyError) as e:
            raise LoadError(path, "%s is malformed: %s" % (where, e)) from None
    return header, rows


def _optional_float(v):
    return math.nan if v is None else float(v)


def _probe_row(p):
    ins, outs = p.get("inputs") or [], p.get("outputs") or []
    weight = p.get("weight_shape")
    return {
        "id": int(p["id"]),
        "name": str(p["name"]),
        "type": str(p["type"]),
        "post_ops": [str(x) for x in p.get("post_ops") or []],
        "source_nodes": [str(x) for x in p.get("source_nodes") or []],
        "input_names": [t["name"] for t in ins],
        "input_shapes": [[int(d) for d in t["shape"]] for t in ins],
        "input_dtypes": [t["dtype"] for t in ins],
        "output_names": [t["name"] for t in outs],
        "output_shapes": [[int(d) for d in t["shape"]] for t in outs],
        "output_dtypes": [t["dtype"] for t in outs],
        "weight_shape": None if weight is None else [int(d) for d in weight],
        "weight_sparsity": _optional_float(p.get("weight_sparsity")),
        "block_sparsity": _optional_float(p.get("block_sparsity")),
        "sparse_block": p.get("sparse_block"),
        "sparse_support": bool(p.get("sparse_support", False)),
        "flops": _optional_float(p.get("flops")),
        "bytes": _optional_float(p.get("bytes")),
        "live_bytes": None if p.get("live_bytes") is None else int(p["live_bytes"]),
        "kernel": str(p.get("kernel", "")),
        # Why the compiler chose the kernel and the tuning database entry
        # that decided (docs/tuning.md, "Kernel choice"); None elsewhere.
        "kernel_choice": p.get("kernel_choice"),
    }


def _events(path, trace_events, n_probes):
    ops = {k: [] for k in ("probe", "name", "tid", "iteration", "label", "ts_us", "dur_us",
                           "extent")}
    its = {k: [] for k in ("iteration", "label", "tid", "ts_us", "dur_us")}
    starts = {k: [] for k in ("name", "op", "tid", "ts_us", "dur_us")}
    counters = {k: [] for k in ("name", "ts_us", "bytes")}
    labels = []
    seen = set()
    for i, e in enumerate(trace_events):
        if not isinstance(e, dict):
            raise LoadError(path, "traceEvents[%d] is not an object" % i)
        cat = e.get("cat")
        try:
            if e.get("ph") == "X" and cat == "startup":
                starts["name"].append(str(e["name"]))
                starts["op"].append(int(e.get("args", {}).get("op", -1)))
                starts["tid"].append(int(e.get("tid", 0)))
                starts["ts_us"].append(float(e["ts"]))
                starts["dur_us"].append(float(e["dur"]))
                continue
            if e.get("ph") == "C" and cat == "memory":
                counters["name"].append(str(e["name"]))
                counters["ts_us"].append(float(e["ts"]))
                counters["bytes"].append(int(e["args"]["bytes"]))
                continue
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise LoadError(path, "traceEvents[%d] is malformed (%s: %s)"
                                  % (i, type(err).__name__, err)) from None
        if e.get("ph") != "X" or cat not in ("op", "iteration"):
            continue  # metadata, label spans and other viewers' events
        try:
            args = e["args"]
            ts, dur = float(e["ts"]), float(e["dur"])
            label = str(args.get("label", ""))
            if cat == "op":
                _known_keys(path, args, _OP_ARGS_KEYS, "traceEvents[%d].args" % i)
                probe = int(args["probe"])
                iteration = int(args.get("iteration", -1))
                extent = int(args.get("extent", -1))
            else:
                iteration = int(args["iteration"])
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise LoadError(path, "traceEvents[%d] is malformed (%s: %s)"
                                  % (i, type(err).__name__, err)) from None
        if dur < 0:
            raise LoadError(path, "traceEvents[%d] has a negative duration" % i)
        if cat == "op" and "extent" in args and extent < 0:
            raise LoadError(path, "traceEvents[%d] has a negative extent" % i)
        if label not in seen:
            seen.add(label)
            labels.append(label)
        if cat == "op":
            if not 0 <= probe < n_probes:
                raise LoadError(path, "an op event names probe %d, which is not in "
                                      "the probe table" % probe)
            ops["probe"].append(probe)
            ops["name"].append(e.get("name", ""))
            ops["tid"].append(int(e.get("tid", 0)))
            ops["iteration"].append(iteration)
            ops["label"].append(label)
            ops["ts_us"].append(ts)
            ops["dur_us"].append(dur)
            ops["extent"].append(extent)
        else:
            its["iteration"].append(iteration)
            its["label"].append(label)
            its["tid"].append(int(e.get("tid", 0)))
            its["ts_us"].append(ts)
            its["dur_us"].append(dur)
    types = {"probe": np.int64, "tid": np.int64, "iteration": np.int64,
             "ts_us": np.float64, "dur_us": np.float64, "name": object, "label": object,
             "extent": np.int64}
    events = pd.DataFrame({k: pd.Series(v, dtype=types[k]) for k, v in ops.items()})
    iterations = pd.DataFrame({k: pd.Series(v, dtype=types[k]) for k, v in its.items()})
    types.update(op=np.int64, bytes=np.int64)
    startup = pd.DataFrame({k: pd.Series(v, dtype=types[k]) for k, v in starts.items()})
    memory = pd.DataFrame({k: pd.Series(v, dtype=types[k]) for k, v in counters.items()})
    return events, iterations, labels, startup, memory


def _mark_selected(path, labels, events, iterations, label, include_warmup,
                   skip_iterations):
    if label is not None and label not in labels:
        have = ", ".join("'%s'" % l for l in labels) or "none"
        raise LoadError(path, "no events under label '%s'; the trace's labels are %s"
                              % (label, have))
    for frame in (events, iterations):
        if label is not None:
            keep = frame["label"] == label
        elif include_warmup:
            keep = pd.Series(True, index=frame.index)
        else:
            keep = frame["label"] != WARM_UP_LABEL
        frame["selected"] = (keep & ((frame["iteration"] < 0) |
                                     (frame["iteration"] >= skip_iterations))).astype(bool)


def _statistics(header, probes, events, iterations):
    """ops and summary, computed as opscope-analyze computes its tables."""
    sel = events[events["selected"]]
    it = iterations.loc[iterations["selected"], "dur_us"].to_numpy()
    by_probe = {p: g.to_numpy() for p, g in sel.groupby("probe")["dur_us"]}
    # The iterations the per-iteration figures divide by: the iteration
    # spans, or without any, the most executions of one op.
    n_iter = len(it) or max([len(v) for v in by_probe.values()] + [1])
    total_us = float(sel["dur_us"].sum())
    whole = total_us / n_iter

    rows = []
    for p in probes:
        d = by_probe.get(p["id"], np.empty(0))
        n = len(d)
        row = dict(p)
        s = float(d.sum()) if n else 0.0
        mean = s / n if n else math.nan
        p50, p99 = percentiles(d, (50.0, 99.0))
        row.update(count=n, total_ms=s / 1e3, self_ms=s / n_iter / 1e3,
                   self_percent=100.0 * (s / n_iter) / whole if whole > 0 else 0.0,
                   mean_us=mean, p50_us=p50, p99_us=p99,
                   min_us=float(d.min()) if n else math.nan,
                   max_us=float(d.max()) if n else math.nan,
                   gflops_per_s=p["flops"] / (mean * 1e3)
                   if n and mean > 0 and not math.isnan(p["flops"]) else math.nan,
                   gb_per_s=p["bytes"] / (mean * 1e3)
                   if n and mean > 0 and not math.isnan(p["bytes"]) else math.nan)
        rows.append(row)
    ops = pd.DataFrame(rows, columns=_OP_COLUMNS)
    ops = ops.astype({"id": np.int64, "count": np.int64, "sparse_support": bool,
                      "live_bytes": "Int64"})

    n = len(it)
    lat = percentiles(it, (50.0, 90.0, 95.0, 99.0, 99.9))
    op_time = total_us / n / 1e3 if n else math.nan
    overhead = header["probe_cost_ns"] * len(sel) / n / 1e6 if n else math.nan
    ms = (lambda v: v / 1e3) if n else (lambda v: math.nan)
    summary = pd.DataFrame([{
        "model": header["model"],
        "iterations": n,
        "latency_min_ms": ms(float(it.min()) if n else 0.0),
        "latency_mean_ms": ms(float(it.sum()) / n if n else 0.0),
        "latency_p50_ms": ms(lat[0]), "latency_p90_ms": ms(lat[1]),
        "latency_p95_ms": ms(lat[2]), "latency_p99_ms": ms(lat[3]),
        "latency_p99_9_ms": ms(lat[4]),
        "latency_max_ms": ms(float(it.max()) if n else 0.0),
        "op_time_per_iteration_ms": op_time,
        "coverage_of_wall_time_percent":
            100.0 * op_time * 1e3 / (float(it.sum()) / n)
            if n and it.sum() > 0 else math.nan,
        "op_events": len(sel),
        "probe_cost_ns": float(header["probe_cost_ns"]),
        "probe_overhead_per_iteration_ms": overhead,
        "op_time_without_probe_cost_ms": max(0.0, op_time - overhead) if n else math.nan,
        "dropped_events": int(header["dropped_events"]),
    }])
    # Start-up and memory, when the trace records them (as the analyzer).
    extra = {}
    st, mem = header.get("startup") or {}, header.get("memory") or {}
    for key, col in (("load_ms", "startup_load_ms"),
                     ("map_weights_ms", "startup_map_weights_ms"),
                     ("create_kernels_ms", "startup_create_kernels_ms")):
        if st.get(key) is not None:
            extra[col] = float(st[key])
    if st.get("slowest_kernel"):
        extra["startup_slowest_kernel"] = str(st["slowest_kernel"])
    if st.get("slowest_kernel_ms") is not None:
        extra["startup_slowest_kernel_ms"] = float(st["slowest_kernel_ms"])
    if st.get("first_run_ms") is not None:
        extra["startup_first_run_ms"] = float(st["first_run_ms"])
    for key, col in (("arena_bytes", "arena_planned_mib"),
                     ("peak_live_bytes", "arena_peak_live_mib")):
        if mem.get(key) is not None:
            extra[col] = mem[key] / 1048576.0
    if mem.get("peak_op"):
        extra["arena_peak_op"] = str(mem["peak_op"])
    if mem.get("weight_bytes") is not None:
        extra["weights_mapped_mib"] = mem["weight_bytes"] / 1048576.0
    for col, v in extra.items():
        summary[col] = v
    summary = summary.astype({"iterations": np.int64, "op_events": np.int64,
                              "dropped_events": np.int64})
    return ops, summary


_OP_COLUMNS = [
    "id", "name", "type", "post_ops", "source_nodes",
    "input_names", "input_shapes", "input_dtypes",
    "output_names", "output_shapes", "output_dtypes",
    "weight_shape", "weight_sparsity", "block_sparsity", "sparse_block",
    "sparse_support", "flops", "bytes", "live_bytes", "kernel",
    "kernel_choice", "count", "total_ms", "self_ms", "self_percent", "mean_us", "p50_us",
    "p99_us", "min_us", "max_us", "gflops_per_s", "gb_per_s",
]
