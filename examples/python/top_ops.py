#!/usr/bin/python3
"""Where the time goes, from an opscope trace or profile CSV, with pandas.

  PYTHONPATH=python /usr/bin/python3 examples/python/top_ops.py FILE [N]

Prints the run summary, the N (default 10) ops taking the most time per
iteration with their share and cumulative share (opscope-analyze's figures,
warm-up left out), and the time by op type. See docs/python.md.
"""
import sys

import opscope


def main():
    path = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    run = opscope.load(path)
    if isinstance(run, opscope.ProfileCsv):
        # The CSV has per-execution means: per iteration is mean x count / iterations.
        ops = run.ops.rename(columns={"operator_name": "name", "operator_type": "type"})
        iterations = run.summary["iterations"].item()
        ops["self_ms"] = ops["latency_mean_ms"] * ops["count"] / iterations
        ops["self_percent"] = 100 * ops["self_ms"] / ops["self_ms"].sum()
        print("%s: %d iterations, mean %.3f ms" % (run.model, iterations,
                                                   run.summary["latency_mean_ms"].item()))
    else:
        ops, s = run.ops, run.summary.iloc[0]
        print("%s: %d iterations, p50 %.3f ms, p99 %.3f ms, ops cover %.1f%% of the wall time"
              % (run.model, s["iterations"], s["latency_p50_ms"], s["latency_p99_ms"],
                 s["coverage_of_wall_time_percent"]))
    top = (ops.sort_values("self_ms", ascending=False, kind="stable")
           .assign(cum_percent=lambda d: d["self_percent"].cumsum()).head(n))
    print(top[["name", "type", "count", "self_ms", "self_percent", "cum_percent"]]
          .to_string(index=False, float_format="%.3f"))
    by_type = ops.groupby("type")[["self_ms", "self_percent"]].sum()
    print(by_type.sort_values("self_ms", ascending=False).to_string(float_format="%.3f"))


if __name__ == "__main__":
    main()
