"""Checks an opscope-report page against opscope-analyze and in a browser.

  check_report.py REPORT.html --analyze BIN --trace T [--diff D] [--machine M]
                  --charts N [--browser CHROMIUM --screenshot OUT.png]

1. Offline: the page loads nothing (no src/href/url() references).
2. Figures: the data the page draws from is opscope-analyze's output for the
   same trace and options (JSON for the charts, markdown for the tables),
   compared exactly; the histogram holds the selected iterations.
3. Browser: headless Chromium, with every host name unresolvable, loads the
   page with no console message; the page reports status ok and N charts;
   its tables' cells are the analyzer's markdown cells; a screenshot has the
   charts' colours in it.
Prints one line per check and exits 1 on the first failure.
"""
import argparse
import html.parser
import json
import re
import struct
import subprocess
import sys
import zlib


def fail(message):
    # stdout goes to FileCheck, which hides it when the checks before
    # passed: say it on stderr too, where lit shows it.
    print("FAIL: " + message)
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def ok(message):
    print("ok: " + message)


def analyze(args, *flags):
    return subprocess.run([args.analyze, args.trace] + list(flags), check=True,
                          capture_output=True, text=True).stdout


def data_of(page):
    m = re.search(r'<script type="application/json" id="opscope-data">\n(.*?)\n</script>',
                  page, re.S)
    if not m:
        fail("no data blob")
    return json.loads(m.group(1))


def markdown_cells(text):
    rows = [l for l in text.split("\n") if l.startswith("|")]
    return [r[2:-2].split(" | ") for i, r in enumerate(rows) if i != 1]


class Tables(html.parser.HTMLParser):
    """Cells of each <table class=...> in the DOM, by class."""

    def __init__(self):
        super().__init__()
        self.tables, self.current, self.cell = {}, None, None
        self.body = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.body = attrs
        if tag == "table" and attrs.get("class"):
            self.current = self.tables.setdefault(attrs["class"], [])
        elif tag == "tr" and self.current is not None:
            self.current.append([])
        elif tag in ("td", "th") and self.current is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.current[-1].append(self.cell)
            self.cell = None
        elif tag == "table":
            self.current = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit non-interlaced PNG."""
    raw = open(path, "rb").read()
    if raw[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s is not a PNG" % path)
    pos, idat, width = 8, b"", 0
    while pos < len(raw):
        n, kind = struct.unpack(">I4s", raw[pos:pos + 8])
        chunk = raw[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", chunk[:10])
            if depth != 8 or color not in (2, 6):
                fail("unexpected PNG format depth %d colour type %d" % (depth, color))
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    data = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = data[y * (stride + 1)]
        line = bytearray(data[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def _chrome(browser, page):
    """Headless Chromium with every host name unresolvable, and the page's URL."""
    return ([browser, "--headless", "--no-sandbox", "--disable-gpu",
             "--host-resolver-rules=MAP * ~NOTFOUND", "--hide-scrollbars"],
            "file://" + __import__("os").path.abspath(page))


def browse(browser, page):
    """The page's DOM as Tables, loaded offline in headless Chromium; fails
    on a console message. (check_sweep_report.py uses it too.)"""
    chrome, url = _chrome(browser, page)
    r = subprocess.run(chrome + ["--dump-dom", "--enable-logging=stderr", "--v=0", url],
                       capture_output=True, text=True, timeout=120)
    console = [l for l in r.stderr.splitlines() if "CONSOLE" in l]
    if r.returncode != 0 or console:
        fail("browser: exit %d, console: %s" % (r.returncode, console[:5]))
    dom = Tables()
    dom.feed(r.stdout)
    return dom


def screenshot(browser, page, out, height):
    """png_pixels of a 1200 x `height` screenshot of the page, saved to out."""
    chrome, url = _chrome(browser, page)
    r = subprocess.run(chrome + ["--screenshot=" + out, "--window-size=1200,%d" % height, url],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        fail("screenshot: exit %d: %s" % (r.returncode, r.stderr[-500:]))
    return png_pixels(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--analyze", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--diff")
    ap.add_argument("--machine")
    ap.add_argument("--what-if", dest="what_if")
    ap.add_argument("--db")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--charts", type=int, required=True)
    ap.add_argument("--browser")
    ap.add_argument("--screenshot")
    args = ap.parse_args()
    page = open(args.report, encoding="utf-8").read()

    # 1. Nothing reaches the network: no element loads anything.
    refs = re.findall(r'<(?:script|link|img|iframe|source|embed|object)\b[^>]*\b(?:src|href|data)\s*=',
                      page, re.I)
    if refs or re.search(r"@import|url\(\s*['\"]?(?:https?:)?//", page):
        fail("the page references outside resources: %s" % refs[:3])
    ok("self-contained (%d bytes, no src/href/url references)" % len(page))

    # 2. Every figure is opscope-analyze's.
    data = data_of(page)
    checks = [
        ("analysis", data["analysis"], json.loads(analyze(args, "--format", "json"))),
        ("summary table", data["summary_markdown"],
         analyze(args, "--format", "markdown", "--print-only", "summary", "--wide")),
        ("top-ops table", data["top_markdown"],
         analyze(args, "--format", "markdown", "--print-only", "ops", "--wide",
                 "-t", str(args.top))),
        ("time by type", data["by_type"],
         json.loads(analyze(args, "--format", "json", "--print-only", "ops",
                            "--aggregate-by", "type"))["ops"]),
        ("by-type table", data["by_type_markdown"],
         analyze(args, "--format", "markdown", "--print-only", "ops", "--wide",
                 "--aggregate-by", "type")),
    ]
    if args.machine:
        # The peaks (int8's 0 for a machine file from before it was measured).
        with open(args.machine) as f:
            machine = json.load(f)
        for key, default in (("peak_gflops", None), ("peak_int8_gops", 0.0)):
            if data["roofline"].get(key) != machine.get(key, default):
                fail("roofline %s %r, the machine file's %r"
                     % (key, data["roofline"].get(key), machine.get(key, default)))
        checks.append(("roofline", data["roofline"]["ops"],
                       json.loads(analyze(args, "--format", "json", "--print-only", "ops",
                                          "--roofline", "--machine", args.machine))["ops"]))
    elif data["roofline"] is not None:
        fail("a roofline without a machine file")
    if args.diff:
        checks.append(("diff", data["diff"]["rows"],
                       json.loads(analyze(args, "--format", "json", "--diff", args.diff))))
        checks.append(("diff table", data["diff"]["markdown"],
                       analyze(args, "--format", "markdown", "--wide", "--diff", args.diff)))
    elif data["diff"] is not None:
        fail("a diff without --diff")
    if args.what_if:
        what_if = dict(data["what_if"])
        md = what_if.pop("markdown")
        flags = ["--what-if", args.what_if] + (["--db", args.db] if args.db else [])
        checks.append(("what-if", what_if,
                       json.loads(analyze(args, "--format", "json", *flags))["opscope"]["what_if"]))
        checks.append(("what-if table", md,
                       analyze(args, "--format", "markdown", "--wide", *flags)))
    elif data["what_if"] is not None:
        fail("a what-if without --what-if")
    for name, mine, theirs in checks:
        if mine != theirs:
            fail("%s differs from opscope-analyze:\n%s\n---\n%s" % (name, mine, theirs))
        ok("%s equals opscope-analyze's" % name)
    summary = {m["metric"]: m["value"] for m in data["analysis"]["summary"]}
    its = sorted(data["iterations_us"])
    if len(its) != summary["iterations"]:
        fail("histogram has %d iterations, the summary %s" % (len(its), summary["iterations"]))
    rank = max(1, -(-len(its) * 50 // 100))
    if len(its) <= 4096 and its[rank - 1] / 1e3 != summary["latency_p50"]:
        fail("histogram p50 %s != summary's %s" % (its[rank - 1] / 1e3, summary["latency_p50"]))
    ok("histogram: %d iterations, p50 %.3f ms as the summary" % (len(its), summary["latency_p50"]))
    tl = data["timeline"]
    probes = len(json.load(open(args.trace))["opscope"]["probes"])
    if len(tl["ops"]) != probes or tl["dur_us"] not in data["iterations_us"]:
        fail("timeline: %d ops of %d probes" % (len(tl["ops"]), probes))
    if any(o["start_us"] < 0 or o["start_us"] + o["dur_us"] > tl["dur_us"] + 1e-6 for o in tl["ops"]):
        fail("timeline ops outside their iteration")
    ok("timeline: iteration %d, %d ops inside its span" % (tl["iteration"], len(tl["ops"])))
    # Memory: the header's peak is the trace's, and the summary's.
    mem = json.load(open(args.trace))["opscope"].get("memory")
    if mem and mem.get("peak_live_bytes") is not None:
        peak = max(o["live_bytes"] for o in tl["ops"])
        if peak > mem["peak_live_bytes"] or mem["peak_op"] not in data["header"]["peak_memory"] \
                or summary["arena_peak_op"] != mem["peak_op"]:
            fail("memory: timeline peak %s, trace %s, header %r" % (
                peak, mem, data["header"]["peak_memory"]))
        ok("memory: peak %d bytes while '%s' runs, as the trace and the summary"
           % (mem["peak_live_bytes"], mem["peak_op"]))

    if not args.browser:
        return 0
    # 3. In a browser, offline: every host name fails to resolve.
    dom = browse(args.browser, args.report)
    if dom.body.get("data-status") != "ok" or dom.body.get("data-errors"):
        fail("page status %r, errors %r" % (dom.body.get("data-status"), dom.body.get("data-errors")))
    if dom.body.get("data-charts") != str(args.charts) or dom.body.get("data-drawn") != str(args.charts):
        fail("page made %s charts and drew %s, expected %d" % (
            dom.body.get("data-charts"), dom.body.get("data-drawn"), args.charts))
    ok("browser: no console message, status ok, %d charts" % args.charts)
    tables = [("summary", data["summary_markdown"]), ("top-ops", data["top_markdown"]),
              ("by-type", data["by_type_markdown"])]
    if args.diff:
        tables.append(("diff", data["diff"]["markdown"]))
    if args.what_if:
        for i, part in enumerate(data["what_if"]["markdown"].split("\n### ")[1:]):
            tables.append(("what-if-%d" % i, part))
    for cls, md in tables:
        if dom.tables.get(cls) != markdown_cells(md):
            fail("table %s on the page differs from the analyzer's:\n%s\n%s"
                 % (cls, dom.tables.get(cls), markdown_cells(md)))
    ok("tables on the page: %s, cell for cell the analyzer's" % ", ".join(c for c, _ in tables))

    width, height, bpp, rows = screenshot(
        args.browser, args.report, args.screenshot,
        3000 + 900 * bool(args.diff) + 500 * bool(mem and mem.get("peak_live_bytes") is not None)
        + 1500 * bool(args.what_if))
    # Chart colours (report.js): the first op type's, and with --diff the
    # slower/faster bars'.
    # The change bars are red (slower) or green (faster): which ones are
    # large depends on the two runs' timings, so both colours count.
    wanted = {"first type #4e79a7": {(0x4e, 0x79, 0xa7)}}
    if args.diff:
        wanted["change bars"] = {(0xe1, 0x57, 0x59), (0x59, 0xa1, 0x4f)}
    for name, colours in wanted.items():
        n = sum(1 for row in rows for x in range(0, len(row), bpp)
                if tuple(row[x:x + 3]) in colours)
        if n < 2000:
            fail("screenshot %dx%d: %d pixels of %s; the charts were not drawn"
                 % (width, height, n, name))
        ok("screenshot %dx%d: %d pixels of %s" % (width, height, n, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
