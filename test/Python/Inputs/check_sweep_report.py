"""Checks an `opscope-report --sweep` page against opscope.load_sweep and in a
browser.

  check_sweep_report.py PAGE.html RESULTS_DIR [--browser CHROMIUM --screenshot OUT.png]

1. The data the page draws from is the frame's: one points row per frame
   row with the same figures, the per-tier latency bars the fastest host's
   p50, and the best configuration of each workload on each tier the one
   pandas finds (lowest p50).
2. Browser: headless Chromium, every host name unresolvable, loads the page
   with no console message; status ok, both charts drawn, the tables in the
   DOM equal the data's cells; the screenshot has the first tier's colour.
Prints one line per check; exits 1 on the first failure.
"""
import argparse
import os
import re
import sys

import opscope

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "Tools", "opscope-report", "Inputs"))
from check_report import browse, data_of, fail, ok, screenshot  # noqa: E402


def cells(v, fmt):
    return "-" if v is None or v != v else fmt % v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("results")
    ap.add_argument("--browser")
    ap.add_argument("--screenshot")
    args = ap.parse_args()
    page = open(args.page, encoding="utf-8").read()
    if re.findall(r'<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=', page, re.I):
        fail("the page references outside resources")
    sweep = data_of(page)["sweep"]
    frame = opscope.load_sweep(args.results)

    # 1. The frame's figures, grouped as the page says.
    want = [[r["point"], r["tier"], r["host"], r["status"], cells(r["latency_p50_ms"], "%.3f"),
             cells(r["latency_p99_ms"], "%.3f"), cells(r["throughput_samples_per_s"], "%.1f"),
             r["top_ops"][0] if r["top_ops"] else "-",
             "" if r["status"] == "ok" else "%s: %s" % (r["stage"], r["error"])]
            for _, r in frame.iterrows()]
    if sweep["points"]["rows"] != want:
        fail("points table differs from the frame:\n%s\n%s" % (sweep["points"]["rows"], want))
    ok("points: %d rows, the frame's figures in the frame's order" % len(want))
    ran = frame[frame["status"] == "ok"]
    label = ran.apply(lambda r: "%s b%d%s \u00b7 %s" % (
        r["model"], r["batch"], "" if r["seq"] is None or r["seq"] != r["seq"] else
        " s%d" % r["seq"], r["configuration"]), axis=1)
    for tier, bars in sweep["latency_p50_ms"].items():
        for lab, v in zip(sweep["configurations"], bars):
            sel = ran[(ran["tier"] == tier) & (label == lab)]["latency_p50_ms"]
            if (v is None) != sel.empty or (v is not None and v != sel.min()):
                fail("latency bar %s on %s: %s, the frame's fastest %s" % (lab, tier, v,
                                                                          sel.min()))
    ok("latency bars: %d configurations x %d tiers, the fastest host's p50"
       % (len(sweep["configurations"]), len(sweep["latency_p50_ms"])))
    keys = ["tier", "model", "batch", "seq"]
    idx = ran.groupby(keys, dropna=False)["latency_p50_ms"].idxmin()
    best = sorted((r["tier"], r["point"]) for _, r in ran.loc[idx.values].iterrows())
    page_best = sorted((v["tier"], v["point"]) for v in sweep["best"]["values"])
    if best != page_best:
        fail("best configurations: page %s, pandas %s" % (page_best, best))
    ok("best configuration per workload and tier as pandas' idxmin: %s"
       % ", ".join("%s %s" % b for b in best))

    if not args.browser:
        return 0
    dom = browse(args.browser, args.page)
    body = dom.body
    if body.get("data-status") != "ok" or body.get("data-charts") != "2" or \
            body.get("data-drawn") != "2":
        fail("page status %r, charts %r, drawn %r, errors %r" % (
            body.get("data-status"), body.get("data-charts"), body.get("data-drawn"),
            body.get("data-errors")))
    ok("browser: no console message, status ok, 2 charts drawn")
    for cls, spec in (("sweep-best", sweep["best"]), ("sweep-points", sweep["points"])):
        if dom.tables.get(cls) != [spec["columns"]] + spec["rows"]:
            fail("table %s in the DOM differs:\n%s\n%s" % (cls, dom.tables.get(cls),
                                                           [spec["columns"]] + spec["rows"]))
    ok("tables in the DOM: best and points, cell for cell the data's")
    width, height, bpp, rows = screenshot(args.browser, args.page, args.screenshot, 1800)
    n = sum(1 for row in rows for x in range(0, len(row), bpp)
            if tuple(row[x:x + 3]) == (0x4e, 0x79, 0xa7))
    if n < 2000:
        fail("screenshot: %d pixels of the first tier's colour" % n)
    ok("screenshot %dx%d: %d pixels of the first tier's bars" % (width, height, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
