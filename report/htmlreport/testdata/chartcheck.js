// Measures what the page's charts drew, for the Chromium tests (chart_geometry_test.go): each
// axis's tick labels as boxes (uPlot draws them on the canvas, so their boxes are computed from
// the positions and font uPlot used) and each legend entry as the text a reader sees (label,
// the ":" the legend's CSS adds, value). Every defect is written, one a line, into the root
// element's data-chart-defects attribute, which the test reads from the dumped DOM.
(function () {
  "use strict";
  var defects = [];
  var plots = (window.TRADEBENCH_PLOTS && window.TRADEBENCH_PLOTS.plots) || [];
  var measure = document.createElement("canvas").getContext("2d");
  var gap = 4; // the least room between two labels for them to read as two
  plots.forEach(function (p) {
    var u = p.u, id = p.el.id;
    u.axes.forEach(function (a, ai) {
      if (!a.show || !a._values || !a._splits) return;
      var key = (a.side % 2 === 0) ? "x" : (a.scale || "y");
      measure.font = a.font[0];
      var boxes = [];
      a._splits.forEach(function (v, i) {
        var text = a._values[i];
        if (text == null || text === "") return;
        text = String(text);
        var pos = u.valToPos(v, key);
        var w = measure.measureText(text).width;
        var h = a.font[1];
        boxes.push({ text: text, pos: pos, w: w, h: h });
      });
      boxes.sort(function (x, y) { return x.pos - y.pos; });
      var rot = Math.abs((a._rotate || 0) * Math.PI / 180);
      for (var i = 1; i < boxes.length; i++) {
        var b0 = boxes[i - 1], b1 = boxes[i], room, need;
        if (a.side % 2 === 0 && rot === 0) { // horizontal labels centred on their tick
          room = (b1.pos - b1.w / 2) - (b0.pos + b0.w / 2);
          need = gap;
        } else if (a.side % 2 === 0) { // rotated labels: parallel lines, apart by dx·sin(angle)
          room = (b1.pos - b0.pos) * Math.sin(rot) - b0.h;
          need = 0;
        } else { // a vertical axis: labels stacked, one line high each
          room = Math.abs(b1.pos - b0.pos) - b0.h;
          need = 0;
        }
        if (room < need) {
          defects.push(id + " axis " + ai + ": tick labels " + JSON.stringify(b0.text) + " and " + JSON.stringify(b1.text) +
            " overlap or touch (" + room.toFixed(1) + " px apart)");
        }
      }
    });
    p.el.querySelectorAll(".u-legend .u-series").forEach(function (row) {
      if (row.offsetParent === null) return; // not shown
      var th = row.querySelector("th"), td = row.querySelector("td");
      var label = th ? th.textContent.trim() : "";
      var after = th ? getComputedStyle(th, "::after").content : "none";
      after = after === "none" || after === "normal" ? "" : after.replace(/^["']|["']$/g, "");
      var value = td && td.offsetParent !== null ? td.textContent.trim() : "";
      var shown = (label + after + " " + value).trim();
      if (label === "") defects.push(id + ": a legend entry without a name (" + JSON.stringify(shown) + ")");
      else if (/:$/.test(shown)) defects.push(id + ": a legend entry ends with an empty value: " + JSON.stringify(shown));
    });
  });
  document.documentElement.setAttribute("data-chart-defects", defects.join("\n"));
})();
