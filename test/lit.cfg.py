# -*- Python -*- lit configuration for opscope.

import os
import re
import shlex
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "opscope"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".onnxtext", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.opscope_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs",
                   "fuzz-regressions"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%opscope_src", config.opscope_src_root))
config.substitutions.append(("%opscope_obj", config.opscope_obj_root))
config.substitutions.append(("%python", "/usr/bin/python3"))
# The CPU the tools run on: this host, whose features /proc/cpuinfo
# gives (the kernel's reading, independent of the code under test), or the
# one OPSCOPE_TEST_EMULATOR emulates (the emulated_avx2 ctest runs,
# test/CMakeLists.txt, set it to qemu-x86_64 with an AVX2-only Zen 3's
# CPUID, OPSCOPE_EMULATED_AVX2 in the top CMakeLists.txt), which then runs
# every tool. /proc/cpuinfo does not change under an emulator: there the
# features come from the levels the tools themselves read (cpu.h, through
# opscope-run --version).
_emulator = shlex.split(os.environ.get("OPSCOPE_TEST_EMULATOR", ""))
# This host's features (the CPU itself when nothing emulates one; under
# the emulator, whether the host can run the model-building tools natively).
try:
    with open("/proc/cpuinfo") as f:
        _host_flags = " " + f.read().replace("\n", " ") + " "
except OSError:
    _host_flags = ""


def _level(cap):
    """oneDNN's level in force on the emulated CPU under `cap` (None: its
    best)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPSCOPE_MAX_ISA", "DNNL_MAX_CPU_ISA")}
    if cap:
        env["OPSCOPE_MAX_ISA"] = cap
    cmd = _emulator + [os.path.join(config.opscope_tools_dir, "opscope-run"), "--version"]
    try:
        run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        lit_config.fatal("OPSCOPE_TEST_EMULATOR: cannot run %s: %s" % (shlex.join(cmd), e))
    m = re.search(r", oneDNN (\w+)", run.stdout)
    if not m:
        lit_config.fatal("OPSCOPE_TEST_EMULATOR: cannot read the CPU's tier from " +
                         shlex.join(cmd) + ": " + run.stdout + run.stderr)
    return m.group(1)


if _emulator:
    _best = _level(None)
    _has_avx2 = _best != "sse41"
    # Below AVX-512 the best level says it; an AVX-512 CPU's does not.
    _has_avx_vnni = _best == "avx2_vnni" or (
        _best.startswith("avx512") and _level("avx2_vnni") == "avx2_vnni")
    _has_bf16 = _best in ("avx512_core_bf16", "avx512_core_amx")
    _has_amx = _best == "avx512_core_amx"
else:
    _flags = _host_flags
    _has_avx2 = " avx2 " in _flags and " fma " in _flags
    _has_avx_vnni = _has_avx2 and " avx_vnni " in _flags
    _has_bf16 = " avx512_bf16 " in _flags or " amx_bf16 " in _flags
    _has_amx = " amx_tile " in _flags
# Whether this CPU multiplies bf16 natively (AVX512-BF16 or AMX): oneDNN's
# bf16 primitives with a bf16 output may then block their sums differently
# from the f32-output ones, so bf16 chains match the unchained build within
# rounding rather than bit for bit (test/Tools/opscope-compile/bf16-chains.test).
# ... within the ISA cap the tools run under: a cap below avx512_core_bf16
# runs the bf16 products on f32 kernels.
_cap = (os.environ.get("OPSCOPE_MAX_ISA") or
        os.environ.get("DNNL_MAX_CPU_ISA") or "all").lower()
_native_bf16 = _has_bf16 and _cap in ("avx512_core_bf16", "avx512_core_amx", "all")
# Whether the CPU has AVX2 and FMA, the tier OPSCOPE_MAX_ISA=avx2 then
# gives (tests of that tier's own kernels REQUIRE it).
if _has_avx2:
    config.available_features.add("cpu-avx2")
# Whether it has AVX-VNNI besides, the tier OPSCOPE_MAX_ISA=avx2_vnni then
# gives (avx2-vnni.test REQUIRES it).
if _has_avx_vnni:
    config.available_features.add("cpu-avx-vnni")
# Whether it has AMX (isa-cap.test checks the trace header's level).
config.substitutions.append(("%cpu_amx", str(_has_amx)))
# Tests whose expectations hold at any vector tier (the sparse kernels'
# auto rule, which keeps scalar kernels dense below AVX2) prefix the tools
# with %at_vector_tier: nothing where the tier in force is at least AVX2,
# the avx2 cap where an outer cap is below it (OPSCOPE_MAX_ISA=sse41 on an
# AVX2 CPU). %other_tier_cap is a cap that gives another tier than the one
# in force (sse41, or avx2 under an outer cap below AVX2). Both assume an
# AVX2 CPU (these tests failed without one before, as they do now).
_below_avx2 = _cap == "sse41"
config.substitutions.append(
    ("%at_vector_tier", "env OPSCOPE_MAX_ISA=avx2 DNNL_MAX_CPU_ISA=avx2" if _below_avx2 else ""))
config.substitutions.append(("%other_tier_cap", "avx2" if _below_avx2 else "sse41"))
# Whether --bf16-chains auto carries chains here (bf16-chains.test).
config.substitutions.append(("%bf16_chains_auto", "ON" if _native_bf16 else "OFF"))
# The Python API's extension (python/src): built unless configured off, as
# the sanitizer build does (an ASan module cannot load into python3).
if config.opscope_python_extension.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("python-extension")
# ONNX Runtime (npm onnxruntime-node, installed by scripts/install-deps.sh).
config.substitutions.append(
    ("%ort_run", "node " + os.path.join(config.opscope_src_root, "scripts", "ort_run.js")))
# Whether ONNX Runtime's u8 x s8 GEMMs are exact on this host (it runs
# natively, under no cap or emulator): without VNNI (AVX512-VNNI,
# AVX-VNNI) or AMX, MLAS multiplies them with vpmaddubsw, whose 16-bit
# pair sums saturate (ONNX Runtime's quantization documentation). On an
# AVX2-only AMD EPYC Zen 3 make-qdq.test's MLP came out 0.036 off the exact
# QDQ result there (opscope: 6e-8); tests compare such models to
# ONNX Runtime only where this holds, and to an exact oracle everywhere.
if any(" %s " % f in _host_flags for f in ("avx512_vnni", "avx_vnni", "amx_int8")):
    config.available_features.add("ort-exact-u8s8")

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# OpenMP's idle threads sleep in tests (OMP_WAIT_POLICY=passive unless the
# environment sets a policy): by default libgomp spins each one some 300000
# times after every parallel region, and with ctest and lit running several
# tools at once on 2 cores the spinning took the CPU other tests needed
# (RuntimeSparseTests' f32 suite alone: 19.7 s of CPU spinning or working
# against 4.3 s working, scripts/run-tests.sh sets it for the gtests).
# Waking a sleeping thread costs microseconds; no test times it.
config.environment["OMP_WAIT_POLICY"] = os.environ.get("OMP_WAIT_POLICY", "passive")
# glibc's malloc advises its large blocks to transparent huge pages
# (Linux's `madvise` mode) in tests, unless the environment sets tunables:
# the tools map hundreds of megabytes of models, weights and arenas, and
# on this 2-vCPU VM the 4 KiB page faults of touching them were 40% of the
# suite's CPU (the native lit run: 822 s user, 556 s system; with huge
# pages 673 s and 414 s; docs/building.md). Results do not change.
config.environment["GLIBC_TUNABLES"] = os.environ.get("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1")
# The ISA cap reaches every tool a test runs (the avx2 ctest run sets it).
llvm_config.with_system_environment(["OPSCOPE_MAX_ISA", "DNNL_MAX_CPU_ISA"])
# Tests never read or write the user's cache: a tuning database in
# ~/.cache/opscope/tuning would change opscope-compile's kernel choices.
config.environment["OPSCOPE_CACHE_DIR"] = os.path.join(config.test_exec_root, "opscope-cache")
llvm_config.use_default_substitutions()

tool_dirs = [config.opscope_tools_dir, config.llvm_tools_dir]
tools = ["opscope-opt", "opscope-translate", "opscope-analyze", "opscope-compile",
         "opscope-run", "opscope-prune", "opscope-tune", "opscope-capi-example",
         "opscope-report", "opscope-bench", "opscope-profile", "opscope-sweep"]
# The tools that build a model or a database (the compiler side, the
# pruner and opscope-tune) depend on the CPU only through the tier cpu.h
# reads, which OPSCOPE_MAX_ISA sets exactly, and the CPU's name in the
# tuning database's file name. Under the emulator they run natively,
# capped at the emulated CPU's tier, where the host has that tier: the
# model they write is the same file byte for byte (opscope-compile emits
# baseline x86-64 whatever the tier), and the emulator ran them 5-10x
# slower, most of the emulated suite's time. opscope-tune and
# opscope-analyze (the what-if reads the database) go with them so that the
# database has the name the compiler looks for; the kernels opscope-tune
# times run emulated in the gtests and in every model opscope-run runs, and
# opscope-analyze --calibrate, which times the tier's own loops, still runs
# emulated. Each tool maps to the flags that keep it emulated.
_native_tools = {"opscope-opt": [], "opscope-translate": [],
                 "opscope-compile": [], "opscope-prune": [], "opscope-tune": [],
                 "opscope-analyze": ["--calibrate"]}
_levels = ["sse41", "avx2", "avx2_vnni", "avx512_core", "avx512_core_vnni",
           "avx512_core_bf16", "avx512_core_amx"]


def _native_wrapper(real, best, emulated_flags):
    """A script that runs `real` natively at the emulated CPU's tier
    `best` (a cap the test sets at or below it stays, any other becomes
    it), or emulated when an argument is one of `emulated_flags`."""
    keep = "|".join(_levels[:_levels.index(best) + 1])
    emulated = ""
    if emulated_flags:
        emulated = ('for a in "$@"; do case "$a" in %s) exec %s "$@" ;; esac; done\n'
                    % ("|".join(f + "|" + f + "=*" for f in emulated_flags),
                       shlex.join(_emulator + [real])))
    return ("#!/bin/sh\n" + emulated +
            "cap=$(printf %%s \"${OPSCOPE_MAX_ISA:-$DNNL_MAX_CPU_ISA}\" | tr A-Z a-z)\n"
            "case \"$cap\" in\n"
            "  %s) ;;\n"
            "  *) export OPSCOPE_MAX_ISA=%s; unset DNNL_MAX_CPU_ISA ;;\n"
            "esac\n"
            "exec %s \"$@\"\n" % (keep, best, shlex.quote(real)))


if _emulator:
    # Under the emulator each tool is a script that runs it there, so a
    # tool handed to another as a path (--run) runs emulated too, and the
    # tools start their siblings (opscope-compile on a cache miss,
    # opscope-tune) from there (OPSCOPE_TOOL_DIR). Scripts among the tools
    # (opscope-sweep, Python) run natively: the emulator loads ELF only.
    # _native_tools run natively at the emulated tier where this host
    # (/proc/cpuinfo) has every feature of it.
    _host_has = {
        "sse41": True,
        "avx2": " avx2 " in _host_flags and " fma " in _host_flags,
        "avx2_vnni": " avx2 " in _host_flags and " avx_vnni " in _host_flags,
    }
    _native_ok = _host_has.get(_best, False)
    _wrappers = os.path.join(config.test_exec_root, "emulated-bin")
    os.makedirs(_wrappers, exist_ok=True)
    for t in tools:
        _real = os.path.join(config.opscope_tools_dir, t)
        try:
            with open(_real, "rb") as f:
                _elf = f.read(4) == b"\x7fELF"
        except OSError:
            _elf = True  # not built: the wrapper fails as the tool would
        _path = os.path.join(_wrappers, t)
        with open(_path, "w") as f:
            if _elf and _native_ok and t in _native_tools:
                f.write(_native_wrapper(_real, _best, _native_tools[t]))
            else:
                f.write("#!/bin/sh\nexec %s \"$@\"\n" % shlex.join(
                    (_emulator if _elf else []) + [_real]))
        os.chmod(_path, 0o755)
    tool_dirs.insert(0, _wrappers)
    config.environment["OPSCOPE_TOOL_DIR"] = _wrappers
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
