#!/usr/bin/python3
"""Fails when an op of an opscope-run profile ran oneDNN's reference
implementation (`ref:any`, scalar loops: hundreds of times slower than its
JIT kernels), or, with --max-share F, when an op on any slow kernel (oneDNN's
`ref` or `simple_*`, opscope's `:reference` loops) took more than the
fraction F of the profile's op time (its p50 latency over the sum of all
ops' p50 latencies).

  check_kernels.py [--max-share F] PROFILE.csv [PROFILE.csv ...]

PROFILE.csv: `opscope-run --profile --csv`. Prints one line per file (the
ops and the distinct kernels they ran, or each op that failed the check);
exits 1 when any did, 2 on a usage error.
"""
import argparse
import csv
import sys


def kernels(csv_path):
    """(op name, kernel) of each op row of an opscope-run --csv profile."""
    with open(csv_path) as f:
        return [(r["operator_name"], r["kernel"]) for r in csv.DictReader(f)
                if r.get("operator_name") and r.get("kernel")]


def reference_kernels(csv_path):
    """The ops that ran oneDNN's `ref` implementation, as "name (kernel)"."""
    return ["%s (%s)" % (name, kernel) for name, kernel in kernels(csv_path)
            if kernel.startswith("onednn:ref")]


def is_slow(kernel):
    """oneDNN's reference and simple_* implementations, opscope's
    not-vectorized loops."""
    return (kernel.startswith("onednn:ref") or ":simple_" in kernel or
            kernel.endswith(":reference"))


def slow_shares(csv_path, max_share):
    """Ops on a slow kernel above `max_share` of the op time, as
    "name (kernel, share%)", and the largest such share."""
    with open(csv_path) as f:
        rows = [r for r in csv.DictReader(f)
                if r.get("operator_name") and r.get("kernel") and r.get("latency_p50_ms")]
    total = sum(float(r["latency_p50_ms"]) for r in rows)
    out, top = [], 0.0
    for r in rows:
        if not is_slow(r["kernel"]) or total <= 0:
            continue
        share = float(r["latency_p50_ms"]) / total
        top = max(top, share)
        if share > max_share:
            out.append("%s (%s, %.1f%%)" % (r["operator_name"], r["kernel"], 100 * share))
    return out, top


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-share", type=float,
                    help="fail when an op on a slow kernel takes more than this "
                    "fraction of the op time")
    ap.add_argument("profiles", nargs="+", metavar="PROFILE.csv")
    a = ap.parse_args(argv[1:])
    failed = False
    for path in a.profiles:
        try:
            ops = kernels(path)
        except (OSError, KeyError, csv.Error) as e:
            sys.stderr.write("check_kernels.py: %s: not an opscope-run --csv profile (%s)\n" % (path, e))
            return 1
        slow = reference_kernels(path)
        if slow:
            failed = True
            print("%s: oneDNN's reference kernel ran: %s" % (path, ", ".join(slow)))
            continue
        if a.max_share is not None:
            big, top = slow_shares(path, a.max_share)
            if big:
                failed = True
                print("%s: slow kernels above %.1f%% of the op time: %s"
                      % (path, 100 * a.max_share, ", ".join(big)))
                continue
            print("%s: %d ops, no slow kernel above %.1f%% of the op time (largest %.2f%%)"
                  % (path, len(ops), 100 * a.max_share, 100 * top))
            continue
        print("%s: %d ops, no reference kernel (%s)" % (
            path, len(ops), ", ".join(sorted({k for _, k in ops}))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
