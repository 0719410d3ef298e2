#!/usr/bin/env python3
"""Writes a synthetic tuning database with this machine's key.

  make_tuning_db.py REAL.json OUT.json DENSE_MS SPARSE_MS [--cpu NAME] [--empty]
                    [--matmul MS]

REAL.json is a database opscope-tune wrote on this machine (for its key);
OUT.json gets one fp32 entry for an 8x8 weight at M=4 with the given dense
latency and the sparse latency at 0.8 block sparsity (or no entries); with
--matmul, also the dense product's latency on oneDNN's matmul primitive.
"""
import json
import sys

real, out, dense, sparse = sys.argv[1:5]
db = json.load(open(real))
if "--cpu" in sys.argv:
    db["machine"]["cpu"] = sys.argv[sys.argv.index("--cpu") + 1]
db["entries"] = [] if "--empty" in sys.argv else [{
    "n": 8, "k": 8, "m": 4, "precision": "fp32", "block": "1x4",
    "threads": 1, "dense_ms": float(dense), "dense_impl": "synthetic",
    "sparse_impl": "synthetic",
    "sparse": [{"sparsity": 0.8, "ms": float(sparse),
                "ratio_min": 1.0, "ratio_max": 1.0}]}]
if "--matmul" in sys.argv and db["entries"]:
    db["entries"][0]["matmul_ms"] = float(sys.argv[sys.argv.index("--matmul") + 1])
    db["entries"][0]["matmul_impl"] = "synthetic"
json.dump(db, open(out, "w"), indent=2)
