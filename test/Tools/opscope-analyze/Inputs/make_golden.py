"""Writes the golden traces for the opscope-analyze tests (run once; the
outputs are committed). Durations are chosen so every figure in the expected
tables can be checked by hand; see the comments in the .test files."""
import json


def probe(i, name, typ, post_ops, sources, inp, out, flops, nbytes, kernel, weight=None, sparsity=None):
    return {"id": i, "name": name, "type": typ, "post_ops": post_ops,
            "source_nodes": sources,
            "inputs": [{"name": name + ".in", "shape": inp, "dtype": "f32"}],
            "outputs": [{"name": name + ".out", "shape": out, "dtype": "f32"}],
            "weight_shape": weight, "weight_sparsity": sparsity,
            "sparse_support": sparsity is not None, "flops": flops,
            "bytes": nbytes, "kernel": kernel}


def trace(path, model, probes, iterations, warmup=None, cost=25.0, dropped=0):
    events = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": model}},
              {"ph": "M", "name": "thread_name", "pid": 1, "tid": 0, "args": {"name": "main"}}]
    ts = 0.0

    def run(durs, iteration, label):
        nonlocal ts
        start = ts
        for pid, d in enumerate(durs):
            if d is None:
                continue
            events.append({"ph": "X", "cat": "op", "name": probes[pid]["name"], "pid": 1,
                           "tid": 0, "ts": ts, "dur": d,
                           "args": {"probe": pid, "iteration": iteration, "label": label}})
            ts += d
        ts += 10.0  # time outside probes
        events.append({"ph": "X", "cat": "iteration", "name": "iteration", "pid": 1, "tid": 0,
                       "ts": start, "dur": ts - start,
                       "args": {"iteration": iteration, "label": label}})

    if warmup:
        run(warmup, 0, "warm up")
    for i, durs in enumerate(iterations):
        run(durs, i, "trace")
    doc = {"traceEvents": events, "displayTimeUnit": "ms",
           "opscope": {"schema_version": 1, "model": model,
                       "machine": {"cpu": "golden", "isa": "avx512_core", "threads": 1},
                       "run": {"iterations": len(iterations), "warmup": 1 if warmup else 0},
                       "labels": ["warm up", "trace"],
                       "probe_cost_ns": cost, "dropped_events": dropped, "probes": probes}}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


fused = [
    probe(0, "fc1", "inner_product", ["gelu_erf"], ["fc1/MatMul", "fc1/Add", "gelu/Erf"],
          [1, 128, 64], [1, 128, 256], 2e6, 1e6, "onednn:inner_product", [256, 64], 0.0),
    probe(1, "ln", "layer_norm", [], ["ln/ReduceMean", "ln/Sub"], [1, 128, 256], [1, 128, 256],
          None, 2e5, "opscope:layer_norm"),
    probe(2, "fc2", "inner_product", ["sum"], ["fc2/MatMul", "fc2/Add", "res/Add"],
          [1, 128, 256], [1, 128, 64], 2e6, 1e6, "onednn:inner_product", [64, 256], 0.8),
    probe(3, "softmax", "softmax", [], ["softmax"], [1, 4, 128, 128], [1, 4, 128, 128],
          5e4, 1.3e5, "opscope:softmax"),
]
trace("golden.json", "golden-fused", fused,
      [[100, 20, 80, 10], [110, 22, 78, 11], [90, 18, 82, 9]],
      warmup=[500, 50, 400, 40], dropped=2)

unfused = [
    probe(0, "fc1/MatMul", "matmul", [], ["fc1/MatMul"], [1, 128, 64], [1, 128, 256], 2e6, 1e6, "onednn:matmul"),
    probe(1, "fc1/Add", "binary", [], ["fc1/Add"], [1, 128, 256], [1, 128, 256], 3.2e4, 3.9e5, "opscope:binary"),
    probe(2, "gelu/Erf", "unary", [], ["gelu/Erf"], [1, 128, 256], [1, 128, 256], 3.2e4, 2.6e5, "opscope:unary"),
    probe(3, "ln", "layer_norm", [], ["ln/ReduceMean", "ln/Sub"], [1, 128, 256], [1, 128, 256], None, 2e5, "opscope:layer_norm"),
    probe(4, "fc2", "matmul", [], ["fc2/MatMul", "fc2/Add", "res/Add"], [1, 128, 256], [1, 128, 64], 2e6, 1e6, "onednn:matmul"),
    probe(5, "extra", "cast", [], [], [1, 128], [1, 128], None, None, "opscope:cast"),
]
trace("golden-unfused.json", "golden-unfused", unfused,
      [[120, 30, 40, 20, 90, 5], [120, 30, 40, 20, 90, 5]])

# int8 inner products and an fp32 one: the roofline holds the int8 ones
# against the int8 peak (machine-int8.json). q and f are compute bound
# under either peak; m's 10 flop/byte make it memory bound under the int8
# peak and compute bound under the fp32 one. f has half q's FLOPs, so a
# group's int8 share weighted by FLOPs (0.8) differs from one by op count.
int8 = [
    probe(0, "q", "inner_product", [], ["q/MatMul"], [1, 128, 128], [1, 128, 128], 4e6, 1e4,
          "onednn:inner_product:int8", [128, 128], 0.0),
    probe(1, "f", "inner_product", [], ["f/MatMul"], [1, 128, 128], [1, 128, 128], 2e6, 1e4,
          "onednn:inner_product", [128, 128], 0.0),
    probe(2, "m", "inner_product", [], ["m/MatMul"], [1, 128, 128], [1, 128, 128], 4e6, 4e5,
          "opscope:gemm:s16:avx2:int8", [128, 128], 0.0),
]
trace("golden-int8.json", "golden-int8", int8, [[20, 50, 50], [20, 50, 50]])
