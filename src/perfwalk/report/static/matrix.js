/* perfwalk: the regress matrix, tests x runs, as a window that follows the scroll.
 *
 * The data files (data/tests.js, data/host-*.js) call perfwalkMatrix.tests() and
 * perfwalkMatrix.host(); this script then renders only the rows and columns in
 * view, so a year of nightly runs on every host opens as fast as one week.
 * Columns are runs, newest first; rows are tests sorted by decayed severity
 * S = sum(severity * 0.5^age) over the shown columns (oldest first, S = S/2 + sev,
 * as the publisher computes it), then by name. Every text from the data goes
 * into the page as text (textContent, attributes), never as HTML.
 *
 * tests: {names, ids, links} (index = position, names sorted). host: {host, page,
 * runs: [[id, UTC iso date (sorts), day, arch, build, commit, passed, counted, system,
 * label, month-day, start to the minute], ...] newest first (days and minutes in the
 * site's time zone), rows: {test index: a letter per run, "." none,
 * "a" PASS .. "k" NOEXIST, "a120" = 120 times "a"}, messages: [text],
 * cells: {test index: [run position, message index, ...]}, since: {test index:
 * [first failing position, last passing position or -1, commits page, count]},
 * flaky: [test index]}.
 */
"use strict";
(function () {
  var STATUS = ["", "PASS", "XFAIL", "SKIP", "XPASS", "FAIL", "NOEXIT", "NOTERM",
    "NORUN", "NOLOG", "NOCLEAN", "NOEXIST"];
  var ROW_H = 20, COL_W = 60, HEAD_ROWS = 5;
  /* the test names' and "since" columns: narrower in a narrow box (a phone), where
   * "since" is left out (told in the name's tooltip) so that the cells show */
  var WIDE = { name: 360, since: 170 }, NARROW = { name: 140, since: 0 }, NARROW_BELOW = 600;
  var NAME_W = WIDE.name, SINCE_W = WIDE.since;
  var tests = null;
  var hosts = [];

  window.perfwalkMatrix = {
    tests: function (data) { tests = data; },
    host: function (data) {
      Object.keys(data.rows).forEach(function (t) { /* "a120" is 120 times "a" */
        data.rows[t] = data.rows[t].replace(/([.a-k])(\d+)/g, function (_m, c, n) { return c.repeat(Number(n)); });
      });
      hosts.push(data);
    }
  };

  function severity(code) { return code === 46 ? 0 : code - 96; } /* "." = no result */
  function failing(sev) { return sev >= 4; } /* XPASS and worse */

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function anchor(href, text, title) {
    var a = el("a", null, text);
    a.setAttribute("href", href);
    if (title) { a.setAttribute("title", title); }
    return a;
  }

  function Matrix(root) {
    this.root = root;
    this.scroller = root.querySelector(".pw-scroll");
    this.inner = root.querySelector(".pw-inner");
    this.view = root.querySelector(".pw-view");
    this.filters = root.querySelector(".pw-filters");
    this.info = el("span", "pw-info");
    this.chosenHosts = {};
    this.chosenArchs = {};
    this.text = "";
    this.failingOnly = false;
    this.cols = [];
    this.rows = [];
    this.scores = [];
    this.messageIndex = [];
    this.flaky = hosts.map(function (h) {
      var set = {};
      h.flaky.forEach(function (t) { set[t] = true; });
      return set;
    });
    var self = this;
    hosts.forEach(function (h) {
      self.chosenHosts[h.host] = true;
      h.runs.forEach(function (run) { self.chosenArchs[run[3]] = true; });
      self.messageIndex.push({});
    });
    this.buildFilters();
    this.update();
    var pending = false;
    this.scroller.addEventListener("scroll", function () {
      if (pending) { return; }
      pending = true;
      window.requestAnimationFrame(function () { pending = false; self.render(); });
    });
    window.addEventListener("resize", function () {
      if (self.fitWidth()) { self.update(); } else { self.render(); }
    });
  }

  Matrix.prototype.buildFilters = function () {
    var self = this;
    function box(label, checked, change, cls) {
      var wrap = el("label", cls);
      var input = el("input");
      input.type = "checkbox";
      input.checked = checked;
      input.addEventListener("change", function () { change(input.checked); self.update(); });
      wrap.appendChild(input);
      wrap.appendChild(document.createTextNode(" " + label));
      return wrap;
    }
    function group(title, values, chosen, cls) {
      if (values.length < 2) { return; }
      var span = el("span", "pw-group", title + ": ");
      values.forEach(function (value) {
        span.appendChild(box(value, true, function (on) { chosen[value] = on; }, cls));
      });
      self.filters.appendChild(span);
    }
    group("hosts", hosts.map(function (h) { return h.host; }), this.chosenHosts, "pw-host");
    group("architectures", Object.keys(this.chosenArchs).sort(), this.chosenArchs, "pw-arch");
    var search = el("input", "pw-search");
    search.type = "search";
    search.placeholder = "test name contains";
    search.addEventListener("input", function () { self.text = search.value.toLowerCase(); self.update(); });
    this.filters.appendChild(search);
    this.filters.appendChild(box("failing now (on a host) only", false, function (on) { self.failingOnly = on; }, "pw-failing"));
    this.filters.appendChild(this.info);
  };

  /* The columns' widths for the box's width; true when they changed. */
  Matrix.prototype.fitWidth = function () {
    var narrow = this.scroller.clientWidth < NARROW_BELOW;
    var widths = narrow ? NARROW : WIDE;
    var changed = widths.name !== NAME_W;
    NAME_W = widths.name;
    SINCE_W = widths.since;
    this.root.classList.toggle("pw-narrow", narrow);
    return changed;
  };

  Matrix.prototype.update = function () {
    var self = this;
    this.fitWidth();
    var cols = [];
    hosts.forEach(function (h, hi) {
      if (!self.chosenHosts[h.host]) { return; }
      h.runs.forEach(function (run, i) {
        if (self.chosenArchs[run[3]]) { cols.push({ h: h, hi: hi, i: i, run: run }); }
      });
    });
    cols.sort(function (a, b) {
      if (a.run[1] !== b.run[1]) { return a.run[1] < b.run[1] ? 1 : -1; }
      return b.run[0] - a.run[0];
    });
    this.cols = cols;
    var n = tests.names.length;
    var scores = new Array(n);
    var rows = [];
    for (var t = 0; t < n; t++) {
      var lines = hosts.map(function (h) { return h.rows[t]; });
      if (!cols.some(function (col) { return lines[col.hi] !== undefined; })) { continue; }
      if (this.text && tests.names[t].toLowerCase().indexOf(this.text) < 0) { continue; }
      var s = 0, newest = {}; /* per host: its newest status that passes or fails */
      for (var c = cols.length - 1; c >= 0; c--) {
        var line = lines[cols[c].hi];
        var sev = line === undefined ? 0 : severity(line.charCodeAt(cols[c].i));
        s = s * 0.5 + sev;
        if (sev !== 0 && sev !== 3) { newest[cols[c].hi] = sev; }
      }
      if (this.failingOnly && !Object.keys(newest).some(function (h) { return failing(newest[h]); })) {
        continue;
      }
      scores[t] = s;
      rows.push(t);
    }
    rows.sort(function (a, b) { return scores[b] - scores[a] || a - b; }); /* names: index order */
    this.rows = rows;
    this.scores = scores;
    this.info.textContent = " " + rows.length + " tests \u00d7 " + cols.length + " runs";
    this.inner.style.width = (NAME_W + SINCE_W + cols.length * COL_W) + "px";
    this.inner.style.height = ((HEAD_ROWS + rows.length) * ROW_H + ROW_H) + "px";
    var fits = (HEAD_ROWS + rows.length + 1) * ROW_H + 24; /* a short matrix: no empty space */
    this.scroller.style.height = Math.min(Math.floor(window.innerHeight * 0.75), fits) + "px";
    this.render();
  };

  Matrix.prototype.message = function (hi, t, i) {
    var index = this.messageIndex[hi];
    if (!(t in index)) {
      var at = {};
      var flat = hosts[hi].cells[t] || [];
      for (var k = 0; k + 1 < flat.length; k += 2) { at[flat[k]] = flat[k + 1]; }
      index[t] = at;
    }
    var m = index[t][i];
    return m === undefined ? "" : hosts[hi].messages[m];
  };

  Matrix.prototype.render = function () {
    var width = this.scroller.clientWidth, height = this.scroller.clientHeight;
    this.view.style.width = width + "px";
    this.view.style.height = height + "px";
    var ncols = Math.max(1, Math.ceil((width - NAME_W - SINCE_W) / COL_W));
    var nrows = Math.max(1, Math.ceil(height / ROW_H) - HEAD_ROWS);
    var c0 = Math.max(0, Math.min(Math.floor(this.scroller.scrollLeft / COL_W), this.cols.length - ncols));
    var r0 = Math.max(0, Math.min(Math.floor(this.scroller.scrollTop / ROW_H), this.rows.length - nrows));
    var cols = this.cols.slice(c0, c0 + ncols);
    var table = el("table", "pw-grid");
    table.appendChild(this.header(cols));
    var body = el("tbody");
    var rows = this.rows.slice(r0, r0 + nrows);
    for (var r = 0; r < rows.length; r++) { body.appendChild(this.row(rows[r], cols)); }
    table.appendChild(body);
    this.view.replaceChildren(table);
  };

  Matrix.prototype.header = function (cols) {
    var head = el("thead", "pw-sticky");
    var labels = ["pass rate", "date (month-day)", "build", "architecture", "host"];
    for (var k = 0; k < labels.length; k++) {
      var tr = el("tr");
      var label = el("th", "pw-label", labels[k]);
      label.colSpan = SINCE_W ? 2 : 1;
      tr.appendChild(label);
      cols.forEach(function (col) {
        var run = col.run, th = el("th", "pw-c");
        if (k === 0) {
          th.textContent = run[7] > 0 ? Math.floor(100 * run[6] / run[7]) + "%" : "-";
          th.setAttribute("title", run[6] + " PASS of " + run[7] + " (SKIP and XFAIL left out)");
        } else if (k === 1) {
          th.appendChild(anchor("runs/" + run[0] + ".html", run[10], run[11] + " " + run[9]));
        } else if (k === 2) {
          th.textContent = run[4];
        } else if (k === 3) {
          th.appendChild(anchor("runs/" + run[0] + ".html#system", run[3], run[8]));
        } else {
          th.appendChild(anchor(col.h.page, col.h.host, col.h.host));
        }
        tr.appendChild(th);
      });
      head.appendChild(tr);
    }
    return head;
  };

  Matrix.prototype.row = function (t, cols) {
    var self = this;
    var tr = el("tr");
    var name = el("th", "pw-name");
    var label = tests.names[t];
    var tip = label + " (S = " + this.scores[t].toPrecision(4) + ")";
    name.appendChild(tests.links[t] ? anchor(tests.links[t], label, tip) : el("span", null, label));
    name.setAttribute("title", tip);
    var flaky = hosts.some(function (h, hi) { return self.chosenHosts[h.host] && self.flaky[hi][t]; });
    if (flaky) {
      var badge = el("span", "pw-flaky", "flaky");
      badge.setAttribute("title", "its status flips between passing and failing");
      name.appendChild(badge);
    }
    tr.appendChild(name);
    var since = this.since(t);
    if (SINCE_W) {
      tr.appendChild(since);
    } else if (since.title) {
      name.setAttribute("title", tip + "\n" + since.title);
    }
    cols.forEach(function (col) {
      var line = col.h.rows[t];
      var sev = line === undefined ? 0 : severity(line.charCodeAt(col.i));
      if (sev === 0) { tr.appendChild(el("td", "pw-c")); return; }
      var td = el("td", "pw-c " + STATUS[sev]);
      var href = "log.html#run=" + col.run[0] + "&test=" + tests.ids[t];
      td.appendChild(anchor(href, STATUS[sev], self.message(col.hi, t, col.i)));
      tr.appendChild(td);
    });
    return tr;
  };

  Matrix.prototype.since = function (t) {
    var self = this;
    var td = el("td", "pw-since");
    var found = [];
    hosts.forEach(function (h) {
      if (self.chosenHosts[h.host] && h.since[t]) { found.push({ h: h, s: h.since[t] }); }
    });
    if (!found.length) { return td; }
    var tips = found.map(function (f) {
      var first = f.h.runs[f.s[0]], last = f.s[1] >= 0 ? f.h.runs[f.s[1]] : null;
      return f.h.host + ": failing since " + first[11] + (last ? ", last passed " + last[11] : ", never passed");
    });
    var f = found[0], first = f.h.runs[f.s[0]];
    var prefix = hosts.length > 1 ? f.h.host + " " : "";
    td.appendChild(anchor("runs/" + first[0] + ".html", prefix + "since " + first[2], tips.join("\n")));
    if (f.s[2]) {
      td.appendChild(document.createTextNode(" "));
      td.appendChild(anchor(f.s[2], f.s[3] + " commits", "the commits between the last passing and the first failing run"));
    }
    if (found.length > 1) { td.appendChild(el("span", "pw-more", " +" + (found.length - 1))); }
    td.setAttribute("title", tips.join("\n"));
    return td;
  };

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("pw-matrix");
    if (!root || tests === null) { return; }
    root.classList.add("pw-ready");
    window.perfwalkMatrix.view = new Matrix(root);
  });
})();
