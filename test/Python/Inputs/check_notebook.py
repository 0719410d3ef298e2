"""Checks an executed notebook (test/Python/notebook.test):

  check_notebook.py EXECUTED.ipynb SCRIPT.py

Every code cell ran without an error output; the profiling block (the cell
that opens opscope.profile) is the text of SCRIPT.py's block, between its
"--- the profiling block" and "--- end of the block ---" comments, dedented;
the plots were drawn. Prints one line per check.
"""
import re
import sys
import textwrap

import nbformat


def main(notebook, script):
    nb = nbformat.read(notebook, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    for i, cell in enumerate(code):
        if cell.get("execution_count") is None:
            sys.exit("code cell %d did not run" % i)
        for out in cell.outputs:
            if out.output_type == "error":
                sys.exit("code cell %d failed: %s: %s" % (i, out.ename, out.evalue))
    print("%d code cells ran, no errors" % len(code))
    with open(script) as f:
        m = re.search(r"\n( *)# --- the profiling block[^\n]*\n(.*?)\n\1# --- end of the block ---",
                      f.read(), re.S)
    if not m:
        sys.exit("%s has no marked profiling block" % script)
    block = textwrap.dedent(m.group(2)).strip()
    cells = [c for c in code if "opscope.profile(" in c.source]
    if len(cells) != 1:
        sys.exit("expected one cell opening opscope.profile, found %d" % len(cells))
    if cells[0].source.strip() != block:
        sys.exit("the notebook's profiling block differs from %s's:\n%s\n---\n%s"
                 % (script, cells[0].source.strip(), block))
    print("the profiling block is the script's")
    printed = "".join(o.get("text", "") for o in cells[0].outputs if o.output_type == "stream")
    for metric in ("iterations", "latency_p50", "op_events"):
        if not re.search(r"^%s\s" % metric, printed, re.M):
            sys.exit("the block's print_summary() printed no %s:\n%s" % (metric, printed))
    print("the block printed the summary")
    plots = sum("image/png" in o.get("data", {}) for c in code for o in c.outputs)
    print("%d plots" % plots)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
