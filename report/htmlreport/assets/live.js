// The live dashboard: follows the run's event stream and redraws the report's charts in place
// with the data of each new second, through the report's own drawing code (charts.js, exposed
// as window.TRADEBENCH_PLOTS). The root element counts what happened (data-live-updates,
// data-live-points: the x values of the first chart, data-live-loaded: as served), which the tests read. When the run ends
// the stream sends the final report and the page becomes it. ?updates=N stops following after N
// updates (a still picture for a screenshot or a test; a headless browser waits for no open stream).
(function () {
  "use strict";
  var root = document.documentElement;
  var shades = {};

  function text(id, v) {
    var el = document.getElementById(id);
    if (el) el.textContent = v == null || v === "" ? "—" : String(v);
  }

  function figure(spec) {
    var fig = document.createElement("figure");
    fig.className = "chart";
    var cap = document.createElement("figcaption");
    cap.textContent = spec.title;
    var div = document.createElement("div");
    div.className = "plot";
    div.id = "chart-" + spec.id;
    div.setAttribute("data-chart", spec.id);
    fig.appendChild(cap);
    fig.appendChild(div);
    document.getElementById("live-charts").appendChild(fig);
  }

  function redraw(api, spec) {
    var el = document.getElementById("chart-" + spec.id);
    if (!el) figure(spec);
    var shade = JSON.stringify(spec.shade || []);
    var data = [spec.x].concat(spec.series.map(function (s) { return s.values; }));
    for (var i = 0; i < api.plots.length; i++) {
      var p = api.plots[i];
      if (p.el.id !== "chart-" + spec.id) continue;
      // same series and same greyed spans: new data into the same plot; else draw it anew
      if (p.u.series.length === spec.series.length + 1 && shades[spec.id] === shade) {
        p.u.setData(data);
        return;
      }
      p.u.destroy();
      api.plots.splice(i, 1);
      break;
    }
    shades[spec.id] = shade;
    api.draw(spec);
  }

  function update(api, u) {
    text("live-status", u.phase + ", second " + u.second);
    text("live-tps", u.tps);
    text("live-errors", u.errors);
    text("live-p50", u.p50);
    text("live-p90", u.p90);
    text("live-p99", u.p99);
    text("live-users", u.users);
    u.charts.forEach(function (spec) {
      try {
        redraw(api, spec);
      } catch (err) {
        api.recordError(spec.id, err);
      }
    });
    root.setAttribute("data-live-updates", String(Number(root.getAttribute("data-live-updates") || 0) + 1));
    root.setAttribute("data-live-second", String(u.second));
    // what the first plot holds now, read back from uPlot: proof the data reached the chart
    if (api.plots.length) root.setAttribute("data-live-points", String(api.plots[0].u.data[0].length));
  }

  document.addEventListener("DOMContentLoaded", function () {
    var api = window.TRADEBENCH_PLOTS;
    (window.TRADEBENCH_CHARTS || []).forEach(function (spec) { shades[spec.id] = JSON.stringify(spec.shade || []); });
    if (window.TRADEBENCH_CHARTS && window.TRADEBENCH_CHARTS.length) {
      var n = String(window.TRADEBENCH_CHARTS[0].x.length);
      root.setAttribute("data-live-points", n);
      root.setAttribute("data-live-loaded", n); // as the page was served: the stream grows it
    }
    var stopAfter = Number(new URLSearchParams(location.search).get("updates")) || 0;
    var seen = 0;
    var es = new EventSource("events");
    es.addEventListener("update", function (e) {
      update(api, JSON.parse(e.data));
      if (stopAfter > 0 && ++seen >= stopAfter) es.close();
    });
    es.addEventListener("final", function (e) {
      es.close();
      var html = JSON.parse(e.data);
      document.open();
      document.write(html);
      document.close();
    });
  });
})();
