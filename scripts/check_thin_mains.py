#!/usr/bin/env python3
"""Fails when a tool's main() grows past its limit (docs/architecture.md,
"Tools over libraries"): the work belongs in the tool's library.

  check_thin_mains.py REPO [--max-lines 80]

Prints each tool's main() length; exits 1 naming every one over the limit
or any tool whose main() it cannot find.
"""
import argparse
import glob
import os
import re
import sys


def main_length(path):
    """Lines from `int main(` to the closing brace in column 0, or None."""
    lines = open(path).read().split("\n")
    for i, line in enumerate(lines):
        if re.match(r"int main\(", line):
            for j in range(i + 1, len(lines)):
                if lines[j] == "}":
                    return j - i + 1
    return None


def run():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--max-lines", type=int, default=80)
    args = parser.parse_args()
    mains = sorted(glob.glob(os.path.join(args.root, "tools", "*", "opscope-*.cpp")))
    if not mains:
        print("no tool mains under %s/tools" % args.root)
        return 1
    bad = 0
    for path in mains:
        rel = os.path.relpath(path, args.root)
        n = main_length(path)
        if n is None:
            print("%s: no main()" % rel)
            bad += 1
        elif n > args.max_lines:
            print("%s: main() is %d lines (limit %d): move its work into the "
                  "tool's library" % (rel, n, args.max_lines))
            bad += 1
        else:
            print("%s: main() %d lines" % (rel, n))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(run())
