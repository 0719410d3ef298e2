#!/usr/bin/env python3
"""Every attribute name the runtime's kernel factories read is in attrs.def.

  check_attr_names.py REPO

Scans runtime/lib/model/bindings/*.cpp and OpContext.h for OpContext
accessor calls with a literal name (c.intAttr("axis"), c.flag("nhwc"),
c.enumAttr<PoolKind>("kind"), ...) and checks that attrs.def lists each
name as an OPSCOPE_OP_ATTR of some kind. OpContext refuses, at load, a
name attrs.def does not list for the op's kind; this finds a missing name
without loading a model that uses the op. Exits 1 naming each.
"""
import glob
import os
import re
import sys

CALL = re.compile(r'\b(?:intAttr|floatAttr|flag|str|ints|strings|floats|attr|'
                  r'hasAttr|enumAttr<\w+>)\("([a-z_0-9]+)"')
ENTRY = re.compile(r'^OPSCOPE_OP_ATTR\(\w+, "([a-z_0-9]+)"\)', re.M)


def run(root):
    listed = set(ENTRY.findall(open(os.path.join(
        root, "runtime/include/opscope/runtime/attrs.def")).read()))
    files = sorted(glob.glob(os.path.join(root, "runtime/lib/model/bindings/*.cpp")))
    files.append(os.path.join(root, "runtime/lib/model/OpContext.h"))
    read, missing = set(), []
    for path in files:
        for n, line in enumerate(open(path), 1):
            for name in CALL.findall(line):
                read.add(name)
                if name not in listed:
                    missing.append("%s:%d: reads '%s', which attrs.def does not list"
                                   % (os.path.relpath(path, root), n, name))
    for m in missing:
        print(m)
    print("attribute names: %d read by the bindings, %d listed in attrs.def, %d missing"
          % (len(read), len(listed), len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1]))
