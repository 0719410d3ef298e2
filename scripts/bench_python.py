#!/usr/bin/python3
"""What the Python API costs over the runtime (docs/python.md, "Overhead"):

  bench_python.py --build BUILD --work DIR [--cpu N] [--rounds R]
                  [--overhead-runs N] [--model MODEL.onnx --input-shape NAME=DIMS ...]
                  [--iterations N] [--warmup N] [--check-overhead US]

1. Session.run's time per call over the C API's: a tiny model
   (test/Tools/opscope-run/Inputs/tiny.onnxtext: a 2x4 MatMul, Add, Relu
   and a Gather) run by bench-capi-run (c_api.h; each run copies its
   inputs in, as a caller feeding new data does) and by Session.run with
   fresh output arrays (copy=True) and with views (copy=False), one thread,
   rounds interleaved; the figure is the difference of the medians.
2. With --model: the model run from Python (one Session, one thread)
   against opscope-run --threads 1's median, rounds interleaved, both
   pinned to --cpu.

Prints the figures (the issue's target for the overhead is 20 us); with
--check-overhead US exits 1 when Session.run's overhead (copy=True)
exceeds US microseconds. test/Python/overhead.test runs the first part
and checks only that both figures print.
Needs PYTHONPATH to reach the opscope package with its extension.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

import opscope

HERE = os.path.dirname(os.path.abspath(__file__))
TINY = os.path.join(HERE, "..", "test", "Tools", "opscope-run", "Inputs", "tiny.onnxtext")


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
        return m.group(1) if m else "unknown CPU"
    except OSError:
        return "unknown CPU"


def python_round(session, feeds, runs, copy):
    run = session.run
    t0 = time.perf_counter()
    for _ in range(runs):
        run(feeds, copy)
    return (time.perf_counter() - t0) / runs * 1e6


def overhead(args, env):
    so = os.path.join(args.work, "tiny.so")
    subprocess.run([os.path.join(args.build, "bin", "opscope-compile"), TINY, "-o", so],
                   check=True)
    session = opscope.Session(so, threads=1)
    feeds = {t.name: np.zeros(t.shape, t.dtype) for t in session.inputs}
    for _ in range(200):
        session.run(feeds)
    c_api, copied, viewed = [], [], []
    for _ in range(args.rounds):
        out = subprocess.run([os.path.join(args.build, "bin", "bench-capi-run"), so,
                              str(args.overhead_runs), "1"], env=env, check=True,
                             capture_output=True, text=True).stdout
        c_api.append(float(out.split()[0]))
        copied.append(python_round(session, feeds, args.overhead_runs, True))
        viewed.append(python_round(session, feeds, args.overhead_runs, False))
    c = statistics.median(c_api)
    py, view = statistics.median(copied), statistics.median(viewed)
    print("Session.run overhead over the C API (tiny.onnxtext, 1 thread, %d rounds of %d runs, "
          "medians):" % (args.rounds, args.overhead_runs))
    print("  C API (bench-capi-run)        %8.2f us/run" % c)
    print("  Session.run (copy=True)       %8.2f us/run   overhead %6.2f us" % (py, py - c))
    print("  Session.run (copy=False)      %8.2f us/run   overhead %6.2f us" % (view, view - c))
    return py - c


def opscope_run_median(args, so, env):
    cmd = [os.path.join(args.build, "bin", "opscope-run"), so, "--threads", "1",
           "--iterations", str(args.iterations), "--warmup", str(args.warmup)]
    if args.cpu is not None:
        cmd = ["taskset", "-c", str(args.cpu)] + cmd
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    m = re.search(r"median ([0-9.]+)", out)
    if not m:
        sys.exit("no median in opscope-run's output:\n" + out)
    return float(m.group(1)), cmd


def model_run(args, env):
    shapes = dict(s.split("=", 1) for s in args.input_shape)
    compiled = opscope.compile(args.model, input_shapes=shapes)
    session = opscope.Session(compiled, threads=1)
    feeds = session.random_inputs()
    for _ in range(args.warmup):
        session.run(feeds)
    ours, theirs = [], []
    for _ in range(args.rounds):
        median, cmd = opscope_run_median(args, compiled.path, env)
        theirs.append(median)
        times = []
        for _ in range(args.iterations):
            t0 = time.perf_counter()
            session.run(feeds)
            times.append((time.perf_counter() - t0) * 1e3)
        ours.append(statistics.median(times))
    py, cli = statistics.median(ours), statistics.median(theirs)
    print("%s from Python against opscope-run (1 thread, %d rounds of %d runs after %d warm-up):"
          % (os.path.basename(args.model), args.rounds, args.iterations, args.warmup))
    print("  opscope-run median            %8.3f ms   (%s)" % (cli, " ".join(cmd)))
    print("  Session.run median            %8.3f ms   %+.2f%%" % (py, (py / cli - 1) * 100))
    print("  per round: opscope-run " + " ".join("%.3f" % v for v in theirs))
    print("             Session.run " + " ".join("%.3f" % v for v in ours))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--cpu", type=int, help="pin the runs to this CPU")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--overhead-runs", type=int, default=20000)
    p.add_argument("--model")
    p.add_argument("--input-shape", action="append", default=[])
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--check-overhead", type=float, metavar="US")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    print("CPU: %s%s" % (cpu_name(), ", pinned to CPU %d" % args.cpu if args.cpu is not None else ""))
    extra = overhead(args, env)
    if args.model:
        model_run(args, env)
    if args.check_overhead is not None and extra > args.check_overhead:
        print("FAIL: Session.run's overhead %.2f us is above %.2f us" % (extra, args.check_overhead))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
