"""Checks an opscope-run --calibrate file of the MLP (calibrate.test)."""
import json
import sys

import numpy as np

stats = json.load(open(sys.argv[1]))
inputs = [np.load(p) for p in sys.argv[2:]]
assert stats["schema"] == "opscope-calibration" and stats["version"] == 1
tensors = stats["tensors"]
print(f"{len(tensors)} tensors, {stats['sets']} sets")
first = tensors[0]
x = np.concatenate([a.ravel() for a in inputs])
assert first["min"] == float(x.min()), (first["min"], x.min())
assert first["max"] == float(x.max()), (first["max"], x.max())
assert first["count"] == x.size, first["count"]
assert len(first["histogram"]) == stats["bins"]
assert sum(first["histogram"]) == first["count"]
# The histogram's bins are equal over [min, max].
edges = np.linspace(first["min"], first["max"], stats["bins"] + 1)
want, _ = np.histogram(x, bins=edges)
assert np.abs(np.array(first["histogram"]) - want).sum() <= 4, "histogram"
print(f"first: min and max of the inputs, count {first['count']}, "
      "histogram sums to the count")
for t in tensors[1:]:
    assert t["min"] >= 0, t
    assert sum(t["histogram"]) == t["count"]
print("later: min >= 0 (ReLU outputs)")
