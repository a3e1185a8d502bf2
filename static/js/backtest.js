// Draws a sweep's log-loss against τ from the JSON in #backtest-chart-data (json_script),
// with the baselines as dashed lines. The page's results table holds the same figures.
(function () {
  "use strict";

  // Strings from Django's JavaScript catalog (/i18n/catalog.js, loaded first).
  var gettext = window.gettext || function (text) { return text; };
  var interpolate = window.interpolate || function (format, values) {
    return format.replace(/%\((\w+)\)s/g, function (whole, name) { return String(values[name]); });
  };
  var COLOURS = ["#1f6feb", "#d1242f", "#1a7f37", "#8250df", "#bf8700", "#0a7ea4"];

  function draw() {
    var source = document.getElementById("backtest-chart-data");
    var canvas = document.getElementById("backtest-chart");
    if (!source || !canvas || typeof window.Chart === "undefined") {
      return;
    }
    var data = JSON.parse(source.textContent);
    var taus = [];
    data.series.forEach(function (series) {
      series.points.forEach(function (point) {
        taus.push(point.x);
      });
    });
    var low = Math.min.apply(null, taus);
    var high = Math.max.apply(null, taus);
    var several = data.series.length > 1;
    var datasets = [];

    data.series.forEach(function (series, i) {
      var colour = COLOURS[i % COLOURS.length];
      datasets.push({
        label: several ? "Glicko-2 (" + series.label + ")" : "Glicko-2",
        data: series.points,
        borderColor: colour,
        backgroundColor: colour,
        showLine: true,
        tension: 0
      });
    });
    data.baselines.forEach(function (baseline, i) {
      var colour = COLOURS[i % COLOURS.length];
      var suffix = several ? " (" + baseline.label + ")" : "";
      datasets.push({
        label: interpolate(gettext("Elo, K = %(k)s"), { k: baseline.elo_k }, true) + suffix,
        data: [{ x: low, y: baseline.elo }, { x: high, y: baseline.elo }],
        borderColor: colour,
        borderDash: [6, 4],
        pointRadius: 0,
        showLine: true
      });
      if (i === 0) {
        datasets.push({
          label: gettext("Always 50 %"),
          data: [{ x: low, y: baseline.constant }, { x: high, y: baseline.constant }],
          borderColor: "#6e7781",
          borderDash: [2, 3],
          pointRadius: 0,
          showLine: true
        });
      }
    });

    new window.Chart(canvas, {
      type: "scatter",
      data: { datasets: datasets },
      options: {
        animation: false,
        scales: {
          x: { type: "linear", title: { display: true, text: "τ" } },
          y: { title: { display: true, text: gettext("log-loss (lower is better)") } }
        },
        plugins: { legend: { position: "bottom" } }
      }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", draw);
  } else {
    draw();
  }
})();
