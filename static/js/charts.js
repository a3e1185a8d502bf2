/*
 * Draws the player page's charts from data the server embeds with json_script.
 * No inline scripts: this file is loaded with `defer` and finds its canvases by
 * `data-chart` (which chart) and `data-source` (the id of the JSON element).
 * Every chart has the same numbers in a <details> table for screen readers.
 *
 * The x axis is time: a linear scale over milliseconds since 1970, so two points a decade
 * apart are ten times further apart than two a year apart (Chart.js's "time" scale would
 * need a date adapter; dates are formatted here instead). Lines are straight segments
 * between the real points (no smoothing).
 */
(function () {
  "use strict";

  var ACCENT = "#1f5fbf";
  var BAND = "rgba(31, 95, 191, 0.16)";
  var RANK = "#17753b";
  // Strings come from Django's JavaScript catalog (/i18n/catalog.js, loaded first), dates
  // and numbers from the browser's Intl in the page's language (<html lang>).
  var gettext = window.gettext || function (text) { return text; };
  var interpolate = window.interpolate || function (format, values) {
    return format.replace(/%\((\w+)\)s/g, function (whole, name) { return String(values[name]); });
  };
  var LANG = document.documentElement.lang || "en-GB";
  var DAY = new Intl.DateTimeFormat(LANG, { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
  var MONTH = new Intl.DateTimeFormat(LANG, { month: "short", year: "numeric", timeZone: "UTC" });
  var YEAR_MS = 365.25 * 24 * 3600 * 1000;

  function readData(canvas) {
    var source = document.getElementById(canvas.dataset.source);
    return source ? JSON.parse(source.textContent) : null;
  }

  function time(iso) {
    var parts = iso.split("-");
    return Date.UTC(+parts[0], +parts[1] - 1, +parts[2]);
  }

  function dayText(ms) {
    return DAY.format(new Date(ms));
  }

  function tickText(ms, span) {
    var d = new Date(ms);
    if (span > 4 * YEAR_MS) {
      return String(d.getUTCFullYear());
    }
    return MONTH.format(d);
  }

  // Ticks on calendar boundaries (1 January, or the first of a month), so a label always
  // names the moment its grid line stands on: evenly spaced "nice" numbers of milliseconds
  // would put "2019" over a day in late 2018.
  function calendarTicks(min, max, most) {
    var first = new Date(min);
    var last = new Date(max);
    var years = last.getUTCFullYear() - first.getUTCFullYear();
    var months = years * 12 + last.getUTCMonth() - first.getUTCMonth();
    var steps = [1, 2, 3, 6, 12, 24, 60, 120, 240, 600, 1200];
    var step = steps[steps.length - 1];
    for (var i = 0; i < steps.length; i += 1) {
      if (months / steps[i] <= most) { step = steps[i]; break; }
    }
    var ticks = [];
    var y = first.getUTCFullYear();
    var m = first.getUTCMonth();
    // The first boundary at or after min that the step lands on.
    var index = y * 12 + m;
    index = Math.ceil(index / step) * step;
    for (var guard = 0; guard < 1000; guard += 1) {
      var value = Date.UTC(Math.floor(index / 12), index % 12, 1);
      if (value > max) { break; }
      if (value >= min) { ticks.push({ value: value }); }
      index += step;
    }
    return ticks;
  }

  function timeAxis(points) {
    var first = points.length ? points[0].x : 0;
    var last = points.length ? points[points.length - 1].x : 1;
    var most = window.innerWidth < 600 ? 4 : 8;
    return {
      type: "linear",
      min: first,
      max: last,
      afterBuildTicks: function (scale) {
        scale.ticks = calendarTicks(scale.min, scale.max, most);
      },
      ticks: {
        maxRotation: 0,
        autoSkip: false,
        callback: function (value) {
          var scale = this;
          return tickText(value, scale.max - scale.min);
        }
      }
    };
  }

  function baseOptions(yTitle, points) {
    return {
      responsive: true,
      maintainAspectRatio: false,
      locale: LANG,
      animation: false,
      parsing: false,
      interaction: { mode: "nearest", axis: "x", intersect: false },
      plugins: {
        legend: { labels: { boxWidth: 14, filter: function (item) { return item.text !== ""; } } },
        tooltip: {
          callbacks: {
            title: function (items) {
              return items.length ? dayText(items[0].parsed.x) : "";
            }
          }
        }
      },
      scales: {
        x: timeAxis(points),
        y: { title: { display: true, text: yTitle } }
      }
    };
  }

  function ratingChart(canvas, data) {
    var rating = data.rating.map(function (p) { return { x: time(p[0]), y: p[1] }; });
    var low = data.band.map(function (p) { return { x: time(p[0]), y: p[1] }; });
    var high = data.band.map(function (p) { return { x: time(p[0]), y: p[2] }; });
    var options = baseOptions(gettext("Rating"), low);
    options.plugins.tooltip.filter = function (item) { return item.datasetIndex !== 0; };
    return new window.Chart(canvas, {
      type: "line",
      data: {
        datasets: [
          // The band: the lower edge first, then the upper edge filled down to it.
          { label: "", data: low, borderWidth: 0, pointRadius: 0, pointHitRadius: 0, fill: false, tension: 0 },
          {
            label: interpolate(gettext("%(level)s interval"), { level: data.level }, true),
            data: high,
            borderWidth: 0,
            pointRadius: 0,
            pointHitRadius: 0,
            backgroundColor: BAND,
            borderColor: BAND,
            fill: "-1",
            tension: 0
          },
          {
            label: gettext("Rating"),
            data: rating,
            borderColor: ACCENT,
            backgroundColor: ACCENT,
            borderWidth: 2,
            pointRadius: rating.length > 60 ? 0 : 3,
            tension: 0,
            fill: false
          }
        ]
      },
      options: options
    });
  }

  function rankChart(canvas, data) {
    var points = data.points.map(function (p) { return { x: time(p[0]), y: p[1] }; });
    var options = baseOptions(gettext("Rank"), points);
    options.plugins.legend = { display: false };
    // Rank 1 at the top.
    options.scales.y.reverse = true;
    options.scales.y.ticks = { precision: 0 };
    options.plugins.tooltip.callbacks.label = function (item) {
      var source = data.points[item.dataIndex];
      return interpolate(gettext("Rank %(rank)s of %(players)s"), { rank: source[1], players: source[2] }, true);
    };
    return new window.Chart(canvas, {
      type: "line",
      data: {
        datasets: [
          {
            label: gettext("Rank"),
            data: points,
            borderColor: RANK,
            backgroundColor: RANK,
            borderWidth: 2,
            pointRadius: points.length > 60 ? 0 : 3,
            spanGaps: false,
            tension: 0
          }
        ]
      },
      options: options
    });
  }

  /* Range buttons: show the last 1 or 5 years, or everything; y fits the visible points. */
  function setRange(button) {
    var canvas = document.getElementById(button.dataset.chartTarget);
    var chart = canvas && window.Chart.getChart(canvas);
    if (!chart) {
      return;
    }
    var all = chart.data.datasets[0].data;
    var last = all[all.length - 1].x;
    var first = all[0].x;
    var min = button.dataset.range === "all" ? first : Math.max(first, last - (+button.dataset.range) * YEAR_MS);
    chart.options.scales.x.min = min;
    chart.options.scales.x.max = last;
    var lows = [];
    var highs = [];
    chart.data.datasets.forEach(function (dataset) {
      dataset.data.forEach(function (p) {
        if (p.x >= min && p.y !== null) {
          lows.push(p.y);
          highs.push(p.y);
        }
      });
    });
    if (lows.length) {
      var bottom = Math.min.apply(null, lows);
      var top = Math.max.apply(null, highs);
      var pad = Math.max((top - bottom) * 0.05, 5);
      chart.options.scales.y.min = Math.floor(bottom - pad);
      chart.options.scales.y.max = Math.ceil(top + pad);
    }
    chart.update();
    Array.prototype.forEach.call(
      document.querySelectorAll("button[data-chart-target='" + button.dataset.chartTarget + "']"),
      function (other) { other.setAttribute("aria-pressed", other === button ? "true" : "false"); }
    );
  }

  var builders = { rating: ratingChart, rank: rankChart };

  function drawAll() {
    if (typeof window.Chart === "undefined") {
      return;
    }
    var canvases = document.querySelectorAll("canvas[data-chart]");
    Array.prototype.forEach.call(canvases, function (canvas) {
      if (window.Chart.getChart(canvas)) {
        return;
      }
      var build = builders[canvas.dataset.chart];
      var data = readData(canvas);
      if (build && data) {
        build(canvas, data);
      }
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-range]");
    if (button) {
      setRange(button);
    }
  });
  // The rank history arrives later, by htmx: draw its chart when it is swapped in.
  document.addEventListener("htmx:afterSettle", drawAll);

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
