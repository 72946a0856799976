/* perfwalk: flame graphs, drawn by d3-flame-graph (d3-flamegraph.min.js, handed its
 * element by d3-selection.min.js).
 *
 * Every div.pw-flame of a page is drawn from a data file, a script that loads from
 * file:// too:
 *   data/profile-<id>.js   perfwalk.flame("p<id>", {test, c, what, z})
 *       a profile: its folded stacks ("root;…;leaf samples" a line), zlib, base64;
 *       the series' profile.html draws the one its link names (#p=<id>);
 *   data/profile-d<key>.js perfwalk.flame("d<key>", {test, before, after, tb, ta, tree})
 *       a differential: a tree of frames {n: name, v: samples after, b: before,
 *       c: callees}, drawn where the div says (data-src, data-key); a frame is as
 *       wide as its samples after and coloured by the change of its share of all
 *       samples (red: grew, blue: shrank).
 * Click a frame to zoom into it, "reset zoom" to come back; the search box marks the
 * frames whose name holds its text (not a pattern). Hovering a frame tells its
 * samples and shares below the graph and in its tooltip. Every name goes into the
 * page as text (textContent, attributes), never as HTML; control characters are
 * shown as \xNN, as everywhere on the site.
 */
(function () {
  "use strict";

  var P = (window.perfwalk = window.perfwalk || {});
  var got = {};
  P.flame = function (key, data) { got[key] = data; };

  var loading = {};

  function load(src) {
    if (!loading[src]) {
      loading[src] = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = src;
        script.onload = resolve;
        script.onerror = function () { reject(new Error("not published: " + src)); };
        document.head.appendChild(script);
      });
    }
    return loading[src];
  }

  function visible(text) {
    return String(text).replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, function (c) {
      var code = c.charCodeAt(0);
      return code > 0xff ? "\\u" + code.toString(16) : "\\x" + ("0" + code.toString(16)).slice(-2);
    });
  }

  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (attrs[name] !== null && attrs[name] !== undefined) node.setAttribute(name, attrs[name]);
    });
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  /* perfwalk.format (format.js): the site's one way to write a number */
  function percent(share) {
    return window.perfwalk.format.share(share);
  }

  function points(delta) {
    return window.perfwalk.format.difference(100 * delta, "") + " points";
  }

  function inflate(base64) {
    var raw = atob(base64);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).arrayBuffer().then(function (buffer) {
      return new TextDecoder("utf-8").decode(buffer); /* invalid UTF-8: U+FFFD */
    });
  }

  /* -- folded stacks → a tree ------------------------------------------------------ */

  function parseFolded(text) {
    var root = { n: "all", v: 0, kids: new Map() };
    var stacks = 0;
    text.split("\n").forEach(function (line) {
      var cut = line.lastIndexOf(" ");
      if (cut < 0) return;
      var samples = Number(line.slice(cut + 1));
      if (!(samples > 0)) return;
      stacks++;
      root.v += samples;
      var node = root;
      line.slice(0, cut).split(";").forEach(function (frame) {
        var child = node.kids.get(frame);
        if (!child) {
          child = { n: visible(frame), v: 0, kids: new Map() };
          node.kids.set(frame, child);
        }
        child.v += samples;
        node = child;
      });
    });
    return { tree: finish(root), stacks: stacks };
  }

  function finish(node) {
    var out = { n: node.n, v: node.v };
    if (node.kids.size) {
      out.c = [];
      node.kids.forEach(function (child) { out.c.push(finish(child)); });
    }
    return out;
  }

  function cleanNames(node) {
    node.n = visible(node.n);
    (node.c || []).forEach(cleanNames);
  }

  /* -- the chart and its controls --------------------------------------------------- */

  function chartIn(box, tree, label, colour) {
    var term = el("input", { type: "search", placeholder: "function name", "aria-label": "search" });
    var search = el("button", { type: "button" }, "search");
    var clear = el("button", { type: "button" }, "clear");
    var reset = el("button", { type: "button" }, "reset zoom");
    var details = el("p", { class: "flame-details" });
    var graph = el("div", { class: "flame-graph" });
    box.replaceChildren(el("p", { class: "flame-controls" }, term, " ", search, " ", clear, " ", reset), graph, details);

    var chart = flamegraph()
      .width(Math.max(box.clientWidth || 0, 400))
      .cellHeight(18)
      .transitionDuration(300)
      .minFrameSize(1)
      .sort(true)
      .setDetailsElement(details)
      .setLabelHandler(label)
      .setSearchMatch(function (d, text) {
        return Boolean(text) && String(d.data.n).toLowerCase().indexOf(text.toLowerCase()) >= 0;
      });
    if (colour) {
      chart.setColorMapper(function (d, original) { return d.highlight ? original : colour(d); });
    }
    d3.select(graph).datum(tree).call(chart);

    search.addEventListener("click", function () { chart.search(term.value); });
    term.addEventListener("keydown", function (event) {
      if (event.key === "Enter") chart.search(term.value);
    });
    clear.addEventListener("click", function () { term.value = ""; chart.clear(); });
    reset.addEventListener("click", function () { chart.resetZoom(); });
    return chart;
  }

  /* -- a profile -------------------------------------------------------------------- */

  function drawProfile(box, data) {
    return inflate(data.z).then(function (text) {
      var parsed = parseFolded(text);
      var total = parsed.tree.v;
      var head = el("p", { class: "flame-facts" },
        total + " samples in " + parsed.stacks + " stacks" + (data.what ? " \u00b7 " + visible(data.what) : ""));
      var holder = el("div");
      box.replaceChildren(head, holder);
      if (!total) { holder.appendChild(el("p", {}, "No sample in this profile.")); return; }
      chartIn(holder, parsed.tree, function (d) {
        return d.data.n + ": " + d.data.v + " samples, " + percent(d.data.v / total);
      }, null);
    });
  }

  /* -- a differential ------------------------------------------------------------- */

  function drawDiff(box, data) {
    var ta = data.ta;
    var tb = data.tb;
    cleanNames(data.tree);
    function change(node) {
      return (ta ? node.v / ta : 0) - (tb ? (node.b || 0) / tb : 0);
    }
    var largest = 0;
    (function walk(node) {
      largest = Math.max(largest, Math.abs(change(node)));
      (node.c || []).forEach(walk);
    })(data.tree);
    if (!data.tree.v) { box.replaceChildren(el("p", {}, "No sample after: nothing to draw.")); return; }
    var after = visible(data.after);
    var before = visible(data.before);
    chartIn(box, data.tree, function (d) {
      var n = d.data;
      return n.n + ": " + after + " " + n.v + " samples (" + percent(ta ? n.v / ta : 0) + "), " +
        before + " " + (n.b || 0) + " samples (" + percent(tb ? (n.b || 0) / tb : 0) + "), " +
        points(change(n));
    }, function (d) {
      var delta = change(d.data);
      var depth = largest ? Math.sqrt(Math.abs(delta) / largest) : 0;
      var pale = Math.round(242 - 190 * depth);
      if (delta > 0) return "rgb(242," + pale + "," + pale + ")";
      if (delta < 0) return "rgb(" + pale + "," + pale + ",242)";
      return "rgb(242,242,242)";
    });
  }

  /* -- which flame graphs ---------------------------------------------------------- */

  function message(box, text) {
    box.replaceChildren(el("p", { class: "pw-wait" }, text));
  }

  function drawBox(box) {
    var src = box.dataset.src;
    var key = box.dataset.key;
    if (!src || !key) return Promise.resolve();
    return load(src).then(function () {
      var data = got[key];
      if (!data) throw new Error("no data in " + src);
      return data.tree ? drawDiff(box, data) : drawProfile(box, data);
    }).then(function () { box.dataset.drawn = key; });
  }

  function title(text, crumb) {
    document.title = text;
    document.querySelector("h1").textContent = text;
    var nav = document.querySelector("nav.crumbs");
    if (nav && crumb) {
      var old = nav.querySelector("a.flame-crumb");
      if (old) { nav.removeChild(old.previousSibling); nav.removeChild(old); }
      nav.appendChild(document.createTextNode(" \u203a "));
      nav.appendChild(el("a", { href: crumb[0], class: "flame-crumb" }, crumb[1]));
    }
  }

  function drawShell(box) {
    var found = /^#p=(\d+)$/.exec(window.location.hash);
    if (!found) { message(box, "no profile chosen: open one from a checkout's page"); return Promise.resolve(); }
    var id = found[1];
    box.dataset.src = "data/profile-" + id + ".js";
    box.dataset.key = "p" + id;
    return load(box.dataset.src).then(function () {
      var data = got["p" + id];
      var at = data.c !== null && data.c !== undefined ? " at checkout " + data.c : "";
      title("profile of " + visible(data.test) + at + " of series " + box.dataset.series,
        at ? ["checkout.html#c=" + data.c, "checkout " + data.c] : null);
      return drawBox(box);
    });
  }

  function start() {
    document.querySelectorAll("div.pw-flame").forEach(function (box) {
      var drawn = box.id === "pw-profile" ? drawShell(box) : drawBox(box);
      drawn.catch(function (error) { message(box, "this flame graph cannot be drawn: " + error.message); });
    });
  }

  window.addEventListener("hashchange", function () {
    var box = document.getElementById("pw-profile");
    if (box) {
      delete box.dataset.drawn;
      drawShell(box).catch(function (error) { message(box, "this flame graph cannot be drawn: " + error.message); });
    }
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
