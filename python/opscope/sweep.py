"""opscope-sweep: a grid of models, shapes, precisions, sparsities and thread
counts, profiled on every CPU tier of a Dask cluster.

  opscope-sweep SPEC.yaml|json [--scheduler tcp://HOST:8786] [-o RESULTS_DIR]

Each point (and each tier it is placed on) is one Dask task that prunes,
compiles and profiles with opscope's tools on a worker
(sweep_worker.run_point); the driver writes each result to RESULTS_DIR as it
arrives (sweep_results.ResultsDir), so an interrupted sweep resumes where it
stopped. Without --scheduler it starts a LocalCluster with one single-thread
worker per core. See docs/sweep.md.
"""
import argparse
import asyncio
import collections
import concurrent.futures
import importlib.util
import logging
import os
import signal
import sys
import time

from .sweep_results import ResultsDir, best_per_tier, load_sweep
from .sweep_spec import TIERS, SpecError, load_spec, read_models
from .sweep_worker import (METADATA_KEY, RESOURCE, TIER_RESOURCE, TierPlugin,
                           find_tools, has_tools, run_point)

PROG = "opscope-sweep"


class Failure(Exception):
    """Stops the sweep with exit code 1 and this message."""


def _say(message):
    print("%s: %s" % (PROG, message), file=sys.stderr, flush=True)


def _arguments(argv):
    p = argparse.ArgumentParser(
        prog=PROG, description="Profile a grid of configurations on every CPU tier of "
                               "a Dask cluster (docs/sweep.md).")
    p.add_argument("spec", help="the sweep's spec, YAML or JSON")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="a running dask-scheduler (tcp://HOST:8786); default: a "
                        "LocalCluster on this machine")
    p.add_argument("-o", "--output", metavar="DIR",
                   help="results directory (default: SPEC's name with -results, in the "
                        "current directory); a sweep run again into it skips finished points")
    p.add_argument("--workers", type=int, metavar="N",
                   help="LocalCluster only: workers (default: one per core)")
    p.add_argument("--tools-dir", metavar="DIR",
                   help="opscope's tools (default: next to this command, else on PATH); "
                        "a worker's own OPSCOPE_TOOLS_DIR wins")
    p.add_argument("--min-workers", type=int, default=1, metavar="N",
                   help="with --scheduler: wait for N workers before planning (default 1)")
    p.add_argument("--wait", type=float, default=60, metavar="SECONDS",
                   help="how long to wait for the scheduler and workers, and for a "
                        "tier's workers to come back before its points are given up "
                        "(default 60)")
    p.add_argument("--rerun-failed", action="store_true",
                   help="run the points recorded as failed again (finished ones are "
                        "always skipped)")
    a = p.parse_args(argv)
    if a.workers is not None and a.workers < 1:
        p.error("--workers: expected a positive integer, got %d" % a.workers)
    if a.workers is not None and a.scheduler:
        p.error("--workers applies to the LocalCluster, not to --scheduler")
    if a.min_workers < 1:
        p.error("--min-workers: expected a positive integer, got %d" % a.min_workers)
    if a.wait <= 0:
        p.error("--wait: expected a positive number of seconds")
    if a.tools_dir is not None:
        a.tools_dir = os.path.abspath(a.tools_dir)
        if not has_tools(a.tools_dir):
            p.error("--tools-dir: %s does not hold opscope-compile, opscope-run and "
                    "opscope-prune" % a.tools_dir)
    return a


def _tools_hint(args):
    """The tools folder the driver suggests to workers (they may have their
    own); required for a LocalCluster, whose workers are this machine."""
    if args.tools_dir:
        return args.tools_dir
    here = os.path.dirname(os.path.realpath(sys.argv[0] or "."))
    try:
        return find_tools(here, "give --tools-dir, or put opscope's bin on PATH")
    except RuntimeError as e:
        if not args.scheduler:
            raise Failure(str(e)) from None
        return None


def _cluster(args):
    """(client, cluster or None)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise Failure("Dask is missing: install python3-distributed "
                      "(scripts/install-deps.sh does)") from None
    logging.getLogger("distributed").setLevel(logging.ERROR)
    # Closing the client on a loaded machine can leave one of Dask's
    # internal futures with a TimeoutError nobody awaits; asyncio then logs
    # "Future exception was never retrieved" under an error that already
    # says what failed (seen once in sweep-no-package.test while clang
    # compiled beside it).
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    if args.scheduler:
        try:
            client = Client(args.scheduler, timeout=args.wait)
        except (OSError, TimeoutError, ValueError) as e:
            raise Failure("cannot reach the scheduler at %s: %s" % (args.scheduler, e)) from None
        try:
            client.wait_for_workers(args.min_workers, timeout=args.wait)
        except (TimeoutError, OSError):
            client.close()
            raise Failure("%s: fewer than %d workers after %g s" % (
                args.scheduler, args.min_workers, args.wait)) from None
        return client, None
    n = args.workers or len(os.sched_getaffinity(0))
    # Loopback only; the scheduler's HTTP server (the dashboard, when bokeh
    # is installed) on a free port, so concurrent sweeps do not collide.
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address="127.0.0.1:0",
                           silence_logs=logging.ERROR)
    return Client(cluster), cluster


def _without_package(client):
    """[(worker, why)] for the workers that cannot import opscope's worker
    code. The tier plugin and every point reach a worker as references to
    opscope.sweep_worker, which the worker imports to unpickle them."""
    # find_spec is the standard library's, so it reaches any worker;
    # finding the submodule imports the package (and what it imports).
    found = client.run(importlib.util.find_spec, "opscope.sweep_worker", on_error="return")
    names = client.scheduler_info()["workers"]
    out = []
    for addr, spec in sorted(found.items()):
        if spec is not None and not isinstance(spec, BaseException):
            continue
        name = names.get(addr, {}).get("name")
        who = addr if name in (None, addr) else "%s (%s)" % (addr, name)
        why = (str(spec) or type(spec).__name__) if isinstance(spec, BaseException) \
            else "its opscope has no sweep_worker (an older opscope?)"
        out.append((who, why))
    return out


def _package_failure(client, bad):
    """The one-line Failure for workers without the opscope package: which,
    and how to start them."""
    total = len(client.scheduler_info()["workers"])
    listed = "; ".join("%s: %s" % w for w in bad[:5])
    if len(bad) > 5:
        listed += "; and %d more" % (len(bad) - 5)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return Failure(
        "%d of %d workers cannot import the opscope package that runs the points (%s): "
        "start each dask-worker where opscope imports, e.g. PYTHONPATH=%s dask-worker "
        "%s (the folder this driver's opscope is in, when the worker's machine has it; "
        "or cmake --install opscope there), or stop those workers" % (
            len(bad), total, listed, here, client.scheduler.address))


def _workers(client, tools, local):
    """{address: info} of the live workers with a tier (sweep_worker's
    detect_tier); says why the others have none. Fails naming the workers
    that lack the opscope package."""
    bad = _without_package(client)
    if bad:
        raise _package_failure(client, bad)
    try:
        client.register_worker_plugin(TierPlugin(tools, ignore_sigint=local),
                                      name=TierPlugin.name)
    except Exception as e:  # Dask re-raises a worker's error as a bare Exception
        # A worker that joined since the check above, most likely.
        bad = _without_package(client)
        if bad:
            raise _package_failure(client, bad) from None
        raise Failure("cannot set up the workers: %s" % str(e).strip().splitlines()[-1]) from None
    return _live_workers(client, warn=True)


def _live_workers(client, warn=False):
    live = client.scheduler_info()["workers"]
    try:
        meta = client.get_metadata([METADATA_KEY], default={}) or {}
    except KeyError:
        meta = {}
    out = {}
    for addr in live:
        info = meta.get(addr)
        if info and info.get("tier"):
            out[addr] = info
        elif warn:
            _say("worker %s has no tier and gets no point: %s" % (
                addr, info["error"] if info else "its tier probe did not report"))
    return out


def _order(tiers):
    return sorted(tiers, key=lambda t: TIERS.index(t) if t in TIERS else len(TIERS))


def _plan(spec, workers):
    """(slots, tiers): one slot per point and tier ('any' when the spec
    places each point once)."""
    have = _order({w["tier"] for w in workers.values()})
    if spec.tiers == "any":
        tiers = ["any"]
    elif spec.tiers == "every":
        tiers = have
    else:
        missing = [t for t in spec.tiers if t not in have]
        if missing:
            raise Failure("%s: no worker has tier %s (the cluster's tiers: %s)"
                          % (spec.path, missing[0], ", ".join(have)))
        tiers = spec.tiers
    return [(p, t) for p in spec.points() for t in tiers], tiers


def _describe(res):
    where = "%s (%s)" % (res["tier"] or "?", res["host"])
    if res["status"] == "ok":
        return "on %s: ok, p50 %.3f ms" % (where, res["latency_p50_ms"])
    return "on %s: failed at %s: %s" % (where, res["stage"], res["error"])


class _Runs:
    """The sweep's Dask tasks: submitted, collected as they finish, and kept
    going when workers die. Dask itself re-runs a dead worker's task on
    another (and retries a task that raised); this covers what it cannot:
    a model's scattered bytes lost with every worker that held them (the
    task is cancelled: the bytes are sent again and the task resubmitted),
    and a tier left without workers (its tasks wait --wait seconds for one,
    then are given up: a rerun resumes them)."""

    def __init__(self, client, spec, args, results, on_disk, total, done):
        self.client, self.spec, self.args, self.results = client, spec, args, results
        self.on_disk, self.total, self.count = on_disk, total, done
        self.models = {}    # model name -> its bytes, scattered
        self.running = {}   # future -> (point, slot, submitted)
        self.waiting = {}   # (point, slot) -> since when it waits for a worker
        self.orphaned = {}  # slot -> since when no live worker serves it
        self.resubmitted = collections.Counter()
        self.lost = []
        self.stamp = "%x" % int(time.time() * 1000)
        self.live, self.checked = set(), 0.0

    def submit(self, p, t):
        m = p.model
        if m.name not in self.models:
            with open(m.path, "rb") as f:
                [self.models[m.name]] = self.client.scatter([f.read()], broadcast=True,
                                                            hash=False)
        task = {"point": p.as_dict(), "slot": t, "model_sha256": m.sha256,
                "model_file": os.path.basename(m.path), "tools_hint": self.args.tools_hint,
                "iterations": self.spec.iterations, "warmup": self.spec.warmup,
                "calibration": self.spec.calibration, "timeout": self.spec.timeout}
        resources = {RESOURCE: 1}
        if t != "any":
            resources[TIER_RESOURCE + t] = 1
        key = "opscope-%s-%s-%s" % (p.id, t, self.stamp)
        if self.resubmitted[(p.id, t)]:
            key += "-%d" % self.resubmitted[(p.id, t)]
        f = self.client.submit(run_point, task, self.models[m.name], resources=resources,
                               retries=2, pure=False, key=key)
        self.running[f] = (p, t, time.time())

    def run(self, todo):
        for p, t in todo:
            self.submit(p, t)
        while self.running or self.waiting:
            finished = [f for f in self.running if f.done()]
            for f in finished:
                self.collect(f)
            self.watch()
            if not finished:
                time.sleep(0.1)
        return self.lost

    def collect(self, f):
        p, t, started = self.running.pop(f)
        result, lost = None, f.status == "cancelled"
        if f.status == "finished":
            try:
                result = f.result()
            except (concurrent.futures.CancelledError, asyncio.CancelledError):
                # It finished on a worker that died before its result was
                # gathered, and with no worker left to run it again Dask
                # cancelled it (sweep-kill.test's last worker, killed just
                # as a point finished, raised this out of the sweep once):
                # it waits for a worker as a cancelled task does.
                lost = True
        if lost and self.resubmitted[(p.id, t)] < 3:
            self.models.pop(p.model.name, None)
            self.waiting[(p, t)] = time.time()
            return
        self.count += 1
        if result is None:
            why = f.exception() if f.status == "error" else "cancelled" if lost else f.status
            return self.give_up(p, t, "%s: %s" % (type(why).__name__, why)
                                if isinstance(why, BaseException) else why)
        old = [n for n, s in self.on_disk.get((p.id, t), []) if s != "ok"]
        name, record = self.results.write(result, {
            "wall_s": round(time.time() - started, 3), "warmup": self.spec.warmup}, old)
        _say("[%d/%d] %s %s" % (self.count, self.total, p.id, _describe(record)))

    def give_up(self, p, t, why):
        self.lost.append((p.id, t))
        _say("[%d/%d] %s for %s: not run: %s" % (self.count, self.total, p.id, t, why))

    def watch(self):
        now = time.time()
        if now - self.checked < 1.0:
            return
        self.checked = now
        self.live = {w["tier"] for w in _live_workers(self.client).values()}
        alive = lambda t: bool(self.live) if t == "any" else t in self.live
        for t in {t for _, t, _ in self.running.values()}:
            if alive(t):
                self.orphaned.pop(t, None)
            elif now - self.orphaned.setdefault(t, now) >= self.args.wait:
                for f, (p, slot, _) in list(self.running.items()):
                    if slot == t:
                        f.cancel()
                        del self.running[f]
                        self.count += 1
                        self.give_up(p, t, "no worker of tier %s for %g s" % (t, self.args.wait))
        for (p, t), since in list(self.waiting.items()):
            if alive(t):
                del self.waiting[(p, t)]
                self.resubmitted[(p.id, t)] += 1
                self.submit(p, t)
            elif now - since >= self.args.wait:
                del self.waiting[(p, t)]
                self.count += 1
                self.give_up(p, t, "no worker of tier %s for %g s" % (t, self.args.wait))


def _sweep(args, spec, results, client):
    workers = _workers(client, args.tools_hint, local=not args.scheduler)
    if not workers:
        raise Failure("no worker with a tier: nothing can run")
    slots, tiers = _plan(spec, workers)
    results.start(args.spec, spec.settings())
    on_disk = results.finished()

    def done(key):
        return any(s == "ok" or not args.rerun_failed for _, s in on_disk.get(key, []))

    todo = [(p, t) for p, t in slots if not done((p.id, t))]
    hosts = sorted({w["host"] for w in workers.values()})
    placed = "each on any worker" if tiers == ["any"] else "x %d tier%s (%s)" % (
        len(tiers), "" if len(tiers) == 1 else "s", ", ".join(tiers))
    _say("%d points %s = %d runs on %d worker%s (%s); %d finished before"
         % (len(slots) // len(tiers), placed, len(slots), len(workers),
            "" if len(workers) == 1 else "s", ", ".join(hosts), len(slots) - len(todo)))
    runs = _Runs(client, spec, args, results, on_disk, len(slots), len(slots) - len(todo))
    return {(p.id, t) for p, t in slots}, runs.run(todo)


def _report(results, slots, lost):
    """The best configurations and the failures among this spec's points (a
    results directory may hold others: an axis shortened since); the exit
    code."""
    frame = load_sweep(results.path)
    frame = frame[[k in slots for k in zip(frame["point"], frame["slot"])]]
    best = best_per_tier(frame)
    if len(best):
        print(best.to_string(index=False, na_rep="-", float_format=lambda v: "%.3f" % v))
    failed = frame[frame["status"] != "ok"]
    for _, r in failed.iterrows():
        print("failed: %s on %s (%s) at %s: %s" % (r["point"], r["tier"], r["host"],
                                                   r["stage"], r["error"]))
    print("%s: %d ok, %d failed, %d not run; results in %s (opscope-report --sweep %s -o "
          "sweep.html draws them)" % (PROG, (frame["status"] == "ok").sum(), len(failed),
                                      len(lost), results.path, results.path))
    return 1 if len(failed) or lost else 0


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    args = _arguments(sys.argv[1:] if argv is None else argv)
    cluster = client = None
    try:
        spec = load_spec(args.spec)
        read_models(spec)
        if args.output is None:
            args.output = os.path.splitext(os.path.basename(args.spec))[0] + "-results"
        results = ResultsDir(args.output)
        why = results.check_settings(spec.settings())
        if why:
            raise Failure("%s holds another sweep's results (%s): give another -o DIR"
                          % (args.output, why))
        args.tools_hint = _tools_hint(args)
        signal.signal(signal.SIGTERM, _interrupt)
        client, cluster = _cluster(args)
        slots, lost = _sweep(args, spec, results, client)
        return _report(results, slots, lost)
    except (SpecError, Failure) as e:
        _say("error: %s" % e)
        return 1
    except KeyboardInterrupt:
        _say("interrupted" if args.output is None else
             "interrupted; the points written to %s are kept, and running the same "
             "command again resumes the sweep" % args.output)
        return 130
    finally:
        for c in (client, cluster):
            if c is not None:
                try:
                    c.close()
                except Exception:  # closing after an interrupt: nothing to report
                    pass


if __name__ == "__main__":
    sys.exit(main())
