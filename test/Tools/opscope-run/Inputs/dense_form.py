#!/usr/bin/env python3
"""Checks which GEMM ran a model's fp32 inner products.

  dense_form.py RUN.txt PROFILE.csv default|matmul

RUN.txt is opscope-run's output (its `tier NAME` line), PROFILE.csv its
--profile --csv. `default`: every inner product (M >= 2 here) ran on
oneDNN's matmul (kernel name ending in :matmul) on the AMX tier, on
opscope's packed GEMM (`opscope:gemm:avx2`) on the AVX2 tier, and on
oneDNN's inner product elsewhere; `matmul` (the plan names it): every one
ran on oneDNN's matmul, at any tier (oneDNN 2.6 has a gemm-based f32
matmul on every x86-64 tier). Prints `ok`, or what differed.
"""
import csv
import re
import sys

run, profile, want = sys.argv[1:4]
tier = re.search(r"^tier (\S+)", open(run).read(), re.M).group(1)
kernels = [r["kernel"] for r in csv.DictReader(open(profile))
           if r.get("operator_type") == "inner_product"]


def form(kernel):
    if kernel.endswith(":matmul"):
        return "matmul"
    if kernel.startswith("opscope:gemm:"):
        return "packed gemm " + kernel.split(":")[2]
    return "inner product" if kernel.startswith("onednn:") else kernel


if want == "matmul" or tier.startswith("avx512_core_amx"):
    expected = "matmul"
elif tier == "avx2":
    expected = "packed gemm avx2"
else:
    expected = "inner product"
if not kernels:
    print("no inner product in the profile")
elif all(form(k) == expected for k in kernels):
    print("ok")
else:
    print("tier %s, want %s, kernels %s" % (tier, expected, kernels))
