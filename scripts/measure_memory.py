#!/usr/bin/python3
"""Resident memory of a compiled model: N instances in one process against N
processes (docs/benchmark-modes.md).

  measure_memory.py --run build/bin/opscope-run MODEL.so [--counts 1,4]
                    [--check-sharing]

Instances: `opscope-run MODEL.so --mode throughput --instances N` prints its
resident set after the run (anonymous: arenas, packed weights, heap;
file-backed: the mapped .weights and the libraries).

Processes: N copies of `opscope-run MODEL.so --iterations <many>` run at
once; while all of them are alive, each one's /proc/PID/smaps gives the
resident size (Rss) and the proportional share (Pss: each page divided by
the number of processes mapping it) of its `.weights` mapping, and of the
whole process. The processes are then killed: nothing here is timed.

--check-sharing exits 1 unless every process's weights mapping is fully
resident and its Pss is Rss / N (within one page per process): the file's
pages are the page cache's, mapped once for all.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import time


def smaps_totals(pid, weights):
    """(rss, pss) in kB of the whole process and of its `weights` mappings."""
    total = [0, 0]
    mapped = [0, 0]
    inside = False
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                parts = line.split(None, 5)
                inside = len(parts) == 6 and parts[5].strip() == weights
                continue
            for i, key in enumerate(("Rss:", "Pss:")):
                if line.startswith(key):
                    kb = int(line.split()[1])
                    total[i] += kb
                    if inside:
                        mapped[i] += kb
    return total, mapped


def has_mapping(pid, weights):
    try:
        with open("/proc/%d/maps" % pid) as f:
            return any(l.rstrip().endswith(weights) for l in f)
    except OSError:
        return False


def instances(run, model, n):
    out = subprocess.run([run, model, "--mode", "throughput", "--instances", str(n),
                          "--cores-per-instance", "1", "--iterations", "2", "--warmup", "1"],
                         check=True, capture_output=True, text=True).stdout
    m = re.search(r"resident: ([0-9.]+) MiB \(anonymous ([0-9.]+) MiB, file-backed ([0-9.]+) MiB\)", out)
    return [float(x) for x in m.groups()]


def processes(run, model, weights, n):
    procs = [subprocess.Popen([run, model, "--threads", "1", "--iterations", "100000000",
                               "--warmup", "0", "-q"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for _ in range(n)]
    try:
        deadline = time.time() + 120
        while not all(has_mapping(p.pid, weights) for p in procs):
            for p in procs:
                if p.poll() is not None:
                    sys.exit("opscope-run exited early (%d): %s" % (p.returncode, p.stderr.read()))
            if time.time() > deadline:
                sys.exit("the processes did not map %s within 120 s" % weights)
            time.sleep(0.05)
        # Kernel creation (weight packing) follows the mapping: sample once
        # every process's resident set has stopped growing (running).
        last = None
        while True:
            time.sleep(0.5)
            now = [smaps_totals(p.pid, weights) for p in procs]
            if last and all(abs(a[0][0] - b[0][0]) <= 0.005 * b[0][0]
                            for a, b in zip(now, last)):
                return now
            if time.time() > deadline:
                sys.exit("the processes' memory did not settle within 120 s")
            last = now
    finally:
        for p in procs:
            p.send_signal(signal.SIGKILL)
            p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--run", required=True)
    ap.add_argument("--counts", default="1,4")
    ap.add_argument("--check-sharing", action="store_true")
    args = ap.parse_args()
    model = os.path.realpath(args.model)
    weights = re.sub(r"\.so$", "", model) + ".weights"
    counts = [int(c) for c in args.counts.split(",")]
    mib = lambda kb: kb / 1024.0
    print("model %s, weights file %.1f MiB" % (os.path.basename(model),
                                              os.path.getsize(weights) / 1048576.0))
    print("instances in one process: resident MiB (anonymous, file-backed)")
    for n in counts:
        rss, anon, file = instances(args.run, model, n)
        print("  %d instance%s: %.1f (%.1f, %.1f)" % (n, "" if n == 1 else "s", rss, anon, file))
    print("processes: per process resident / proportional MiB, of which the weights mapping")
    ok = True
    for n in counts:
        rows = processes(args.run, model, weights, n)
        pss_sum = sum(t[1] for t, _ in rows)
        for i, (total, mapped) in enumerate(rows):
            print("  %d process%s, #%d: %.1f / %.1f, weights %.1f / %.1f"
                  % (n, "" if n == 1 else "es", i, mib(total[0]), mib(total[1]),
                     mib(mapped[0]), mib(mapped[1])))
            size_kb = os.path.getsize(weights) / 1024.0
            if mapped[0] + 4 < size_kb or abs(mapped[1] - mapped[0] / n) > 4 * n:
                ok = False
        print("  %d process%s: %.1f MiB in all (sum of Pss)" % (n, "" if n == 1 else "es",
                                                              mib(pss_sum)))
    if args.check_sharing:
        if not ok:
            print("FAIL: a process's weights mapping is not resident, or not shared")
            return 1
        print("ok: every process's weights mapping is resident and shared (Pss = Rss / N)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
