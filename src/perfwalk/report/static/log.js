/* perfwalk: one log of the regress matrix, read from a pack of logs.
 *
 * log.html#run=12&test=34 loads logs/index.js (perfwalkLogs.index: which packs
 * hold each run's logs, from which test id on), then the pack that holds test 34
 * of run 12 (perfwalkLogs.pack: per run its statuses, a letter per test id, the
 * size of each of its logs in test id order from result number "row" on, the
 * messages, and the logs as the store keeps them, zlib streams one after the
 * other, in base64). The one log shown is inflated here, with the
 * browser's DecompressionStream("deflate"). #run=12&test=run shows the output of
 * the run itself. Test names come from data/tests.js. Everything goes into the
 * page as text (textContent), never as HTML. Scripts, not fetch(): the pages
 * work from file:// as from any web server.
 */
"use strict";
(function () {
  var STATUS = ["", "PASS", "XFAIL", "SKIP", "XPASS", "FAIL", "NOEXIT", "NOTERM",
    "NORUN", "NOLOG", "NOCLEAN", "NOEXIST"];
  var want = null;
  var index = null;
  var names = {};
  var last = null; /* the pack read last: {name, runs, base64} */

  window.perfwalkMatrix = window.perfwalkMatrix || {
    tests: function (data) {
      data.ids.forEach(function (id, i) { names[id] = data.names[i]; });
    }
  };

  function parse() {
    var found = /^#run=(\d+)&test=(\d+|run)$/.exec(window.location.hash);
    return found ? { run: found[1], test: found[2] } : null;
  }

  function load(src) {
    var script = document.createElement("script");
    script.src = src;
    script.onerror = function () { missing("not published: " + src); };
    document.body.appendChild(script);
  }

  function missing(text) {
    document.getElementById("pw-log").replaceChildren(document.createTextNode(text));
  }

  function text(tag, cls, value) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    node.textContent = String(value);
    return node;
  }

  function link(href, value) {
    var a = text("a", null, value);
    a.setAttribute("href", href);
    return a;
  }

  function bytesOf(base64, at, size) {
    var raw = window.atob(base64.slice(4 * Math.floor(at / 3), 4 * Math.ceil((at + size) / 3)));
    var skip = at % 3, bytes = new Uint8Array(size);
    for (var i = 0; i < size; i++) { bytes[i] = raw.charCodeAt(skip + i); }
    return bytes;
  }

  function inflate(bytes) {
    if (typeof DecompressionStream !== "function") {
      return Promise.reject(new Error("this browser cannot inflate the logs (no DecompressionStream): use a current Chromium, Firefox or Safari"));
    }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).arrayBuffer().then(function (buffer) {
      return new TextDecoder("utf-8").decode(buffer); /* invalid UTF-8 becomes U+FFFD */
    });
  }

  function show(shown, entry) {
    var root = document.getElementById("pw-log");
    document.title = "log: " + entry.name;
    var head = text("h2", null, entry.name);
    var about = document.createElement("p");
    if (entry.status) {
      about.appendChild(text("span", "pw-status " + entry.status, entry.status));
      about.appendChild(document.createTextNode(" "));
    }
    if (entry.message) { about.appendChild(text("span", "pw-message", entry.message)); }
    var nav = document.createElement("p");
    nav.appendChild(link("runs/" + shown.run + ".html", "run " + shown.run));
    nav.appendChild(document.createTextNode(" \u00b7 "));
    nav.appendChild(link("index.html", "matrix"));
    root.replaceChildren(head, about, nav);
    if (entry.total !== null) {
      root.appendChild(text("p", "pw-note", entry.total + " bytes produced; the head and the tail are kept"));
    }
    var pre = text("pre", "pw-text", "");
    root.appendChild(pre);
    inflate(entry.bytes).then(function (value) {
      if (want === shown) { pre.textContent = value; }
    }, function (error) {
      if (want === shown) { pre.textContent = "the log cannot be read: " + error.message; }
    });
  }

  function part(parts) {
    if (want.test === "run") { return parts[0]; }
    var chosen = parts[0], test = Number(want.test);
    parts.forEach(function (p) { if (p[1] <= test) { chosen = p; } });
    return chosen;
  }

  function found(run, base64) {
    var name = names[want.test];
    if (want.test === "run") {
      if (!run.runner) { missing("run " + want.run + " kept no output of its own"); return; }
      show(want, {
        name: "run " + want.run + ": its own output", status: "", message: "",
        bytes: bytesOf(base64, run.runner[0], run.runner[1]),
        total: run.runner[3] ? run.runner[2] : null
      });
      return;
    }
    /* the run's results are in test id order: the log of the n-th test that ran */
    var test = Number(want.test), letter = run.statuses.charAt(test), row = 0;
    for (var i = 0; i < test; i++) { row += run.statuses.charAt(i) !== "." ? 1 : 0; }
    var position = row - run.row;
    if (letter === "" || letter === "." || position < 0 || position >= run.sizes.length) {
      missing("run " + want.run + " has no log of test " + want.test);
      return;
    }
    var at = run.at;
    for (var k = 0; k < position; k++) { at += run.sizes[k]; }
    var cut = run.cut[want.test];
    show(want, {
      name: name === undefined ? "test " + want.test : name,
      status: STATUS[".abcdefghijk".indexOf(letter)] || "",
      message: run.messages[want.test] || "",
      bytes: bytesOf(base64, at, run.sizes[position]),
      total: cut === undefined ? null : cut
    });
  }

  window.perfwalkLogs = {
    index: function (data) {
      index = data;
      start();
    },
    pack: function (name, runs, base64) {
      last = { name: name, runs: runs, base64: base64 };
      if (want && index && index[want.run] && part(index[want.run])[0] === name) { shown(); }
    }
  };

  function start() {
    want = parse();
    if (!want) { missing("no log chosen: open a cell of the matrix"); return; }
    missing("reading the log of test " + want.test + " of run " + want.run + " \u2026");
    if (index === null) { load("logs/index.js"); return; }
    var parts = index[want.run];
    if (!parts) { missing("run " + want.run + " is not published"); return; }
    var name = part(parts)[0];
    if (!/^\d+-\d+$/.test(name)) { missing("bad pack name in logs/index.js"); return; }
    if (last && last.name === name) { shown(); return; }
    load("logs/" + name + ".js");
  }

  function shown() {
    var run = last.runs[want.run];
    if (!run) { missing("run " + want.run + " is not in its pack " + last.name); return; }
    found(run, last.base64);
  }

  document.addEventListener("DOMContentLoaded", start);
  window.addEventListener("hashchange", start);
})();
