"""Tests of the Python loader (python/opscope) on traces and CSVs made by
opscope-run in the lit test that calls this script:

  test_loader.py WORK_DIR BIN_DIR ANALYZE_INPUTS_DIR [unittest args]

WORK_DIR holds trace.json/profile.csv (mlp-opset14, 20 measured + 3 warm-up
iterations, the docstring example's run), multi.json (two concurrent
instances), sparse.json/sparse.csv (the same model pruned to 80% 1x4
blocks), tiny.json/tiny.csv (a MatMul+Relu and a Gather), extents.json/extents.csv
(ops with run-time extents) and big.json
(synthetic, more than 4096 executions per op); ANALYZE_INPUTS_DIR is
opscope-analyze's test inputs (golden and bad traces). The frames' figures
are compared with opscope-analyze --format json's on the same files.
"""
import doctest
import json
import math
import os
import subprocess
import sys
import unittest

import numpy as np
import pandas as pd

import opscope

WORK = BIN = GOLDEN = None


def analyze(path, *flags):
    out = subprocess.run([os.path.join(BIN, "opscope-analyze"), path, "--format", "json"]
                         + list(flags), check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


class MatchesAnalyzer(unittest.TestCase):
    """ops and summary equal opscope-analyze's figures for the same events."""

    def check(self, path, flags, **selection):
        t = opscope.load_trace(path, **selection)
        a = analyze(path, *flags)
        for item in a["summary"]:
            col = opscope.ANALYZE_SUMMARY_COLUMNS[item["metric"]]
            mine, theirs = t.summary[col].item(), item["value"]
            with self.subTest(path=path, flags=flags, metric=item["metric"]):
                if isinstance(theirs, str):
                    self.assertEqual(mine, theirs)
                elif theirs is None:
                    self.assertTrue(math.isnan(mine))
                else:
                    self.assertTrue(close(mine, theirs), (mine, theirs))
        ops = t.ops.set_index("id", drop=False)
        self.assertEqual(len(a["ops"]), int((ops["count"] > 0).sum()))
        for row in a["ops"]:
            for key, col in opscope.ANALYZE_OP_COLUMNS.items():
                mine, theirs = ops.loc[row["id"], col], row[key]
                with self.subTest(path=path, flags=flags, id=row["id"], key=key):
                    if isinstance(theirs, str):
                        self.assertEqual(mine, theirs)
                    elif theirs is None:
                        self.assertTrue(math.isnan(mine))
                    else:
                        self.assertTrue(close(float(mine), theirs), (mine, theirs))
        return t, a

    def test_default_selection(self):
        t, _ = self.check(os.path.join(WORK, "trace.json"), [])
        self.assertEqual(t.summary["iterations"].item(), 20)

    def test_label_measure(self):
        self.check(os.path.join(WORK, "trace.json"), ["--label", "measure"], label="measure")

    def test_label_warm_up(self):
        t, _ = self.check(os.path.join(WORK, "trace.json"), ["--label", "warm up"],
                          label="warm up")
        self.assertEqual(t.summary["iterations"].item(), 3)

    def test_include_warmup_and_skip(self):
        self.check(os.path.join(WORK, "trace.json"), ["--include-warmup"],
                   include_warmup=True)
        self.check(os.path.join(WORK, "trace.json"),
                   ["--include-warmup", "--skip-iterations", "5"],
                   include_warmup=True, skip_iterations=5)

    def test_select_is_load_with_options(self):
        t = opscope.load_trace(os.path.join(WORK, "trace.json"))
        s = t.select(label="warm up")
        self.assertEqual(s.summary["iterations"].item(), 3)
        self.assertEqual(list(s.ops["count"]), [3, 3, 3])
        self.assertEqual(t.summary["iterations"].item(), 20)  # unchanged

    def test_sparse_tiny_and_golden_traces(self):
        self.check(os.path.join(WORK, "sparse.json"), [])
        self.check(os.path.join(WORK, "tiny.json"), [])
        for name in ("golden.json", "golden-unfused.json"):
            self.check(os.path.join(GOLDEN, name), [])
            self.check(os.path.join(GOLDEN, name), ["--label", "warm up"], label="warm up")

    def test_concurrent_instances(self):
        # Two instances: events of two threads, iterations of both counted.
        t, _ = self.check(os.path.join(WORK, "multi.json"), [])
        self.assertEqual(sorted(t.events["tid"].unique()), [0, 1])
        self.assertEqual(t.summary["iterations"].item(), 20)

    def test_beyond_exact_percentiles(self):
        # 5000 executions per op and 5000 iterations: the analyzer's
        # log-bucketed percentiles, reproduced exactly.
        t, _ = self.check(os.path.join(WORK, "big.json"), [])
        self.assertGreater(t.ops["count"].min(), 4096)

    def test_aggregate_by_type(self):
        path = os.path.join(WORK, "tiny.json")
        t = opscope.load_trace(path)
        by_type = t.ops.groupby("type")["self_ms"].sum()
        rows = analyze(path, "--aggregate-by", "type", "--print-only", "ops")["ops"]
        self.assertEqual(sorted(r["name"] for r in rows), sorted(by_type.index))
        for r in rows:
            self.assertTrue(close(by_type[r["name"]], r["self_ms"]))

    def test_top_ops_cumulative_share(self):
        path = os.path.join(WORK, "trace.json")
        top = (opscope.load_trace(path).ops.sort_values("self_ms", ascending=False)
               .assign(cum_percent=lambda d: d["self_percent"].cumsum()))
        rows = analyze(path, "--print-only", "ops")["ops"]
        self.assertEqual(list(top["id"]), [r["id"] for r in rows])
        for mine, r in zip(top["cum_percent"], rows):
            self.assertTrue(close(mine, r["cum_%"]))


class Types(unittest.TestCase):
    def test_trace_frames(self):
        t = opscope.load_trace(os.path.join(WORK, "tiny.json"))
        ops, ev, it, s = t.ops, t.events, t.iterations, t.summary
        for frame, cols in ((ops, ["id", "count"]), (ev, ["probe", "tid", "iteration"]),
                            (it, ["iteration", "tid"]),
                            (s, ["iterations", "op_events", "dropped_events"])):
            for c in cols:
                self.assertEqual(frame[c].dtype, np.int64, c)
        self.assertEqual(ops["sparse_support"].dtype, np.bool_)
        self.assertEqual(ev["selected"].dtype, np.bool_)
        for c in ("self_ms", "mean_us", "p99_us", "weight_sparsity", "flops", "bytes"):
            self.assertEqual(ops[c].dtype, np.float64, c)
        fc, gather = ops.iloc[0], ops.iloc[1]
        self.assertEqual((fc["type"], gather["type"]), ("inner_product", "gather"))
        self.assertEqual(fc["input_shapes"], [[2, 4]])
        self.assertEqual(fc["output_shapes"], [[2, 3]])
        self.assertEqual(fc["weight_shape"], [3, 4])
        self.assertEqual(fc["post_ops"], ["relu"])
        self.assertEqual(fc["source_nodes"], ["m", "a", "y"])
        self.assertIs(bool(fc["sparse_support"]), True)
        self.assertEqual(fc["weight_sparsity"], 0.5)
        self.assertEqual(gather["input_shapes"], [[2]])
        self.assertEqual(gather["input_dtypes"], ["i64"])
        self.assertIsNone(gather["weight_shape"])
        self.assertIsNone(gather["sparse_block"])
        self.assertTrue(math.isnan(gather["weight_sparsity"]))
        self.assertIs(bool(gather["sparse_support"]), False)

    def test_startup_and_memory(self):
        # tiny: while m runs x, idx and y are live (3 x 64 bytes), while g
        # runs g too (256, the peak); see test/Tools/opscope-run/profile.test.
        t = opscope.load_trace(os.path.join(WORK, "tiny.json"))
        self.assertEqual(str(t.ops["live_bytes"].dtype), "Int64")
        self.assertEqual(list(t.ops["live_bytes"]), [192, 256])
        s = t.summary.iloc[0]
        self.assertEqual(s["arena_peak_op"], "g")
        self.assertEqual(s["arena_peak_live_mib"], 256 / 1048576.0)
        self.assertGreater(s["startup_create_kernels_ms"], 0.0)
        # One counter per op event (6 iterations x 2 ops), every value a
        # probe's live bytes.
        self.assertEqual(len(t.memory), len(t.events))
        self.assertEqual(t.memory["bytes"].dtype, np.int64)
        self.assertEqual(set(t.memory["bytes"]), {192, 256})
        names = set(t.startup["name"])
        self.assertTrue({"load", "map weights", "create kernels", "first run",
                         "create kernel: m", "create kernel: g"} <= names, names)
        self.assertEqual(sorted(t.startup.loc[t.startup["op"] >= 0, "op"]), [0, 1])
        # Old traces (the analyzer's golden ones) have neither.
        g = opscope.load_trace(os.path.join(GOLDEN, "golden.json"))
        self.assertEqual(len(g.startup), 0)
        self.assertNotIn("arena_peak_op", g.summary.columns)

    def test_csv_frames(self):
        p = opscope.read_profile_csv(os.path.join(WORK, "tiny.csv"))
        ops = p.ops
        self.assertEqual(ops["count"].dtype, np.int64)
        self.assertEqual(ops["sparse_support"].dtype, np.bool_)
        self.assertEqual(list(ops["sparse_support"]), [True, False])
        self.assertEqual(ops.loc[0, "input_shapes"], [[2, 4]])
        self.assertEqual(ops.loc[0, "weight_shape"], [3, 4])
        self.assertEqual(ops.loc[0, "post_op"], ["relu"])
        self.assertEqual(ops.loc[1, "post_op"], [])
        self.assertEqual(ops.loc[1, "input_shapes"], [[2]])
        self.assertIsNone(ops.loc[1, "weight_shape"])
        self.assertTrue(math.isnan(ops.loc[1, "weight_sparse_ratio"]))
        self.assertEqual(p.summary["iterations"].dtype, np.int64)
        self.assertEqual(p.summary["dropped_events"].dtype, np.int64)


class ProfileCsv(unittest.TestCase):
    def test_split_and_agreement_with_trace(self):
        p = opscope.read_profile_csv(os.path.join(WORK, "profile.csv"))
        t = opscope.load_trace(os.path.join(WORK, "trace.json"), label="measure")
        # The per-op part only: one row per probe, no network rows.
        self.assertEqual(len(p.ops), len(t.ops))
        self.assertNotIn("network", set(p.ops["operator_type"]))
        self.assertFalse(p.ops.isin(["network", "iterations"]).any().any())
        self.assertEqual(list(p.ops["operator_name"]), list(t.ops["name"]))
        self.assertEqual(list(p.ops["count"]), list(t.ops["count"]))
        # The CSV's ms carry 4 decimals.
        for csv_col, col in (("latency_mean_ms", "mean_us"), ("latency_p50_ms", "p50_us"),
                             ("latency_p99_ms", "p99_us")):
            diff = (p.ops[csv_col] - t.ops[col] / 1e3).abs().max()
            self.assertLessEqual(diff, 0.5e-4 + 1e-12, csv_col)
        s = p.summary.iloc[0]
        self.assertEqual(s["network"], t.model)
        self.assertEqual(s["iterations"], t.summary["iterations"].item())
        self.assertLessEqual(abs(s["latency_mean_ms"] - t.summary["latency_mean_ms"].item()),
                             0.5e-4 + 1e-12)
        self.assertEqual(s["dropped_events"], 0)

    def test_sparse_columns(self):
        p = opscope.read_profile_csv(os.path.join(WORK, "sparse.csv"))
        t = opscope.load_trace(os.path.join(WORK, "sparse.json"))
        self.assertTrue(t.ops["kernel"].str.contains("sparse").all())
        self.assertTrue(t.ops["sparse_support"].all())
        self.assertTrue((t.ops["block_sparsity"] >= 0.79).all())
        self.assertEqual(list(t.ops["sparse_block"]), ["1x4"] * len(t.ops))
        self.assertTrue(np.allclose(p.ops["weight_block_sparse_ratio"],
                                    t.ops["block_sparsity"], atol=0.5e-4))
        self.assertEqual(list(p.ops["kernel"]), list(t.ops["kernel"]))

    def test_load_tells_formats_apart(self):
        self.assertIsInstance(opscope.load(os.path.join(WORK, "profile.csv")), opscope.ProfileCsv)
        self.assertIsInstance(opscope.load(os.path.join(WORK, "trace.json"), label="measure"),
                              opscope.Trace)
        self.assertIsNone(opscope.load(os.path.join(WORK, "profile.csv")).events)


class Labels(unittest.TestCase):
    def test_warm_up_and_measure(self):
        t = opscope.load_trace(os.path.join(WORK, "trace.json"))
        self.assertEqual(t.labels, ["warm up", "measure"])
        self.assertEqual(t.events.groupby("label").size().to_dict(),
                         {"warm up": 9, "measure": 60})
        self.assertEqual(t.iterations.groupby("label").size().to_dict(),
                         {"warm up": 3, "measure": 20})
        # The default selection is everything but warm-up.
        self.assertTrue((t.events["selected"] == (t.events["label"] == "measure")).all())
        self.assertEqual(list(t.ops["count"]), [20, 20, 20])

    def test_unknown_label_lists_the_trace_labels(self):
        path = os.path.join(WORK, "trace.json")
        with self.assertRaisesRegex(opscope.LoadError, "no events under label 'bench'; "
                                    "the trace's labels are 'warm up', 'measure'"):
            opscope.load_trace(path, label="bench")


class BadInput(unittest.TestCase):
    def write(self, name, text):
        path = os.path.join(WORK, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def assertLoadError(self, load, path, message):
        with self.assertRaises(opscope.LoadError) as cm:
            load(path)
        self.assertTrue(str(cm.exception).startswith(path + ": "), str(cm.exception))
        self.assertIn(message, str(cm.exception))
        self.assertEqual(cm.exception.path, path)

    def test_missing_file(self):
        for load in (opscope.load_trace, opscope.read_profile_csv, opscope.load):
            path = os.path.join(WORK, "no-such-file")
            with self.assertRaises(FileNotFoundError) as cm:
                load(path)
            self.assertIn(path, str(cm.exception))

    def test_truncated_trace(self):
        text = open(os.path.join(WORK, "trace.json")).read()
        path = self.write("truncated.json", text[:len(text) // 2])
        self.assertLoadError(opscope.load_trace, path, "not valid JSON (truncated")

    def test_not_a_trace(self):
        self.assertLoadError(opscope.load_trace, self.write("events-only.json", '{"traceEvents": []}'),
                             "no top-level 'opscope' object; not an opscope trace")
        self.assertLoadError(opscope.load_trace, self.write("list.json", "[1, 2]"),
                             "the top level is not a JSON object")
        self.assertLoadError(opscope.load_trace, os.path.join(WORK, "profile.csv"),
                             "not valid JSON")

    def test_analyzer_bad_inputs(self):
        # The analyzer's bad-input traces fail here too, with its messages.
        for name, message in (
                ("bad-not-json.json", "not valid JSON (truncated or not a trace?)"),
                ("bad-truncated.json", "not valid JSON (truncated or not a trace?)"),
                ("bad-version.json", "schema version 99 is not supported"),
                ("bad-unknown-key.json", "unknown key 'colour' in opscope.probes[1]"),
                ("bad-probe-id.json", "an op event names probe 17, which is not in the probe table"),
                ("bad-no-header.json", "no top-level 'opscope' object"),
                ("bad-negative.json", "traceEvents[3] has a negative duration")):
            with self.subTest(name):
                self.assertLoadError(opscope.load_trace, os.path.join(GOLDEN, name), message)

    def test_deep_nesting(self):
        path = self.write("deep.json", "[" * 100000 + "]" * 100000)
        self.assertLoadError(opscope.load_trace, path, "nested too deeply")

    def test_bad_csv(self):
        text = open(os.path.join(WORK, "profile.csv")).read()
        self.assertLoadError(opscope.read_profile_csv,
                             self.write("cut.csv", text[:text.index("\n\n")]),
                             "no network totals")
        self.assertLoadError(opscope.read_profile_csv, os.path.join(WORK, "trace.json"),
                             "not an opscope profile CSV")
        lines = text.split("\n")
        fields = lines[1].split(",")
        fields[15] = "20.0"  # count
        lines[1] = ",".join(fields)
        self.assertLoadError(opscope.read_profile_csv, self.write("float-count.csv", "\n".join(lines)),
                             "line 2, column count: expected an integer, got '20.0'")


class Extents(unittest.TestCase):
    """Run-time extents (extents.onnxtext: NonZero keeps 3 of 12, its
    Transpose carries that, Relu has none, Compress keeps 2 of 5 boxes and
    the Mul carries that; test/Tools/opscope-run/profile-extents.test)."""

    def test_csv_output_extent(self):
        p = opscope.read_profile_csv(os.path.join(WORK, "extents.csv"))
        self.assertEqual(list(p.ops["output_extent"]), [3, 3, None, 2, 2])
        self.assertEqual(p.ops.loc[0, "output_shapes"], [[2, 12], []])
        # Executions that differ: MIN..MAX. A CSV without the column (an
        # older opscope's) still reads.
        text = open(os.path.join(WORK, "extents.csv")).read()
        lines = text.split("\n")
        lines[1] = lines[1][:lines[1].rindex(",")] + ",1..3"
        varied = opscope.read_profile_csv(self.write("varied.csv", "\n".join(lines)))
        self.assertEqual(varied.ops.loc[0, "output_extent"], (1, 3))
        old = opscope.read_profile_csv(os.path.join(WORK, "tiny.csv"))
        self.assertEqual(list(old.ops["output_extent"]), [None, None])
        dropped = "\n".join(l[:l.rindex(",")] if i <= len(old.ops) else l
                            for i, l in enumerate(open(os.path.join(WORK, "tiny.csv"))
                                                  .read().split("\n")))
        self.assertNotIn("output_extent",
                         opscope.read_profile_csv(self.write("old.csv", dropped)).ops.columns)

    def test_trace_events_extent(self):
        t = opscope.load_trace(os.path.join(WORK, "extents.json"))
        self.assertEqual(t.events["extent"].dtype, np.int64)
        by_name = t.events.groupby("name")["extent"].agg(lambda v: sorted(set(v)))
        self.assertEqual(by_name.to_dict(), {"nz": [3], "nzt": [3], "y": [-1],
                                             "sel": [2], "scaled": [2]})
        self.assertEqual(t.ops.loc[1, "output_shapes"], [[12, 2]])  # the bound
        trace = json.load(open(os.path.join(WORK, "extents.json")))
        op = next(e for e in trace["traceEvents"] if e.get("cat") == "op")
        op["args"]["extent"] = -2
        path = self.write("negative-extent.json", json.dumps(trace))
        with self.assertRaises(opscope.LoadError) as cm:
            opscope.load_trace(path)
        self.assertIn("has a negative extent", str(cm.exception))

    def write(self, name, text):
        path = os.path.join(WORK, name)
        with open(path, "w") as f:
            f.write(text)
        return path


class Docstring(unittest.TestCase):
    def test_example(self):
        # The package docstring's example, on the run it describes.
        here = os.getcwd()
        os.chdir(WORK)
        try:
            result = doctest.testmod(opscope, optionflags=doctest.NORMALIZE_WHITESPACE)
        finally:
            os.chdir(here)
        self.assertGreater(result.attempted, 5)
        self.assertEqual(result.failed, 0)


if __name__ == "__main__":
    WORK, BIN, GOLDEN = sys.argv[1:4]
    unittest.main(argv=[sys.argv[0]] + sys.argv[4:])
