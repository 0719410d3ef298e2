#!/usr/bin/python3
"""Prints the slowest tests of the last `make test` (ctest) run.

  slowest_tests.py BUILD_DIR [-n N]

Reads ctest's log of the last run (BUILD_DIR/Testing/Temporary/LastTest.log:
each ctest test's wall time) and the xUnit files the lit suites write
(BUILD_DIR/test/results/*.xml: each lit test's time in that suite's run,
labelled with the suite: lit, lit-avx2, ...), and prints the N slowest
(default 10) of both kinds together, lit suites themselves left out (their
tests are listed instead). Exit 0 (also when a file is missing: it says so),
2 on a usage error.
"""
import argparse
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET


def ctest_times(build):
    path = os.path.join(build, "Testing", "Temporary", "LastTest.log")
    out = []
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return None
    # Each test's block: '<n>/<m> Test: NAME' ... 'Test time =   12.34 sec'.
    for m in re.finditer(r"^\d+/\d+ Test: (.+?)\n.*?^\"?Test time =\s*([0-9.]+) sec",
                         text, re.M | re.S):
        out.append((float(m.group(2)), "ctest", m.group(1).strip()))
    return out


def lit_times(build):
    out = []
    for path in sorted(glob.glob(os.path.join(build, "test", "results", "*.xml"))):
        suite = os.path.splitext(os.path.basename(path))[0]
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError):
            continue
        for case in root.iter("testcase"):
            name = case.get("name", "")
            cls = case.get("classname", "")
            # classname "opscope.Tools/opscope-run", name "run.test"; a test
            # at the suite's top has the suite's name twice ("opscope.opscope").
            suite_name, _, folder = cls.partition(".")
            if folder == suite_name:
                folder = ""
            out.append((float(case.get("time", "0")), suite,
                        (folder + "/" + name) if folder else name))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("-n", type=int, default=10)
    a = ap.parse_args()
    ctest = ctest_times(a.build)
    if ctest is None:
        print("slowest tests: no ctest log in %s" % a.build)
        return 0
    lit = lit_times(a.build)
    lit_suites = {suite for _, suite, _ in lit}
    rows = [r for r in ctest if r[2] not in lit_suites] + lit
    rows.sort(reverse=True)
    print("The %d slowest tests (wall seconds; lit tests by the suite that ran them):"
          % min(a.n, len(rows)))
    for t, where, name in rows[:a.n]:
        print("  %7.1f  %-18s %s" % (t, where, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
