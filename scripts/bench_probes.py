#!/usr/bin/python3
"""Probe cost on a model: the same model compiled without probes and with a
probe around every op (profiling on), run alternately on one pinned CPU.

  bench_probes.py --compile BIN --run BIN MODEL.onnx NAME=DIMS ...
                  [--iterations N] [--rounds N] [--cpu N] [--work DIR]

Prints the calibrated per-probe cost (ns), the median latency of both
builds (medians over rounds of median-of-N runs), the slowdown, and the sum
of op times over the iteration wall time (coverage) of the profiled runs.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--compile", required=True)
    p.add_argument("--run", required=True)
    p.add_argument("--work", default="/tmp/opscope-bench-probes")
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--cpu", type=int, default=0)
    p.add_argument("model")
    p.add_argument("shapes", nargs="+")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    libs = {}
    for variant, flags in (("plain", ["--no-probes"]), ("probed", [])):
        libs[variant] = os.path.join(a.work, variant + ".so")
        cmd = [a.compile, a.model, "-o", libs[variant]] + flags
        for s in a.shapes:
            cmd += ["--input-shape", s]
        subprocess.run(cmd, check=True)
    medians = {"plain": [], "probed": []}
    cost, coverage = [], []
    for _ in range(a.rounds):
        for variant in ("plain", "probed"):
            cmd = ["taskset", "-c", str(a.cpu), a.run, libs[variant], "--threads", "1",
                   "--iterations", str(a.iterations), "--warmup", "3", "--seed", "1"]
            if variant == "probed":
                cmd.append("--profile")
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            medians[variant].append(float(re.search(r"median ([0-9.]+)", out).group(1)))
            if variant == "probed":
                cost.append(float(re.search(r"probe cost ([0-9.]+) ns", out).group(1)))
                coverage.append(float(re.search(r"\(([0-9.]+)% of iteration wall time", out).group(1)))
    plain = statistics.median(medians["plain"])
    probed = statistics.median(medians["probed"])
    nprobes = int(re.search(r"(\d+) probes", out).group(1))
    print("model %s (%s), %d probes, one thread on CPU %d" % (
        os.path.basename(a.model), " ".join(a.shapes), nprobes, a.cpu))
    print("per-probe cost (begin+end, calibrated): %.1f ns" % statistics.median(cost))
    print("latency without probes: %.3f ms; all ops probed, profiling on: %.3f ms; "
          "slowdown %+.2f%%" % (plain, probed, 100.0 * (probed / plain - 1)))
    print("sum of op times / iteration wall time: %.1f%%" % statistics.median(coverage))
    return 0


if __name__ == "__main__":
    sys.exit(main())
