/*
 * Draws the player page's charts from data the server embeds with json_script.
 * No inline scripts: this file is loaded with `defer` and finds its canvases by
 * `data-chart` (which chart) and `data-source` (the id of the JSON element).
 * Every chart has the same numbers in a <details> table for screen readers.
 */
(function () {
  "use strict";

  var ACCENT = "#1f5fbf";
  var BAND = "rgba(31, 95, 191, 0.16)";
  var VOLATILITY = "#9a4dbf";

  function readData(canvas) {
    var source = document.getElementById(canvas.dataset.source);
    return source ? JSON.parse(source.textContent) : null;
  }

  function baseOptions(yTitle) {
    return {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      interaction: { mode: "index", intersect: false },
      plugins: {
        legend: { labels: { boxWidth: 14, filter: function (item) { return item.text !== ""; } } },
        tooltip: {
          callbacks: {
            title: function (items) {
              return items.length ? "Period ending " + items[0].label : "";
            }
          }
        }
      },
      scales: {
        x: {
          ticks: {
            // Fewer date labels on a phone so that they never run into each other.
            maxTicksLimit: window.innerWidth < 600 ? 4 : 8,
            maxRotation: 0,
            autoSkip: true,
            autoSkipPadding: 16
          }
        },
        y: { title: { display: true, text: yTitle } }
      }
    };
  }

  function ratingChart(canvas, data) {
    var pointRadius = data.rating.length > 60 ? 0 : 3;
    return new window.Chart(canvas, {
      type: "line",
      data: {
        labels: data.labels,
        datasets: [
          // The band: the lower edge first, then the upper edge filled down to it.
          { label: "", data: data.low, borderWidth: 0, pointRadius: 0, pointHitRadius: 0, fill: false },
          {
            label: "95% interval",
            data: data.high,
            borderWidth: 0,
            pointRadius: 0,
            pointHitRadius: 0,
            backgroundColor: BAND,
            borderColor: BAND,
            fill: "-1"
          },
          {
            label: "Rating",
            data: data.rating,
            borderColor: ACCENT,
            backgroundColor: ACCENT,
            borderWidth: 2,
            pointRadius: pointRadius,
            tension: 0.15,
            fill: false
          }
        ]
      },
      options: baseOptions("Rating")
    });
  }

  function volatilityChart(canvas, data) {
    var options = baseOptions("Volatility σ");
    options.plugins.legend = { display: false };
    return new window.Chart(canvas, {
      type: "line",
      data: {
        labels: data.labels,
        datasets: [
          {
            label: "Volatility",
            data: data.volatility,
            borderColor: VOLATILITY,
            backgroundColor: VOLATILITY,
            borderWidth: 2,
            pointRadius: data.volatility.length > 60 ? 0 : 2,
            fill: false
          }
        ]
      },
      options: options
    });
  }

  var builders = { rating: ratingChart, volatility: volatilityChart };

  function drawAll() {
    if (typeof window.Chart === "undefined") {
      return;
    }
    var canvases = document.querySelectorAll("canvas[data-chart]");
    Array.prototype.forEach.call(canvases, function (canvas) {
      var build = builders[canvas.dataset.chart];
      var data = readData(canvas);
      if (build && data) {
        build(canvas, data);
      }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
