"""Runs opscope-sweep against real Dask processes on loopback and checks it.

  sweep_harness.py tiers  --work DIR --spec SPEC --bin BIN
  sweep_harness.py kill   --work DIR --spec SPEC --bin BIN
  sweep_harness.py resume --work DIR --spec SPEC --bin BIN
  sweep_harness.py nopackage --work DIR --spec SPEC --bin BIN

tiers:  a dask-scheduler and two dask-workers (one under OPSCOPE_MAX_ISA=avx2,
        one uncapped) on 127.0.0.1; the sweep places every point on every
        tier; every point finished on each tier, and the frame's figures are
        opscope-analyze's for each point's trace.
kill:   two workers of one tier; one is killed (SIGKILL, by its pid) while a
        tool runs under it: every point still completes, on the survivor,
        and no result file is torn. Then the survivor is killed mid-sweep:
        the points left are reported not run (exit 1) and a new worker
        resumes the sweep without re-running the finished ones.
resume: the default LocalCluster, interrupted (SIGINT) after two points and
        run again: the finished points are kept as they were, the rest run;
        a point that cannot compile is recorded with its error.
nopackage: a dask-scheduler, a worker started without the opscope package
        on its PYTHONPATH and one with it: the sweep stops before any
        point, exit 1, with one line naming the worker without it (not the
        other); nothing is written.
Prints "ok: ..." per check (FileCheck reads them); exits 1 on the first
failure. Every process it starts is stopped by its pid at the end.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

import opscope
from opscope.profile_csv import read_profile_csv


def fail(message):
    print("FAIL: " + message)
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def ok(message):
    print("ok: " + message, flush=True)


class Cluster:
    """A dask-scheduler and dask-workers on 127.0.0.1 (no nanny: a worker's
    pid is the process running its tasks)."""

    def __init__(self, work, env):
        self.work, self.env, self.procs = work, env, []
        self.file = os.path.join(work, "scheduler.json")
        log = open(os.path.join(work, "scheduler.log"), "w")
        self.scheduler = subprocess.Popen(
            ["dask-scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", self.file], stdout=log, stderr=log, env=env)
        self.procs.append(self.scheduler)
        deadline = time.time() + 60
        while not os.path.exists(self.file):
            if time.time() > deadline or self.scheduler.poll() is not None:
                fail("dask-scheduler did not start (see %s)" % log.name)
            time.sleep(0.1)
        time.sleep(0.2)
        with open(self.file) as f:
            self.address = json.load(f)["address"]
        if not self.address.startswith("tcp://127.0.0.1:"):
            fail("the scheduler listens on %s, not loopback" % self.address)
        from distributed import Client
        self.client = Client(self.address, timeout=30)

    def worker(self, name, max_isa, env=None):
        env = dict(self.env if env is None else env)
        env.pop("DNNL_MAX_CPU_ISA", None)
        if max_isa:
            env["OPSCOPE_MAX_ISA"] = max_isa
        else:
            env.pop("OPSCOPE_MAX_ISA", None)
        log = open(os.path.join(self.work, "worker-%s.log" % name), "w")
        p = subprocess.Popen(["dask-worker", self.address, "--host", "127.0.0.1",
                              "--nthreads", "1", "--no-nanny", "--no-dashboard",
                              "--name", name], stdout=log, stderr=log, env=env)
        self.procs.append(p)
        return p

    def wait_workers(self, n):
        self.client.wait_for_workers(n, timeout=60)

    def stop(self):
        try:
            self.client.close()
        except Exception:
            pass
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


_RUNS = []


def sweep(args, out, *extra, wait=True):
    """Runs opscope-sweep into `out`, its output into out-N.log (N counts
    the runs); returns (exit code, output), or the process."""
    cmd = [os.path.join(args.bin, "opscope-sweep"), args.spec, "-o", out] + list(extra)
    _RUNS.append(out)
    log = open("%s-%d.log" % (out, len(_RUNS)), "w")
    # SIGINT as on a terminal: lit's workers ignore it, and their children
    # would inherit that.
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=args.env,
                         cwd=args.work,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    if not wait:
        return p
    p.wait(timeout=300)
    return p.returncode, log_of(out)


def log_of(out):
    """The output of the last run into `out`."""
    n = len(_RUNS) - _RUNS[::-1].index(out)
    with open("%s-%d.log" % (out, n)) as f:
        return f.read()


def check_intact(out):
    """Every point folder is whole: result.json, and for a point that ran
    its trace and CSV, all readable; nothing half-written is left."""
    points = os.path.join(out, "points")
    names = sorted(os.listdir(points))
    stray = [n for n in names if n.startswith(".")]
    if stray:
        fail("%s: left behind: %s" % (points, stray))
    for n in names:
        folder = os.path.join(points, n)
        with open(os.path.join(folder, "result.json")) as f:
            r = json.load(f)
        files = sorted(os.listdir(folder))
        if r["status"] == "ok":
            if files != ["profile.csv", "result.json", "trace.json"]:
                fail("%s holds %s" % (folder, files))
            opscope.load_trace(os.path.join(folder, "trace.json"))
            read_profile_csv(os.path.join(folder, "profile.csv"))
        elif files != ["result.json"]:
            fail("%s (failed) holds %s" % (folder, files))
    return names


def check_figures(frame, analyze):
    """The frame's figures are opscope-analyze's for each point's trace."""
    pairs = {"latency_p50_ms": "latency_p50", "latency_p90_ms": "latency_p90",
             "latency_p99_ms": "latency_p99", "latency_mean_ms": "latency_mean",
             "latency_min_ms": "latency_min", "latency_max_ms": "latency_max"}
    for _, row in frame.iterrows():
        out = subprocess.run([analyze, row["trace"], "--format", "json", "-t", "5",
                              "--print-only", "ops"], capture_output=True, text=True)
        summary = subprocess.run([analyze, row["trace"], "--format", "json",
                                  "--print-only", "summary"], capture_output=True, text=True)
        if out.returncode or summary.returncode:
            fail("opscope-analyze %s: %s" % (row["trace"], out.stderr + summary.stderr))
        metrics = {m["metric"]: m["value"] for m in json.loads(summary.stdout)["summary"]}
        for col, metric in pairs.items():
            if abs(row[col] - metrics[metric]) > 1e-9 * max(1.0, abs(metrics[metric])):
                fail("%s %s: frame %r, opscope-analyze %r" % (row["point"], col, row[col],
                                                              metrics[metric]))
        top = [o["name"] for o in json.loads(out.stdout)["ops"]]
        if row["top_ops"] != top:
            fail("%s top ops: frame %s, opscope-analyze %s" % (row["point"], row["top_ops"], top))
        want = row["batch"] * 1000.0 / metrics["latency_mean"]
        if abs(row["throughput_samples_per_s"] - want) > 1e-9 * want:
            fail("%s throughput %r, batch / mean latency %r" % (
                row["point"], row["throughput_samples_per_s"], want))
        csv = read_profile_csv(row["csv"])
        if csv.summary["iterations"].item() != row["iterations"]:
            fail("%s: the CSV has %d iterations, the frame %d" % (
                row["point"], csv.summary["iterations"].item(), row["iterations"]))
        with open(row["trace"]) as f:
            machine = json.load(f)["opscope"]["machine"]
        if (machine["isa"], machine["amx_used"]) != (row["isa"], row["amx_used"]):
            fail("%s: header isa %s amx_used %s, frame %s %s" % (
                row["point"], machine["isa"], machine["amx_used"], row["isa"], row["amx_used"]))
    ok("frame: %d rows, latencies, top ops, throughput and ISA as opscope-analyze and the "
       "traces say" % len(frame))


def cpu_has(flag):
    with open("/proc/cpuinfo") as f:
        return (" %s " % flag) in f.read().replace("\n", " ")


def tiers(args):
    cluster = Cluster(args.work, args.env)
    try:
        cluster.worker("capped", "avx2")
        cluster.worker("uncapped", None)
        cluster.wait_workers(2)
        out = os.path.join(args.work, "results")
        code, log = sweep(args, out, "--scheduler", cluster.address, "--min-workers", "2")
        if code != 0:
            fail("opscope-sweep exit %d:\n%s" % (code, log))
        meta = cluster.client.get_metadata(["opscope-workers"])
        by_name = {cluster.client.scheduler_info()["workers"][a]["name"]: m
                   for a, m in meta.items()}
    finally:
        cluster.stop()
    if by_name["capped"]["tier"] != "avx2" or by_name["capped"]["max_isa"] != "avx2":
        fail("the capped worker advertises %s" % by_name["capped"])
    want = sorted({m["tier"] for m in by_name.values()})
    if cpu_has("avx512f") and len(want) != 2:
        fail("an AVX-512 CPU, yet the workers' tiers are %s" % want)
    ok("workers advertise tiers %s (capped: %s, uncapped: %s)" % (
        ", ".join(want), by_name["capped"]["tier"], by_name["uncapped"]["tier"]))
    check_intact(out)
    frame = opscope.load_sweep(out)
    points = sorted(set(frame["point"]))
    for t in want:
        on = frame[(frame["tier"] == t) & (frame["status"] == "ok")]
        if sorted(on["point"]) != points or len(on) != len(points):
            fail("tier %s ran %s of %s" % (t, sorted(on["point"]), points))
    if sorted(set(frame["tier"])) != want:
        fail("the frame's tiers %s, the workers' %s" % (sorted(set(frame["tier"])), want))
    ok("every one of %d points finished on each tier (%d rows)" % (len(points), len(frame)))
    check_figures(frame, os.path.join(args.bin, "opscope-analyze"))
    for t in want:
        line = "%d points x %d tier" % (len(points), len(want))
        if line not in log:
            fail("no '%s' in the sweep's output" % line)
    ok("progress: %d '[k/%d]' lines" % (log.count("/%d] " % len(frame)), len(frame)))


def _tool_running_under(pid):
    """Whether an opscope tool runs as a child of process `pid`."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmd = f.read().split(b"\0")[0]
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        if ppid == pid and os.path.basename(cmd).startswith(b"opscope-"):
            return True
    return False


def _kill_mid_point(cluster, name, victim, out, after, sweeping):
    """SIGKILLs `victim` (the process of worker `name`) once `after` points
    are written and one of opscope's tools runs under it; returns its
    address and the points it held then."""
    addr = None
    deadline = time.time() + 120
    while time.time() < deadline and sweeping.poll() is None:
        points = os.path.join(out, "points")
        done = [n for n in os.listdir(points) if not n.startswith(".")] \
            if os.path.isdir(points) else []
        if addr is None:
            for a, w in cluster.client.scheduler_info()["workers"].items():
                if w.get("name") == name:
                    addr = a
        if addr and len(done) >= after and _tool_running_under(victim.pid):
            held = cluster.client.processing([addr]).get(addr, [])
            os.kill(victim.pid, signal.SIGKILL)
            victim.wait()
            return addr, held
        time.sleep(0.05)
    fail("worker %s never ran a tool after %d points were written" % (name, after))


def kill(args):
    cluster = Cluster(args.work, args.env)
    try:
        a = cluster.worker("a", "avx2")
        b = cluster.worker("b", "avx2")
        cluster.wait_workers(2)
        out = os.path.join(args.work, "results")
        p = sweep(args, out, "--scheduler", cluster.address, "--min-workers", "2", wait=False)
        addr, held = _kill_mid_point(cluster, "a", a, out, 1, p)
        code = p.wait(timeout=300)
        log = log_of(out)
        if code != 0:
            fail("opscope-sweep exit %d after a worker died:\n%s" % (code, log))
        ok("worker a (pid %d) killed mid-point holding %d point(s); the sweep finished, exit 0"
           % (a.pid, len(held)))
        names = check_intact(out)
        frame = opscope.load_sweep(out)
        spec_points = len(frame)
        if (frame["status"] != "ok").any():
            fail("failed points: %s" % frame[frame["status"] != "ok"][["point", "error"]])
        for key in held:
            ran = frame[[key.startswith("opscope-%s-" % pt) for pt in frame["point"]]]
            if len(ran) != 1 or ran["worker"].iloc[0] == addr:
                fail("%s, held by the killed worker, ran on %s" % (key, list(ran["worker"])))
        ok("all %d points complete, those the dead worker held re-run on the survivor; "
           "%d folders, none torn" % (spec_points, len(names)))

        # The last worker of the tier dies: the points left wait --wait
        # seconds for one, then are reported not run; a new worker resumes.
        out2 = os.path.join(args.work, "results2")
        p = sweep(args, out2, "--scheduler", cluster.address, "--wait", "3", wait=False)
        _kill_mid_point(cluster, "b", b, out2, 2, p)
        code = p.wait(timeout=300)
        log = log_of(out2)
        lost = log.count(": not run: no worker of tier avx2")
        if code != 1 or not lost:
            fail("with no worker left: exit %d, %d points not run:\n%s" % (code, lost, log))
        before = {n: os.stat(os.path.join(out2, "points", n, "result.json"))
                  for n in check_intact(out2)}
        if lost + len(before) != spec_points:
            fail("%d not run and %d finished of %d points:\n%s" % (lost, len(before),
                                                                 spec_points, log))
        ok("no worker left: %d points reported not run, exit 1; %d finished folders intact"
           % (lost, len(before)))
        cluster.worker("c", "avx2")
        cluster.wait_workers(1)
        code, log = sweep(args, out2, "--scheduler", cluster.address)
        if code != 0 or "; %d finished before" % len(before) not in log:
            fail("resumed sweep: exit %d:\n%s" % (code, log))
        after = check_intact(out2)
        for n, st in before.items():
            now = os.stat(os.path.join(out2, "points", n, "result.json"))
            if (now.st_ino, now.st_mtime_ns) != (st.st_ino, st.st_mtime_ns):
                fail("%s was written again" % n)
        if len(after) != spec_points:
            fail("resumed: %d of %d points" % (len(after), spec_points))
        ok("resumed on a new worker: %d finished before kept as they were, %d run now"
           % (len(before), len(after) - len(before)))
    finally:
        cluster.stop()


def resume(args):
    out = os.path.join(args.work, "results")
    p = sweep(args, out, "--tools-dir", args.bin, wait=False)
    deadline = time.time() + 120
    points = os.path.join(out, "points")
    while time.time() < deadline:
        if os.path.isdir(points) and len([n for n in os.listdir(points)
                                          if not n.startswith(".")]) >= 2:
            break
        if p.poll() is not None:
            fail("the sweep ended before it could be interrupted:\n%s" % log_of(out))
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    code = p.wait(timeout=120)
    log = log_of(out)
    if code != 130 or "interrupted" not in log:
        fail("interrupted sweep: exit %d:\n%s" % (code, log))
    before = {n: os.stat(os.path.join(points, n, "result.json")) for n in check_intact(out)}
    ok("interrupted (SIGINT) after %d points: exit 130, nothing torn" % len(before))

    code, log = sweep(args, out, "--tools-dir", args.bin)
    names = check_intact(out)
    for n, st in before.items():
        now = os.stat(os.path.join(points, n, "result.json"))
        if (now.st_ino, now.st_mtime_ns) != (st.st_ino, st.st_mtime_ns):
            fail("%s was run again" % n)
    frame = opscope.load_sweep(out)
    failed = frame[frame["status"] != "ok"]
    if code != 1 or len(failed) == 0 or "; %d finished before" % len(before) not in log:
        fail("resumed sweep: exit %d, %d failed:\n%s" % (code, len(failed), log))
    if not (failed["stage"] == "compile").all() or \
            not failed["error"].str.contains("unsupported op").all():
        fail("failed points: %s" % failed[["point", "stage", "error"]].to_string())
    ok("resumed: %d finished before kept as they were, %d rows now; %d point(s) failed at "
       "compile with their error (%s), exit 1" % (len(before), len(names), len(failed),
                                                 failed["error"].iloc[0]))
    # Recorded failures are kept; --rerun-failed runs them again, replacing
    # their folders.
    code, log = sweep(args, out, "--tools-dir", args.bin)
    if "; %d finished before" % len(frame) not in log:
        fail("a third run re-ran points:\n%s" % log)
    stale = {n: os.stat(os.path.join(points, n, "result.json")) for n in names
             if n.split("--")[0] in set(failed["point"])}
    code, log = sweep(args, out, "--tools-dir", args.bin, "--rerun-failed")
    after = opscope.load_sweep(out)
    if code != 1 or len(after) != len(frame) or \
            "; %d finished before" % (len(frame) - len(failed)) not in log:
        fail("--rerun-failed: exit %d, %d rows:\n%s" % (code, len(after), log))
    check_intact(out)
    for n, st in stale.items():
        now = os.stat(os.path.join(points, n, "result.json"))
        if (now.st_ino, now.st_mtime_ns) == (st.st_ino, st.st_mtime_ns):
            fail("%s was not replaced" % n)
    ok("--rerun-failed ran the %d failed point(s) again, one folder each" % len(failed))


def nopackage(args):
    bare = dict(args.env)
    bare.pop("PYTHONPATH", None)
    probe = subprocess.run([sys.executable, "-c", "import opscope"], env=bare, cwd="/",
                           capture_output=True)
    if probe.returncode == 0:
        fail("opscope imports without PYTHONPATH here (installed system-wide?): no "
             "worker can lack it")
    cluster = Cluster(args.work, args.env)
    try:
        cluster.worker("bare", None, env=bare)
        cluster.worker("equipped", None)
        cluster.wait_workers(2)
        out = os.path.join(args.work, "results")
        code, log = sweep(args, out, "--scheduler", cluster.address, "--min-workers", "2")
    finally:
        cluster.stop()
    lines = log.splitlines()
    if code != 1 or len(lines) != 1:
        fail("opscope-sweep exit %d, %d lines (want exit 1 and one line):\n%s"
             % (code, len(lines), log))
    if "(bare)" not in log or "(equipped)" in log:
        fail("the line names the wrong workers: %s" % log)
    if os.path.exists(out):
        fail("%s was written" % out)
    ok("exit 1, one line, naming the worker without opscope, nothing written")
    print(lines[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=["tiers", "kill", "resume", "nopackage"])
    ap.add_argument("--work", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--bin", required=True)
    args = ap.parse_args()
    args.work = os.path.abspath(args.work)
    args.spec = os.path.abspath(args.spec)
    os.makedirs(args.work, exist_ok=True)
    env = dict(os.environ)
    env["OPSCOPE_CACHE_DIR"] = os.path.join(args.work, "cache")
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(opscope.__file__))
    args.env = env
    {"tiers": tiers, "kill": kill, "resume": resume,
     "nopackage": nopackage}[args.scenario](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
