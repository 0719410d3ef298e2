#!/usr/bin/python3
"""Runs opscope over the ONNX backend node tests (Debian's libonnx-testdata).

For every test whose ops opscope supports, imports the model with
opscope-translate and re-parses the result with opscope-opt (which verifies
it). With --compile and --run, opscope-compile re-parses the imported text
instead (its parser verifies it too), compiles it to a native library and
runs it on the test's inputs, comparing every output with the
test's expected output (rtol 1e-3, atol 1e-5: ONNX's backend tolerances
with an absolute floor for fp32 kernels that differ from numpy's rounding). Graph inputs that feed shape operands (a Reshape target, Slice bounds,
Resize scales, ...) are frozen to the test's input data, since opscope
compiles for static shapes. Tests of random ops (RANDOM_OUTPUT_TESTS)
cannot match another generator's values: their outputs are checked for
shape, element type and range instead, and counted apart.

Under a tier cap (OPSCOPE_MAX_ISA set) with --run, the import check
(opscope-translate, then opscope-opt's re-parse) is left out: it does not
depend on the tier and the uncapped run of the same command makes it, so
a capped run only compiles and runs (tests listed in EXPECTED_FAILURES
fail at import and are counted as expected failures without running).

Prints one line per unexpected result and a summary; exits non-zero when a
test fails that is not listed in EXPECTED_FAILURES, or when a listed test
passes (so the list cannot go stale).
"""

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_kernels import reference_kernels  # noqa: E402

NODE_TESTS = "/usr/share/libonnx-testdata/data/node"

# Positions of inputs that must be compile-time constants, per op type.
SHAPE_OPERANDS = {
    "Reshape": [1], "Expand": [1], "Slice": [1, 2, 3, 4], "Squeeze": [1],
    "Unsqueeze": [1], "ReduceSum": [1], "Split": [1], "Resize": [1, 2, 3],
    "Upsample": [1], "Pad": [1, 2], "ConstantOfShape": [0],
    "Range": [0, 1, 2], "Clip": [1, 2], "Tile": [1], "Trilu": [1], "OneHot": [1],
    "CumSum": [1], "TopK": [1], "MaxUnpool": [2],
    # A used scan output needs a constant trip count and a true condition.
    "Loop": [0, 1],
    # Folded to constants at import (their inputs give the output's shape).
    "HannWindow": [0], "HammingWindow": [0], "BlackmanWindow": [0],
    "MelWeightMatrix": [0, 1, 2, 3, 4],
    # The transform's length and axis, the frames' step and length.
    "DFT": [1, 2], "STFT": [1, 3],
}

# Tests of supported ops that opscope rejects on purpose, with the reason.
# Each one must fail with a clear error; a listed test that passes is reported.
EXPECTED_FAILURES = {
    "test_batchnorm_epsilon_training_mode": "training mode",
    "test_batchnorm_example_training_mode": "training mode",
    "test_training_dropout": "training mode",
    "test_training_dropout_default": "training mode",
    "test_training_dropout_default_mask": "training mode",
    "test_training_dropout_mask": "training mode",
    "test_training_dropout_zero_ratio": "training mode",
    "test_training_dropout_zero_ratio_mask": "training mode",
    "test_identity_opt": "optional types",
    "test_identity_sequence": "sequence types",
}
# Tests that import but that the runtime rejects on purpose, with the reason.
EXPECTED_RUN_FAILURES = {
}
# ONNX 1.12's data for casts to bfloat16 truncates the float (0x3ef5eeb0
# becomes 0x3ef5); opscope and ONNX Runtime round to nearest even (0x3ef6),
# as ONNX's later reference does. One bf16 unit in the last place apart: the
# relative tolerance is 2^-7 (8 significant bits) for these outputs.
BF16_RTOL_TESTS = ("test_cast_FLOAT_to_BFLOAT16", "test_castlike_FLOAT_to_BFLOAT16",
                   "test_castlike_FLOAT_to_BFLOAT16_expanded")

# Tests of random ops, whose expected values are one generator's draws:
# ONNX's own generator says its numpy draws "may not produce the same values
# in different implementations even if a seed is specified" (ONNX Runtime's
# differ too). Each output is checked instead for the expected shape and
# element type and for values in the op's range ({0, 1} for Bernoulli, and
# for its expansion's RandomUniformLike + Greater + Cast); a seeded test
# also runs twice and must give the same values both times.
RANDOM_OUTPUT_TESTS = {
    "test_bernoulli": (0, 1),
    "test_bernoulli_double": (0, 1),
    "test_bernoulli_seed": (0, 1),
    "test_bernoulli_expanded": (0, 1),
    "test_bernoulli_double_expanded": (0, 1),
    "test_bernoulli_seed_expanded": (0, 1),
}

# Element types osc does not have (strings).
UNSUPPORTED_TYPE_MARKERS = ("STRING",)


def expected_failure(name):
    if name in EXPECTED_FAILURES:
        return EXPECTED_FAILURES[name]
    if any(m in name for m in UNSUPPORTED_TYPE_MARKERS):
        return "element type not in osc"
    return None


def frozen_inputs(model, test_dir):
    graph_inputs = [i.name for i in model.graph.input
                    if i.name not in {t.name for t in model.graph.initializer}]
    # Graph inputs a shape operand depends on, directly or through other
    # nodes (a window op's Range bounds computed from its size input).
    producer = {o: n for n in model.graph.node for o in n.output}
    names, todo = set(), []
    for node in model.graph.node:
        for pos in SHAPE_OPERANDS.get(node.op_type, []):
            if pos < len(node.input) and node.input[pos]:
                todo.append(node.input[pos])
    seen = set()
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if v in graph_inputs:
            names.add(v)
        elif v in producer and producer[v].op_type not in ("Shape", "Size"):
            # (Shape and Size depend on static shapes only.)
            todo.extend(i for i in producer[v].input if i)
    data = os.path.join(test_dir, "test_data_set_0")
    return ["%s=%s" % (n, os.path.join(data, "input_%d.pb" % graph_inputs.index(n)))
            for n in sorted(names)]


def all_nodes(graph):
    """The nodes of `graph` and of every subgraph (If branches, Loop bodies)."""
    for node in graph.node:
        yield node
        for attr in node.attribute:
            if attr.HasField("g"):
                yield from all_nodes(attr.g)
            for g in attr.graphs:
                yield from all_nodes(g)


def run_one(args, name, supported):
    test_dir = os.path.join(NODE_TESTS, name)
    model = onnx.load(os.path.join(test_dir, "model.onnx"))
    nodes = list(all_nodes(model.graph))
    ops = {n.op_type for n in nodes}
    if not ops <= supported or any(n.domain not in ("", "ai.onnx") for n in nodes):
        return name, "skipped", ", ".join(sorted(ops - supported))
    if args.run and args.capped:
        if expected_failure(name):
            return name, "failed", "(import failure expected; not run under a cap)"
        return run_compiled(args, name, model, test_dir)
    cmd = [args.translate, "--import-onnx", os.path.join(test_dir, "model.onnx")]
    for spec in frozen_inputs(model, test_dir):
        cmd += ["--freeze-input", spec]
    imported = subprocess.run(cmd, capture_output=True, text=True)
    if imported.returncode != 0:
        return name, "failed", imported.stderr.strip()
    if args.run and not run_skipped(name):
        # The compiler reads the imported text back (the parser verifies
        # it, as opscope-opt would) and compiles it: one process, not two.
        return run_compiled(args, name, model, test_dir, imported.stdout)
    reparsed = subprocess.run([args.opt], input=imported.stdout,
                              capture_output=True, text=True)
    if reparsed.returncode != 0:
        return name, "failed", "opscope-opt: " + reparsed.stderr.strip()
    return name, "passed", ""


def type_only_inputs(model):
    """Graph inputs whose values no node reads: unused ones, and those only
    CastLike's second operand reads (for its type). ONNX 1.12's CastLike
    tests (and their expanded forms, where the input is unused) give that
    input one element against the 3x4 their models declare; opscope-run
    fills an input it is not given."""
    reads = {}
    for node in all_nodes(model.graph):
        for pos, v in enumerate(node.input):
            reads.setdefault(v, set()).add(node.op_type == "CastLike" and pos == 1)
    return {i.name for i in model.graph.input
            if reads.get(i.name, {True}) == {True}}


def run_skipped(name):
    """Tests imported but not run (listed, with the reason)."""
    return name in EXPECTED_RUN_FAILURES


def run_compiled(args, name, model, test_dir, imported=None):
    """Compiles and runs one test; returns (name, status, detail). With
    `imported` (opscope-translate's output, inputs frozen) the compiler
    parses that text; else it imports the ONNX model itself."""
    if run_skipped(name):
        return name, "passed", ""
    frozen = frozen_inputs(model, test_dir)
    frozen_names = {f.split("=")[0] for f in frozen}
    work = tempfile.mkdtemp(prefix="opscope-node-")
    try:
        lib = os.path.join(work, "model.so")
        if imported is not None:
            source = os.path.join(work, "model.mlir")
            with open(source, "w") as f:
                f.write(imported)
            cmd = [args.compile, source, "-o", lib]
        else:
            cmd = [args.compile, os.path.join(test_dir, "model.onnx"), "-o", lib]
            for spec in frozen:
                cmd += ["--freeze-input", spec]
        compiled = subprocess.run(cmd, capture_output=True, text=True)
        if compiled.returncode != 0:
            return name, "run-failed", "opscope-compile: " + compiled.stderr.strip()
        inits = {t.name for t in model.graph.initializer}
        inputs = [i.name for i in model.graph.input if i.name not in inits]
        data = os.path.join(test_dir, "test_data_set_0")
        rtol = "0.0078125" if name in BF16_RTOL_TESTS else "1e-3"
        cmd = [args.run, lib, "--iterations", "0", "--warmup", "0", "-q",
               "--threads", "1", "--rtol", rtol, "--atol", "1e-5"]
        type_only = type_only_inputs(model)
        for i, n in enumerate(inputs):
            if n not in frozen_names and n not in type_only:
                cmd += ["--input", "%s=%s" % (n, os.path.join(data, "input_%d.pb" % i))]
        if name in RANDOM_OUTPUT_TESTS:
            return check_random(name, model, data, work, cmd)
        for i, o in enumerate(model.graph.output):
            cmd += ["--expect", "%s=%s" % (o.name, os.path.join(data, "output_%d.pb" % i))]
        check_kernels = args.no_ref_kernels and "conv" in name
        csv_path = os.path.join(work, "profile.csv")
        if check_kernels:
            cmd[cmd.index("--iterations") + 1] = "1"
            cmd += ["--profile", "--csv", csv_path]
        ran = subprocess.run(cmd, capture_output=True, text=True)
        if ran.returncode != 0:
            return name, "run-failed", (ran.stdout + ran.stderr).strip()
        if check_kernels:
            slow = reference_kernels(csv_path)
            if slow:
                return name, "run-failed", "oneDNN's reference kernel ran: " + ", ".join(slow)
        return name, "ran", ""
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_random(name, model, data, work, cmd):
    """Runs a RANDOM_OUTPUT_TESTS test (`cmd`: opscope-run with its inputs)
    with --output-dir, and checks each output's shape, element type and
    values against the expected .pb and the op's set of values."""
    import numpy as np
    from onnx import numpy_helper
    values = np.array(RANDOM_OUTPUT_TESTS[name])
    seeded = any(a.name == "seed" for n in all_nodes(model.graph) for a in n.attribute)
    runs = []
    for r in range(2 if seeded else 1):
        out = os.path.join(work, "out%d" % r)
        run_cmd = list(cmd) + ["--output-dir", out]
        run_cmd[run_cmd.index("--iterations") + 1] = "1"
        ran = subprocess.run(run_cmd, capture_output=True, text=True)
        if ran.returncode != 0:
            return name, "run-failed", (ran.stdout + ran.stderr).strip()
        got = []
        for i, o in enumerate(model.graph.output):
            want = numpy_helper.to_array(onnx.load_tensor(
                os.path.join(data, "output_%d.pb" % i)))
            y = np.load(os.path.join(out, o.name.replace("/", "_") + ".npy"))
            if y.shape != want.shape or y.dtype != want.dtype:
                return name, "run-failed", "output %s: got %s %s, expected %s %s" % (
                    o.name, y.dtype, y.shape, want.dtype, want.shape)
            outside = y[~np.isin(y, values)]
            if outside.size:
                return name, "run-failed", "output %s: values %s outside %s" % (
                    o.name, np.unique(outside)[:5], values)
            got.append(y)
        runs.append(got)
    if seeded and any(not np.array_equal(a, b) for a, b in zip(*runs)):
        return name, "run-failed", "seeded, yet two runs gave different values"
    return name, "ran-random", ("(random op: shape, element type and value range "
                                "checked, values not comparable)")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--translate", required=True)
    parser.add_argument("--opt", required=True)
    parser.add_argument("--compile", help="opscope-compile: also compile and run")
    parser.add_argument("--run", help="opscope-run (with --compile)")
    parser.add_argument("--filter", default="", help="only tests whose name contains this")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-ref-kernels", action="store_true",
                        help="convolution tests fail when an op runs oneDNN's "
                        "reference (`ref`) implementation at the tier in force")
    parser.add_argument("--min-ran", type=int, default=0,
                        help="fail unless at least this many tests ran and were "
                        "checked: matched, or random outputs checked by range "
                        "(with --run; the figure docs/importer.md states)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="a line per test: passed, skipped (with the ops it "
                        "needs) and expected failures (with the reason)")
    args = parser.parse_args()
    args.capped = bool(os.environ.get("OPSCOPE_MAX_ISA"))

    supported = set(subprocess.run([args.translate, "--list-ops"], check=True,
                                   capture_output=True, text=True).stdout.split())
    names = sorted(d for d in os.listdir(NODE_TESTS)
                   if os.path.exists(os.path.join(NODE_TESTS, d, "model.onnx"))
                   and args.filter in d)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda n: run_one(args, n, supported), names))

    # "ran" counts every test run, "ran-random" those of RANDOM_OUTPUT_TESTS.
    counts = {"passed": 0, "failed": 0, "skipped": 0, "xfail": 0, "ran": 0,
              "ran-random": 0, "run-failed": 0}
    unexpected = 0
    for name, status, detail in results:
        if status == "run-failed":
            print("RUN FAIL: %s\n  %s" % (name, detail.replace("\n", "\n  ")))
            unexpected += 1
            counts[status] += 1
            counts["passed"] += 1
            continue
        if status == "ran-random":
            counts["ran-random"] += 1
            status = "ran"
        if status == "ran":
            counts["ran"] += 1
            status = "passed"
        if status == "failed" and expected_failure(name):
            counts["xfail"] += 1
            if args.verbose:
                print("XFAIL: %s %s" % (name, expected_failure(name)))
            continue
        if status == "passed" and expected_failure(name):
            print("UNEXPECTED PASS: %s (remove it from EXPECTED_FAILURES)" % name)
            unexpected += 1
        if status == "failed":
            print("FAIL: %s\n  %s" % (name, detail.replace("\n", "\n  ")))
            unexpected += 1
        counts[status] += 1
        if args.verbose and status != "failed":
            print("%s: %s %s" % (status.upper(), name, detail))
    print("onnx backend node tests: %d imported, %d failed, %d expected failures, "
          "%d skipped (unsupported ops), %d total"
          % (counts["passed"], counts["failed"], counts["xfail"], counts["skipped"],
             len(results)))
    if args.run and args.capped:
        print("under OPSCOPE_MAX_ISA=%s: compiled and run only, the import check "
              "is the uncapped run's" % os.environ["OPSCOPE_MAX_ISA"])
    if args.run:
        print("onnx backend node tests run: %d ran and matched, %d failed, %d "
              "ran with random outputs (random op: shape, element type and "
              "value range checked, values not comparable), %d imported but "
              "not run (listed)"
              % (counts["ran"] - counts["ran-random"], counts["run-failed"],
                 counts["ran-random"],
                 counts["passed"] - counts["ran"] - counts["run-failed"]))
    checked = counts["ran"]  # matched, or random outputs checked by range
    if args.run:
        print("onnx backend node tests checked: %d of %d (ran and matched, or "
              "random outputs checked); the other %d listed above with -v, "
              "each with its reason" % (checked, len(results), len(results) - checked))
    if args.run and checked < args.min_ran:
        print("FAIL: %d tests ran and were checked, fewer than --min-ran %d"
              % (checked, args.min_ran))
        unexpected += 1
    print("unexpected results: %d" % unexpected)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
