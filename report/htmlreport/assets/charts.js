// Draws the page's charts from window.TRADEBENCH_CHARTS with uPlot. A chart that cannot be drawn
// says so in its place and on the page's root element (data-chart-errors), which the tests read,
// so a broken chart is never silently missing; the others are still drawn.
(function () {
  "use strict";
  var root = document.documentElement;
  var palette = ["#1f5fa8", "#d1495b", "#2e9e6a", "#e09f3e", "#6c4ab6", "#3a9bc1", "#8c564b", "#7f7f7f"];
  var plots = [];

  function recordError(where, err) {
    var msg = where + ": " + (err && err.message ? err.message : String(err));
    root.setAttribute("data-chart-errors", (root.getAttribute("data-chart-errors") || "") + msg + "\n");
  }
  window.addEventListener("error", function (e) { recordError("page", e.message || e); });

  // legends show nothing, not a placeholder, where there is no value (cursor off the chart)
  function fmt(v) {
    if (v == null || isNaN(v)) return "";
    var a = Math.abs(v);
    if (a >= 1000) return Math.round(v).toLocaleString("en-US").replace(/,/g, "\u202f");
    if (a >= 100) return v.toFixed(0);
    if (a >= 10) return v.toFixed(1);
    return v.toFixed(2);
  }

  function widthOf(el) {
    return Math.max(280, Math.floor(el.getBoundingClientRect().width) || 480);
  }

  // greys out the spans that are not measured (ramp-up, ramp-down)
  function shade(spans) {
    return function (u) {
      var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
      var left = u.bbox.left, right = u.bbox.left + u.bbox.width;
      ctx.save();
      ctx.fillStyle = "rgba(27, 31, 36, 0.07)";
      spans.forEach(function (s) {
        var x0 = Math.max(left, u.valToPos(s.from, "x", true));
        var x1 = Math.min(right, u.valToPos(s.to, "x", true));
        if (x1 > x0) ctx.fillRect(x0, top, x1 - x0, h);
      });
      ctx.restore();
    };
  }

  // the axes' font, named so that tick spacing can be measured in it
  var axisFont = "12px system-ui, -apple-system, \"Segoe UI\", Roboto, \"Helvetica Neue\", Arial, sans-serif";
  // the least room between two tick labels for them to read as two
  var labelGap = 14;
  var measurer = document.createElement("canvas").getContext("2d");
  function textWidth(s) {
    measurer.font = axisFont;
    return Math.ceil(measurer.measureText(String(s)).width);
  }
  // uPlot's own number format on a numeric axis, for measuring its widest label
  function fmtAxis(v) { return uPlot.fmtNum ? uPlot.fmtNum(v) : String(v); }
  var clockSteps = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
  // tick positions (seconds since the start) at multiples of incr in the viewer's clock time
  function clockSplits(spec, min, max, incr) {
    var d = new Date(spec.start);
    var startSec = d.getHours() * 3600 + d.getMinutes() * 60 + d.getSeconds() + d.getMilliseconds() / 1000;
    var first = Math.ceil((startSec + min) / incr) * incr - startSec;
    var out = [];
    for (var v = first; v <= max + 1e-9; v += incr) out.push(Math.round(v * 1000) / 1000);
    return out;
  }

  // the capacity search's knee: a band from its last good load to its first bad one, named
  function kneeBand(k) {
    return function (u) {
      if (!k) return;
      var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
      var x0 = u.valToPos(k.from, "x", true), x1 = u.valToPos(k.to, "x", true);
      var least = 4 * uPlot.pxRatio;
      if (x1 - x0 < least) { var mid = (x0 + x1) / 2; x0 = mid - least / 2; x1 = mid + least / 2; }
      ctx.save();
      ctx.fillStyle = "rgba(224, 159, 62, 0.22)";
      ctx.fillRect(x0, top, x1 - x0, h);
      ctx.fillStyle = "#9a6a1f";
      ctx.font = Math.round(11 * uPlot.pxRatio) + "px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "top";
      ctx.fillText("knee", (x0 + x1) / 2, top + 3 * uPlot.pxRatio);
      ctx.restore();
    };
  }

  // the run's fault windows: red bands, each named at its top; the page's root counts the bands
  // drawn (data-fault-bands), which the tests read
  var faultBandsDrawn = 0;
  function faultBands(bands) {
    return function (u) {
      if (!bands || !bands.length) return;
      var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
      var left = u.bbox.left, right = u.bbox.left + u.bbox.width;
      ctx.save();
      ctx.font = Math.round(11 * uPlot.pxRatio) + "px system-ui, sans-serif";
      ctx.textBaseline = "top";
      bands.forEach(function (b) {
        var x0 = Math.max(left, u.valToPos(b.from, "x", true));
        var x1 = Math.min(right, u.valToPos(b.to, "x", true));
        if (x1 <= x0) return;
        ctx.fillStyle = "rgba(209, 73, 91, 0.16)";
        ctx.fillRect(x0, top, x1 - x0, h);
        ctx.fillStyle = "#9b2335";
        ctx.fillText(b.name, x0 + 2 * uPlot.pxRatio, top + 3 * uPlot.pxRatio);
        faultBandsDrawn++;
      });
      ctx.restore();
      root.setAttribute("data-fault-bands", String(faultBandsDrawn));
    };
  }

  function pad2(n) { return (n < 10 ? "0" : "") + n; }
  // clock time of x seconds after the run's start (the viewer's local time)
  function clock(spec, x) {
    var d = new Date(spec.start + x * 1000);
    return pad2(d.getHours()) + ":" + pad2(d.getMinutes()) + ":" + pad2(d.getSeconds());
  }
  // the percentile at x "nines": 0 → p0, 1 → p90, 2 → p99, 2.5 → p99.68
  function percentile(x) {
    var p = 100 * (1 - Math.pow(10, -x));
    var digits = Math.max(0, Math.min(4, Math.ceil(x) - 1));
    return "p" + (Math.round(p * Math.pow(10, digits)) / Math.pow(10, digits));
  }

  function xValue(spec) {
    if (spec.kind === "bars") return function (u, v) { return v == null ? "" : (spec.labels[v] || ""); };
    if (spec.kind === "dist") return function (u, v) { return v == null ? "" : percentile(v); };
    if (spec.start) return function (u, v) { return v == null ? "" : clock(spec, v) + " (+" + v + " s)"; };
    if (spec.xUnit) return function (u, v) { return v == null ? "" : v + spec.xUnit; };
    return function (u, v) { return v == null ? "" : v + " s"; };
  }

  function options(spec, width, log) {
    var bars = spec.kind === "bars";
    var n = spec.series.length;
    var group = 0.8, each = group / Math.max(n, 1);
    var series = [{ label: spec.xLabel, value: xValue(spec) }];
    spec.series.forEach(function (s, i) {
      var color = palette[i % palette.length];
      var o = { label: s.label, show: !(spec.hidden && spec.hidden.indexOf(i) >= 0), stroke: color, width: bars ? 0 : 1.6, value: function (u, v) { return fmt(v); }, spanGaps: !!spec.spanGaps };
      if (s.style === "points") {
        // a run apart from the line (the capacity search's confirming run): a marker, no line
        o.width = 0;
        o.points = { show: true, size: 11, width: 2, stroke: color, fill: color };
      } else if (s.style === "bound") {
        // a limit, not a measurement: dashed, no markers
        o.stroke = "#b42318";
        o.dash = [6, 4];
        o.width = 1.2;
        o.points = { show: false };
      } else if (bars) {
        o.fill = color;
        o.points = { show: false };
        // grouped bars: series i takes the i-th slice of each category's 80 % wide group
        o.paths = uPlot.paths.bars({
          disp: {
            x0: { unit: 1, values: function (u) { return u.data[0].map(function (x) { return x - group / 2 + i * each; }); } },
            size: { unit: 1, values: function (u) { return u.data[0].map(function () { return each; }); } }
          }
        });
      } else if (!s.style) {
        o.points = { show: spec.kind === "xy" || spec.x.length < 3 };
      }
      series.push(o);
    });
    var xAxis = { label: spec.xLabel, labelSize: 22, size: 40, font: axisFont };
    if (spec.kind === "dist") {
      xAxis.splits = function () { var out = []; for (var k = 0; k <= 5; k++) out.push(k); return out; };
      xAxis.values = function (u, vals) { return vals.map(function (v) { return percentile(v); }); };
    } else if (spec.start) {
      xAxis.values = function (u, vals) { return vals.map(function (v) { return clock(spec, v); }); };
      xAxis.label = "clock time";
      // ticks a label's width apart, on round clock times (:00, :30), in steps of whole seconds
      xAxis.incrs = clockSteps;
      xAxis.space = function () { return textWidth("00:00:00") + labelGap; };
      xAxis.splits = function (u, ai, min, max, incr) { return clockSplits(spec, min, max, incr); };
    } else if (!bars) {
      // ticks at least the widest label apart: uPlot's default 50 px lets "1 400 users" overlap
      xAxis.space = function (u, ai, min, max) {
        return Math.max(textWidth(fmtAxis(min)), textWidth(fmtAxis(max))) + labelGap;
      };
    }
    if (bars) {
      xAxis.splits = function () { return spec.x; };
      xAxis.values = function (u, vals) { return vals.map(function (v) { return spec.labels[v] || ""; }); };
      xAxis.grid = { show: false };
      xAxis.ticks = { show: false };
      var longest = spec.labels.reduce(function (m, l) { return Math.max(m, l.length); }, 0);
      if (longest * 7 * spec.labels.length > width * 0.9) {
        xAxis.rotate = -35;
        xAxis.size = Math.min(140, 20 + longest * 6);
      }
    }
    return {
      width: width,
      height: 260,
      series: series,
      legend: { show: true, live: !bars },
      cursor: bars ? { points: { show: false }, drag: { x: false, y: false } } : { drag: { x: true, y: false } },
      scales: {
        x: bars ? { time: false, range: [-0.5, spec.x.length - 0.5] } : { time: false },
        y: log ? { distr: 3, log: 10 } : { range: function (u, min, max) { return [0, max > 0 ? max * 1.08 : 1]; } }
      },
      axes: [xAxis, { label: spec.yLabel + (log ? " (log)" : ""), labelSize: 22, size: 56, font: axisFont }],
      hooks: { drawClear: [shade(spec.shade || []), kneeBand(spec.knee), faultBands(spec.faults)] }
    };
  }

  // a log axis cannot show zero: those points become gaps
  function dataFor(spec, log) {
    return [spec.x].concat(spec.series.map(function (s) {
      return log ? s.values.map(function (v) { return v != null && v > 0 ? v : null; }) : s.values;
    }));
  }

  function draw(spec) {
    var el = document.getElementById("chart-" + spec.id);
    if (!el) throw new Error("no place for the chart");
    var entry = { el: el, u: null };
    var log = spec.kind === "dist";
    function make() {
      if (entry.u) entry.u.destroy();
      entry.u = new uPlot(options(spec, widthOf(el), log), dataFor(spec, log), el);
    }
    if (spec.log) {
      // latency charts: a log-scale toggle, so one spike does not flatten the median
      var tools = document.createElement("p");
      tools.className = "chart-tools";
      var label = document.createElement("label");
      var box = document.createElement("input");
      box.type = "checkbox";
      box.checked = log;
      box.setAttribute("data-log-toggle", spec.id);
      box.addEventListener("change", function () {
        log = box.checked;
        try { make(); } catch (err) { recordError(spec.id, err); }
      });
      label.appendChild(box);
      label.appendChild(document.createTextNode(" log scale"));
      tools.appendChild(label);
      el.parentNode.insertBefore(tools, el);
    }
    make();
    plots.push(entry);
  }

  (window.TRADEBENCH_CHARTS || []).forEach(function (spec) {
    try {
      draw(spec);
    } catch (err) {
      recordError(spec.id, err);
      var el = document.getElementById("chart-" + spec.id);
      if (el) {
        var p = document.createElement("p");
        p.className = "chart-error";
        p.textContent = "This chart could not be drawn: " + (err && err.message ? err.message : err);
        el.appendChild(p);
      }
    }
  });
  root.setAttribute("data-charts-drawn", String(plots.length));

  function fit() {
    plots.forEach(function (p) { p.u.setSize({ width: widthOf(p.el), height: 260 }); });
  }
  var pending;
  window.addEventListener("resize", function () { clearTimeout(pending); pending = setTimeout(fit, 100); });
  window.addEventListener("beforeprint", fit);
  window.addEventListener("afterprint", fit);
  // the live dashboard (live.js) redraws these plots each second and draws charts that appear
  // mid-run (the system under test's, after its first sample) with the same code
  window.TRADEBENCH_PLOTS = { plots: plots, draw: draw, recordError: recordError };
})();
