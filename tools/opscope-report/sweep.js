// opscope-report --sweep: draws an opscope-sweep results directory (the
// figures Sweep.cpp grouped from the points' result.json files) with
// page.js's helpers: latency and throughput per configuration per CPU tier,
// the best configuration of each workload on each tier, and every point.
(function () {
  "use strict";
  const page = opscopePage();
  const { data, el, section, chart } = page;
  const sweep = data.sweep;
  const palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"];
  const tiers = sweep.tiers.map((t) => t.tier);

  function table(spec, cls) {
    const t = el("table", { class: cls });
    const hr = el("tr");
    spec.columns.forEach((c) => hr.appendChild(el("th", {}, c)));
    t.appendChild(hr);
    spec.rows.forEach((r) => {
      const tr = el("tr");
      r.forEach((c) => tr.appendChild(el("td", /^[0-9.]+x?$/.test(c) ? { class: "num" } : {}, c)));
      t.appendChild(tr);
    });
    return t;
  }

  const head = section("header", "Sweep");
  const info = el("table", { id: "sweep-header" });
  const rows = [["results", sweep.dir],
                ["points", sweep.counts.points + " (" + sweep.counts.ok + " ok, " +
                           sweep.counts.failed + " failed)"]];
  sweep.tiers.forEach((t) => rows.push(["tier " + t.tier, (t.cpus.join(", ") || "?") +
    " on " + t.hosts.join(", ") + "; " + t.ok + " of " + t.points + " points ok"]));
  rows.forEach(([k, v]) => {
    const tr = el("tr");
    tr.appendChild(el("th", {}, k));
    tr.appendChild(el("td", {}, v));
    info.appendChild(tr);
  });
  head.appendChild(info);

  const bars = (values, unit) => ({
    type: "bar",
    data: { labels: sweep.configurations,
            datasets: tiers.map((t, i) => ({ label: t, data: values[t],
                                              backgroundColor: palette[i % palette.length] })) },
    options: { scales: { y: { beginAtZero: true, title: { display: true, text: unit } } } },
  });
  chart(section("latency", "Latency per configuration per CPU tier (p50, ms; lower is faster)"),
        bars(sweep.latency_p50_ms, "ms"), true);
  chart(section("throughput", "Throughput per configuration per CPU tier (samples/s)"),
        bars(sweep.throughput_samples_per_s, "samples/s"), true);

  const best = section("best", "Best configuration of each workload on each tier (lowest p50)");
  best.appendChild(table(sweep.best, "sweep-best"));
  best.appendChild(el("p", { class: "note" },
    "speed-up: the slowest configuration's p50 over the best one's, on the same tier"));

  const pts = section("points", "Every point (one row per point and host)");
  pts.appendChild(table(sweep.points, "sweep-points"));

  page.finish();
})();
