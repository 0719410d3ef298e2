#!/usr/bin/python3
"""Checks a trace file against the Trace Event Format rules viewers rely on
and against opscope's schema (docs/trace-format.md).

  check_trace.py TRACE.json

Prints "trace ok: N op events, M iterations, P probes" or the first problems
found, one per line, and exits 1.
"""
import json
import sys

OPSCOPE_KEYS = {"schema_version", "model", "machine", "run", "memory", "startup",
                "labels", "probe_cost_ns", "dropped_events", "probes"}
# Present only where the compiler chose kernels from a tuning database.
OPTIONAL_OPSCOPE_KEYS = {"tuning_db"}
OPTIONAL_PROBE_KEYS = {"kernel_choice"}
PROBE_KEYS = {"id", "name", "type", "post_ops", "source_nodes", "inputs", "outputs",
              "weight_shape", "weight_sparsity", "block_sparsity", "sparse_block",
              "sparse_support", "flops", "bytes", "live_bytes",
              "kernel"}

OP_ARGS = {"probe", "iteration", "label", "loop", "loop_iteration",
           "extent", "output_shapes"}


def extent_problems(probe, args):
    """An op with bounded outputs (an output with extent_axis) reports its
    run-time extent, within every bound, and the outputs' actual shapes;
    any other op reports neither."""
    outs = probe.get("outputs", [])
    bounded = [t for t in outs if "extent_axis" in t]
    if not bounded:
        if "extent" in args or "output_shapes" in args:
            return ["probe %s has no bounded output but its event has %s"
                    % (probe["id"], args)]
        return []
    extent = args.get("extent")
    if not isinstance(extent, int) or extent < 0:
        return ["probe %s has bounded outputs but its event's extent is %r"
                % (probe["id"], extent)]
    if any(extent > t["shape"][t["extent_axis"]] for t in bounded):
        return ["probe %s: extent %d exceeds a bound" % (probe["id"], extent)]
    shapes = []
    for t in outs:
        s = list(t["shape"])
        if "extent_axis" in t:
            s[t["extent_axis"]] = extent
        shapes.append("x".join(str(d) for d in s))
    if args.get("output_shapes") != ";".join(shapes):
        return ["probe %s: output_shapes %r, expected %r"
                % (probe["id"], args.get("output_shapes"), ";".join(shapes))]
    return []


def main():
    path = sys.argv[1]
    with open(path) as f:
        trace = json.load(f)
    problems = []
    events = trace.get("traceEvents")
    if not isinstance(events, list):
        problems.append("traceEvents is not an array")
        events = []
    o = trace.get("opscope", {})
    if set(o) - OPTIONAL_OPSCOPE_KEYS != OPSCOPE_KEYS:
        problems.append("opscope keys differ: %s"
                        % sorted((set(o) - OPTIONAL_OPSCOPE_KEYS) ^ OPSCOPE_KEYS))
    probes = o.get("probes", [])
    for i, p in enumerate(probes):
        if p.get("id") != i:
            problems.append("probe %d has id %s (ids must be dense)" % (i, p.get("id")))
        if set(p) - OPTIONAL_PROBE_KEYS != PROBE_KEYS:
            problems.append("probe %d keys differ: %s"
                            % (i, sorted((set(p) - OPTIONAL_PROBE_KEYS) ^ PROBE_KEYS)))
    by_thread = {}
    ops = iterations = counters = 0
    for e in events:
        ph = e.get("ph")
        if ph == "M":
            if e.get("name") not in ("process_name", "thread_name") or "name" not in e.get("args", {}):
                problems.append("bad metadata event %s" % e)
            continue
        if ph == "C":
            # Counters: the arena's live bytes at each op's end.
            if (e.get("cat") != "memory" or not isinstance(e.get("ts"), (int, float))
                    or not isinstance(e.get("args", {}).get("bytes"), int)
                    or e["args"]["bytes"] < 0):
                problems.append("bad counter event %s" % e)
            counters += 1
            continue
        if ph != "X":
            problems.append("unexpected phase %s" % ph)
            continue
        for k in ("name", "pid", "tid", "ts", "dur", "cat"):
            if k not in e:
                problems.append("X event without %s: %s" % (k, e))
        if not isinstance(e.get("ts"), (int, float)) or not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
            problems.append("bad ts/dur: %s" % e)
            continue
        args = e.get("args", {})
        if e["cat"] == "op":
            ops += 1
            if set(args) - OP_ARGS or "probe" not in args:
                problems.append("op event args: %s" % args)
            elif not 0 <= args["probe"] < len(probes):
                problems.append("probe id %s outside the table" % args["probe"])
            elif probes[args["probe"]]["name"] != e["name"]:
                problems.append("op event name %s differs from probe %s" % (e["name"], args["probe"]))
            else:
                problems += extent_problems(probes[args["probe"]], args)
        elif e["cat"] == "iteration":
            iterations += 1
        by_thread.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
    # Complete events on one thread must nest (no partial overlaps).
    eps = 0.0015  # µs: timestamps are printed with 3 decimals
    for key, spans in by_thread.items():
        spans.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for b, end, name in spans:
            while stack and stack[-1][1] <= b + eps:
                stack.pop()
            if stack and end > stack[-1][1] + eps:
                problems.append("thread %s: %s [%.3f, %.3f] overlaps %s [%.3f, %.3f]"
                                % (key, name, b, end, stack[-1][2], stack[-1][0], stack[-1][1]))
                break
            stack.append((b, end, name))
    if iterations and not ops:
        # A run that recorded iterations but no op: the model has no probes
        # (compiled with --no-probes), so the trace cannot say where time went.
        problems.append("no op events in %d iterations: the model has no probes "
                        "(compiled with --no-probes?)" % iterations)
    if problems:
        for p in problems[:20]:
            print(p)
        return 1
    print("trace ok: %d op events, %d iterations, %d probes, %d counter events"
          % (ops, iterations, len(probes), counters))
    return 0


if __name__ == "__main__":
    sys.exit(main())
