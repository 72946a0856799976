/* perfwalk: one log of the regress matrix, read from the run's log bundle.
 *
 * log.html#run=12&test=34 loads logs/12/b-0.js (the logs of tests 0..49 of run 12),
 * which calls perfwalkLogs.bundle(); a log too large for a bundle is its own file,
 * logs/12/t-34.js. #run=12&test=run shows the output of the run itself. The
 * log goes into the page as text (textContent), never as HTML.
 */
"use strict";
(function () {
  var BUNDLE = 50;
  var want = null;

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
    var root = document.getElementById("pw-log");
    root.replaceChildren(document.createTextNode(text));
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

  function show(entry) {
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
    nav.appendChild(link("runs/" + want.run + ".html", "run " + want.run));
    nav.appendChild(document.createTextNode(" \u00b7 "));
    nav.appendChild(link("index.html", "matrix"));
    var note = entry.truncated
      ? text("p", "pw-note", entry.total + " bytes produced; the head and the tail are kept")
      : null;
    var pre = text("pre", "pw-text", entry.text);
    root.replaceChildren(head, about, nav);
    if (note) { root.appendChild(note); }
    root.appendChild(pre);
  }

  function deliver(run, entries) {
    if (!want || want.run !== String(run) || !(want.test in entries)) { return; }
    var entry = entries[want.test];
    if (typeof entry.file === "string") {
      if (/^logs\/\d+\/t-\d+\.js$/.test(entry.file)) { load(entry.file); }
      return;
    }
    show(entry);
  }

  window.perfwalkLogs = {
    bundle: function (run, block, entries) { deliver(run, entries); },
    log: function (run, test, entry) {
      var entries = {};
      entries[String(test)] = entry;
      deliver(run, entries);
    }
  };

  function start() {
    want = parse();
    if (!want) { missing("no log chosen: open a cell of the matrix"); return; }
    if (want.test === "run") { load("logs/" + want.run + "/run.js"); return; }
    load("logs/" + want.run + "/b-" + Math.floor(Number(want.test) / BUNDLE) + ".js");
  }

  document.addEventListener("DOMContentLoaded", start);
  window.addEventListener("hashchange", start);
})();
