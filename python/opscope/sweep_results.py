"""opscope-sweep's results directory: written one point at a time, read as
one DataFrame.

  DIR/sweep.json                        the settings every point shares
  DIR/points/POINT--TIER--HOST/         one finished point on one host:
      result.json                       its summary row, status and errors
      trace.json, profile.csv           opscope-run's files (when it ran)

A point's folder is written under a temporary name and renamed into place
whole, so a reader (or a resumed sweep) sees a point completely or not at
all. Standard library and pandas only (no Dask).
"""
import datetime
import json
import math
import os
import re
import shutil
import tempfile

import numpy as np
import pandas as pd

from .errors import LoadError
from .sweep_spec import configuration
from .trace import load_trace

SCHEMA = "opscope-sweep/1"
RESULT_SCHEMA = "opscope-sweep-result/1"
TOP_OPS = 5
_LATENCIES = ["latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "latency_mean_ms",
              "latency_min_ms", "latency_max_ms"]


def point_dir_name(point, tier, host):
    safe = lambda s: re.sub(r"[^A-Za-z0-9._-]", "_", str(s))
    return "%s--%s--%s" % (point, safe(tier or "none"), safe(host))


def _fsync_write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def _finite(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


def _summary(trace_path, batch):
    """The point's figures from its trace, as load_trace (and so
    opscope-analyze) computes them."""
    t = load_trace(trace_path)
    s = t.summary.iloc[0]
    out = {c: _finite(float(s[c])) for c in _LATENCIES}
    out["op_time_per_iteration_ms"] = _finite(float(s["op_time_per_iteration_ms"]))
    out["iterations"] = int(s["iterations"])
    mean = out["latency_mean_ms"]
    out["throughput_samples_per_s"] = batch * 1000.0 / mean if mean else None
    top = t.ops.sort_values(["self_ms", "id"], ascending=[False, True]).head(TOP_OPS)
    out["top_ops"] = [{"name": r["name"], "type": r["type"], "kernel": r["kernel"],
                       "self_ms": _finite(float(r["self_ms"])),
                       "self_percent": _finite(float(r["self_percent"]))}
                      for _, r in top.iterrows()]
    machine = t.header.get("machine", {})
    out["isa"], out["amx_used"] = machine.get("isa"), machine.get("amx_used")
    return out


class ResultsDir:
    """Writes and scans one sweep's results directory."""

    def __init__(self, path):
        self.path = path
        self.points = os.path.join(path, "points")

    def check_settings(self, settings):
        """None when the directory is new or holds a sweep with the same
        settings; else what differs, for the error message."""
        meta = os.path.join(self.path, "sweep.json")
        if not os.path.exists(meta):
            if os.path.isdir(self.points) and os.listdir(self.points):
                return "it has points but no sweep.json"
            return None
        try:
            with open(meta) as f:
                old = json.load(f)["settings"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            return "its sweep.json cannot be read (%s)" % e
        for key in ("iterations", "warmup", "calibration"):
            if old.get(key) != settings[key]:
                return "its points ran with %s %s, the spec says %s" % (
                    key, json.dumps(old.get(key)), json.dumps(settings[key]))
        for name, m in settings["models"].items():
            o = old.get("models", {}).get(name)
            if o is not None and o != m:
                what = "file" if o.get("sha256") != m["sha256"] else "input shapes"
                return "its model '%s' had another %s" % (name, what)
        return None

    def start(self, spec_path, settings):
        """Creates the directory (or takes up an existing one): sweep.json,
        points/, and removes what an interrupted writer left half done."""
        os.makedirs(self.points, exist_ok=True)
        for name in os.listdir(self.points):
            if name.startswith(".tmp-"):
                shutil.rmtree(os.path.join(self.points, name), ignore_errors=True)
        meta = os.path.join(self.path, "sweep.json")
        old = {}
        if os.path.exists(meta):
            with open(meta) as f:
                old = json.load(f)["settings"]
        merged = dict(settings, models=dict(old.get("models", {}), **settings["models"]))
        tmp = meta + ".tmp"
        _fsync_write(tmp, json.dumps({"schema": SCHEMA, "spec": os.path.abspath(spec_path),
                                      "settings": merged}, indent=1) + "\n")
        os.replace(tmp, meta)

    def finished(self):
        """{(point, slot): [(folder, status)]} of the points on disk."""
        done = {}
        if not os.path.isdir(self.points):
            return done
        for name in sorted(os.listdir(self.points)):
            f = os.path.join(self.points, name, "result.json")
            if name.startswith(".") or not os.path.isfile(f):
                continue
            try:
                with open(f) as fh:
                    r = json.load(fh)
                key = (r["point"], r["slot"])
                done.setdefault(key, []).append((name, r["status"]))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # load_sweep names the file; a rerun replaces it
        return done

    def write(self, result, extra, replace=()):
        """Writes one point's folder whole (see the module's docstring) and
        removes the folders named in `replace` (the point's earlier failed
        runs); returns (folder name, the result record). A point already on
        disk under the same name, and not to be replaced, is kept (Dask ran
        it twice)."""
        name = point_dir_name(result["point"], result["tier"], result["host"])
        final = os.path.join(self.points, name)
        if os.path.isdir(final) and name not in replace:
            with open(os.path.join(final, "result.json")) as f:
                return name, json.load(f)
        cfg = result["config"]
        record = {"schema": RESULT_SCHEMA, "point": result["point"], "slot": result["slot"]}
        record.update({k: cfg[k] for k in ("model", "batch", "seq", "precision",
                                           "sparsity", "threads", "input_shapes")})
        record.update({k: result.get(k) for k in (
            "host", "worker", "tier", "cpu", "max_isa", "pid", "status", "stage", "error",
            "exit_code", "compile_cached", "steps")})
        record.update(extra)
        record.update({c: None for c in _LATENCIES + [
            "op_time_per_iteration_ms", "iterations", "throughput_samples_per_s",
            "isa", "amx_used"]})
        record.update(top_ops=[], files=None)
        tmp = tempfile.mkdtemp(prefix=".tmp-", dir=self.points)
        try:
            if result["status"] == "ok":
                _fsync_write(os.path.join(tmp, "trace.json"), result["trace"])
                _fsync_write(os.path.join(tmp, "profile.csv"), result["csv"])
                record["files"] = {"trace": "trace.json", "csv": "profile.csv"}
                try:
                    record.update(_summary(os.path.join(tmp, "trace.json"), cfg["batch"]))
                except (LoadError, ValueError, KeyError) as e:
                    record.update(status="failed", stage="trace", error=str(e))
            record["finished"] = datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds")
            _fsync_write(os.path.join(tmp, "result.json"),
                         json.dumps(record, indent=1, allow_nan=False) + "\n")
            if name in replace:
                self.remove(name)
            os.rename(tmp, final)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        for old in replace:
            if old != name and os.path.isdir(os.path.join(self.points, old)):
                self.remove(old)
        dfd = os.open(self.points, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
        return name, record

    def remove(self, name):
        """Drops a point's folder (a failed point that ran again): renamed
        away first, so it disappears whole."""
        old = os.path.join(self.points, name)
        gone = tempfile.mkdtemp(prefix=".tmp-", dir=self.points)
        os.rename(old, os.path.join(gone, name))
        shutil.rmtree(gone, ignore_errors=True)


_COLUMNS = ["point", "model", "batch", "seq", "precision", "sparsity", "threads",
            "configuration", "tier", "host", "cpu", "status", "stage", "error"] + \
    _LATENCIES + ["throughput_samples_per_s", "op_time_per_iteration_ms", "iterations",
                  "top_ops", "top_ops_ms", "isa", "amx_used", "max_isa", "compile_cached",
                  "slot", "worker", "pid", "trace", "csv", "finished"]


def load_sweep(path):
    """One row per point and host of an opscope-sweep results directory.

    Columns: the point's axes (``model``, ``batch``, ``seq`` (<NA> for a
    model without one), ``precision``, ``sparsity``, ``threads``) and its
    ``configuration`` ('int8 p0.8 t1'), where it ran (``tier``, ``host``,
    ``cpu``), ``status`` ('ok' or 'failed') with the failing ``stage``
    (prune, compile, run, ...) and ``error``, the latency figures of its
    trace (``latency_{p50,p90,p99,mean,min,max}_ms``, as opscope-analyze
    computes them), ``throughput_samples_per_s`` (batch / mean latency), the
    ``top_ops`` by self time (names) with ``top_ops_ms``, the trace's
    ``isa`` and ``amx_used``, and the paths of the point's ``trace`` and
    ``csv``. Sorted by the axes, then tier and host. See docs/sweep.md.

    Raises LoadError for a directory that is not a sweep's or a result file
    that cannot be read, naming it.
    """
    path = str(path)
    points = os.path.join(path, "points")
    if not os.path.isdir(path):
        raise FileNotFoundError(2, "No such directory", path)
    if not os.path.exists(os.path.join(path, "sweep.json")) or not os.path.isdir(points):
        raise LoadError(path, "not an opscope-sweep results directory (no sweep.json "
                              "and points/)")
    rows = []
    for name in sorted(os.listdir(points)):
        if name.startswith("."):
            continue
        folder = os.path.join(points, name)
        f = os.path.join(folder, "result.json")
        try:
            with open(f) as fh:
                r = json.load(fh)
        except ValueError as e:
            raise LoadError(f, "not valid JSON: %s" % e) from None
        if not isinstance(r, dict) or r.get("schema") != RESULT_SCHEMA:
            raise LoadError(f, "not an opscope-sweep result (schema %r)"
                            % (r.get("schema") if isinstance(r, dict) else None))
        row = {c: r.get(c) for c in _COLUMNS}
        row["configuration"] = configuration(r["precision"], r["sparsity"], r["threads"])
        row["top_ops"] = [o["name"] for o in r.get("top_ops") or []]
        row["top_ops_ms"] = [o["self_ms"] for o in r.get("top_ops") or []]
        files = r.get("files") or {}
        for k in ("trace", "csv"):
            row[k] = os.path.join(folder, files[k]) if files.get(k) else None
        rows.append(row)
    df = pd.DataFrame(rows, columns=_COLUMNS)
    df = df.astype({"batch": np.int64, "seq": "Int64", "sparsity": np.float64,
                    "threads": np.int64, "iterations": "Int64", "pid": "Int64"})
    for c in _LATENCIES + ["throughput_samples_per_s", "op_time_per_iteration_ms"]:
        df[c] = df[c].astype(np.float64)
    return df.sort_values(["model", "batch", "seq", "precision", "sparsity", "threads",
                           "tier", "host"], kind="stable").reset_index(drop=True)


def best_per_tier(frame):
    """The fastest configuration (lowest p50 latency) of each workload (model,
    batch, seq) on each tier, among the points that ran."""
    ok = frame[frame["status"] == "ok"]
    keys = ["tier", "model", "batch", "seq"]
    idx = ok.groupby(keys, dropna=False)["latency_p50_ms"].idxmin()
    return ok.loc[idx.values, keys + ["configuration", "latency_p50_ms",
                                      "throughput_samples_per_s"]].reset_index(drop=True)
