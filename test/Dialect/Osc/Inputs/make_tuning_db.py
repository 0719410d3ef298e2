#!/usr/bin/env python3
"""Writes a synthetic tuning database with this machine's key.

  make_tuning_db.py REAL.json OUT.json DENSE_MS SPARSE_MS [--cpu NAME] [--empty]
                    [--matmul MS] [--m M] [--threads T] [--sparsity R]

REAL.json is a database opscope-tune wrote on this machine (for its key);
OUT.json gets one fp32 entry for an 8x8 weight at M=4 with the given dense
latency and the sparse latency at 0.8 block sparsity (or no entries); with
--matmul, also the dense product's latency on oneDNN's matmul primitive;
--m, --threads and --sparsity measure the entry at another M, thread count
or block sparsity (the kernel choice then takes the nearest entry, or
bounds the answer from the ratio, docs/tuning.md).
"""
import json
import sys

real, out, dense, sparse = sys.argv[1:5]


def option(name, default, kind):
    if name in sys.argv:
        return kind(sys.argv[sys.argv.index(name) + 1])
    return default



db = json.load(open(real))
if "--cpu" in sys.argv:
    db["machine"]["cpu"] = sys.argv[sys.argv.index("--cpu") + 1]
db["entries"] = [] if "--empty" in sys.argv else [{
    "n": 8, "k": 8, "m": option("--m", 4, int), "precision": "fp32",
    "block": "1x4", "threads": option("--threads", 1, int), "dense_ms": float(dense), "dense_impl": "synthetic",
    "sparse_impl": "synthetic",
    "sparse": [{"sparsity": option("--sparsity", 0.8, float), "ms": float(sparse),
                "ratio_min": 1.0, "ratio_max": 1.0}]}]
if "--matmul" in sys.argv and db["entries"]:
    db["entries"][0]["matmul_ms"] = float(sys.argv[sys.argv.index("--matmul") + 1])
    db["entries"][0]["matmul_impl"] = "synthetic"
json.dump(db, open(out, "w"), indent=2)
