#!/usr/bin/python3
"""Compiles every translation unit of a CMake build with clang-19, as far as
LLVM IR, so that code GCC accepts but clang rejects cannot land (ctest's
`clang-compile`, docs/building.md). The project builds with GCC; the
sanitizer and fuzzing build (`make check-sanitize`, `make fuzz`) with clang.

  check_clang.py [--jobs N] [--exclude PREFIX ...] COMPILE_COMMANDS.json ...

Each command of the compile databases runs again with clang++-19 (clang-19
for C), its output sent to /dev/null: `-S -emit-llvm -O0`, so clang's code
generation checks run too (an intrinsic inlined into a function without its
target feature is diagnosed there, not by -fsyntax-only), without the cost
of optimising. Warnings are GCC's business in the real build and are
silenced here; errors are printed with the file that failed. Exit 1 if any
file fails, 2 on a usage error.

Each compile goes through ccache where it is installed (--no-cache: not),
with its paths taken relative to --base-dir (default: the current
directory's git checkout), so an unchanged file is not compiled again, not
even in a fresh clone at another path: a file whose source, headers, flags
or compiler changed is a cache miss and compiles. Failed compiles are never
cached. The IR goes to a temporary file that is deleted (ccache does not
cache output to /dev/null); compressed, the cache holds about 60 MB.

The files of one target share their flags, and most of their compile time
is parsing the same LLVM, MLIR, GoogleTest and CLI11 headers (7-10 s of a
file's 8-11 s for the compiler's passes and importer). Each such group of
three or more files gets a clang precompiled header of the system headers
(those found on an -isystem path or in /usr/include, never the project's)
that at least half of its files include, and each file compiles with
`-include-pch` (--no-pch: not). A file that fails with it compiles again
without it, and only that result counts. The header and its PCH live in a
folder named by a hash of their flags and text under the temporary
directory, and the PCH is built there with clang's timestamps off, so
every clone builds the same bytes and ccache's cached compiles of a fresh
clone still hit (sloppiness pch_defines and time_macros, as ccache's
manual asks for precompiled headers). A header a file forgot to include
and the PCH brings in is left to the GCC build, which uses no PCH.
"""
import argparse
import collections
import concurrent.futures
import hashlib
import re
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

# Flags GCC accepts and clang rejects (LLVM's CMake adds the first for GCC;
# CMake the second with a precompiled header).
GCC_ONLY = {"-fno-lifetime-dse", "-Winvalid-pch"}


def is_cmake_pch(path):
    return os.path.basename(path).startswith("cmake_pch.")


def command_args(entry):
    return entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])


def without(args, drop, drop_with_value):
    """`args` without the flags in `drop` and without those in
    `drop_with_value` (a predicate of a flag and its value) and their value."""
    out, i = [], 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if nxt is not None and drop_with_value(a, nxt):
            i += 2
            continue
        if a not in drop:
            out.append(a)
        i += 1
    return out


def clang_command(entry, output=os.devnull):
    args = command_args(entry)
    cxx = args[0].endswith("++") or entry["file"].endswith((".cpp", ".cc", ".cxx"))
    # CMake's GCC PCH (OPSCOPE_PCH) is left out: each file on its own.
    rest = without(args[1:], GCC_ONLY, lambda a, v: a == "-o" or (
        a == "-include" and is_cmake_pch(v)))
    rest = [a for a in rest if not a.startswith("-fdiagnostics-color")]
    return ["clang++-19" if cxx else "clang-19"] + rest + [
        "-S", "-emit-llvm", "-O0", "-o", output, "-w", "-fno-color-diagnostics"]


CCACHE_SLOPPINESS = "pch_defines,time_macros,include_file_mtime,include_file_ctime"
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def group_flags(entry):
    """The entry's flags without its source and output: what the files of
    one CMake target share."""
    return tuple(without(command_args(entry), {"-c", entry["file"]},
                         lambda a, v: a == "-o"))


def pch_flags(flags):
    """The flags a PCH of system headers needs: the compiler, language,
    defines and system include paths, not the checkout's -I paths (so the
    PCH is the same in every clone)."""
    out, it = [flags[0]], iter(flags[1:])
    for a in it:
        if a in ("-isystem", "-D", "-U", "-include"):
            v = next(it, "")
            if a != "-include":  # a file's forced header is its own
                out += [a, v]
        elif a.startswith(("-D", "-U", "-std=", "-f", "-m")) and a not in GCC_ONLY \
                and not a.startswith("-fdiagnostics-color"):
            out.append(a)
    return out


def system_dirs(flags):
    dirs = [flags[i + 1] for i, a in enumerate(flags[:-1]) if a == "-isystem"]
    return dirs + ["/usr/include"]


def local_dirs(entry, flags):
    dirs = [a[2:] for a in flags if a.startswith("-I") and len(a) > 2]
    dirs += [flags[i + 1] for i, a in enumerate(flags[:-1]) if a == "-I"]
    return [os.path.join(entry["directory"], d) for d in dirs] + [
        os.path.dirname(os.path.join(entry["directory"], entry["file"]))]


def ninja_deps(build_dir):
    """Every object's headers as ninja recorded them in the GCC build
    (`ninja -t deps`), by the object's path relative to `build_dir`; {} where
    there is no such record."""
    try:
        p = subprocess.run(["ninja", "-C", build_dir, "-t", "deps"],
                           capture_output=True, text=True)
    except OSError:
        return {}
    deps, cur = {}, None
    for line in p.stdout.splitlines():
        if line and not line[0].isspace():
            cur = deps.setdefault(line.split(":", 1)[0], [])
        elif line.strip() and cur is not None:
            cur.append(line.strip())
    return deps


def output_of(entry):
    args = command_args(entry)
    return args[args.index("-o") + 1] if "-o" in args else None


def pch_header(entries, flags, deps):
    """The system headers (found on an -isystem path or in /usr/include, or
    a standard library header) that the project's own files include
    directly, for at least half of `entries`, in first-seen order: the
    files' own includes and, through `deps`, their project headers'."""
    count, order = collections.Counter(), []
    sysdirs = system_dirs(flags)
    texts = {}

    def includes(path):
        if path not in texts:
            try:
                with open(path, errors="replace") as f:
                    texts[path] = INCLUDE.findall(f.read())
            except OSError:
                texts[path] = []
        return texts[path]

    for e in entries:
        src = os.path.join(e["directory"], e["file"])
        recorded = deps.get(output_of(e))
        files = [src] + [d for d in recorded or []
                         if not d.startswith("/usr/") and d != src
                         and not is_cmake_pch(d)]
        names = {}  # ordered: the PCH's text must not depend on hashing
        for path in files:
            here = [os.path.dirname(path)] + local_dirs(e, flags)
            for kind, name in includes(path):
                if recorded is None and not name.endswith((".inc", ".def")):
                    # No record of the GCC build (runtime-standalone only
                    # configures): follow the project's headers by name.
                    found = [os.path.normpath(os.path.join(d, name)) for d in
                             (here if kind == '"' else here[1:])]
                    found = [f for f in found if os.path.isfile(f)]
                    if found and found[0] not in files:
                        files.append(found[0])
                if name.endswith((".inc", ".def")):
                    continue
                if kind == '"' and any(os.path.exists(os.path.join(d, name)) for d in here):
                    continue
                if (kind == "<" and "." not in name) or \
                        any(os.path.exists(os.path.join(d, name)) for d in sysdirs):
                    names.setdefault(name)
        for name in names:
            if name not in count:
                order.append(name)
            count[name] += 1
    need = max(2, (len(entries) + 1) // 2)
    return [n for n in order if count[n] >= need]


def pch_root():
    return os.path.join(tempfile.gettempdir(), "opscope-clang-pch-%d" % os.getuid())


def prune_pchs(days=7):
    """Deletes the PCH folders no run has used for `days` days (a change of
    flags or headers leaves its old PCH behind, some 40 MB each)."""
    root = pch_root()
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        path = os.path.join(root, name)
        try:
            if time.time() - os.stat(path).st_mtime > days * 86400:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass


def build_pch(flags, headers, ccache):
    """Builds (or, through ccache, restores) the PCH of `headers` for files
    compiled with `flags`; returns its path, or None if it does not build."""
    cxx = "clang++-19"
    args = pch_flags(flags)[1:]
    text = "".join("#include <%s>\n" % h for h in headers)
    key = hashlib.sha1(("\0".join(args) + "\0" + text).encode()).hexdigest()[:16]
    folder = os.path.join(pch_root(), key)
    os.makedirs(folder, exist_ok=True)
    os.utime(folder)  # in use: prune_pchs keeps it
    header = os.path.join(folder, "pch.hxx")
    if not os.path.exists(header):
        tmp = header + ".%d" % os.getpid()
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, header)
    pch = header + ".pch"
    fd, tmp = tempfile.mkstemp(suffix=".pch", dir=folder)
    os.close(fd)
    cmd = [cxx] + [a for a in args if a not in GCC_ONLY] + [
        "-w", "-O0", "-x", "c++-header", "-Xclang", "-fno-pch-timestamp",
        "pch.hxx", "-o", tmp]
    env = None
    if ccache:
        cmd = [ccache] + cmd
        env = dict(os.environ, CCACHE_BASEDIR=folder, CCACHE_SLOPPINESS=CCACHE_SLOPPINESS)
    p = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, env=env)
    if p.returncode:
        os.unlink(tmp)
        return None
    os.replace(tmp, pch)
    return pch


def check(entry, ccache=None, base_dir=None, scratch=None, pch=None):
    start = time.monotonic()
    rc, err = compile_one(entry, ccache, base_dir, scratch, pch)
    if rc and pch:
        rc, err = compile_one(entry, ccache, base_dir, scratch, None)
    return entry["file"], rc, err, time.monotonic() - start


def compile_one(entry, ccache, base_dir, scratch, pch):
    env = None
    extra = ["-include-pch", pch] if pch else []
    if ccache:
        fd, output = tempfile.mkstemp(suffix=".ll", dir=scratch)
        os.close(fd)
        cmd = [ccache] + clang_command(entry, output) + extra
        env = dict(os.environ, CCACHE_BASEDIR=base_dir)
        if pch:
            env["CCACHE_SLOPPINESS"] = CCACHE_SLOPPINESS
    else:
        output = None
        cmd = clang_command(entry) + extra
    try:
        p = subprocess.run(cmd, cwd=entry["directory"], capture_output=True,
                           text=True, env=env)
    finally:
        if output:
            os.unlink(output)
    return p.returncode, p.stderr


def git_root():
    p = subprocess.run(["git", "rev-parse", "--show-toplevel"],
                       capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else os.getcwd()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--exclude", action="append", default=[],
                    help="skip files under this path (repeatable)")
    ap.add_argument("--no-cache", action="store_true",
                    help="compile every file, without ccache")
    ap.add_argument("--no-pch", action="store_true",
                    help="compile every file without a precompiled header")
    ap.add_argument("--base-dir", help="paths under it are hashed relative "
                    "(default: the git checkout of the current directory)")
    ap.add_argument("databases", nargs="+")
    a = ap.parse_args()
    entries, seen = [], set()
    for db in a.databases:
        try:
            with open(db) as f:
                items = json.load(f)
        except (OSError, ValueError) as e:
            print("check_clang.py: error: %s: %s" % (db, e), file=sys.stderr)
            return 1
        for e in items:
            path = os.path.realpath(os.path.join(e["directory"], e["file"]))
            if is_cmake_pch(path):
                continue  # CMake's PCH of a target (OPSCOPE_PCH), not a file
            if path in seen or any(path.startswith(os.path.realpath(x)) for x in a.exclude):
                continue
            seen.add(path)
            entries.append(e)
    if not entries:
        print("check_clang.py: error: no files to compile in " + " ".join(a.databases),
              file=sys.stderr)
        return 1
    ccache = None if a.no_cache else shutil.which("ccache")
    base_dir = os.path.realpath(a.base_dir or git_root())
    start = time.monotonic()
    groups = collections.OrderedDict()
    for e in entries:
        groups.setdefault(group_flags(e), []).append(e)
    todo = []  # (flags, headers) of the groups that get a PCH
    if not a.no_pch:
        prune_pchs()
    deps = {} if a.no_pch else ninja_deps(os.path.dirname(os.path.abspath(a.databases[0])))
    for flags, members in groups.items():
        cxx = flags[0].endswith("++") or members[0]["file"].endswith((".cpp", ".cc", ".cxx"))
        headers = pch_header(members, flags, deps) if cxx and len(members) >= 3 and not a.no_pch else []
        if headers:
            todo.append((flags, headers))
    failed = 0
    with tempfile.TemporaryDirectory(prefix="check-clang-") as scratch, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        pchs = dict(zip((f for f, _ in todo),
                        pool.map(lambda t: build_pch(t[0], t[1], ccache), todo)))
        jobs = [(e, pchs.get(group_flags(e))) for e in entries]
        for path, rc, err, _ in pool.map(
                lambda j: check(j[0], ccache, base_dir, scratch, j[1]), jobs):
            if rc:
                failed += 1
                print("clang-19 rejects %s:\n%s" % (path, err.rstrip()), flush=True)
    used = sum(1 for p in pchs.values() if p)
    print("clang-19: %d files compiled to LLVM IR, %d failed, %.0f s (%d jobs, %s; "
          "%d of %d flag groups with a precompiled header)"
          % (len(entries), failed, time.monotonic() - start, a.jobs,
             "through ccache, base %s" % base_dir if ccache else "no cache",
             used, len(groups)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
