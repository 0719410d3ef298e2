"""Prints what a trace says about control flow, sorted, for FileCheck: each
loop iteration's control event, how often each If branch ran, and the loop
iterations every op inside a loop ran in."""
import collections
import json
import sys

events = json.load(open(sys.argv[1]))["traceEvents"]
branches = collections.Counter()
iterations = collections.defaultdict(list)
for e in events:
    args = {k: v for k, v in e.get("args", {}).items() if k != "label"}
    if e.get("cat") == "control":
        if "branch" in args:
            branches[e["name"]] += 1
        else:
            print("control", e["name"], json.dumps(args, sort_keys=True))
    elif e.get("cat") == "op" and "loop_iteration" in args:
        iterations[e["name"]].append(args["loop_iteration"])
for name, n in sorted(branches.items()):
    print("control", name + ":", n)
for name, its in iterations.items():
    print("op", name, "loop_iterations", its)
