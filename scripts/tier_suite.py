#!/usr/bin/env python3
"""Runs one of `make test`'s tier suites (a lit run or a gtest binary under
OPSCOPE_MAX_ISA, or on the emulated AVX2 CPU) unless the tier it would test
is the one the native run already tests on this host.

Usage: tier_suite.py [--emulator WORDS] OPSCOPE_RUN -- COMMAND [ARGS...]

The tier each run tests is what `opscope-run --version` reports (", oneDNN
LEVEL", cpu.h's reading of CPUID under the caps in force): once with the
environment ctest gives this test (its OPSCOPE_MAX_ISA, or the emulator in
front: --emulator's words for a gtest binary's emulated run, else lit's
OPSCOPE_TEST_EMULATOR), once with neither. When the two
agree (an AVX2-only CPU under OPSCOPE_MAX_ISA=avx2, or an EPYC-Milan host
emulating an EPYC-Milan), the suite would repeat the native run bit for
bit: it prints why and exits 77, which ctest reports as skipped
(SKIP_RETURN_CODE in test/CMakeLists.txt and unittests/CMakeLists.txt).
Otherwise it runs COMMAND and exits with its status.
"""

import os
import re
import shlex
import subprocess
import sys

SKIP = 77
CAPS = ("OPSCOPE_MAX_ISA", "DNNL_MAX_CPU_ISA")


def level(run, env, emulator):
    cmd = emulator + [run, "--version"]
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True,
                             timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        sys.exit("tier_suite.py: cannot run %s: %s" % (shlex.join(cmd), e))
    m = re.search(r", oneDNN (\w+)", out.stdout)
    if out.returncode != 0 or not m:
        sys.exit("tier_suite.py: cannot read the tier from %s: %s%s"
                 % (shlex.join(cmd), out.stdout, out.stderr))
    return m.group(1)


def main(argv):
    args = argv[1:]
    emulator = shlex.split(os.environ.get("OPSCOPE_TEST_EMULATOR", ""))
    if len(args) >= 2 and args[0] == "--emulator":
        emulator = shlex.split(args[1])
        args = args[2:]
    if len(args) < 3 or args[1] != "--":
        sys.stderr.write("usage: tier_suite.py [--emulator WORDS] OPSCOPE_RUN"
                         " -- COMMAND [ARGS...]\n")
        return 2
    run, command = args[0], args[2:]
    here = level(run, dict(os.environ), emulator)
    native_env = {k: v for k, v in os.environ.items() if k not in CAPS}
    native = level(run, native_env, [])
    if here == native:
        cause = ("on the emulated CPU" if emulator else
                 "under " + " ".join("%s=%s" % (k, os.environ[k])
                                     for k in CAPS if k in os.environ))
        print("tier_suite.py: skipped: the tier %s is %s, this host's own "
              "tier, which the native run already tests" % (cause, here))
        return SKIP
    sys.stdout.flush()
    os.execvp(command[0], command)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
