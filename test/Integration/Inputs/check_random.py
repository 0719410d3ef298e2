"""Checks two runs of random.onnxtext (their --output-dir folders): each
output's range and moments against its distribution, seeded outputs equal
across the runs and unseeded ones not. The draws are 100000 values each;
every bound is at least five standard errors wide, and a seeded draw is the
same every run, so the check cannot flake on those. Prints one line per
output; exits 1 on the first failure."""
import sys

import numpy as np

a, b = sys.argv[1], sys.argv[2]


def load(d, name):
    return np.load("%s/%s.npy" % (d, name))


def check(cond, what):
    print("%s: %s" % (what, "ok" if cond else "FAILED"))
    if not cond:
        sys.exit(1)


for name in ("u", "su"):
    x = load(a, name)
    check(x.dtype == np.float32 and x.min() >= -1 and x.max() < 3, name + " in [-1, 3)")
    # U(-1, 3): mean 1 (standard error 0.0037), variance 4/3.
    check(abs(x.mean() - 1) < 0.02 and abs(x.var() - 4 / 3) < 0.03, name + " moments")
n = load(a, "n")
check(n.dtype == np.float64 and abs(n.mean() - 1) < 0.03 and abs(n.var() - 4) < 0.08,
      "n moments")
bern = load(a, "b")
check(bern.dtype == np.int64 and set(np.unique(bern)) <= {0, 1}, "b in {0, 1}")
check(abs(bern.mean() - 0.25) < 0.007, "b frequency")
for name in ("su", "n"):
    check(np.array_equal(load(a, name), load(b, name)), name + " seeded: same every run")
for name in ("u", "b"):
    check(not np.array_equal(load(a, name), load(b, name)), name + " unseeded: new every run")
