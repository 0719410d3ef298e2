// The page machinery report.js and bench.js share: the embedded data, the
// element helpers, charts (counted), and the status the browser checks read
// from <body> (data-status "ok" or "error" with data-errors, data-charts:
// charts made, data-drawn: charts with pixels painted).
window.opscopePage = function () {
  "use strict";
  const errors = [];
  window.addEventListener("error", (e) => errors.push(String(e.message)));
  const page = {
    data: JSON.parse(document.getElementById("opscope-data").textContent),
    main: document.getElementById("report"),
    charts: 0,
  };
  page.el = function (tag, attrs, text) {
    const e = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => e.setAttribute(k, v));
    if (text !== undefined) e.textContent = text;
    return e;
  };
  page.section = function (id, title) {
    const s = page.el("section", { id: id });
    s.appendChild(page.el("h2", {}, title));
    page.main.appendChild(s);
    return s;
  };
  page.chart = function (parent, config, tall) {
    const box = page.el("div", { class: tall ? "chart tall" : "chart" });
    const canvas = page.el("canvas", { id: "chart-" + page.charts });
    box.appendChild(canvas);
    parent.appendChild(box);
    config.options = Object.assign({ animation: false, responsive: true,
                                     maintainAspectRatio: false }, config.options || {});
    new Chart(canvas, config);
    page.charts += 1;
  };
  // Charts whose canvas has any pixel painted: constructed is not drawn.
  page.finish = function () {
    let drawn = 0;
    document.querySelectorAll(".chart canvas").forEach((c) => {
      const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      for (let i = 3; i < px.length; i += 4) {
        if (px[i] !== 0) { drawn += 1; break; }
      }
    });
    const body = document.body;
    body.dataset.charts = String(page.charts);
    body.dataset.drawn = String(drawn);
    body.dataset.errors = errors.join("; ");
    body.dataset.status = errors.length ? "error" : "ok";
  };
  return page;
};
