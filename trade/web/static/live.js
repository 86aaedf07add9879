// tradebench live updates: the quotes and home pages work without this script; with it, their
// prices, changes, volumes and market summary follow the server's event streams
// (/trade/stream/quotes, /trade/stream/summary). No libraries, no inline code (the pages'
// Content-Security-Policy allows only scripts from this site).
(function () {
  "use strict";
  function money(s) { // "1234.50" or "-12.00" -> "$1,234.50" / "-$12.00", as the pages print
    var neg = s.charAt(0) === "-";
    if (neg) s = s.slice(1);
    var dot = s.indexOf("."), whole = dot < 0 ? s : s.slice(0, dot), frac = dot < 0 ? ".00" : s.slice(dot);
    whole = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return (neg ? "-$" : "$") + whole + frac;
  }
  function updown(el, s) {
    el.classList.remove("up", "down");
    var v = parseFloat(s);
    if (v > 0) el.classList.add("up"); else if (v < 0) el.classList.add("down");
  }
  function flash(el) {
    el.style.transition = "none"; el.style.backgroundColor = "#fff3b0";
    setTimeout(function () { el.style.transition = "background-color 1.2s"; el.style.backgroundColor = ""; }, 50);
  }
  function status(text) {
    var s = document.querySelectorAll("[data-live-status]");
    for (var i = 0; i < s.length; i++) { s[i].textContent = text; s[i].hidden = false; }
  }
  function listen(url, name, fn) {
    if (!window.EventSource) return;
    status("connecting…");
    var es = new EventSource(url);
    es.addEventListener("open", function () { status("live"); });
    es.addEventListener("error", function () { status("reconnecting…"); });
    es.addEventListener(name, function (e) { try { fn(JSON.parse(e.data)); } catch (err) { /* ignore a bad event */ } });
  }
  var rows = document.querySelectorAll("tr[data-symbol]");
  if (rows.length) {
    var bySym = {}, syms = [];
    for (var i = 0; i < rows.length; i++) {
      var sym = rows[i].getAttribute("data-symbol");
      if (!bySym[sym]) { bySym[sym] = []; syms.push(sym); }
      bySym[sym].push(rows[i]);
    }
    listen("/trade/stream/quotes?symbols=" + encodeURIComponent(syms.slice(0, 100).join(",")), "quote", function (q) {
      var rs = bySym[q.symbol] || [];
      for (var j = 0; j < rs.length; j++) {
        // the quotes page's columns (trade/web/cells.go, quoteRow): volume, range, price, change
        var cs = rs[j].cells, v = cs[2], r = cs[3], p = cs[5], c = cs[6];
        if (p) { p.textContent = money(q.price); flash(p); }
        if (c) { c.textContent = money(q.change); updown(c, q.change); }
        if (v) { v.textContent = String(q.volume); }
        if (r) { r.textContent = money(q.low) + " – " + money(q.high); }
      }
    });
  }
  var ms = document.querySelector("[data-live-summary]");
  if (ms) {
    listen("/trade/stream/summary", "summary", function (m) {
      var t = ms.querySelector("[data-f=tsia]"), v = ms.querySelector("[data-f=mvolume]");
      if (t) { if (t.textContent !== m.tsia) flash(t); t.textContent = m.tsia; }
      if (v) { v.textContent = String(m.volume); }
    });
  }
})();
