"""Writes the what-if golden inputs for whatif.test (run once; the outputs
are committed): small traces and a synthetic tuning database whose figures
make every projected number checkable by hand (see whatif.test)."""
import json


def probe(i, name, typ, sources, out, kernel, weight=None, block=None):
    capable = weight is not None
    return {"id": i, "name": name, "type": typ, "post_ops": [],
            "source_nodes": sources,
            "inputs": [{"name": name + ".in", "shape": [1, 128, weight[1] if weight else 64], "dtype": "f32"}],
            "outputs": [{"name": name + ".out", "shape": out, "dtype": "f32"}],
            "weight_shape": weight, "weight_sparsity": block if capable else None,
            "block_sparsity": block if capable else None,
            "sparse_block": "1x4" if capable else None, "sparse_support": capable,
            "flops": 2e6 if capable else None, "bytes": 1e6, "kernel": kernel}


def trace(path, model, probes, durs, iterations=2, cpu="golden", threads=1):
    events = []
    ts = 0.0
    for it in range(iterations):
        start = ts
        for pid, d in enumerate(durs):
            events.append({"ph": "X", "cat": "op", "name": probes[pid]["name"], "pid": 1,
                           "tid": 0, "ts": ts, "dur": d,
                           "args": {"probe": pid, "iteration": it, "label": "measure"}})
            ts += d
        ts += 10.0
        events.append({"ph": "X", "cat": "iteration", "name": "iteration", "pid": 1, "tid": 0,
                       "ts": start, "dur": ts - start,
                       "args": {"iteration": it, "label": "measure"}})
    doc = {"traceEvents": events, "displayTimeUnit": "ms",
           "opscope": {"schema_version": 1, "model": model,
                       "machine": {"cpu": cpu, "isa": "avx512_core_bf16", "amx_available": False,
                                   "amx_used": False, "threads": threads},
                       "run": {"iterations": iterations}, "labels": ["measure"],
                       "probe_cost_ns": 0.0, "dropped_events": 0, "probes": probes}}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


DENSE = "onednn:brgemm:avx512_core"
SPARSE = "opscope:sparse_1x4:avx512:f32"
FC1 = ["fc1/MatMul", "fc1/Add"]
FC2 = ["fc2/MatMul", "fc2/Add"]

# The dense model: fc1 (256x64 weight) 1 ms, ln 0.2, fc2 (64x256) 0.8,
# softmax 0.1 per iteration (2 iterations of the same durations); M = 128 for both inner products.
trace("dense.json", "tiny", [
    probe(0, "fc1/MatMul", "inner_product", FC1, [1, 128, 256], DENSE, [256, 64], 0.0),
    probe(1, "ln", "layer_norm", ["ln/ReduceMean", "ln/Sub"], [1, 128, 256], "opscope:layer_norm:avx512"),
    probe(2, "fc2/MatMul", "inner_product", FC2, [1, 128, 64], DENSE, [64, 256], 0.0),
    probe(3, "softmax", "softmax", ["softmax"], [1, 4, 128, 128], "opscope:softmax:avx512"),
], [1000, 200, 800, 100])

# The same model pruned to 80% and compiled with --sparse: the inner
# products on the sparse kernel, and a transpose (no source nodes) at the
# start of the transposed-layout chain.
trace("sparse.json", "tiny-sparse", [
    probe(0, "fc1/transpose_in", "transpose", [], [1, 64, 128], "opscope:transpose:avx512"),
    probe(1, "fc1/MatMul", "sparse_inner_product", FC1, [1, 128, 256], SPARSE, [256, 64], 0.8),
    probe(2, "ln", "layer_norm", ["ln/ReduceMean", "ln/Sub"], [1, 128, 256], "opscope:layer_norm:avx512"),
    probe(3, "fc2/MatMul", "sparse_inner_product", FC2, [1, 128, 64], SPARSE, [64, 256], 0.8),
    probe(4, "softmax", "softmax", ["softmax"], [1, 4, 128, 128], "opscope:softmax:avx512"),
], [50, 300, 200, 400, 100])

# The pruned model run with two threads, and on another CPU.
SPARSE_PROBES = [
    probe(0, "fc1/MatMul", "sparse_inner_product", FC1, [1, 128, 256], SPARSE, [256, 64], 0.8),
    probe(1, "fc2/MatMul", "sparse_inner_product", FC2, [1, 128, 64], SPARSE, [64, 256], 0.8),
]
trace("sparse-2threads.json", "tiny-sparse", SPARSE_PROBES, [200, 250], threads=2)
trace("sparse-elsewhere.json", "tiny-sparse", SPARSE_PROBES, [300, 400], cpu="Elsewhere CPU")

# Another model: fc1's counterpart has another weight shape.
trace("other-shape.json", "tiny-wide", [
    probe(0, "fc1/MatMul", "sparse_inner_product", FC1, [1, 128, 512], SPARSE, [512, 64], 0.8),
    probe(1, "fc2/MatMul", "sparse_inner_product", FC2, [1, 128, 64], SPARSE, [64, 512], 0.8),
], [300, 400])

# Another model with nothing in common.
trace("unrelated.json", "mlp", [
    probe(0, "dense_1/Gemm", "inner_product", ["dense_1/Gemm"], [1, 128, 256], DENSE, [256, 64], 0.0),
], [500])

# The dense model recorded on another CPU.
trace("dense-elsewhere.json", "tiny", [
    probe(0, "fc1/MatMul", "inner_product", FC1, [1, 128, 256], DENSE, [256, 64], 0.0),
], [1000], cpu="Elsewhere CPU")


def db(path, entries, cpu="golden"):
    doc = {"schema": "opscope-tuning", "version": 1,
           "machine": {"cpu": cpu, "avx512f": True, "avx512_vnni": True,
                       "avx512_bf16": True, "amx": False, "onednn": "2.6.3"},
           "entries": entries}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def entry(n, k, dense_ms, points, precision="fp32"):
    return {"n": n, "k": k, "m": 128, "precision": precision, "block": "1x4",
            "threads": 1, "dense_ms": dense_ms, "dense_impl": "brgemm:avx512_core",
            "sparse_impl": "opscope:sparse_1x4:avx512:f32",
            "sparse": [{"sparsity": s, "ms": ms, "ratio_min": dense_ms / ms,
                        "ratio_max": dense_ms / ms} for s, ms in points]}


# 256x64: ratios 2, 4, 5 at 70/80/90%. 64x256: 1.25 and 2.5 at 70/90%
# (80% is interpolated: 1.875).
FC1_ENTRY = entry(256, 64, 1.0, [(0.7, 0.5), (0.8, 0.25), (0.9, 0.2)])
FC2_ENTRY = entry(64, 256, 1.0, [(0.7, 0.8), (0.9, 0.4)])
db("db.json", [FC1_ENTRY, FC2_ENTRY])
db("db-no-fc2.json", [FC1_ENTRY])
db("db-foreign.json", [FC1_ENTRY, FC2_ENTRY], cpu="Other CPU")
with open("db-corrupt.json", "w") as f:
    f.write('{"schema": "opscope-tuning", "version": 1, "machine": ')
