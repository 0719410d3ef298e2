"""What opscope-sweep runs on a Dask worker: the tier probe and one point.

Both run opscope's command-line tools as subprocesses (a crash in a tool
fails the point, never the worker) with the worker's own environment, so
a worker started under OPSCOPE_MAX_ISA=avx2 compiles and runs capped, and
says so. Compiled models are cached on the worker's machine, per tier,
under $OPSCOPE_CACHE_DIR/sweep (else ~/.cache/opscope/sweep).
"""
import asyncio
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

TOOLS = ("opscope-compile", "opscope-run", "opscope-prune")
# Dask resources a worker advertises once it knows its tier: every point
# needs one unit of RESOURCE (one point at a time per worker, whatever its
# thread count), a point placed on a tier also one of TIER_RESOURCE + tier.
RESOURCE = "opscope"
TIER_RESOURCE = "opscope-tier-"
METADATA_KEY = "opscope-workers"

# The tier probe: one bf16 MatMul big enough for oneDNN to pick AMX where
# the CPU has it and the cap allows it, which the trace header then reports
# (amx_used); below AMX, the header's ISA is the tier.
_PROBE_N = 64


def _probe_model():
    w = ", ".join("%g" % (((i * 7) % 13 - 6) / 8.0) for i in range(_PROBE_N * _PROBE_N))
    return ('<\n  ir_version: 8,\n  opset_import: ["" : 14]\n>\n'
            "opscope_tier_probe (float[32, %d] x) => (float[32, %d] y) {\n"
            "  w = Constant <value = float[%d, %d] {%s}> ()\n"
            "  y = MatMul (x, w)\n}\n" % (_PROBE_N, _PROBE_N, _PROBE_N, _PROBE_N, w))


def cache_dir():
    base = os.environ.get("OPSCOPE_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "opscope")
    return os.path.join(base, "sweep")


def has_tools(folder):
    return all(os.access(os.path.join(folder, t), os.X_OK) for t in TOOLS)


def find_tools(hint, remedy="set OPSCOPE_TOOLS_DIR on the worker or put opscope's bin "
                             "on its PATH"):
    """The folder with opscope's tools on this machine: $OPSCOPE_TOOLS_DIR,
    else `hint` (the driver's), else the one of opscope-compile on PATH.
    Raises RuntimeError when none has them all."""
    candidates = [os.environ.get("OPSCOPE_TOOLS_DIR"), hint]
    on_path = shutil.which("opscope-compile")
    if on_path:
        candidates.append(os.path.dirname(os.path.realpath(on_path)))
    for d in candidates:
        if d and has_tools(d):
            return d
    raise RuntimeError("opscope's tools (%s) are not in %s: %s"
                       % (", ".join(TOOLS), " or ".join(d for d in candidates if d) or
                          "$OPSCOPE_TOOLS_DIR or PATH", remedy))


def _tools_id(tools):
    """Identifies the tool binaries, for cache keys: an rebuilt compiler
    compiles anew."""
    parts = []
    for t in TOOLS:
        st = os.stat(os.path.join(tools, t))
        parts.append("%s:%d:%d" % (t, st.st_size, st.st_mtime_ns))
    return "|".join(parts)


def _run(argv, cwd, timeout):
    """(exit code, stdout, stderr) of a tool; 124 on timeout."""
    try:
        r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                           errors="replace", timeout=timeout)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout or ""
        return 124, out, "timed out after %d s" % timeout


def _error_line(code, stderr):
    """The tool's error in one line: its 'error:' line with the indented
    lines that continue it, else its last line."""
    lines = [l.rstrip() for l in stderr.splitlines() if l.strip()]
    for i, l in enumerate(lines):
        if "error:" in l:
            more = []
            for c in lines[i + 1:]:
                if not c[:1].isspace():
                    break
                more.append(c.strip())
            return " ".join([l.strip()] + more)[:400]
    if lines:
        return lines[-1].strip()[:400]
    return "exit code %d" % code if code >= 0 else "killed by signal %d" % -code


def detect_tier(tools_hint):
    """This worker's machine as opscope sees it: compiles and profiles the
    probe with the worker's environment and reads the trace header."""
    info = {"host": socket.gethostname(), "pid": os.getpid(),
            "max_isa": os.environ.get("OPSCOPE_MAX_ISA") or os.environ.get("DNNL_MAX_CPU_ISA"),
            "tools": None, "cpu": None, "isa": None, "amx_used": None, "tier": None,
            "error": None}
    try:
        tools = info["tools"] = find_tools(tools_hint)
        with tempfile.TemporaryDirectory(prefix="opscope-tier-") as tmp:
            with open(os.path.join(tmp, "probe.onnxtext"), "w") as f:
                f.write(_probe_model())
            for argv in ([os.path.join(tools, "opscope-compile"), "probe.onnxtext",
                          "--precision", "bf16", "-o", "probe.so"],
                         [os.path.join(tools, "opscope-run"), "probe.so", "--profile",
                          "--iterations", "1", "--warmup", "0", "--trace", "probe.json",
                          "-q"]):
                code, _, err = _run(argv, tmp, 120)
                if code != 0:
                    raise RuntimeError("%s: %s" % (os.path.basename(argv[0]), _error_line(code, err)))
            with open(os.path.join(tmp, "probe.json")) as f:
                machine = json.load(f)["opscope"]["machine"]
        info.update(cpu=machine["cpu"], isa=machine["isa"], amx_used=machine["amx_used"],
                    tier="avx512_core_amx" if machine["amx_used"] else machine["isa"])
    except (OSError, RuntimeError, ValueError, KeyError) as e:
        info["error"] = str(e)
    return info


try:
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # the loader (opscope.load_sweep) needs no Dask
    WorkerPlugin = object


class TierPlugin(WorkerPlugin):
    """Registered by the driver on every worker, present and future: finds
    the worker's tier, advertises it as Dask resources (placement) and puts
    the worker's CPU, tier and host into the scheduler's metadata."""

    name = "opscope-tier"

    def __init__(self, tools_hint, ignore_sigint=False):
        self.tools_hint = tools_hint
        self.ignore_sigint = ignore_sigint

    async def setup(self, worker):
        if self.ignore_sigint:
            # A LocalCluster's workers share the driver's terminal: Ctrl-C is
            # the driver's to handle (it closes the cluster), not theirs.
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
            except ValueError:  # not the main thread: nothing to quieten
                pass
        loop = asyncio.get_running_loop()
        info = await loop.run_in_executor(None, detect_once, self.tools_hint)
        info = dict(info, worker=worker.address)
        if info["tier"]:
            await worker.set_resources(**{RESOURCE: 1, TIER_RESOURCE + info["tier"]: 1})
        await worker.scheduler.set_metadata(keys=[METADATA_KEY, worker.address], value=info)


def _atomic_dir(final, build):
    """Makes `final` by build(tmp) in a sibling temporary folder renamed into
    place; another worker that got there first wins (same content)."""
    if os.path.isdir(final):
        return
    parent = os.path.dirname(final)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".tmp-", dir=parent)
    try:
        build(tmp)
        try:
            os.rename(tmp, final)
        except OSError:
            if not os.path.isdir(final):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _model_file(cache, sha, name, data):
    """The model's bytes in this machine's cache, under its own file name:
    opscope-compile names the model after it (the trace's `model`) and tells
    .onnx from .onnxtext by its extension."""
    path = os.path.join(cache, "models", sha, name)
    if not os.path.isfile(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(path))
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    return path


def run_point(task, model_bytes):
    """Prunes (when the point asks), compiles (cached per tier) and profiles
    one point; returns what happened, the trace and the CSV as text. A tool
    that fails makes a failed result with its exit code and error, not an
    exception: exceptions are left for the machine's own trouble (disk
    full), which Dask retries elsewhere."""
    point, slot = task["point"], task["slot"]
    detected = detect_once(task["tools_hint"])
    try:
        from distributed import get_worker
        address = get_worker().address
    except (ImportError, ValueError):
        address = None
    result = {"point": point["point"], "slot": slot, "config": point,
              "worker": address, "host": detected["host"], "tier": detected["tier"], "cpu": detected["cpu"],
              "max_isa": detected["max_isa"], "pid": os.getpid(),
              "status": "failed", "stage": None, "error": None, "exit_code": None,
              "steps": [], "trace": None, "csv": None}
    if detected["error"]:
        result.update(stage="tier", error=detected["error"])
        return result
    if slot not in ("any", detected["tier"]):
        result.update(stage="tier", error="placed for tier %s on a worker of tier %s"
                      % (slot, detected["tier"]))
        return result
    tools, cache = detected["tools"], cache_dir()
    tools_id = _tools_id(tools)
    timeout = task["timeout"]

    cached_models = []

    def step(stage, argv, cwd):
        t0 = time.time()
        code, out, err = _run(argv, cwd, timeout)
        result["steps"].append({"stage": stage, "argv": [os.path.basename(argv[0])] + argv[1:],
                                "exit_code": code, "seconds": round(time.time() - t0, 3),
                                "stderr": err[-4000:]})
        if code != 0:
            # The model's name, not its place in this machine's cache.
            error = _error_line(code, err)
            for folder in cached_models:
                error = error.replace(folder + os.sep, "")
            result.update(stage=stage, exit_code=code, error=error)
            raise _StepFailed()
        return out

    try:
        model = _model_file(cache, task["model_sha256"], task["model_file"], model_bytes)
        cached_models.append(os.path.dirname(model))
        stem = os.path.splitext(task["model_file"])[0]
        if point["sparsity"] > 0:
            key = hashlib.sha256(json.dumps([task["model_sha256"], task["model_file"],
                                             point["sparsity"], tools_id]).encode()).hexdigest()[:24]
            pruned = os.path.join(cache, "pruned", key)
            _atomic_dir(pruned, lambda tmp: step(
                "prune", [os.path.join(tools, "opscope-prune"), model, "--sparsity",
                          repr(point["sparsity"]), "-o", os.path.join(tmp, stem + ".onnx")], tmp))
            model = os.path.join(pruned, stem + ".onnx")
            cached_models.append(pruned)
        flags = ["--precision", point["precision"]]
        if point["precision"] == "int8":
            flags += ["--calibration-inputs", task["calibration"]]
        for s in point["input_shapes"]:
            flags += ["--input-shape", s]
        key = hashlib.sha256(json.dumps([task["model_sha256"], task["model_file"],
                                         point["sparsity"], flags, tools_id]).encode()).hexdigest()[:24]
        compiled = os.path.join(cache, "compiled", detected["tier"], key)
        cached = os.path.isdir(compiled)
        _atomic_dir(compiled, lambda tmp: step(
            "compile", [os.path.join(tools, "opscope-compile"), model, "-o",
                        os.path.join(tmp, stem + ".so")] + flags, tmp))
        result["compile_cached"] = cached
        runs = os.path.join(cache, "runs")
        os.makedirs(runs, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="point-", dir=runs) as tmp:
            step("run", [os.path.join(tools, "opscope-run"), os.path.join(compiled, stem + ".so"),
                         "--profile", "--trace", "trace.json", "--csv", "profile.csv",
                         "--iterations", str(task["iterations"]), "--warmup",
                         str(task["warmup"]), "--threads", str(point["threads"]), "-q"], tmp)
            with open(os.path.join(tmp, "trace.json")) as f:
                result["trace"] = f.read()
            with open(os.path.join(tmp, "profile.csv")) as f:
                result["csv"] = f.read()
        result.update(status="ok", exit_code=0)
    except _StepFailed:
        pass
    return result


class _StepFailed(Exception):
    pass


_DETECTED = {}


def detect_once(tools_hint):
    """detect_tier, once per worker process (the plugin's answer when it
    ran here)."""
    if tools_hint not in _DETECTED:
        _DETECTED[tools_hint] = detect_tier(tools_hint)
    return _DETECTED[tools_hint]
