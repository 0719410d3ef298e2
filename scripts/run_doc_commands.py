#!/usr/bin/env python3
"""Runs every shell command the docs show, the way a reader would.

  run_doc_commands.py --root REPO --build BUILD --work DIR FILE.md ...

Each ```sh block of each file runs in order, line by line (backslash
continuations joined, trailing comments dropped), in one work directory
shared by all files, so a later block may use what an earlier one wrote.
The work directory holds `model.onnx` and `bert.onnx` (the BERT-mini corpus
model), and `build`, `scripts`, `examples`, `models` and `python` link to
the real ones (as do `test` and its inputs), so commands run verbatim whether they say
`build/bin/opscope-run` or `opscope-run` (the build's bin directory is on
PATH). A block preceded by
`<!-- not run by tests: REASON -->` is skipped and reported with its reason.
Prints one line per command with its wall time, the ten slowest, and a
summary; exits 1 if any command failed.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

SKIP = re.compile(r"<!--\s*not run by tests:\s*(.*?)\s*-->")


def blocks(path):
    """(skip reason or None, [commands]) for each ```sh block of a file."""
    lines = open(path).read().split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            reason = None
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            if j >= 0:
                m = SKIP.search(lines[j])
                if m:
                    reason = m.group(1)
            body = []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            out.append((reason, commands(body)))
        i += 1
    return out


def strip_comment(line):
    """The line without a trailing `# comment` outside quotes."""
    quote = None
    for k, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (k == 0 or line[k - 1].isspace()):
            return line[:k].rstrip()
    return line.rstrip()


def commands(body):
    cmds, cur = [], ""
    for raw in body:
        line = strip_comment(raw)
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        cur += line
        if cur.strip():
            cmds.append(" ".join(cur.split()))
        cur = ""
    return cmds


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--root", required=True)
    p.add_argument("--build", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("files", nargs="*",
                   help="default: README.md, then docs/*.md in name order")
    a = p.parse_args()
    if not a.files:
        docs = os.path.join(a.root, "docs")
        a.files = [os.path.join(a.root, "README.md")] + sorted(
            os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    root, build = os.path.abspath(a.root), os.path.abspath(a.build)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    model = os.path.join(build, "models", "bert-mini-opset14.onnx")
    for name in ("model.onnx", "bert.onnx"):
        shutil.copy(model, os.path.join(a.work, name))
    os.symlink(build, os.path.join(a.work, "build"))
    for d in ("scripts", "examples", "models", "python", "test"):
        os.symlink(os.path.join(root, d), os.path.join(a.work, d))
    env = dict(os.environ)
    env["PATH"] = os.path.join(build, "bin") + os.pathsep + env.get("PATH", "")
    env["OPSCOPE_CACHE_DIR"] = os.path.join(os.path.abspath(a.work), "cache")
    ran = failed = skipped = 0
    times = []
    for f in a.files:
        rel = os.path.relpath(f, root)
        for reason, cmds in blocks(f):
            if reason is not None:
                skipped += len(cmds)
                for c in cmds:
                    print("skipped %s: %s  (%s)" % (rel, c, reason))
                continue
            for c in cmds:
                start = time.monotonic()
                r = subprocess.run(["bash", "-o", "pipefail", "-c", c], cwd=a.work,
                                   env=env, capture_output=True, text=True)
                took = time.monotonic() - start
                times.append((took, rel, c))
                ran += 1
                if r.returncode == 0:
                    print("ok %s: %s  [%.1f s]" % (rel, c, took), flush=True)
                else:
                    failed += 1
                    print("FAILED %s (exit %d): %s  [%.1f s]" % (rel, r.returncode, c, took))
                    print((r.stdout + r.stderr)[-3000:])
    print("slowest doc commands:")
    for took, rel, c in sorted(times, reverse=True)[:10]:
        print("  %6.1f s  %s: %s" % (took, rel, c[:100]))
    print("doc commands: %d ran, %d failed, %d skipped" % (ran, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
