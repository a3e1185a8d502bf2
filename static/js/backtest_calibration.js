// Draws the calibration of a sweep's best and current runs from the JSON in
// #calibration-chart-data (json_script): observed score against mean prediction per group of
// matches, with the diagonal of perfect calibration. The calibration tables hold the figures.
(function () {
  "use strict";

  var COLOURS = { best: "#1a7f37", current: "#1f6feb" };
  // Strings from Django's JavaScript catalog (/i18n/catalog.js, loaded first).
  var gettext = window.gettext || function (text) { return text; };
  var interpolate = window.interpolate || function (format, values) {
    return format.replace(/%\((\w+)\)s/g, function (whole, name) { return String(values[name]); });
  };
  var ngettext = window.ngettext || function (one, many, n) { return n === 1 ? one : many; };
  var LANG = document.documentElement.lang || "en-GB";
  var SHAPES = { best: "circle", current: "rectRot" };

  function draw() {
    var source = document.getElementById("calibration-chart-data");
    var canvas = document.getElementById("calibration-chart");
    if (!source || !canvas || typeof window.Chart === "undefined") {
      return;
    }
    var data = JSON.parse(source.textContent);
    var datasets = [
      {
        label: gettext("Perfect calibration"),
        data: [{ x: 0, y: 0 }, { x: 1, y: 1 }],
        borderColor: "#6e7781",
        borderDash: [4, 4],
        pointRadius: 0,
        showLine: true
      }
    ];
    data.series.forEach(function (series) {
      var colour = COLOURS[series.role] || "#8250df";
      datasets.push({
        label: series.label,
        data: series.points,
        borderColor: colour,
        backgroundColor: colour,
        pointStyle: SHAPES[series.role] || "circle",
        pointRadius: 5,
        showLine: true,
        tension: 0
      });
    });

    new window.Chart(canvas, {
      type: "scatter",
      data: { datasets: datasets },
      options: {
        animation: false,
        // A phone gets a square chart and the legend as text under it (the caption).
        aspectRatio: window.innerWidth < 600 ? 1 : 1.4,
        scales: {
          x: {
            type: "linear",
            min: 0,
            max: 1,
            title: { display: true, text: gettext("predicted chance of the first-named side") }
          },
          y: { min: 0, max: 1, title: { display: true, text: gettext("observed score") } }
        },
        plugins: {
          legend: { position: "bottom", display: window.innerWidth >= 600 },
          tooltip: {
            callbacks: {
              label: function (item) {
                var point = item.raw;
                if (point.n === undefined) {
                  return item.dataset.label;
                }
                return interpolate(
                  ngettext(
                    "predicted %(predicted)s, observed %(observed)s (%(n)s match)",
                    "predicted %(predicted)s, observed %(observed)s (%(n)s matches)",
                    point.n
                  ),
                  {
                    predicted: point.x.toLocaleString(LANG, { minimumFractionDigits: 3, maximumFractionDigits: 3 }),
                    observed: point.y.toLocaleString(LANG, { minimumFractionDigits: 3, maximumFractionDigits: 3 }),
                    n: point.n
                  },
                  true
                );
              }
            }
          }
        }
      }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", draw);
  } else {
    draw();
  }
})();
