#!/usr/bin/python3
"""Checks that a pruned model compiled with a tuning database took the
kernels the database favours, and that the what-if projected the same ones
(issue 56: one kernel choice for the compiler and the what-if).

  check_tuned_choice.py DB.json FUSION_TUNED.json FUSION_RULES.json \
      [--whatif WHATIF.json --measured SPARSE_TRACE.json]

FUSION_*.json are `opscope-compile --print-fusion=json` of the pruned model
with the database and with `--kernels rules`. For every inner product the
database's own entry (weight shape, M, fp32, 1x4, one thread) at the
nearest measured ratio within half a block of the weight's says which
kernel is faster; the tuned compile must take it, name that entry in its
choice, and make at least as many of those ops sparse as the rules did.
With --whatif (`opscope-analyze DENSE --what-if R --check SPARSE
--format json`) and --measured (the trace of the tuned model), every op the
what-if projected sparse ran sparse, and every op it kept dense ran dense.
Prints one line per finding; exits 1 on any mismatch.
"""
import argparse
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def products(fusion):
    """Inner products of a --print-fusion=json report: (source, row)."""
    out = []
    for row in fusion:
        if row["type"] not in ("inner_product", "sparse_inner_product"):
            continue
        out.append((row["source_nodes"][0], row))
    return out


def elements(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("tuned")
    ap.add_argument("rules")
    ap.add_argument("--whatif")
    ap.add_argument("--measured")
    a = ap.parse_args()
    db = load(a.db)
    entries = {(e["n"], e["k"], e["m"]): e for e in db["entries"]
               if e["precision"] == "fp32" and e["block"] == "1x4"
               and e["threads"] == 1}
    failures = 0
    favoured = set()
    tuned = products(load(a.tuned))
    for src, row in tuned:
        n, k = row["weight_shape"]
        m = elements(row["outputs"][0]["shape"]) // n
        e = entries.get((n, k, m))
        if e is None:
            print("FAIL %s: no entry %dx%d M=%d in the database" % (src, n, k, m))
            failures += 1
            continue
        s = row["block_sparsity"]
        half = 0.5 / (n * k / 4)
        near = [p for p in e["sparse"] if abs(p["sparsity"] - s) <= half + 1e-9]
        if not near:
            print("FAIL %s: block sparsity %.6f has no measured point" % (src, s))
            failures += 1
            continue
        sparse_wins = near[0]["ms"] < e["dense_ms"]
        if sparse_wins:
            favoured.add(src)
        took = row["type"] == "sparse_inner_product"
        entry = "entry %dx%d M=%d fp32 1x4, 1 thread" % (n, k, m)
        if took != sparse_wins or entry not in row.get("choice", ""):
            print("FAIL %s: database favours %s, compiled %s (%s)"
                  % (src, "sparse" if sparse_wins else "dense",
                     "sparse" if took else "dense", row.get("choice")))
            failures += 1
    rules_sparse = {src for src, row in products(load(a.rules))
                    if row["type"] == "sparse_inner_product"}
    tuned_sparse = {src for src, row in tuned
                    if row["type"] == "sparse_inner_product"}
    print("database favours sparse for %d of %d inner products; tuned "
          "compile sparse: %d of them, rules compile: %d"
          % (len(favoured), len(tuned), len(tuned_sparse & favoured),
             len(rules_sparse & favoured)))
    if len(tuned_sparse & favoured) < len(rules_sparse & favoured):
        print("FAIL fewer sparse ops with the database than without it")
        failures += 1
    if a.whatif:
        ops = load(a.whatif)["opscope"]["what_if"]["ops"]
        measured = {p["name"]: p for p in load(a.measured)["opscope"]["probes"]}
        agree = 0
        for op in ops:
            if op.get("target_ratio") is None:
                continue
            projected_sparse = "kept dense" not in (op.get("basis") or "")
            ran = measured.get(op["name"])
            if ran is None:
                print("FAIL %s: not in the measured trace" % op["name"])
                failures += 1
                continue
            ran_sparse = ran["type"] == "sparse_inner_product"
            if projected_sparse != ran_sparse:
                print("FAIL %s: what-if projected %s, the tuned model ran %s"
                      % (op["name"], "sparse" if projected_sparse else "dense",
                         "sparse" if ran_sparse else "dense"))
                failures += 1
            else:
                agree += 1
        print("what-if and compiled model agree on %d ops" % agree)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
