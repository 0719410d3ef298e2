#!/usr/bin/env python3
"""A sweep's wall time on a LocalCluster of 1 worker and of N workers.

  bench_sweep.py --sweep build/bin/opscope-sweep SPEC [--workers 1,2] [--rounds 3]
                 [--svg FIGURE.svg]

Each round runs `opscope-sweep SPEC --workers W` for every W (the order
alternating from round to round, so a noisy neighbour weighs on both),
twice: cold (an empty compile cache: every point prunes and compiles) and
warm (the same cache again: every point only runs). Each run writes a new
results directory, so none resumes. A round in which other processes used
more than --max-other of the machine's CPUs (the machine's busy time, from
/proc/stat, less the sweep's own, from its rusage) is left out and run
again, up to --tries rounds in all. Prints the median wall time of each
(with the rounds' range) and the speed-up over one worker; --svg draws
them as a bar chart (docs/sweep.md).
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown CPU"


def busy_seconds():
    """CPU seconds the whole machine has been busy (all but idle and iowait)."""
    with open("/proc/stat") as f:
        ticks = [int(v) for v in f.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def own_seconds():
    """CPU seconds of this process's finished children and theirs."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def wait_quiet(limit, patience):
    """Waits (up to `patience` seconds) until the machine is busier than
    `limit` of its CPUs for no 2-second window, so rounds start quiet."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        busy = busy_seconds()
        time.sleep(2)
        if (busy_seconds() - busy) / (2 * len(os.sched_getaffinity(0))) <= limit:
            return
        time.sleep(8)


def run(sweep, spec, workers, work, cache):
    """(wall seconds, share of the CPUs other processes used meanwhile)."""
    out = tempfile.mkdtemp(prefix="results-", dir=work)
    shutil.rmtree(out)
    env = dict(os.environ, OPSCOPE_CACHE_DIR=cache)
    busy, own, t0 = busy_seconds(), own_seconds(), time.monotonic()
    r = subprocess.run([sweep, spec, "--workers", str(workers), "-o", out], env=env,
                       capture_output=True, text=True)
    wall = time.monotonic() - t0
    other = (busy_seconds() - busy) - (own_seconds() - own)
    if r.returncode != 0:
        sys.exit("bench_sweep: %s --workers %d failed (exit %d):\n%s"
                 % (sweep, workers, r.returncode, r.stderr[-2000:]))
    return wall, max(0.0, other) / (wall * len(os.sched_getaffinity(0)))


def svg(path, counts, cold, warm, title):
    """Grouped bars: cold and warm medians per worker count, range whiskers."""
    w, h, left, bottom, top = 520, 300, 60, 50, 50
    peak = max(max(v) for v in list(cold.values()) + list(warm.values())) * 1.15
    y = lambda s: top + (h - top - bottom) * (1 - s / peak)
    group = (w - left - 20) / len(counts)
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
             'font-family="sans-serif" font-size="12">' % (w, h),
             '<rect width="100%" height="100%" fill="white"/>',
             '<text x="%d" y="18" font-size="13">%s</text>' % (left, title[0]),
             '<text x="%d" y="34" fill="#555">%s</text>' % (left, title[1])]
    step = 10 ** int(f"{peak:e}".split("e")[1])
    step = step * 2 if peak / step > 5 else step
    tick = 0.0
    while tick <= peak:
        parts.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>'
                     % (left, w - 20, y(tick), y(tick)))
        parts.append('<text x="%d" y="%.1f" text-anchor="end">%g s</text>'
                     % (left - 6, y(tick) + 4, tick))
        tick += step
    for i, n in enumerate(counts):
        x0 = left + i * group + group * 0.15
        bw = group * 0.33
        for j, (label, data, colour) in enumerate((("cold", cold[n], "#4e79a7"),
                                                  ("warm", warm[n], "#f28e2b"))):
            med = statistics.median(data)
            x = x0 + j * bw
            parts.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                         % (x, y(med), bw - 4, y(0) - y(med), colour))
            cx = x + (bw - 4) / 2
            parts.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#222"/>'
                         % (cx, cx, y(min(data)), y(max(data))))
            parts.append('<text x="%.1f" y="%.1f" text-anchor="middle">%.1f s</text>'
                         % (cx, y(max(data)) - 5, med))
        parts.append('<text x="%.1f" y="%d" text-anchor="middle">%d worker%s</text>'
                     % (x0 + bw - 2, h - bottom + 18, n, "" if n == 1 else "s"))
    for j, (label, colour) in enumerate((("cold: prune, compile and run", "#4e79a7"),
                                         ("warm: compiled models cached", "#f28e2b"))):
        parts.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/>'
                     % (left + j * 210, h - 18, colour))
        parts.append('<text x="%d" y="%d">%s</text>' % (left + 14 + j * 210, h - 9, label))
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("spec")
    ap.add_argument("--sweep", required=True, help="the opscope-sweep command")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--svg")
    ap.add_argument("--max-other", type=float, default=0.1,
                    help="leave out a round in which other processes used more than this "
                         "share of the CPUs (default 0.1)")
    ap.add_argument("--tries", type=int, default=20, help="rounds to run at most")
    a = ap.parse_args()
    counts = [int(n) for n in a.workers.split(",")]
    cold = {n: [] for n in counts}
    warm = {n: [] for n in counts}
    load = os.getloadavg()[0]
    kept = tried = 0
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as work:
        while kept < a.rounds and tried < a.tries:
            wait_quiet(a.max_other, 600)
            tried += 1
            got, worst = {}, 0.0
            for n in counts if tried % 2 else counts[::-1]:
                cache = tempfile.mkdtemp(prefix="cache-", dir=work)
                c, oc = run(a.sweep, a.spec, n, work, cache)
                w, ow = run(a.sweep, a.spec, n, work, cache)
                shutil.rmtree(cache)
                got[n] = (c, w)
                worst = max(worst, oc, ow)
                print("round %d, %d worker%s: cold %.2f s, warm %.2f s (other processes: "
                      "%.0f%%, %.0f%% of the CPUs)" % (tried, n, "" if n == 1 else "s", c, w,
                                                      100 * oc, 100 * ow),
                      file=sys.stderr, flush=True)
            if worst > a.max_other:
                print("round %d left out: other processes used %.0f%% of the CPUs"
                      % (tried, 100 * worst), file=sys.stderr, flush=True)
                continue
            kept += 1
            for n, (c, w) in got.items():
                cold[n].append(c)
                warm[n].append(w)
    if kept == 0:
        sys.exit("bench_sweep: no round ran on a quiet enough machine in %d tries" % tried)
    cpus = len(os.sched_getaffinity(0))
    print("%s: %s, %d vCPUs; load average %.2f before, %.2f after; %d of %d rounds "
          "kept (other processes under %.0f%% of the CPUs)"
          % (a.spec, cpu_model(), cpus, load, os.getloadavg()[0], kept, tried,
             100 * a.max_other))
    print("workers  cold s (median [range])    warm s (median [range])    speed-up cold/warm")
    base = (statistics.median(cold[counts[0]]), statistics.median(warm[counts[0]]))
    for n in counts:
        c, w = statistics.median(cold[n]), statistics.median(warm[n])
        print("%7d  %6.2f [%5.2f-%5.2f]       %6.2f [%5.2f-%5.2f]       %.2fx / %.2fx"
              % (n, c, min(cold[n]), max(cold[n]), w, min(warm[n]), max(warm[n]),
                 base[0] / c, base[1] / w))
    if a.svg:
        svg(a.svg, counts, cold, warm,
            ("opscope-sweep %s: wall time by LocalCluster workers" % os.path.basename(a.spec),
             "%s, %d vCPUs; medians of %d rounds, whiskers: range"
             % (cpu_model(), cpus, kept)))
        print("wrote %s" % a.svg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
