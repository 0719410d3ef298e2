# -*- Python -*- lit configuration for opscope.

import os

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
# Whether this CPU multiplies bf16 natively (AVX512-BF16 or AMX): oneDNN's
# bf16 primitives with a bf16 output may then block their sums differently
# from the f32-output ones, so bf16 chains match the unchained build within
# rounding rather than bit for bit (test/Tools/opscope-compile/bf16-chains.test).
try:
    with open("/proc/cpuinfo") as f:
        _flags = f.read()
except OSError:
    _flags = ""
_native_bf16 = "avx512_bf16" in _flags or "amx_bf16" in _flags
# ... within the ISA cap the tools run under: a cap below avx512_core_bf16
# runs the bf16 products on f32 kernels.
_cap = (os.environ.get("OPSCOPE_MAX_ISA") or
        os.environ.get("DNNL_MAX_CPU_ISA") or "all").lower()
if _cap not in ("avx512_core_bf16", "avx512_core_amx", "all"):
    _native_bf16 = False
# Whether the CPU has AVX2 and FMA, the tier OPSCOPE_MAX_ISA=avx2 then
# gives (tests of that tier's own kernels REQUIRE it).
_cpu_avx2 = " avx2 " in _flags and " fma " in _flags
if _cpu_avx2:
    config.available_features.add("cpu-avx2")
# Whether it has AVX-VNNI besides, the tier OPSCOPE_MAX_ISA=avx2_vnni then
# gives (avx2-vnni.test REQUIRES it).
if _cpu_avx2 and " avx_vnni " in _flags:
    config.available_features.add("cpu-avx-vnni")
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
# ONNX Runtime (npm onnxruntime-node, installed by scripts/install-deps.sh).
config.substitutions.append(
    ("%ort_run", "node " + os.path.join(config.opscope_src_root, "scripts", "ort_run.js")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
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
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
