#!/usr/bin/python3
"""Fails when an op of an opscope-run profile ran oneDNN's reference
implementation (`ref:any`, scalar loops: hundreds of times slower than its
JIT kernels).

  check_kernels.py PROFILE.csv [PROFILE.csv ...]

PROFILE.csv: `opscope-run --profile --csv`. Prints one line per file (the
ops and the distinct kernels they ran, or each op that ran `ref`); exits 1
when any did.
"""
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


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 2
    failed = False
    for path in argv[1:]:
        try:
            ops = kernels(path)
        except (OSError, KeyError, csv.Error) as e:
            sys.stderr.write("check_kernels.py: %s: not an opscope-run --csv profile (%s)\n" % (path, e))
            return 1
        slow = reference_kernels(path)
        if slow:
            failed = True
            print("%s: oneDNN's reference kernel ran: %s" % (path, ", ".join(slow)))
        else:
            print("%s: %d ops, no reference kernel (%s)" % (
                path, len(ops), ", ".join(sorted({k for _, k in ops}))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
