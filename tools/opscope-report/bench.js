// opscope-report --bench: draws an opscope-bench grid (the CSV it wrote,
// embedded as JSON rows) with page.js's helpers.
(function () {
  "use strict";
  const page = opscopePage();
  const { data, el, section, chart } = page;
  const rows = data.bench.rows;
  const withOrt = rows.some((r) => r.ort_ms !== "");

  const label = (r) => r.precision + " b" + r.batch + (r.seq !== "" ? " s" + r.seq : "");

  const head = section("header", "Grid");
  const first = rows[0] || {};
  const info = [["model", first.model], ["CPU", first.cpu_model], ["AMX", first.amx_used === "true" ? "used" : "not used"],
                ["threads", first.threads], ["CPU pinned", first.cpu || "no"],
                ["rounds x runs", first.rounds + " x " + first.iterations],
                ["cells", String(rows.length)]];
  const t = el("table", { id: "bench-header" });
  info.forEach(([k, v]) => {
    const tr = el("tr");
    tr.appendChild(el("th", {}, k));
    tr.appendChild(el("td", {}, v));
    t.appendChild(tr);
  });
  head.appendChild(t);

  const lat = section("latency", "Latency per cell (median of round medians, ms)");
  const datasets = [{ label: "opscope ms", data: rows.map((r) => +r.opscope_ms), backgroundColor: "#4e79a7" }];
  if (withOrt) datasets.push({ label: "ONNX Runtime fp32 ms", data: rows.map((r) => +r.ort_ms), backgroundColor: "#bab0ac" });
  chart(lat, { type: "bar", data: { labels: rows.map(label), datasets: datasets },
               options: { scales: { y: { title: { display: true, text: "ms" } } } } });

  const thr = section("throughput", "Samples per second");
  chart(thr, { type: "bar", data: { labels: rows.map(label),
    datasets: [{ label: "samples/s", data: rows.map((r) => +r.samples_per_s), backgroundColor: "#59a14f" }] },
    options: { plugins: { legend: { display: false } } } });

  if (withOrt) {
    const ratio = section("ratio", "opscope / ONNX Runtime (lower is faster; bars: median, whiskers: round spread)");
    chart(ratio, { type: "bar", data: { labels: rows.map(label), datasets: [
      { label: "ratio", data: rows.map((r) => +r.ratio), backgroundColor: rows.map((r) => (+r.ratio <= 1 ? "#59a14f" : "#e15759")) },
      { label: "round min", type: "line", showLine: false, data: rows.map((r) => +r.ratio_min), borderColor: "#222", pointStyle: "line" },
      { label: "round max", type: "line", showLine: false, data: rows.map((r) => +r.ratio_max), borderColor: "#222", pointStyle: "line" }] },
      options: { scales: { y: { beginAtZero: true } } } });
  }

  const tab = section("table", "The grid (" + data.bench.file + ")");
  const table = el("table", { class: "bench" });
  const cols = data.bench.columns;
  const hr = el("tr");
  cols.forEach((c) => hr.appendChild(el("th", {}, c)));
  table.appendChild(hr);
  rows.forEach((r) => {
    const tr = el("tr");
    cols.forEach((c) => tr.appendChild(el("td", {}, r[c])));
    table.appendChild(tr);
  });
  tab.appendChild(table);

  page.finish();
})();
