"""Checks what opscope-bench wrote: the CSV (pandas-readable, one row per
cell of the grid, typed columns, ratios equal to opscope_ms / ort_ms of the
round medians' spread) and the HTML chart (self-contained; in headless
Chromium with every host unresolvable: no console message, N charts drawn,
the table equal to the CSV cell for cell; a screenshot).

  check_bench.py GRID.csv GRID.html --cells N --charts N --browser CHROMIUM
                 --screenshot OUT.png
"""
import argparse
import csv
import html.parser
import os
import re
import subprocess
import sys

import pandas as pd


def fail(message):
    # stdout goes to FileCheck, which hides it when the checks before
    # passed: say it on stderr too, where lit shows it.
    print("FAIL: " + message)
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.body, self.rows, self.cell, self.inside = {}, [], None, False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.body = attrs
        elif tag == "table" and attrs.get("class") == "bench":
            self.inside = True
        elif tag == "tr" and self.inside:
            self.rows.append([])
        elif tag in ("td", "th") and self.inside:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None
        elif tag == "table":
            self.inside = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("html")
    ap.add_argument("--cells", type=int, required=True)
    ap.add_argument("--charts", type=int, required=True)
    ap.add_argument("--browser", required=True)
    ap.add_argument("--screenshot", required=True)
    a = ap.parse_args()

    df = pd.read_csv(a.csv)
    if len(df) != a.cells:
        fail("%d rows, expected %d cells" % (len(df), a.cells))
    for col in ("batch", "rounds", "iterations", "threads"):
        if df[col].dtype.kind != "i":
            fail("column %s is %s, not integer" % (col, df[col].dtype))
    for col in ("opscope_ms", "samples_per_s"):
        if not (df[col] > 0).all():
            fail("column %s has non-positive values" % col)
    if not ((df["opscope_round_min_ms"] <= df["opscope_ms"]) &
            (df["opscope_ms"] <= df["opscope_round_max_ms"])).all():
        fail("a median outside its rounds' range")
    if abs(df["samples_per_s"] - 1000.0 * df["batch"] / df["opscope_ms"]).max() > 0.05 * df["samples_per_s"].max():
        fail("samples_per_s is not batch / latency")
    if df["ort_ms"].notna().all():
        if not ((df["ratio_min"] <= df["ratio"]) & (df["ratio"] <= df["ratio_max"])).all():
            fail("a ratio outside its rounds' spread")
    if "speedup" in df and df["speedup"].notna().any():
        # A scaling curve (--threads 1,2): each shape's first thread count
        # is its own base, every speedup is that cell's median over this.
        for _, g in df.groupby(["precision", "batch", "seq"], dropna=False):
            first = g.sort_values("threads").iloc[0]
            if abs(first["speedup"] - 1.0) > 1e-9:
                fail("the first thread count's speedup is %s, not 1" % first["speedup"])
            if not (g["speedup"] > 0).all():
                fail("a non-positive speedup")
        print("ok: csv: speedups over the first thread count")
    print("ok: csv: %d cells, typed columns, ratios within their spread" % len(df))

    page = open(a.html, encoding="utf-8").read()
    if re.search(r'<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=', page, re.I):
        fail("the page references outside resources")
    chrome = [a.browser, "--headless", "--no-sandbox", "--disable-gpu",
              "--host-resolver-rules=MAP * ~NOTFOUND", "--hide-scrollbars"]
    url = "file://" + os.path.abspath(a.html)
    r = subprocess.run(chrome + ["--dump-dom", "--enable-logging=stderr", "--v=0", url],
                       capture_output=True, text=True, timeout=120)
    console = [l for l in r.stderr.splitlines() if "CONSOLE" in l]
    if r.returncode != 0 or console:
        fail("browser: exit %d, console: %s" % (r.returncode, console[:5]))
    dom = Dom()
    dom.feed(r.stdout)
    if dom.body.get("data-status") != "ok" or dom.body.get("data-errors"):
        fail("page status %r, errors %r" % (dom.body.get("data-status"), dom.body.get("data-errors")))
    if dom.body.get("data-charts") != str(a.charts) or dom.body.get("data-drawn") != str(a.charts):
        fail("page made %s charts and drew %s, expected %d" % (
            dom.body.get("data-charts"), dom.body.get("data-drawn"), a.charts))
    with open(a.csv, newline="") as f:
        want = list(csv.reader(f))
    if dom.rows != want:
        fail("the page's table differs from the CSV:\n%s\n%s" % (dom.rows[:3], want[:3]))
    print("ok: browser: no console message, status ok, %d charts, table equals the CSV" % a.charts)
    r = subprocess.run(chrome + ["--screenshot=" + a.screenshot, "--window-size=1200,2200", url],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or not os.path.getsize(a.screenshot):
        fail("screenshot: exit %d" % r.returncode)
    print("ok: screenshot %s" % a.screenshot)


if __name__ == "__main__":
    main()
