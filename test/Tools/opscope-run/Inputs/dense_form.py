#!/usr/bin/env python3
"""Checks which oneDNN primitive ran a model's fp32 inner products.

  dense_form.py RUN.txt PROFILE.csv default|matmul

RUN.txt is opscope-run's output (its `tier NAME` line), PROFILE.csv its
--profile --csv. `default`: every inner product ran on oneDNN's matmul
(kernel name ending in :matmul) exactly when the tier is the AMX one;
`matmul` (the plan names it): every one did, at any tier (oneDNN 2.6 has
a gemm-based f32 matmul on every x86-64 tier). Prints `ok`, or what
differed.
"""
import csv
import re
import sys

run, profile, want = sys.argv[1:4]
tier = re.search(r"^tier (\S+)", open(run).read(), re.M).group(1)
kernels = [r["kernel"] for r in csv.DictReader(open(profile))
           if r.get("operator_type") == "inner_product"]
matmul = [k.endswith(":matmul") for k in kernels]
expected = want == "matmul" or tier.startswith("avx512_core_amx")
if not kernels:
    print("no inner product in the profile")
elif all(m == expected for m in matmul):
    print("ok")
else:
    print("tier %s, want matmul %s, kernels %s" % (tier, expected, kernels))
