#!/usr/bin/python3
"""End-to-end sparse benchmark: a model pruned by opscope-prune, run with
opscope's block-sparse kernels and dense (oneDNN) on the same pruned model,
and ONNX Runtime fp32 on the unpruned model, in alternating rounds on one
pinned CPU, one thread.

  bench_sparse.py --compile BIN --run BIN --prune BIN MODEL.onnx NAME=DIMS ...
                  [--sparsity 0.8] [--block 1x4|4x4] [--iterations N]
                  [--rounds N] [--cpu N]
                  [--work DIR]

Prints the CPU, each system's median latency (median over rounds of the
in-process median of N runs), the per-round speed-ups (median and min-max),
and the sparse-vs-dense output agreement.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode:
        sys.stderr.write("command failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
        sys.exit(1)
    return p.stdout


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--compile", required=True)
    p.add_argument("--run", required=True)
    p.add_argument("--prune", required=True)
    p.add_argument("--work", default="/tmp/opscope-bench-sparse")
    p.add_argument("--sparsity", type=float, default=0.8)
    p.add_argument("--block", default="1x4",
                   help="opscope-prune's block shape (4x4 runs the 4x4 kernels)")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--cpu", type=int, default=0)
    p.add_argument("model")
    p.add_argument("shapes", nargs="+")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    pruned = os.path.join(a.work, "pruned.onnx")
    run([a.prune, a.model, "--sparsity", str(a.sparsity), "--block", a.block,
         "-o", pruned])
    libs = {}
    # "rows": the same sparse kernels without osc-sparse-layout's transposed
    # layout, which shows what keeping activations transposed buys.
    for variant, flags in (("sparse", ["--sparse=auto"]), ("dense", ["--sparse=never"]),
                           ("rows", ["--sparse=auto", "--no-sparse-chains"])):
        libs[variant] = os.path.join(a.work, variant + ".so")
        cmd = [a.compile, pruned, "-o", libs[variant], "--no-probes"] + flags
        for s in a.shapes:
            cmd += ["--input-shape", s]
        run(cmd)
    # The same inputs for every system.
    cmd = ["/usr/bin/python3", os.path.join(HERE, "make_inputs.py"), a.model,
           "--out", os.path.join(a.work, "inputs")]
    for s in a.shapes:
        cmd += ["--input-shape", s]
    inputs = run(cmd).split()
    input_flags = []
    for i in inputs:
        input_flags += ["--input", i]
    pin = ["taskset", "-c", str(a.cpu)]

    # Agreement first: sparse against dense on the pruned model.
    dense_out = os.path.join(a.work, "dense-out")
    run([a.run, libs["dense"], "--iterations", "1", "--warmup", "0",
         "--output-dir", dense_out] + input_flags)
    expects = []
    for f in sorted(os.listdir(dense_out)):
        expects += ["--expect", "%s=%s" % (f[:-4], os.path.join(dense_out, f))]
    agree = run([a.run, libs["sparse"], "--iterations", "1", "--warmup", "0",
                 "--rtol", "1e-3", "--atol", "1e-4"] + input_flags + expects)

    ms = {"ort": [], "dense": [], "sparse": [], "rows": []}
    for _ in range(a.rounds):
        out = run(pin + ["node", os.path.join(HERE, "ort_run.js"), a.model,
                         "--iterations", str(a.iterations), "--warmup", "3",
                         "--threads", "1"] + input_flags)
        ms["ort"].append(json.loads(out.strip().splitlines()[-1])["median"])
        for v in ("dense", "sparse", "rows"):
            out = run(pin + [a.run, libs[v], "--threads", "1", "--iterations",
                             str(a.iterations), "--warmup", "3"] + input_flags)
            ms[v].append(float(re.search(r"median ([0-9.]+)", out).group(1)))

    def ratio(num, den):
        r = [n / d for n, d in zip(ms[num], ms[den])]
        return "%.2fx [%.2f-%.2f]" % (statistics.median(r), min(r), max(r))

    print("CPU: %s; one thread on CPU %d; %d rounds of %d runs" % (
        cpu_model(), a.cpu, a.rounds, a.iterations))
    print("model %s (%s) pruned to %.0f%% in %s blocks by opscope-prune" % (
        os.path.basename(a.model), " ".join(a.shapes), 100 * a.sparsity, a.block))
    print("%-44s %10s" % ("system", "median ms"))
    print("%-44s %10.2f" % ("ONNX Runtime fp32, unpruned model", statistics.median(ms["ort"])))
    print("%-44s %10.2f" % ("opscope dense fp32 (oneDNN), pruned model", statistics.median(ms["dense"])))
    print("%-44s %10.2f" % ("opscope sparse fp32, pruned model", statistics.median(ms["sparse"])))
    print("%-44s %10.2f" % ("opscope sparse fp32, no transposed layout", statistics.median(ms["rows"])))
    print("sparse vs dense, same pruned model: %s faster (target >= 1.6x)" % ratio("dense", "sparse"))
    print("transposed layout vs row-major sparse: %s faster" % ratio("rows", "sparse"))
    print("sparse vs ONNX Runtime fp32 unpruned: %s faster" % ratio("ort", "sparse"))
    for line in agree.splitlines():
        if line.startswith("output "):
            print("sparse vs dense outputs: " + line)


if __name__ == "__main__":
    main()
