#!/usr/bin/env python3
"""Each helper the tools and the runtime share is defined in one place
(issue 36, "Repeated helpers"): a second copy fails, naming it.

  check_one_helper.py REPO

Scans the C++ sources under runtime/, lib/ and tools/ for each helper's
definition pattern and requires exactly its one home. Prints one line per
helper; exits 1 if any has another definition or has lost its home.
"""
import glob
import os
import re
import sys

# helper: (definition pattern, its one home)
HELPERS = {
    "atomic file write (a temporary renamed into place)":
        (r'\+ "\.tmp[."]', "runtime/include/opscope/runtime/file_output.h"),
    "a tool's error line (tools::ErrorReporter, not a fail() of its own)":
        (r'^\s*(static\s+)?int\s+fail\(const std::string', None),
    "fixed(v, digits)":
        (r'std::string\s+fixed\(double', "runtime/include/opscope/runtime/text.h"),
    "openUnitRatio()":
        (r'CLI::Validator\s+openUnitRatio\(\)\s*\{', "tools/common/ToolCommon.h"),
    "the ISA tier names":
        (r'"avx512_core_vnni"', "runtime/include/opscope/runtime/cpu.h"),
}


def run(root):
    files = []
    for top in ("runtime", "lib", "tools"):
        for ext in ("cpp", "h"):
            files += glob.glob(os.path.join(root, top, "**", "*." + ext), recursive=True)
    bad = 0
    for name, (pattern, home) in HELPERS.items():
        rx = re.compile(pattern, re.M)
        sites = []
        for path in sorted(files):
            text = open(path, errors="replace").read()
            for m in rx.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                sites.append("%s:%d" % (os.path.relpath(path, root), line))
        want = [home] if home else []
        homes = [s.rsplit(":", 1)[0] for s in sites]
        if homes == want:
            print("ok %s: %s" % (name, home or "no copies"))
        else:
            bad += 1
            print("FAILED %s: defined at %s; its one home is %s" % (
                name, ", ".join(sites) or "nowhere", home or "none (use the shared one)"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1]))
