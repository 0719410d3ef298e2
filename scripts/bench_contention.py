#!/usr/bin/env python3
"""Latency with another process busy on one core: default threads vs one.

  bench_contention.py --run opscope-run --compile opscope-compile MODEL SHAPE...

A busy loop occupies the last core (bounded: it is killed at the end, and
by `timeout` after 10 minutes at most); opscope-run then runs the model with
its default thread count and with --threads 1, alternating, for --rounds
rounds. Prints the median latency of each, their ratio per round, and the
same two figures on the idle machine for reference. The target: with one
core busy, the default stays within 1.5x of one thread.
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys


def median_ms(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    threads = re.search(r"threads (\d+)", out).group(1)
    return float(re.search(r"median ([0-9.]+)", out).group(1)), threads


def rounds(run, lib, a, cores):
    """Medians of default, --threads 1 and --threads CORES, in turn per round."""
    base = [run, lib, "--iterations", str(a.iterations), "--warmup", "3", "--seed", "1"]
    default, one, allc, ratios, threads = [], [], [], [], "?"
    for _ in range(a.rounds):
        d, threads = median_ms(base)
        o, _ = median_ms(base + ["--threads", "1"])
        c, _ = median_ms(base + ["--threads", str(cores)])
        default.append(d)
        one.append(o)
        allc.append(c)
        ratios.append(d / o)
    return (statistics.median(default), statistics.median(one),
            statistics.median(allc), ratios, threads)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--run", required=True)
    p.add_argument("--compile", required=True)
    p.add_argument("--work", default="/tmp/opscope-bench-contention")
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("model")
    p.add_argument("shapes", nargs="+")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    lib = os.path.join(a.work, "model.so")
    cmd = [a.compile, a.model, "-o", lib]
    for s in a.shapes:
        cmd += ["--input-shape", s]
    subprocess.run(cmd, check=True)
    cores = os.cpu_count() or 1
    print("model %s (%s), %d cores" % (os.path.basename(a.model), " ".join(a.shapes), cores))
    d, o, c, r, t = rounds(a.run, lib, a, cores)
    print("idle machine:     default (%s threads) %.3f ms, --threads 1 %.3f ms, "
          "--threads %d %.3f ms; default/one %.2f" % (t, d, o, cores, c, d / o))
    # Its own process group, so that killing it ends the loop too, not just
    # `timeout`.
    busy = subprocess.Popen(["timeout", "600", "taskset", "-c", str(cores - 1),
                             "sh", "-c", "while :; do :; done"],
                            start_new_session=True)
    try:
        d, o, c, r, t = rounds(a.run, lib, a, cores)
    finally:
        os.killpg(busy.pid, signal.SIGKILL)
        busy.wait()
    print("one core busy:    default (%s threads) %.3f ms, --threads 1 %.3f ms, "
          "--threads %d %.3f ms; default/one %.2f (per round %.2f-%.2f; target <= 1.5), "
          "all cores/one %.2f" % (t, d, o, cores, c, d / o, min(r), max(r), c / o))
    return 0


if __name__ == "__main__":
    sys.exit(main())
