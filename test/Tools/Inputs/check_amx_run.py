#!/usr/bin/python3
"""Checks for test/Tools/amx-bundle.test.

  check_amx_run.py size BUNDLE        the bundle fits the device machine's 64 MiB
  check_amx_run.py run OUT LOG        run-amx.sh's results on this CPU
"""
import csv
import os
import sys


def fail(msg):
    sys.exit("check_amx_run.py: " + msg)


def bundle_size(path):
    total = 0
    for d, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(d, f)) for f in files)
    if total >= 64 * 2**20:
        fail("bundle is %.1f MiB, not under 64 MiB" % (total / 2**20))
    for f in ("run-amx.sh", "MANIFEST", "lib/ld-linux-x86-64.so.2", "lib/libdnnl.so.2.gz",
              "bin/opscope-run", "bin/opscope-tune", "bin/bench-sparse",
              "models/bert-mini-fp32.so", "models/bert-mini-bf16.weights",
              "models/bert-mini-int8.so", "models/bert-mini-sparse80-int8.so"):
        if not os.path.exists(os.path.join(path, f)):
            fail("bundle lacks " + f)


def has_amx():
    with open("/proc/cpuinfo") as f:
        flags = f.read().split()
    return all(f in flags for f in ("amx_tile", "amx_bf16", "amx_int8"))


def run_results(out, log):
    text = open(log).read()
    if not text.startswith("== CPU\nmodel: "):
        fail("the log does not start with the CPU:\n" + text[:300])
    if not has_amx():
        if "no AMX on this CPU" not in text or "== 1." in text:
            fail("no AMX here, but run-amx.sh did not stop with the message:\n" + text)
        return
    if "every check passed" not in text or "FAIL" in text:
        fail("run-amx.sh failed on this AMX CPU:\n" + text)
    # The profile CSV names AMX kernels for the inner products.
    for p in ("bf16", "int8"):
        with open(os.path.join(out, "bert-mini-%s-profile.csv" % p)) as f:
            rows = [r for r in csv.DictReader(f) if r.get("operator_type", "").startswith("inner_product")]
        amx = [r for r in rows if "avx512_core_amx" in r["kernel"]]
        if not rows or len(amx) != len(rows):
            fail("%s: %d of %d inner products on AMX kernels" % (p, len(amx), len(rows)))
    summary = open(os.path.join(out, "summary.md")).read()
    for b in ("fp32", "bf16", "int8", "sparse80-int8"):
        line = [l for l in summary.splitlines() if l.startswith("| %s |" % b)]
        if not line or "nan" in line[0]:
            fail("summary.md has no figures for " + b + ":\n" + summary)
    if "| 768x768 | 128 | int8 |" not in summary:
        fail("summary.md lacks the dense shape table:\n" + summary)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "size":
        bundle_size(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "run":
        run_results(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
