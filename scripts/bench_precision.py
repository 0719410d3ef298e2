#!/usr/bin/python3
"""Precision benchmark: a model compiled in fp32, bf16 and int8 (calibrated
on four generated input sets; bf16 also with its chains forced on and off),
and with --sparse-model its 1x4-pruned twin
in sparse fp32 and int8, side by side with ONNX Runtime fp32 on the
unpruned model, in alternating rounds on one pinned CPU, one thread; then
bf16's and int8's accuracy against fp32 over N random input sets
(opscope-run --compare-to).

The int8 peer: the same calibration written as a QDQ model
(scripts/make_qdq.py: u8 activations, per-channel symmetric int8 weights,
the layout ONNX Runtime's quantization tool writes), run by ONNX Runtime
and imported by opscope, in the same rounds; their outputs are compared
with each other on the benchmark's input.

  bench_precision.py --compile BIN --run BIN MODEL.onnx NAME=DIMS ...
                     [--sparse-model PRUNED.onnx] [--iterations N]
                     [--rounds N] [--cpu N] [--sets N] [--work DIR]
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
    p.add_argument("--sparse-model")
    p.add_argument("--sparse-model-4x4",
                   help="the model pruned in 4x4 blocks (runs the 4x4 kernels)")
    p.add_argument("--no-qdq", action="store_true",
                   help="skip the QDQ model (ORT's int8 peer)")
    p.add_argument("model")
    p.add_argument("shapes", nargs="+")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    shape_flags = []
    for s in a.shapes:
        shape_flags += ["--input-shape", s]
    calib = os.path.join(a.work, "calibration")
    for seed in range(4):
        run(["/usr/bin/python3", os.path.join(HERE, "make_inputs.py"), a.model,
             "--seed", str(100 + seed), "--out", os.path.join(calib, "set%d" % seed)]
            + shape_flags)
    # bf16 as compiled by default (osc-bf16-chains auto: chains only where
    # this CPU multiplies bf16 natively), and with the chains forced either
    # way, so that every machine measures what auto decided against.
    variants = [("fp32", a.model, ["--precision", "fp32"]),
                ("bf16", a.model, ["--precision", "bf16"]),
                ("bf16 chains always", a.model,
                 ["--precision", "bf16", "--bf16-chains", "always"]),
                ("bf16 chains never", a.model,
                 ["--precision", "bf16", "--bf16-chains", "never"]),
                ("int8", a.model, ["--precision", "int8", "--calibration-inputs", calib])]
    if a.sparse_model:
        variants += [("sparse fp32", a.sparse_model, ["--precision", "fp32"]),
                     ("sparse int8", a.sparse_model,
                      ["--precision", "int8", "--calibration-inputs", calib])]
    if a.sparse_model_4x4:
        variants += [("sparse 4x4 fp32", a.sparse_model_4x4, ["--precision", "fp32"]),
                     ("sparse 4x4 int8", a.sparse_model_4x4,
                      ["--precision", "int8", "--calibration-inputs", calib])]
    qdq = None
    if not a.no_qdq:
        fp32 = os.path.join(a.work, "calibrate-fp32.so")
        run([a.compile, a.model, "-o", fp32] + shape_flags)
        cal_json = os.path.join(a.work, "calibration.json")
        run([a.run, fp32, "--calibrate", cal_json, "--inputs", calib, "-q"])
        qdq = os.path.join(a.work, "qdq.onnx")
        run(["/usr/bin/python3", os.path.join(HERE, "make_qdq.py"), a.model, cal_json,
             "-o", qdq])
        variants.append(("int8 QDQ (imported)", qdq, []))
    libs = {}
    for name, model, flags in variants:
        libs[name] = os.path.join(a.work, re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-") + ".so")
        run([a.compile, model, "-o", libs[name], "--no-probes"] + flags + shape_flags)
    cmd = ["/usr/bin/python3", os.path.join(HERE, "make_inputs.py"), a.model,
           "--out", os.path.join(a.work, "inputs")]
    for s in a.shapes:
        cmd += ["--input-shape", s]
    inputs = []
    for i in run(cmd).split():
        inputs += ["--input", i]
    pin = ["taskset", "-c", str(a.cpu)]
    ms = {"ort": [], "ort qdq": []}
    ms.update({name: [] for name, _, _ in variants})
    for _ in range(a.rounds):
        out = run(pin + ["node", os.path.join(HERE, "ort_run.js"), a.model, "--iterations",
                         str(a.iterations), "--warmup", "3", "--threads", "1"] + inputs)
        ms["ort"].append(json.loads(out.strip().splitlines()[-1])["median"])
        if qdq:
            out = run(pin + ["node", os.path.join(HERE, "ort_run.js"), qdq, "--iterations",
                             str(a.iterations), "--warmup", "3", "--threads", "1",
                             "--output-dir", os.path.join(a.work, "ort-qdq")] + inputs)
            ms["ort qdq"].append(json.loads(out.strip().splitlines()[-1])["median"])
        for name, _, _ in variants:
            out = run(pin + [a.run, libs[name], "--threads", "1", "--iterations",
                             str(a.iterations), "--warmup", "3"] + inputs)
            ms[name].append(float(re.search(r"median ([0-9.]+)", out).group(1)))
    accuracy = []
    for name, ref in (("bf16", "fp32"), ("bf16 chains always", "bf16 chains never"),
                      ("int8", "fp32"), ("sparse int8", "sparse fp32"),
                      ("sparse 4x4 int8", "sparse 4x4 fp32"),
                      ("int8 QDQ (imported)", "fp32")):
        if name in libs:
            accuracy.append((name, ref, run(pin + [
                a.run, libs[ref], "--compare-to", libs[name], "--random", str(a.sets),
                "--seed", "7", "--int-max", "1000", "--threads", "1"])))
    with open("/proc/cpuinfo") as f:
        cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
        f.seek(0)
        flags = next((l for l in f if l.startswith("flags")), "") + " "
        amx = " amx_tile " in flags
    # The tier opscope runs (this CPU under OPSCOPE_MAX_ISA), which decides
    # whether bf16 is native: the CPU's flags alone ignore the cap.
    tier = re.findall(r"oneDNN (\w+)", run([a.run, "--version"]))[-1]
    bf16 = tier in ("avx512_core_bf16", "avx512_core_amx")
    print("CPU: %s; AMX: %s; tier %s; one thread on CPU %d; %d rounds of %d runs" % (
        cpu, "yes" if amx else "no", tier, a.cpu, a.rounds, a.iterations))
    print("%-26s %10s %18s %22s" % ("precision", "median ms", "vs ORT fp32",
                                     "ORT fp32 / this"))
    print("%-26s %10.2f %18s" % ("ONNX Runtime fp32", statistics.median(ms["ort"]), "1.00x"))
    if qdq:
        r = [x / o for x, o in zip(ms["ort qdq"], ms["ort"])]
        sp = [o / x for x, o in zip(ms["ort qdq"], ms["ort"])]
        print("%-26s %10.2f %9.2fx [%.2f-%.2f] %9.2fx [%.2f-%.2f]" % (
            "ONNX Runtime int8 QDQ", statistics.median(ms["ort qdq"]), statistics.median(r),
            min(r), max(r), statistics.median(sp), min(sp), max(sp)))
    for name, _, _ in variants:
        r = [x / o for x, o in zip(ms[name], ms["ort"])]
        sp = [o / x for x, o in zip(ms[name], ms["ort"])]
        print("%-26s %10.2f %9.2fx [%.2f-%.2f] %9.2fx [%.2f-%.2f]" % (
            "opscope " + name, statistics.median(ms[name]), statistics.median(r),
            min(r), max(r), statistics.median(sp), min(sp), max(sp)))
    print("(int8 calibrated on 4 generated input sets, min-max; sparse rows run "
          "the pruned model, ORT the unpruned one)")
    r = [x / o for x, o in zip(ms["bf16 chains always"], ms["bf16 chains never"])]
    print("opscope bf16 chains always / never (same rounds): %.2fx [%.2f-%.2f]; "
          "native bf16: %s, so --bf16-chains auto %s" % (
              statistics.median(r), min(r), max(r), "yes" if bf16 else "no",
              "carries them" if bf16 else "leaves them off"))
    if qdq:
        r = [x / o for x, o in zip(ms["int8 QDQ (imported)"], ms["ort qdq"])]
        print("opscope int8 QDQ (imported) / ONNX Runtime int8 QDQ, same model: "
              "%.2fx [%.2f-%.2f]" % (statistics.median(r), min(r), max(r)))
        outs = sorted(os.listdir(os.path.join(a.work, "ort-qdq")))
        expect = []
        for o in outs:
            expect += ["--expect", "%s=%s" % (o[:-4], os.path.join(a.work, "ort-qdq", o))]
        print("opscope int8 QDQ (imported) against ONNX Runtime int8 QDQ on the "
              "benchmark's input:")
        # Two int8 engines: rounding flips upstream (float summation order in
        # LayerNorm, softmax, GELU) move single activations across a
        # quantization step, so this reports rather than asserts.
        p = subprocess.run([a.run, libs["int8 QDQ (imported)"], "--threads", "1",
                            "--iterations", "0", "-q", "--rtol", "1e-2", "--atol", "1e-2"]
                           + inputs + expect, capture_output=True, text=True)
        sys.stdout.write(p.stdout + p.stderr)
    for name, ref, text in accuracy:
        print("%s against %s (opscope-run --compare-to, %d random input sets, "
              "not the calibration's):" % (name, ref, a.sets))
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
