// opscope-report: draws the page from the data the tool embedded (figures
// rendered by opscope-analyze's library: JSON for the charts, its markdown
// tables for the text), with page.js's helpers, which also set the status
// the browser check reads.
(function () {
  "use strict";
  const page = opscopePage();
  const { data, el, section, chart } = page;
  const palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                   "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
                   "#1f77b4", "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5"];
  const typeColor = {};
  (data.by_type || []).forEach((r, i) => { typeColor[r.name] = palette[i % palette.length]; });
  const colorOf = (type) => typeColor[type] || "#888";

  // A markdown table of opscope-analyze as an HTML table, cells verbatim.
  function table(markdown, cls) {
    const lines = markdown.split("\n").filter((l) => l.startsWith("|"));
    const t = el("table", { class: cls || "" });
    const cells = (l) => l.slice(2, -2).split(" | ");
    const aligns = lines.length > 1 ? cells(lines[1]).map((c) => c.endsWith(":")) : [];
    lines.forEach((l, i) => {
      if (i === 1) return;
      const tr = el("tr");
      cells(l).forEach((c, j) => tr.appendChild(el(i === 0 ? "th" : "td",
        aligns[j] && i > 0 ? { class: "num" } : {}, c)));
      t.appendChild(tr);
    });
    return t;
  }
  function legend(parent, types) {
    const d = el("div", { class: "legend" });
    types.forEach((t) => {
      const s = el("span");
      const i = el("i");
      i.style.background = colorOf(t);
      s.appendChild(i);
      s.appendChild(document.createTextNode(t));
      d.appendChild(s);
    });
    parent.appendChild(d);
  }
  const summary = {};
  data.analysis.summary.forEach((m) => { summary[m.metric] = m.value; });

  // Run header.
  const h = data.header;
  const head = section("header", "Run");
  const rows = [["model", h.model], ["trace", h.trace], ["machine", h.cpu],
                ["isa", h.isa], ["amx", h.amx], ["threads", String(h.threads)],
                ["precision", h.precision], ["probes", String(h.probes)],
                ["probe cost", h.probe_cost_ns.toFixed(1) + " ns"],
                ["dropped events", String(h.dropped_events)],
                ["labels", h.labels.join(", ")],
                ["run", Object.entries(h.run).map(([k, v]) => k + "=" + v).join(" ")]];
  if (h.tier) rows.splice(4, 0, ["tier", h.tier]);
  if (h.peak_memory) rows.push(["arena peak", h.peak_memory]);
  if (h.startup) rows.push(["start-up", h.startup]);
  const ht = el("table", { id: "run-header" });
  rows.forEach(([k, v]) => {
    const tr = el("tr");
    tr.appendChild(el("th", {}, k));
    tr.appendChild(el("td", {}, v));
    ht.appendChild(tr);
  });
  head.appendChild(ht);
  head.appendChild(el("h3", {}, "Summary (opscope-analyze)"));
  head.appendChild(table(data.summary_markdown, "summary"));

  // Time by op type.
  const types = section("by-type", "Time by op type (ms per iteration)");
  chart(types, {
    type: "bar",
    data: { labels: data.by_type.map((r) => r.name),
            datasets: [{ label: "self_ms", data: data.by_type.map((r) => r.self_ms),
                         backgroundColor: data.by_type.map((r) => colorOf(r.name)) }] },
    options: { indexAxis: "y", plugins: { legend: { display: false } },
               scales: { x: { title: { display: true, text: "ms per iteration" } } } },
  });
  types.appendChild(table(data.by_type_markdown, "by-type"));

  // Top ops with share and cumulative share.
  const top = section("top-ops", "Top " + data.top + " ops by self time");
  const ops = data.analysis.ops.slice(0, data.top);
  chart(top, {
    data: { labels: ops.map((r) => r.name),
            datasets: [
              { type: "bar", label: "self %", data: ops.map((r) => r["self_%"]),
                backgroundColor: ops.map((r) => colorOf(r.type)), yAxisID: "y" },
              { type: "line", label: "cumulative %", data: ops.map((r) => r["cum_%"]),
                borderColor: "#222", pointRadius: 2, yAxisID: "y" }] },
    options: { scales: { x: { ticks: { autoSkip: false, maxRotation: 60, minRotation: 30 } },
                         y: { min: 0, max: 100, title: { display: true, text: "% of op time" } } } },
  }, true);
  legend(top, [...new Set(ops.map((r) => r.type))]);
  top.appendChild(table(data.top_markdown, "top-ops"));

  // Iteration latency histogram with the analyzer's p50/p90/p99.
  const hist = section("latency", "Iteration latency (" + summary.iterations + " iterations)");
  const lat = data.iterations_us.map((v) => v / 1e3);
  if (lat.length) {
    const lo = Math.min(...lat), hi = Math.max(...lat);
    const bins = Math.max(1, Math.min(40, Math.ceil(Math.sqrt(lat.length))));
    const width = (hi - lo) / bins || 1e-3;
    const counts = new Array(bins).fill(0);
    lat.forEach((v) => { counts[Math.min(bins - 1, Math.floor((v - lo) / width))] += 1; });
    const peak = Math.max(...counts);
    const marker = (name, color) => ({
      type: "line", label: name + " " + summary["latency_" + name].toFixed(3) + " ms",
      data: [{ x: summary["latency_" + name], y: 0 }, { x: summary["latency_" + name], y: peak }],
      borderColor: color, borderDash: [6, 3], borderWidth: 2, pointRadius: 0,
      parsing: false, order: 0 });
    chart(hist, {
      data: { datasets: [
        { type: "bar", label: "iterations", backgroundColor: "#4e79a7", parsing: false, order: 1,
          data: counts.map((c, i) => ({ x: lo + (i + 0.5) * width, y: c })),
          barPercentage: 1.0, categoryPercentage: 1.0 },
        marker("p50", "#59a14f"), marker("p90", "#f28e2b"), marker("p99", "#e15759")] },
      options: { scales: { x: { type: "linear", title: { display: true, text: "ms" } },
                           y: { title: { display: true, text: "iterations" } } } },
    });
  } else {
    hist.appendChild(el("p", { class: "note" }, "The trace has no iteration spans."));
  }

  // Timeline of one iteration (the one closest to the median).
  const tl = section("timeline", "Timeline of one iteration");
  if (data.timeline && data.timeline.ops.length) {
    const t = data.timeline;
    tl.appendChild(el("p", { class: "note" }, "iteration " + t.iteration + " (" + t.label +
      "), " + (t.dur_us / 1e3).toFixed(3) + " ms: the iteration closest to the median"));
    chart(tl, {
      type: "bar",
      data: { labels: ["ops"],
              datasets: t.ops.map((o) => ({ label: o.name + " (" + o.type + ")",
                data: [[o.start_us, o.start_us + o.dur_us]],
                backgroundColor: colorOf(o.type), grouped: false })) },
      options: { indexAxis: "y", plugins: { legend: { display: false } },
                 scales: { x: { min: 0, max: t.dur_us, title: { display: true, text: "µs from the iteration start" } } } },
    });
    legend(tl, [...new Set(t.ops.map((o) => o.type))]);
  } else {
    tl.appendChild(el("p", { class: "note" }, "No op events in the selected iterations."));
  }

  // Arena memory over the same iteration: the bytes live while each op ran
  // (planned by the compiler; the trace's "arena live bytes" counter).
  const mem = section("memory", "Arena memory over one iteration");
  const live = data.timeline ? data.timeline.ops.filter((o) => o.live_bytes !== null) : [];
  if (live.length) {
    mem.appendChild(el("p", { class: "note" }, "peak " + h.peak_memory +
      "; the line steps at each op's end"));
    chart(mem, {
      type: "line",
      data: { datasets: [{ label: "MiB live", stepped: "before", pointRadius: 0,
        borderColor: "#4e79a7",
        data: live.map((o) => ({ x: o.start_us + o.dur_us, y: o.live_bytes / 1048576 })) }] },
      options: { plugins: { legend: { display: false } },
                 scales: { x: { type: "linear", min: 0, max: data.timeline.dur_us,
                                title: { display: true, text: "µs from the iteration start" } },
                           y: { title: { display: true, text: "MiB live in the arena" } } } },
    });
  } else {
    mem.appendChild(el("p", { class: "note" },
      "The trace does not record live bytes (a model compiled before they were planned)."));
  }

  // Roofline, when the machine is calibrated.
  const roof = section("roofline", "Roofline");
  if (data.roofline) {
    const r = data.roofline;
    const pts = r.ops.filter((o) => o["flop/byte"] > 0 && o["gflop/s"] > 0);
    roof.appendChild(el("p", { class: "note" }, "peak " + r.peak_gflops.toFixed(1) +
      " GFLOP/s" + (r.peak_int8_gops > 0 ? " (int8 ops: " + r.peak_int8_gops.toFixed(1) + " GOP/s)" : "") +
      ", bandwidth " + r.bandwidth_gbs.toFixed(1) + " GB/s" +
      (r.threads > 0 ? " measured with " + r.threads + " thread(s)" : "") +
      " (" + r.machine + "); the trace ran with " + h.threads + " thread(s)"));
    if (pts.length) {
      const xs = pts.map((o) => o["flop/byte"]);
      const x0 = Math.min(...xs) / 2, x1 = Math.max(...xs) * 2;
      const roofAt = (peak) => [x0, Math.min(Math.max(peak / r.bandwidth_gbs, x0), x1), x1].map((x) =>
        ({ x: x, y: Math.min(peak, x * r.bandwidth_gbs) }));
      const line = roofAt(r.peak_gflops);
      const int8Line = r.peak_int8_gops > 0 && pts.some((o) => o.precision === "int8")
        ? [{ label: "int8 roofline", type: "line", data: roofAt(r.peak_int8_gops), borderColor: "#888",
             borderDash: [6, 4], pointRadius: 0 }] : [];
      chart(roof, {
        type: "scatter",
        data: { datasets: [
          { label: "roofline", type: "line", data: line, borderColor: "#222", pointRadius: 0 },
          ...int8Line,
          ...[...new Set(pts.map((o) => o.type))].map((type) => ({
            label: type, backgroundColor: colorOf(type),
            data: pts.filter((o) => o.type === type).map((o) => ({ x: o["flop/byte"], y: o["gflop/s"] })) }))] },
        options: { scales: { x: { type: "logarithmic", title: { display: true, text: "FLOP/byte" } },
                             y: { type: "logarithmic", title: { display: true, text: "GFLOP/s" } } } },
      });
    } else {
      roof.appendChild(el("p", { class: "note" }, "No op has both FLOPs and bytes."));
    }
  } else {
    roof.appendChild(el("p", { class: "note" },
      "The machine is not calibrated: run opscope-analyze --calibrate once (or pass --machine)."));
  }

  // Per-op change, matched by provenance.
  if (data.diff) {
    const d = section("diff", "Change: " + h.model + " → " + data.diff.after.model);
    const changes = data.diff.rows.filter((r) => r.before !== "total" || r.after !== "total")
      .slice(0, data.top);
    chart(d, {
      type: "bar",
      data: { labels: changes.map((r) => (r.after || r.before)),
              datasets: [{ label: "delta ms per iteration", data: changes.map((r) => r.delta_ms),
                           backgroundColor: changes.map((r) => (r.delta_ms > 0 ? "#e15759" : "#59a14f")) }] },
      options: { indexAxis: "y", plugins: { legend: { display: false } },
                 scales: { x: { title: { display: true, text: "after - before, ms per iteration" } } } },
    }, true);
    d.appendChild(table(data.diff.markdown, "diff"));
  }

  // What-if: the projection of opscope-analyze --what-if.
  if (data.what_if) {
    const w = data.what_if;
    const t = w.totals;
    const target = w.target_sparse_ratio !== null ? "block sparsity " + w.target_sparse_ratio : w.per_layer_file;
    const wi = section("what-if", "What-if: sparse-capable ops pruned to " + target);
    wi.appendChild(el("p", { class: "note" }, "measured " + t.measured_total_ms.toFixed(3) +
      " ms of op time per iteration, projected " + t.projected_total_ms.toFixed(3) +
      " ms: " + t.projected_speedup.toFixed(2) + "x (database " + w.database + ")"));
    const capable = w.ops.filter((o) => o.target_ratio !== null)
      .sort((a, b) => b.self_ms - a.self_ms).slice(0, data.top);
    chart(wi, {
      type: "bar",
      data: { labels: capable.map((o) => o.name),
              datasets: [{ label: "measured ms", data: capable.map((o) => o.self_ms), backgroundColor: "#bab0ac" },
                         { label: "projected ms", data: capable.map((o) => o.projected_ms), backgroundColor: "#59a14f" }] },
      options: { indexAxis: "y",
                 scales: { x: { title: { display: true, text: "ms per iteration" } } } },
    }, true);
    // The analyzer's markdown has three tables, each under a "### " title.
    w.markdown.split("\n### ").slice(1).forEach((part, i) => {
      const nl = part.indexOf("\n");
      wi.appendChild(el("h3", {}, part.slice(0, nl)));
      wi.appendChild(table(part.slice(nl + 1), "what-if-" + i));
    });
  }

  page.finish();
})();
