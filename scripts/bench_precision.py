#!/usr/bin/python3
"""Precision benchmark: a model compiled in fp32 and bf16, side by side with
ONNX Runtime fp32, in alternating rounds on one pinned CPU, one thread; then
bf16's accuracy against fp32 over N random input sets (opscope-run
--compare-to).

  bench_precision.py --compile BIN --run BIN MODEL.onnx NAME=DIMS ...
                     [--iterations N] [--rounds N] [--cpu N] [--sets N]
                     [--work DIR]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.stderr.write("command failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
        sys.exit(1)
    return p.stdout


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--compile", required=True)
    p.add_argument("--run", required=True)
    p.add_argument("--work", default="/tmp/opscope-bench-precision")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--cpu", type=int, default=0)
    p.add_argument("--sets", type=int, default=32)
    p.add_argument("model")
    p.add_argument("shapes", nargs="+")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    libs = {}
    for prec in ("fp32", "bf16"):
        libs[prec] = os.path.join(a.work, prec + ".so")
        cmd = [a.compile, a.model, "-o", libs[prec], "--no-probes", "--precision", prec]
        for s in a.shapes:
            cmd += ["--input-shape", s]
        run(cmd)
    cmd = ["/usr/bin/python3", os.path.join(HERE, "make_inputs.py"), a.model,
           "--out", os.path.join(a.work, "inputs")]
    for s in a.shapes:
        cmd += ["--input-shape", s]
    inputs = []
    for i in run(cmd).split():
        inputs += ["--input", i]
    pin = ["taskset", "-c", str(a.cpu)]
    ms = {"ort": [], "fp32": [], "bf16": []}
    for _ in range(a.rounds):
        out = run(pin + ["node", os.path.join(HERE, "ort_run.js"), a.model, "--iterations",
                         str(a.iterations), "--warmup", "3", "--threads", "1"] + inputs)
        ms["ort"].append(json.loads(out.strip().splitlines()[-1])["median"])
        for prec in ("fp32", "bf16"):
            out = run(pin + [a.run, libs[prec], "--threads", "1", "--iterations",
                             str(a.iterations), "--warmup", "3"] + inputs)
            ms[prec].append(float(re.search(r"median ([0-9.]+)", out).group(1)))
    acc = run(pin + [a.run, libs["bf16"], "--compare-to", libs["fp32"], "--random",
                     str(a.sets), "--int-max", "1000", "--threads", "1"])
    with open("/proc/cpuinfo") as f:
        cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
        f.seek(0)
        amx = " amx_tile " in next((l for l in f if l.startswith("flags")), "") + " "
    print("CPU: %s; AMX: %s; one thread on CPU %d; %d rounds of %d runs" % (
        cpu, "yes" if amx else "no", a.cpu, a.rounds, a.iterations))
    print("%-26s %10s %18s" % ("precision", "median ms", "vs ORT fp32"))
    print("%-26s %10.2f %18s" % ("ONNX Runtime fp32", statistics.median(ms["ort"]), "1.00x"))
    for prec in ("fp32", "bf16"):
        r = [x / o for x, o in zip(ms[prec], ms["ort"])]
        print("%-26s %10.2f %9.2fx [%.2f-%.2f]" % (
            "opscope " + prec, statistics.median(ms[prec]), statistics.median(r), min(r), max(r)))
    print("bf16 against fp32 (opscope-run --compare-to, %d random input sets):" % a.sets)
    sys.stdout.write(acc)


if __name__ == "__main__":
    main()
