"""Tests of the Python API (python/opscope: compile, Session, profile) on
models the lit test that calls this script compiled:

  test_api.py WORK_DIR BIN_DIR [unittest args]

WORK_DIR holds mlp-opset14.onnx (models/generate.py), tiny.so (a MatMul +
Add + Relu and a Gather, test/Tools/opscope-run/Inputs/tiny.onnxtext),
tiny-noprobes.so (the same, --no-probes), mlp-other.so (the MLP compiled
for 2x784: a second model), big.so (a 1024 x 1024 MatMul of two inputs,
long enough to see the GIL released), and mlp.so with trace.json and
profile.csv (docs/python.md's commands, for its doctests). BIN_DIR has
opscope-run and opscope-analyze.
"""
import doctest
import gc
import io
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import unittest
import warnings

import numpy as np
import pandas as pd

import opscope

WORK = BIN = None

W = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], np.float32)
B = np.array([0.5, -0.5, 0], np.float32)
T = np.arange(20, dtype=np.float32).reshape(5, 4)


def tiny_reference(x, idx):
    return np.maximum(x @ W + B, 0), T[idx]


def work(name):
    return os.path.join(WORK, name)


class Compile(unittest.TestCase):
    def cache_files(self):
        d = os.environ["OPSCOPE_CACHE_DIR"]
        return sorted(f for f in os.listdir(d) if f.endswith(".so")) if os.path.isdir(d) else []

    def test_cache_shared_with_opscope_run(self):
        c = opscope.compile(work("mlp-opset14.onnx"), input_shapes={"input": (4, 784)})
        self.assertTrue(c.path.startswith(os.environ["OPSCOPE_CACHE_DIR"]), c.path)
        self.assertTrue(os.path.exists(c.weights_path))
        again = opscope.compile(work("mlp-opset14.onnx"), input_shapes={"input": "4x784"})
        self.assertTrue(again.cached)
        self.assertEqual(again.path, c.path)
        before = self.cache_files()
        # opscope-run compiles the same request under the same key.
        subprocess.run([os.path.join(BIN, "opscope-run"), work("mlp-opset14.onnx"),
                        "--input-shape", "input=4x784", "--iterations", "1", "--warmup", "0",
                        "-q"], check=True)
        self.assertEqual(self.cache_files(), before)
        with opscope.Session(c, threads=1) as s:
            self.assertEqual(s.inputs, [opscope.TensorInfo("input", (4, 784), np.dtype("float32"))])
            self.assertEqual(s.outputs[0].shape, (4, 10))

    def test_flags_change_the_key(self):
        a = opscope.compile(work("mlp-opset14.onnx"), input_shapes={"input": (4, 784)})
        b = opscope.compile(work("mlp-opset14.onnx"), input_shapes={"input": (4, 784)},
                            probes=False)
        self.assertNotEqual(a.path, b.path)
        self.assertEqual(opscope.Model.load(b.path).num_probes, 0)
        self.assertIn("--no-probes", b.command)
        c = opscope.compile(work("mlp-opset14.onnx"), input_shapes={"input": (4, 784)},
                            probes="fc2")
        self.assertEqual(opscope.Model.load(c.path).num_probes, 1)

    def test_output(self):
        out = work("compiled-out.so")
        c = opscope.compile(work("mlp-opset14.onnx"), input_shapes={"input": (4, 784)},
                            output=out, fuse=False)
        self.assertEqual(c.path, out)
        self.assertFalse(c.cached)
        self.assertIn("--no-fuse", c.command)
        self.assertTrue(os.path.exists(work("compiled-out.weights")))

    def test_recompiled_to_the_same_path(self):
        # A session of the old library stays open while another model is
        # compiled to its path: a new session runs the new one (dlopen by
        # name would hand back the old library, its plan and its code).
        out = work("recompiled.so")
        opscope.compile(work("mlp-opset14.onnx"), input_shapes={"input": (4, 784)},
                        output=out)
        with opscope.Session(out, threads=1) as old:
            self.assertEqual(old.inputs[0].shape, (4, 784))
            opscope.compile(work("mlp-opset14.onnx"), input_shapes={"input": (2, 784)},
                            output=out)
            with opscope.Session(out, threads=1) as new:
                self.assertEqual(new.inputs[0].shape, (2, 784))
                y = new.run({"input": np.ones((2, 784), np.float32)})
                self.assertEqual([a.shape for a in y.values()], [(2, 10)])
            y = old.run({"input": np.ones((4, 784), np.float32)})
            self.assertEqual([a.shape for a in y.values()], [(4, 10)])

    def test_errors(self):
        with self.assertRaises(opscope.CompileError) as e:
            opscope.compile(work("mlp-opset14.onnx"), input_shapes={"nosuch": (4, 784)})
        self.assertIn("nosuch", str(e.exception))
        self.assertNotEqual(e.exception.returncode, 0)
        self.assertTrue(e.exception.command[0].endswith("opscope-compile"))
        with self.assertRaises(opscope.CompileError) as e:
            opscope.compile(work("mlp-opset14.onnx"), input_shapes={"input": (4, 784)},
                            precision="fp12")
        self.assertIn("fp12", str(e.exception))
        self.assertEqual(e.exception.returncode, 2)
        garbage = work("garbage.onnx")
        with open(garbage, "wb") as f:
            f.write(b"not a model")
        with self.assertRaises(opscope.CompileError) as e:
            opscope.compile(garbage)
        self.assertIn("garbage.onnx", str(e.exception))
        with self.assertRaises(FileNotFoundError):
            opscope.compile(work("nosuch.onnx"))
        with self.assertRaises(ValueError):
            opscope.compile(work("mlp-opset14.onnx"), input_shapes={"input": (4, "x")})
        with self.assertRaises(TypeError):
            opscope.compile(work("mlp-opset14.onnx"), flags="--no-fuse")


class Run(unittest.TestCase):
    def setUp(self):
        self.s = opscope.Session(work("tiny.so"), threads=1)
        self.x = np.array([[1, 2, 3, 4], [-5, -6, -7, -8]], np.float32)
        self.idx = np.array([4, 1], np.int64)

    def check(self, out, x=None, idx=None):
        y, g = tiny_reference(self.x if x is None else x, self.idx if idx is None else idx)
        self.assertEqual(sorted(out), ["g", "y"])
        np.testing.assert_allclose(out["y"], y, rtol=1e-6)
        np.testing.assert_array_equal(out["g"], g)

    def test_inputs_outputs(self):
        self.assertEqual([(t.name, t.shape, t.dtype) for t in self.s.inputs],
                         [("x", (2, 4), np.float32), ("idx", (2,), np.int64)])
        self.assertEqual([(t.name, t.shape, t.dtype) for t in self.s.outputs],
                         [("y", (2, 3), np.float32), ("g", (2, 4), np.float32)])
        self.assertEqual(self.s.threads, 1)
        self.assertEqual(len(self.s.kernel_names), self.s.model.num_ops)

    def test_feeds(self):
        self.check(self.s.run({"x": self.x, "idx": self.idx}))
        self.check(self.s.run([self.x, self.idx]))
        self.check(self.s.run((self.x, self.idx)))
        # Not C-contiguous: copied once more, same answer.
        xf = np.asfortranarray(self.x)
        self.assertFalse(xf.flags.c_contiguous)
        self.check(self.s.run({"x": xf, "idx": self.idx[::-1][::-1]}))
        strided = np.zeros((2, 8), np.float32)
        strided[:, ::2] = self.x
        self.check(self.s.run({"x": strided[:, ::2], "idx": self.idx}))
        # Array-likes convert by numpy's rules (a list of ints is int64).
        self.check(self.s.run({"x": self.x, "idx": [4, 1]}))

    def test_copies_and_views(self):
        a = self.s.run({"x": self.x, "idx": self.idx})
        b = self.s.run({"x": -self.x, "idx": self.idx})
        self.check(a)  # a fresh array: the second run did not touch it
        a["y"][0, 0] = 42  # and it is the caller's
        v = self.s.run({"x": self.x, "idx": self.idx}, copy=False)
        self.check(v)
        self.assertFalse(v["y"].flags.writeable)
        with self.assertRaises(ValueError):
            v["y"][0, 0] = 1
        self.s.run({"x": -self.x, "idx": self.idx}, copy=False)
        # A view shows the session's buffer: the last run's outputs.
        np.testing.assert_allclose(v["y"], b["y"])
        # A view keeps the session's buffers alive.
        self.s.close()
        del self.s
        gc.collect()
        np.testing.assert_allclose(v["y"], b["y"])

    def test_bounded_outputs(self):
        # Outputs whose size depends on the values (extents.so: NonZero and
        # its transpose, Compress and a Mul carrying its extent) come back
        # with the run's shape, as copies and as views, run after run.
        s = opscope.Session(work("extents.so"))
        x = np.array([[0, 1, 0, 2], [3, 0, 0, 0], [0, 0, 0, 4]], np.float32)
        boxes = np.arange(20, dtype=np.float32).reshape(5, 4)
        for keep in ([True, False, True, False, False], [False] * 5, [True] * 5):
            keep = np.array(keep)
            for copy in (True, False):
                out = s.run({"x": x, "boxes": boxes, "keep": keep}, copy=copy)
                np.testing.assert_array_equal(out["nzt"], np.transpose(np.nonzero(x)))
                np.testing.assert_array_equal(out["y"], np.maximum(x, 0))
                np.testing.assert_array_equal(
                    out["scaled"], boxes[keep] * np.array([[2, 2, 3, 3]], np.float32))
        s.close()

    def test_input_errors(self):
        cases = [
            ({"x": self.x, "idx": self.idx, "z": self.x},
             "unknown input 'z'; the model's inputs are 'x' (2x4, float32), 'idx' (2, int64)"),
            ({"x": self.x}, "missing input 'idx' (2, int64)"),
            ({"x": self.x[:1], "idx": self.idx},
             "input 'x' (2x4, float32): expected shape 2x4, got 1x4"),
            ({"x": self.x.reshape(8), "idx": self.idx},
             "input 'x' (2x4, float32): expected shape 2x4, got 8"),
            ({"x": self.x.astype(np.float64), "idx": self.idx},
             "input 'x' (2x4, float32): expected dtype float32, got float64"),
            ({"x": self.x, "idx": self.idx.astype(np.int32)},
             "input 'idx' (2, int64): expected dtype int64, got int32"),
            ({"x": self.x.astype(">f4"), "idx": self.idx},
             "input 'x' (2x4, float32): expected dtype float32, got >f4"),
            ([self.x], "feeds: 1 arrays given for 2 inputs; the model's inputs are "
                       "'x' (2x4, float32), 'idx' (2, int64)"),
        ]
        for feeds, message in cases:
            with self.subTest(message=message):
                with self.assertRaises(ValueError) as e:
                    self.s.run(feeds)
                self.assertEqual(str(e.exception), message)
        with self.assertRaises(ValueError) as e:
            self.s.run({"x": [[1, 2], [3]], "idx": self.idx})  # ragged
        self.assertIn("input 'x' (2x4, float32): not convertible to an array", str(e.exception))
        with self.assertRaises(TypeError):
            self.s.run(self.x)  # one array, two inputs
        with self.assertRaises(TypeError):
            self.s.run({1: self.x})
        # Still usable after every refusal.
        self.check(self.s.run({"x": self.x, "idx": self.idx}))

    def test_run_error(self):
        with self.assertRaises(opscope.RunError) as e:
            self.s.run({"x": self.x, "idx": np.array([7, 0], np.int64)})
        self.assertIn("out of range", str(e.exception))
        self.assertIsInstance(e.exception, RuntimeError)
        self.check(self.s.run({"x": self.x, "idx": self.idx}))

    def test_closed(self):
        with opscope.Session(work("tiny.so"), threads=1) as s:
            pass
        with self.assertRaises(ValueError) as e:
            s.run({"x": self.x, "idx": self.idx})
        self.assertIn("closed", str(e.exception))
        with self.assertRaises(ValueError):
            opscope.Session(work("tiny.so"), threads=-1)

    def test_one_input_array(self):
        s = opscope.Session(work("mlp-other.so"), threads=1)
        x = s.random_inputs(seed=3)["input"]
        self.assertEqual(x.dtype, np.float32)
        np.testing.assert_array_equal(s.run(x)["logits"], s.run({"input": x})["logits"])


class Load(unittest.TestCase):
    def test_bad_files(self):
        with self.assertRaises(FileNotFoundError):
            opscope.Session(work("nosuch.so"))
        bad = work("bad.so")
        with open(bad, "wb") as f:
            f.write(b"\x7fELF but not really")
        shutil.copy(work("tiny.weights"), work("bad.weights"))
        with self.assertRaises(opscope.LoadError) as e:
            opscope.Session(bad)
        self.assertTrue(str(e.exception).startswith(bad + ": cannot load the compiled model"),
                        str(e.exception))
        self.assertEqual(e.exception.path, bad)
        self.assertIsInstance(e.exception, ValueError)
        # A library that is not an opscope model.
        lib = work("notamodel.so")
        shutil.copy(os.path.join(os.path.dirname(opscope.__file__),
                                 os.path.basename(opscope.runtime._ext().__file__)), lib)
        shutil.copy(work("tiny.weights"), work("notamodel.weights"))
        with self.assertRaises(opscope.LoadError) as e:
            opscope.Model.load(lib)
        self.assertIn("not an opscope compiled model", str(e.exception))
        # Weights of another compilation.
        with self.assertRaises(opscope.LoadError) as e:
            opscope.Model.load(work("tiny.so"), weights=work("mlp-other.weights"))
        self.assertIn("mlp-other.weights", str(e.exception))

    def test_sessions_share_the_model(self):
        a = opscope.Session(work("mlp-other.so"), threads=1)
        b = opscope.Session(work("mlp-other.so"), threads=1)
        self.assertIs(a.model, b.model)
        tensors, reused = a.model.packed_weights
        if tensors:  # oneDNN packed the weights: the second session took them
            self.assertGreaterEqual(reused, tensors)
        x = a.random_inputs()
        np.testing.assert_array_equal(a.run(x)["logits"], b.run(x)["logits"])


class Threads(unittest.TestCase):
    def test_two_sessions_two_threads(self):
        sessions = [opscope.Session(work("tiny.so"), threads=1) for _ in range(2)]
        errors = []

        def loop(s, scale):
            try:
                x = np.array([[1, 2, 3, 4], [-5, -6, -7, -8]], np.float32) * scale
                idx = np.array([scale % 5, 0], np.int64)
                y, g = tiny_reference(x, idx)
                for _ in range(300):
                    out = s.run({"x": x, "idx": idx})
                    np.testing.assert_allclose(out["y"], y, rtol=1e-6)
                    np.testing.assert_array_equal(out["g"], g)
            except Exception as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=loop, args=(s, k + 1))
                   for k, s in enumerate(sessions)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_one_session_two_threads(self):
        # A session runs on one thread at a time: the second waits, no crash.
        s = opscope.Session(work("tiny.so"), threads=1)
        x = np.ones((2, 4), np.float32)
        idx = np.array([0, 1], np.int64)
        y, _ = tiny_reference(x, idx)
        results = []
        threads = [threading.Thread(target=lambda: results.extend(
            s.run({"x": x, "idx": idx})["y"] for _ in range(300))) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(len(results), 600)
        for r in results:
            np.testing.assert_allclose(r, y, rtol=1e-6)

    def test_gil_released(self):
        s = opscope.Session(work("big.so"), threads=1)
        feeds = s.random_inputs()
        s.run(feeds)  # first run out of the way
        span = {}

        def run():
            span["start"] = time.perf_counter()
            s.run(feeds)
            span["end"] = time.perf_counter()

        t = threading.Thread(target=run)
        ticks = []
        t.start()
        while t.is_alive():
            ticks.append(time.perf_counter())
        t.join()
        duration = span["end"] - span["start"]
        margin = 0.2 * duration
        inside = [x for x in ticks if span["start"] + margin < x < span["end"] - margin]
        # Holding the GIL, the run would leave this thread no tick inside it.
        self.assertGreater(len(inside), 10, "%d ticks in a %.1f ms run" % (len(inside),
                                                                          duration * 1e3))


def run_warm_up_and_measure(profiler, path, warmup=3, iterations=10):
    with opscope.Session(path, threads=1) as sess:
        inputs = sess.random_inputs()
        with profiler.record("warm up"):
            for _ in range(warmup):
                sess.run(inputs)
        with profiler.record("measure"):
            for _ in range(iterations):
                sess.run(inputs)


class Profile(unittest.TestCase):
    def analyze_text(self, path, *flags):
        return subprocess.run([os.path.join(BIN, "opscope-analyze"), path] + list(flags),
                              check=True, capture_output=True, text=True).stdout

    def test_furiosa_block(self):
        path = work("profile.json")
        with opscope.profile(file=path) as profiler:
            run_warm_up_and_measure(profiler, work("mlp-other.so"))
            df = profiler.get_pandas_dataframe()  # inside the block: so far
            self.assertEqual(len(df), 13 * 3)
        self.assertTrue(os.path.exists(path))
        loaded = opscope.load_trace(path)
        df = profiler.get_pandas_dataframe()
        pd.testing.assert_frame_equal(df, loaded.events)
        trace = profiler.get_trace()
        for frame in ("events", "iterations", "ops", "summary", "startup", "memory"):
            pd.testing.assert_frame_equal(getattr(trace, frame), getattr(loaded, frame))
        self.assertEqual(trace.labels, ["warm up", "measure"])
        self.assertEqual(trace.summary["iterations"].item(), 10)
        self.assertEqual(df.groupby("label")["probe"].count().to_dict(),
                         {"measure": 30, "warm up": 9})
        self.assertEqual(trace.header["run"]["source"], "opscope.profile")
        self.assertEqual(trace.header["machine"]["threads"], 1)
        # The tables are opscope-analyze's on the file.
        self.assertEqual(profiler.operators_text(),
                         self.analyze_text(path, "--print-only", "ops"))
        self.assertEqual(profiler.summary_text(),
                         self.analyze_text(path, "--print-only", "summary"))
        self.assertEqual(profiler.operators_text(top=1, order_by="+name", label="warm up"),
                         self.analyze_text(path, "--print-only", "ops", "-t", "1",
                                           "--order-by", "+name", "--label", "warm up"))
        self.assertEqual(profiler.operators_text(aggregate_by="type", format="csv"),
                         self.analyze_text(path, "--print-only", "ops", "--aggregate-by",
                                           "type", "--format", "csv"))
        with self.assertRaises(ValueError) as e:
            profiler.operators_text(label="bench")
        self.assertIn("bench", str(e.exception))
        self.assertIn(path, str(e.exception))
        with self.assertRaises(ValueError):
            profiler.operators_text(order_by="colour")
        with self.assertRaises(TypeError):
            profiler.operators_text(colour=1)
        # What a Chrome trace viewer (speedscope, Perfetto) reads.
        with open(path) as f:
            doc = json.load(f)
        self.assertIsInstance(doc["traceEvents"], list)
        spans = [e for e in doc["traceEvents"] if e["ph"] == "X"]
        self.assertTrue(spans)
        for e in doc["traceEvents"]:
            self.assertIn(e["ph"], ("X", "M", "C"))
            self.assertIsInstance(e["name"], str)
            self.assertEqual(e["pid"], 1)
            if e["ph"] == "X":
                self.assertIsInstance(e["ts"], (int, float))
                self.assertGreaterEqual(e["dur"], 0)
                self.assertIsInstance(e["tid"], int)
        self.assertEqual(sorted({e["cat"] for e in spans}),
                         ["iteration", "label", "op", "startup"])

    def test_printing(self):
        with opscope.profile(format="dataframe") as profiler:
            run_warm_up_and_measure(profiler, work("tiny.so"), 2, 4)
        out = io.StringIO()
        real, sys.stdout = sys.stdout, out
        try:
            profiler.print_summary()
            profiler.print_operators(top=2)
        finally:
            sys.stdout = real
        text = out.getvalue()
        self.assertIn("iterations", text)
        self.assertEqual(text, profiler.summary_text() + profiler.operators_text(top=2))
        self.assertEqual(profiler.get_trace().summary["iterations"].item(), 4)

    def test_file_object_and_two_models(self):
        f = io.StringIO()
        with opscope.profile(file=f) as profiler:
            run_warm_up_and_measure(profiler, work("tiny.so"), 1, 2)
        doc = json.loads(f.getvalue())
        self.assertEqual(doc["opscope"]["model"], "tiny")
        base = work("two.json")
        with opscope.profile(file=base) as profiler:
            run_warm_up_and_measure(profiler, work("tiny.so"), 1, 2)
            run_warm_up_and_measure(profiler, work("mlp-other.so"), 1, 3)
        self.assertEqual(opscope.load_trace(base).model, "tiny")
        self.assertEqual(opscope.load_trace(work("two.1.json")).summary["iterations"].item(), 3)
        with self.assertRaises(ValueError) as e:
            profiler.get_pandas_dataframe()
        self.assertIn("several models", str(e.exception))
        self.assertEqual(profiler.get_trace(model="mlp-opset14").summary["iterations"].item(), 3)
        with self.assertRaises(ValueError):
            with opscope.profile(file=io.StringIO()) as profiler:
                run_warm_up_and_measure(profiler, work("tiny.so"), 1, 1)
                run_warm_up_and_measure(profiler, work("mlp-other.so"), 1, 1)

    def test_only_sessions_created_inside(self):
        outside = opscope.Session(work("tiny.so"), threads=1)
        feeds = outside.random_inputs()
        with opscope.profile(format="dataframe") as profiler:
            outside.run(feeds)
            inside = opscope.Session(work("tiny.so"), threads=1)
            inside.run(feeds)
            with profiler.record("measure"):
                later = opscope.Session(work("tiny.so"), threads=1)
                later.run(feeds)
                inside.run(feeds)
        t = profiler.get_trace()
        self.assertEqual(len(t.iterations), 3)  # inside twice, later once
        self.assertEqual(t.iterations.groupby("label", dropna=False)["iteration"].count()
                         .to_dict().get("measure"), 2)
        inside.run(feeds)  # after the block: no longer recording
        self.assertEqual(inside._s.recorded_events, 0)
        self.assertFalse(inside._s.profiling)

    def test_threads(self):
        # Sessions running on two threads while the main thread opens and
        # closes a span in each: the span waits for the run in progress.
        # Progress is counted, not slept for: on a loaded host a thread can
        # starve for longer than any fixed sleep.
        stop = threading.Event()
        runs = [0, 0]

        def wait_for(target, what):
            deadline = time.monotonic() + 60
            while not all(r >= t for r, t in zip(runs, target)):
                self.assertLess(time.monotonic(), deadline, what)
                time.sleep(0.001)

        with opscope.profile(format="dataframe") as profiler:
            sessions = [opscope.Session(work("tiny.so"), threads=1) for _ in range(2)]
            feeds = sessions[0].random_inputs()

            def loop(i):
                while not stop.is_set():
                    sessions[i].run(feeds)
                    runs[i] += 1

            threads = [threading.Thread(target=loop, args=(i,)) for i in range(2)]
            for t in threads:
                t.start()
            wait_for([3, 3], "both threads run before the span")
            with profiler.record("measure"):
                wait_for([r + 3 for r in runs], "both threads run inside the span")
            wait_for([r + 1 for r in runs], "both threads run after the span")
            stop.set()
            for t in threads:
                t.join()
        t = profiler.get_trace()
        self.assertEqual(t.events["tid"].nunique(), 2)
        self.assertEqual(len(t.events), len(t.ops) * len(t.iterations))
        measured = t.events[t.events["label"] == "measure"]
        self.assertEqual(measured["tid"].nunique(), 2)
        self.assertLess(len(measured), len(t.events))

    def test_misuse(self):
        with self.assertRaises(ValueError):
            opscope.profile()  # chrome needs a file
        with self.assertRaises(ValueError):
            opscope.profile(format="pandas")
        with self.assertRaises(ValueError):
            opscope.profile(file="x.json", format="dataframe")
        p = opscope.profile(format="dataframe")
        with self.assertRaises(RuntimeError):
            with p.record("x"):
                pass
        with p:
            with self.assertRaises(RuntimeError):
                with opscope.profile(format="dataframe"):
                    pass
        with self.assertRaises(ValueError) as e:
            p.get_pandas_dataframe()
        self.assertIn("no session", str(e.exception))
        with self.assertRaises(RuntimeError):
            with p:
                pass

    def test_no_probes(self):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with opscope.profile(format="dataframe") as profiler:
                run_warm_up_and_measure(profiler, work("tiny-noprobes.so"), 1, 2)
        self.assertTrue(any("no probes" in str(x.message) for x in w))
        t = profiler.get_trace()
        self.assertEqual(len(t.events), 0)
        self.assertEqual(len(t.iterations), 3)


class Docs(unittest.TestCase):
    def test_docs_python_md(self):
        # docs/python.md's Python sessions, on the files its commands make.
        doc = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "..", "..", "..", "docs", "python.md")
        here = os.getcwd()
        os.chdir(WORK)
        try:
            result = doctest.testfile(doc, module_relative=False,
                                      optionflags=doctest.NORMALIZE_WHITESPACE)
        finally:
            os.chdir(here)
        self.assertGreater(result.attempted, 30)
        self.assertEqual(result.failed, 0)


if __name__ == "__main__":
    WORK, BIN = sys.argv[1], sys.argv[2]
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:], verbosity=1)
