#!/usr/bin/python3
"""Writes a synthetic opscope trace with EVENTS op events over OPS probes:
make_big_trace.py OUT.json EVENTS OPS. Used by `make bench` to measure
opscope-analyze on large traces."""
import json
import random
import sys

out, events, ops = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(1)
iterations = max(1, events // ops)
probes = [{"id": i, "name": "op%d" % i, "type": ["inner_product", "layer_norm", "softmax", "binary"][i % 4],
           "post_ops": [], "source_nodes": ["node%d" % i],
           "inputs": [{"name": "x", "shape": [1, 128, 768], "dtype": "f32"}],
           "outputs": [{"name": "y", "shape": [1, 128, 768], "dtype": "f32"}],
           "weight_shape": None, "weight_sparsity": None, "sparse_support": False,
           "flops": 1e6 * (i % 7 + 1), "bytes": 4e5, "kernel": "k%d" % (i % 5)} for i in range(ops)]
with open(out, "w") as f:
    f.write('{"traceEvents": [\n')
    ts = 0.0
    first = True
    for it in range(iterations):
        start = ts
        for p in range(ops):
            d = rng.uniform(5.0, 50.0)
            f.write('%s{"ph":"X","cat":"op","name":"op%d","pid":1,"tid":0,"ts":%.3f,"dur":%.3f,'
                    '"args":{"probe":%d,"iteration":%d,"label":"trace"}}\n'
                    % ("" if first else ",", p, ts, d, p, it))
            first = False
            ts += d
        f.write(',{"ph":"X","cat":"iteration","name":"iteration","pid":1,"tid":0,"ts":%.3f,'
                '"dur":%.3f,"args":{"iteration":%d,"label":"trace"}}\n' % (start, ts - start, it))
    f.write('],\n"opscope": ')
    f.write(json.dumps({"schema_version": 1, "model": "synthetic", "probe_cost_ns": 20.0,
                        "dropped_events": 0, "probes": probes}))
    f.write("}\n")
