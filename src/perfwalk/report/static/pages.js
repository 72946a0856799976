/* perfwalk: the checkout, logs, commits and large-log pages of a series.
 *
 * Each is one page per series (series-<id>/checkout.html, logs.html, commits.html,
 * log.html) that draws what its link names: #c=12 (a checkout) or #log=7 (a large
 * log), with &to=<id> for an element to show (a test's row, a result, a log line).
 * The data come from scripts in data/, which load from file:// too:
 *   meta.js            perfwalk.meta(series, {pages: {blocks, host, …}, quirks, …})
 *   checkouts-<b>.js   perfwalk.checkouts(series, b, {metrics, layouts, anchors, c: […]}),
 *                      each checkout with ph: its steps and snapshots (report/phase_data.py)
 *   logs-<b>.js        perfwalk.logs(series, b, {ids, len, size, total, cut, large, pruned, z})
 *   commits-<b>.js     perfwalk.commits(series, b, {idx: [prev, prev sha, sha, commits]})
 *   log-<id>.js        perfwalk.log(series, id, {c, size, total, cut, lines, z}), or
 *                      {c, pruned} once retention dropped it (perfwalk prune)
 * Numbers are float64 little-endian in base64; logs are zlib streams as the store
 * keeps them, inflated by the browser (DecompressionStream). Every text goes into
 * the page as text (textContent, attributes), never as HTML; control characters
 * are shown as \xNN, as everywhere on the site.
 */
(function () {
  "use strict";

  var HEAD_LINES = 50; /* lines of a large log shown on the logs page */
  var PAGE_LINES = 5000; /* lines shown at each end of a large log on its own page */
  var STATS = 6; /* n, mean, median, min, max, sd per metric */
  var HEADERS = ["unit", "mean", "minimum", "maximum", "deviation", "relative"];

  var P = (window.perfwalk = window.perfwalk || {});
  var got = { meta: {}, checkouts: {}, logs: {}, commits: {}, log: {} };
  P.meta = function (sid, data) { got.meta[sid] = data; };
  P.checkouts = function (sid, block, data) { got.checkouts[block] = data; };
  P.logs = function (sid, block, data) { got.logs[block] = data; };
  P.commits = function (sid, block, data) { got.commits[block] = data; };
  P.log = function (sid, id, data) { got.log[id] = data; };

  var root = null;
  var sid = null;
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

  /* -- text and numbers ----------------------------------------------------------- */

  function visible(text) {
    return String(text).replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, function (c) {
      var code = c.charCodeAt(0);
      return code > 0xff ? "\\u" + code.toString(16) : "\\x" + ("0" + code.toString(16)).slice(-2);
    });
  }

  /* A value with its unit, a fraction as a percentage: perfwalk.format (format.js),
   * the site's one way to write a number, as the pages written in Python do. */
  function number(v, unit) {
    return window.perfwalk.format.value(v, unit);
  }

  function percent(v) {
    return window.perfwalk.format.share(v);
  }

  function numbers(text) {
    var raw = atob(text || "");
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return new Float64Array(bytes.buffer);
  }

  function bytesOf(text) {
    var raw = atob(text);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }

  function inflate(bytes) {
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).arrayBuffer().then(function (buffer) {
      return new TextDecoder("utf-8").decode(buffer); /* invalid UTF-8: U+FFFD */
    });
  }

  /* -- elements ------------------------------------------------------------------- */

  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (attrs[name] !== null && attrs[name] !== undefined) node.setAttribute(name, attrs[name]);
    });
    for (var i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }

  function add(node, child) {
    if (child === null || child === undefined) return;
    if (Array.isArray(child)) child.forEach(function (c) { add(node, c); });
    else if (typeof child === "string") node.appendChild(document.createTextNode(child));
    else node.appendChild(child);
  }

  function link(href, text, title) {
    return el("a", { href: href, title: title ? visible(title) : null }, visible(text));
  }

  function external(url, text, title) {
    return /^https?:\/\//.test(url) ? link(url, text, title) : el("code", {}, visible(text));
  }

  function commitUrl(meta, sha) {
    var template = meta.pages.commit_url;
    return template ? template.split("{commit}").join(encodeURIComponent(sha)) : "";
  }

  /* A file as commit sha left it, at [project] file_url ("" without one): the commit's
     id one path segment, the file's path its segments, each percent-encoded. */
  function fileUrl(meta, sha, path) {
    var template = meta.pages.file_url;
    if (!template) return "";
    var segments = path.split("/").map(encodeURIComponent).join("/");
    return template.split("{commit}").join(encodeURIComponent(sha)).split("{path}").join(segments);
  }

  function statusCell(status, href, title) {
    if (!status) return el("td");
    if (href) return el("td", { class: status }, link(href, status, title));
    return el("td", { class: status, title: title ? visible(title) : null }, status);
  }

  function at(kind, idx, to) {
    return kind + ".html#c=" + idx + (to ? "&to=" + to : "");
  }

  function blockOf(meta, idx) {
    var blocks = meta.pages.blocks;
    for (var b = 0; b < blocks.length; b++) {
      if (blocks[b][0] <= idx && idx <= blocks[b][1]) return b;
    }
    return -1;
  }

  function message(text) {
    root.replaceChildren(el("p", { class: "pw-wait" }, text));
  }

  var fixedCrumbs = null; /* the page's own crumbs: all series, the series */

  function title(text, crumbs) {
    document.title = text;
    document.querySelector("h1").textContent = text;
    var nav = document.querySelector("nav.crumbs");
    if (fixedCrumbs === null) fixedCrumbs = nav.childNodes.length;
    while (nav.childNodes.length > fixedCrumbs) nav.removeChild(nav.lastChild);
    (crumbs || []).forEach(function (c) {
      nav.appendChild(document.createTextNode(" \u203a "));
      nav.appendChild(link(c[0], c[1]));
    });
  }

  function show(to) {
    document.querySelectorAll(".pw-target").forEach(function (n) {
      n.classList.remove("pw-target");
    });
    var target = to ? document.getElementById(to) : null;
    if (target) {
      target.classList.add("pw-target");
      target.scrollIntoView();
    }
  }

  /* -- a checkout ----------------------------------------------------------------- */

  function checkoutOf(block, idx) {
    var found = null;
    block.c.forEach(function (c) { if (c.idx === idx) found = c; });
    return found;
  }

  function tableCrumb(meta, c) {
    if (meta.pages.tables <= 1) return [];
    var page = Math.floor(c.pos / meta.pages.table_columns);
    return [["table-" + page + ".html", "table " + (page + 1)]];
  }

  /* A walk measured with variants, and each variant: the same checkout measured plain
   * (base) and with each variant, linked (this one named, not linked). */
  function variantsAt(meta, idx) {
    var columns = meta.pages.variants;
    if (!columns) return null;
    var p = el("p", { class: "pw-variants" }, "variants: ");
    columns.forEach(function (column, n) {
      if (n) p.appendChild(document.createTextNode(" \u00b7 "));
      var name = column[0];
      var other = String(column[1]);
      p.appendChild(
        other === String(sid)
          ? el("b", {}, visible(name))
          : link("../series-" + other + "/" + at("checkout", idx), name)
      );
    });
    return p;
  }

  function drawCheckout(meta, block, c) {
    var idx = c.idx;
    title("checkout " + idx + " of series " + sid, tableCrumb(meta, c));
    var url = commitUrl(meta, c.sha);
    var facts = el(
      "p", {}, "commit ", url ? external(url, c.sha) : el("code", {}, c.sha), " \u00b7 " + c.date
    );
    var build = el("p", {}, "build ", el("span", { class: c.build || null }, c.build || "no build"));
    if (c.bsec !== null) build.appendChild(document.createTextNode(" in " + number(c.bsec, "s")));
    add(build, [
      " \u00b7 ",
      c.blog ? link(at("logs", idx, "log-" + c.blog), "build log") : "not built",
      " \u00b7 ",
      link(at("commits", idx), c.commits + " commits since previous"),
      " \u00b7 ",
      link(at("logs", idx), "every log of this checkout"),
    ]);
    if (c.prev !== null) add(build, [" \u00b7 ", link(at("checkout", c.prev), "\u2039 checkout " + c.prev)]);
    if (c.next !== null) add(build, [" \u00b7 ", link(at("checkout", c.next), "checkout " + c.next + " \u203a")]);
    var parts = [
      changeBanner(meta, idx), failuresBox(c), lostBox(c), variantsAt(meta, idx), facts, build,
      c.need ? el("p", {}, c.need) : null, prunedNote(c.pruned), profiles(c), quirks(meta, c),
      buildFacts(c),
    ];
    parts.push(c.d ? repetitions(block, c) : el("p", {}, "No repetition stored."));
    if (c.h) parts.push(histogramsOf(c));
    if (c.ph) parts.push(snapshotsOf(c), stepsOf(c));
    parts.push(host(meta));
    root.replaceChildren.apply(root, parts.filter(function (p) { return p; }));
  }

  /* -- each repetition's histograms (c.h: [test, repetition, name, unit, buckets]) -- */

  function histogramsOf(c) {
    var box = el("div", { id: "histograms" }, el("h2", {}, "Histograms"));
    c.h.forEach(function (h) {
      var unit = h[3], buckets = h[4].filter(function (b) { return b[2] > 0; });
      var total = 0, top = 0;
      buckets.forEach(function (b) { total += b[2]; top = Math.max(top, b[2]); });
      var rows = buckets.map(function (b) {
        var range = b[0] === b[1] ? number(b[0], unit) : number(b[0], unit) + " \u2013 " + number(b[1], unit);
        var bar = el("span", {});
        bar.style.width = top ? (100 * b[2] / top).toFixed(1) + "%" : "0"; /* CSSOM: allowed by the CSP */
        return el("tr", {}, el("td", {}, range), el("td", { class: "num" }, String(b[2])),
          el("td", { class: "bar" }, bar));
      });
      add(box, el("table", { class: "histogram" },
        el("caption", {}, visible(h[0] + " \u00b7 repetition " + h[1] + " \u00b7 " + h[2] +
          " [" + unit + "] \u00b7 " + total + " samples")),
        el("thead", {}, el("tr", {}, el("th", {}, "values"), el("th", {}, "samples"), el("th", {}, ""))),
        el("tbody", {}, rows)));
    });
    return box;
  }

  /* -- the phases of each repetition: snapshots and steps (c.ph) --------------------- */

  function rep3(r) { return ("00" + r).slice(-3); }

  function where(role, hostName) {
    return (role ? visible(role) : "run host") + " (" + visible(hostName) + ")";
  }

  /* The difference of each [[snapshot]]: per repetition, test, snapshot and role, the
   * counters that changed (largest change first), new and vanished ones, then the
   * unchanged ones folded. Numbers are decimal text, exact. */
  function snapshotsOf(c) {
    var snaps = c.ph.n;
    if (!snaps.length) return null;
    var box = el("div", { id: "snapshots" }, el("h2", {}, "Snapshots"));
    snaps.forEach(function (n, i) {
      var changed = n[7], fresh = n[8], gone = n[9], same = n[10];
      var heading = "repetition " + rep3(n[0]) + " \u00b7 " + visible(n[1]) + " \u00b7 " +
        visible(n[2]) + " on " + where(n[3], n[4]);
      var section = el("section", { class: "pw-snapshot", id: "snapshot-" + i },
        el("h3", {}, heading, " ", el("span", { class: n[5] }, n[5])));
      if (n[6]) section.appendChild(el("p", { class: "pw-why" }, visible(n[6])));
      var rows = changed.map(function (r) {
        return el("tr", {}, el("td", { class: "name" }, visible(r[0])), el("td", {}, r[1]),
          el("td", {}, r[2]), el("td", { class: "pw-delta" }, r[3]));
      });
      fresh.forEach(function (r) {
        rows.push(el("tr", {}, el("td", { class: "name" }, visible(r[0])), el("td", {}, "new"),
          el("td", {}, r[1]), el("td", {})));
      });
      gone.forEach(function (r) {
        rows.push(el("tr", {}, el("td", { class: "name" }, visible(r[0])), el("td", {}, r[1]),
          el("td", {}, "gone"), el("td", {})));
      });
      if (rows.length) {
        section.appendChild(el("table", { class: "pw-counters" },
          el("thead", {}, el("tr", {}, el("th", { class: "name" }, "counter"), el("th", {}, "before"),
            el("th", {}, "after"), el("th", {}, "\u0394"))),
          el("tbody", {}, rows)));
      } else if (n[5] === "PASS") section.appendChild(el("p", {}, "No counter changed."));
      if (same.length) {
        section.appendChild(el("details", {},
          el("summary", {}, same.length + " unchanged counters"),
          el("table", { class: "pw-counters" }, el("tbody", {}, same.map(function (r) {
            return el("tr", {}, el("td", { class: "name" }, visible(r[0])), el("td", {}, r[1]));
          })))));
      }
      box.appendChild(section);
    });
    return box;
  }

  /* Every step of the phases, per repetition and role: phase, command, status, exit
   * code, seconds, and the output folded (read from the block's logs file when opened;
   * a long one linked to its own page); a fetched file linked to its place in the logs. */
  function stepsOf(c) {
    var steps = c.ph.s;
    if (!steps.length) return null;
    var box = el("div", { id: "steps" }, el("h2", {}, "Steps of the phases"));
    var groups = [];
    var byKey = {};
    steps.forEach(function (s) {
      var key = s[1] + "\u0000" + s[4] + "\u0000" + s[5];
      if (!byKey[key]) { byKey[key] = []; groups.push([s, byKey[key]]); }
      byKey[key].push(s);
    });
    groups.forEach(function (g) {
      var first = g[0];
      var rows = g[1].map(function (s) {
        var outputs = [[s[13], "output"], [s[14], "errors"]].map(function (o) {
          return stepOutput(c, o[0], o[1], s[6] === "fetch");
        });
        return el("tr", { id: "step-" + s[0] },
          el("td", {}, visible(s[3])),
          el("td", { class: "name" }, visible(s[2])),
          el("td", {}, visible(s[6])),
          el("td", { class: "name" }, el("code", {}, visible(s[7] === s[8] ? s[8] : s[7] + ": " + s[8]))),
          statusCell(s[9], null, s[10]),
          el("td", {}, s[11] === null ? "" : String(s[11])),
          el("td", {}, number(s[12], "s")),
          el("td", { class: "name" }, outputs));
      });
      box.appendChild(el("section", { class: "pw-steps" },
        el("h3", {}, "repetition " + rep3(first[1]) + " \u00b7 " + where(first[4], first[5])),
        el("table", {},
          el("thead", {}, el("tr", {}, ["phase", "test", "kind", "command", "status", "exit", "seconds", "output"]
            .map(function (h) { return el("th", { class: h === "command" || h === "output" ? "name" : null }, h); }))),
          el("tbody", {}, rows))));
    });
    return box;
  }

  function stepOutput(c, logId, label, fetched) {
    if (!logId) return null;
    var place = at("logs", c.idx, "log-" + logId);
    var details = el("details", { class: "pw-output", "data-log": String(logId) },
      el("summary", {}, fetched && label === "output" ? "file" : label));
    var opened = false;
    details.addEventListener("toggle", function () {
      if (!details.open || opened) return;
      opened = true;
      var meta = got.meta[sid];
      var b = blockOf(meta, c.idx);
      load("data/logs-" + b + ".js").then(function () {
        var bundle = got.logs[b];
        if (bundle.large[String(logId)] !== undefined) {
          details.appendChild(el("p", {}, bundle.large[String(logId)] + " lines: ",
            link("log.html#log=" + logId, "on its own page"), " \u00b7 ",
            link("log-" + logId + ".txt", "download"), " \u00b7 ", link(place, "in the logs")));
          return null;
        }
        var pruned = (bundle.pruned || {})[logId];
        if (pruned) { details.appendChild(prunedNote(pruned)); return null; }
        var stored = (bundle.index = bundle.index || bundleIndex(bundle))[logId];
        if (!stored) { details.appendChild(el("p", {}, "(empty)")); return null; }
        return inflate(stored.bytes).then(function (text) {
          if (stored.cut) details.appendChild(el("p", {}, stored.total + " bytes produced; the store kept the head and the tail."));
          details.appendChild(el("pre", { class: "log" }, visible(text)));
          details.appendChild(el("p", {}, link(place, "in the logs")));
        });
      }).catch(function (error) { details.appendChild(el("p", {}, visible(error.message))); });
    });
    return details;
  }

  /* What retention (perfwalk prune) dropped: "log pruned on 2026-03-01 (retention: …)". */
  function prunedNote(said) {
    return said ? el("p", { class: "pw-pruned" }, visible(said)) : null;
  }

  /* Whether a block's logs file has something to show of a log: its output, its own
   * page (a large one), or what pruned it. */
  function shown(bundle, stored, logId) {
    return stored[logId] || bundle.large[String(logId)] !== undefined || (bundle.pruned || {})[logId];
  }

  /* The profiles taken at a checkout (c.prof: [test, profile id]), to their flame graphs. */
  function profiles(c) {
    if (!c.prof || !c.prof.length) return null;
    var p = el("p", { class: "pw-profiles" }, "profiles (flame graphs): ");
    c.prof.forEach(function (one, n) {
      if (n) p.appendChild(document.createTextNode(" \u00b7 "));
      p.appendChild(link("profile.html#p=" + Number(one[1]), one[0]));
    });
    return p;
  }

  /* -- the changes found at a checkout (it is the first after the step) ----------- */

  function changesAt(meta, idx) {
    return (meta.changes || []).filter(function (ch) { return ch.after_idx === idx; });
  }

  function anchorOf(sha) {
    return "commit-" + String(sha).toLowerCase().replace(/[^0-9a-f]/g, "");
  }

  /* "../series-2.html": a link of the metadata (from the site's root) from here */
  function fromRoot(href) {
    return "../" + href;
  }

  function answer(ch) {
    if (ch.culprit) {
      var k = ch.culprit;
      return [
        "culprit ",
        link(at("commits", ch.after_idx, anchorOf(k.sha)), k.sha.slice(0, 12), "the culprit among the commits"),
        " " + visible(k.subject),
        k.author ? " (" + visible(k.author) + ")" : "",
        ", found by ",
        link(fromRoot(k.href), "drill " + k.drill),
      ];
    }
    if (ch.range) {
      var r = ch.range;
      return [
        link(fromRoot(r.href), "drill " + r.drill), ": " + visible(r.verdict) + " ",
        link(at("commits", ch.after_idx), r.lo.slice(0, 10) + ".." + r.hi.slice(0, 10)),
        r.reason ? " (" + visible(r.reason) + ")" : "",
      ];
    }
    return ["not drilled"];
  }

  function changeBanner(meta, idx) {
    var found = changesAt(meta, idx);
    if (!found.length) return null;
    var items = found.map(function (ch) {
      var kind = ch.regression ? "regression" : "improvement";
      var triage = el("span", { class: "triage " + ch.triage, title: ch.triage_why ? visible(ch.triage_why) : null },
        visible(ch.triage));
      return el("li", { class: ch.note ? "noted " + kind : kind },
        el("b", {}, kind), " of " + visible(ch.metric) + " since ",
        link(at("checkout", ch.before_idx), "checkout " + ch.before_idx),
        ": " + visible(ch.levels) + ", \u0394 " + visible((ch.arrow ? ch.arrow + " " : "") + ch.delta) + " ",
        ch.verdict ? el("span", { class: ch.verdict }, ch.verdict) : null,
        ", confidence " + visible(ch.confidence),
        ch.state ? el("span", { class: "state", title: ch.chain ? visible(ch.chain.join("; ")) : null },
          " \u2014 " + visible(ch.state)) : null,
        ch.note ? el("span", { class: "note" }, " \u2014 " + visible(ch.note)) : null,
        el("br"), answer(ch), " \u00b7 triage: ", triage,
        ch.moved ? [el("br"), "moved with it: ",
          link(fromRoot(ch.moved.href), ch.moved.said.join("; ") +
            (ch.moved.more ? "; and " + ch.moved.more + " more" : ""))] : null);
    });
    return el("div", { class: "pw-banner", id: "changes" },
      el("h2", {}, found.length === 1 ? "A change here" : found.length + " changes here"),
      el("ul", {}, items));
  }

  /* A failed build and the tests that did not pass, before the tables: each one's
   * status, the first error line of its log and the log's last lines (computed when
   * the site was published), linked to the whole log. Log text is untrusted: text
   * nodes only. */
  function failuresBox(c) {
    var found = c.fail || [];
    if (!found.length) return null;
    var items = found.map(function (f) {
      var build = f.what === "build";
      var head = el("h3", {},
        build ? "build failed " : visible(f.what) + " ",
        el("span", { class: "pw-status " + f.status }, f.status),
        f.log ? [" · ", link(at("logs", c.idx, "log-" + f.log), "the whole log")] : null);
      return el("section", { class: "failure" }, head,
        f.line ? el("p", { class: "error-line" }, visible(f.line)) : null,
        f.tail && f.tail.length
          ? el("details", { open: "" },
            el("summary", {}, "the last " + f.tail.length + " lines of the log"),
            el("pre", { class: "tail" }, visible(f.tail.join("\n"))))
          : null);
    });
    var builds = found.filter(function (f) { return f.what === "build"; }).length;
    var tests = found.length - builds;
    var said = (builds ? "the build failed" : "") + (builds && tests ? "; " : "") +
      (tests ? tests + (tests === 1 ? " test did not pass" : " tests did not pass") : "");
    return el("div", { class: "pw-failures", id: "failures" },
      el("h2", {}, said.charAt(0).toUpperCase() + said.slice(1)), items);
  }

  /* What the parsers lost here: metrics a passing repetition lacked that the checkouts
   * before gave (a regex that misses some lines), said per test. */
  function lostBox(c) {
    if (!c.lost || !c.lost.length) return null;
    return el("div", { class: "pw-failures pw-lost", id: "lost" },
      el("h2", {}, "Values lost by a parser"),
      el("ul", {}, c.lost.map(function (said) { return el("li", {}, visible(said)); })),
      el("p", {}, "Fix the test's parser, then `perfwalk reparse` reads the stored outputs again."));
  }

  /* -- what the checkout really ran: each host's kernel and compiler, the symbols -- */

  function factCell(value, changed) {
    return el("td", { class: changed ? "name changed" : "name",
      title: changed ? "changed since the previous checkout" : null }, visible(value));
  }

  function buildFacts(c) {
    var bf = c.bf;
    if (!bf) return null;
    var box = el("div", { class: "pw-facts" }, el("h2", {}, "What it ran"));
    if (bf.hosts.length) {
      box.appendChild(el("table", {},
        el("thead", {}, el("tr", {}, el("th", { class: "name" }, "host"),
          el("th", { class: "name" }, "kernel"), el("th", { class: "name" }, "compiler"))),
        el("tbody", {}, bf.hosts.map(function (h) {
          return el("tr", {}, el("td", { class: "name" }, visible(h[0])),
            factCell(h[1], h[2]), factCell(h[3], h[4]));
        }))));
    }
    var s = bf.sym;
    if (s) {
      var p = el("p", { class: "pw-symbols" }, "symbols of ", el("code", {}, visible(s.binary)), ": ");
      if (s.count === null) add(p, "no list: " + visible(s.why));
      else if (s.stat) {
        add(p, [s.count + " symbols; against ", link(at("checkout", s.against), "checkout " + s.against),
          ": ", s.diff ? link(s.diff, s.stat, "the diff") : s.stat, " (added, removed, moved)"]);
      } else add(p, s.count + " symbols; " + (s.why ? visible(s.why) : "no earlier list to compare with"));
      box.appendChild(p);
    }
    return box;
  }

  function quirks(meta, c) {
    if (!c.quirks.length && !c.qruns.length) return null;
    var comments = {};
    meta.quirks.forEach(function (q) { comments[q[0]] = q[2]; });
    var box = el("div", {}, el("h2", {}, "Quirks applied"));
    if (c.quirks.length) box.appendChild(el("p", {}, "quirks in force: " + visible(c.quirks.join(", "))));
    if (c.qruns.length) {
      box.appendChild(
        el(
          "table", {},
          el("thead", {}, el("tr", {}, el("th", {}, "quirk"), el("th", {}, "status"),
            el("th", { class: "name" }, "comment"))),
          el("tbody", {}, c.qruns.map(function (q) {
            return el("tr", {},
              el("td", { class: "quirk" }, visible(q[0])),
              statusCell(q[1], at("logs", c.idx, "log-" + q[2])),
              el("td", { class: "name" }, visible(comments[q[0]] || "")));
          }))
        )
      );
    }
    return box;
  }

  function repetitions(block, c) {
    var detail = c.d;
    var reps = detail.reps;
    var width = reps.length;
    var metrics = block.layouts[c.m].map(function (m) { return block.metrics[m]; });
    var values = numbers(c.v);
    var stats = numbers(c.st);
    var summaries = numbers(c.s);
    var nan = {};
    detail.nan.forEach(function (p) { nan[p[0] + "/" + p[1]] = true; });
    var outlier = {};
    c.o.forEach(function (p) { outlier[p[0] + "/" + p[1]] = true; });
    var unstable = {};
    c.u.forEach(function (m) { unstable[m] = true; });
    var position = {};
    reps.forEach(function (r, pos) { position[r[0]] = pos; });
    var head = [el("th", { class: "name" }, "test / value")]
      .concat(reps.map(function (r) {
        var m = r[4];
        if (m && m.loaded) {
          return el("th", { class: "loaded", title: "measured on a loaded machine: " + visible(m.loaded) },
            ("00" + r[0]).slice(-3) + " \u26a0");
        }
        return el("th", {}, ("00" + r[0]).slice(-3));
      }))
      .concat(HEADERS.map(function (h) { return el("th", {}, h); }));
    var rows = [];
    var pad = function () { return HEADERS.map(function () { return el("td"); }); };
    if (reps.some(function (r) { return r[2] !== null; })) {
      rows.push(el("tr", {}, el("td", { class: "name" }, "between"),
        reps.map(function (r) {
          return statusCell(r[2], r[3] ? at("logs", c.idx, "log-" + r[3]) : null);
        }), pad()));
    }
    rows = rows.concat(machineRows(reps, pad));
    var byTest = {};
    detail.results.forEach(function (r) {
      (byTest[r[2]] = byTest[r[2]] || {})[r[1]] = r;
    });
    Object.keys(byTest).sort(byCodePoint).forEach(function (test) {
      var cells = [el("th", { class: "name", id: block.anchors[test] || null }, visible(test))];
      reps.forEach(function (r) {
        var result = byTest[test][r[0]];
        if (!result) { cells.push(el("td")); return; }
        var tip = result[4] || (result[5] !== null ? number(result[5], "s") : "");
        cells.push(statusCell(result[3], at("logs", c.idx, "result-" + result[0]), tip));
      });
      rows.push(el("tr", {}, cells, HEADERS.map(function (h) { return el("th", {}, h); })));
      metrics.forEach(function (key, m) {
        if (key[0] !== test) return;
        var row = [el("td", { class: "name" }, visible(key[1]))];
        var s = summaries[m];
        for (var pos = 0; pos < width; pos++) {
          var v = values[m * width + pos];
          var mark = m + "/" + pos;
          if (v !== v && !nan[mark]) row.push(el("td"));
          else if (outlier[mark]) {
            var dev = s ? Math.abs(v - s) / Math.abs(s) : 0;
            row.push(el("td", { class: "outlier", title: percent(dev) + " from the summary " + number(s, key[2]) },
              number(v, key[2])));
          } else row.push(el("td", {}, number(v, key[2])));
        }
        row.push(el("td", {}, visible(key[2])));
        var base = m * STATS;
        if (!stats[base]) row = row.concat(pad());
        else {
          var mean = stats[base + 1];
          var sd = stats[base + 5];
          var rsd = mean ? sd / Math.abs(mean) : 0;
          row.push(el("td", {}, number(mean, key[2])), el("td", {}, number(stats[base + 3], key[2])),
            el("td", {}, number(stats[base + 4], key[2])), el("td", {}, number(sd, key[2])),
            el("td", { class: unstable[m] ? "unstable" : null, title: "relative deviation" }, percent(rsd)));
        }
        rows.push(el("tr", {}, row));
      });
    });
    return el("table", { class: "repetitions" }, el("thead", {}, el("tr", {}, head)), el("tbody", {}, rows));
  }

  /* The machine's state of each repetition (detail.reps[i][4]): a row per fact. */
  function machineRows(reps, pad) {
    if (!reps.some(function (r) { return r[4]; })) return [];
    var fixed = function (v, digits) { return v === null || v === undefined ? "unknown" : v.toFixed(digits); };
    var facts = [
      ["load (cores)", function (m) { return fixed(m.load, 2) + " (" + (m.cores || "?") + ")"; }],
      ["others' CPU", function (m) { return m.others === null ? "unknown" : percent(m.others); }],
      ["others running", function (m) { return m.runnable === null || m.runnable === undefined ? "unknown" : m.runnable.toFixed(1); }],
      ["busiest others", function (m) {
        return m.busy.length ? m.busy.map(function (b) { return visible(b[0]) + " " + number(b[1], "%"); }).join(", ") : "none";
      }],
      ["steal", function (m) { return m.steal === null ? "unknown" : percent(m.steal); }],
      ["free memory", function (m) { return m.mem === null ? "unknown" : number(m.mem, "KiB"); }],
      ["frequency", function (m) { return m.freq === null ? "unknown" : fixed(m.freq, 0) + " MHz"; }],
      ["governor / turbo", function (m) { return visible(m.governor) + " / " + visible(m.turbo); }],
    ];
    return [el("tr", {}, el("th", { class: "name" }, "machine"), reps.map(function () { return el("th"); }), pad())]
      .concat(facts.map(function (fact) {
        return el("tr", {}, el("td", { class: "name" }, fact[0]),
          reps.map(function (r) {
            var m = r[4];
            if (!m) return el("td", {}, "unknown");
            var loaded = fact[0] === "load (cores)" && m.loaded;
            return el("td", {
              class: loaded ? "loaded" : null,
              title: m.loaded ? "loaded: " + visible(m.loaded) : null,
            }, fact[1](m));
          }), pad());
      }));
  }

  function byCodePoint(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  function host(meta) {
    return el("div", {},
      el("h2", {}, "Host " + visible(meta.pages.host)),
      el("table", {},
        el("thead", {}, el("tr", {}, el("th", { class: "name" }, "fact"), el("th", { class: "name" }, "value"))),
        el("tbody", {}, meta.pages.fingerprint.map(function (f) {
          return el("tr", {}, el("td", { class: "name" }, visible(f[0])), el("td", { class: "name" }, visible(f[1])));
        }))),
      el("p", {}, link("setup.html", "setup: configuration and commands")));
  }

  /* -- the logs of a checkout ------------------------------------------------------ */

  function numbered(logId, text, first, idx, kind) {
    var lines = text.split("\n");
    if (lines.length && !lines[lines.length - 1]) lines.pop();
    var pre = el("pre", { class: "log" });
    lines.forEach(function (line, n) {
      var id = "log-" + logId + "-L" + (n + first);
      var href = kind === "log" ? "#log=" + logId + "&to=" + id : at("logs", idx, id);
      pre.appendChild(el("a", { id: id, href: href }, String(n + first)));
      pre.appendChild(document.createTextNode(visible(line) + (n + 1 < lines.length ? "\n" : "")));
    });
    return pre;
  }

  function bundleIndex(bundle) {
    var found = {};
    var offset = 0;
    var raw = bundle.raw || (bundle.raw = bytesOf(bundle.z));
    bundle.ids.forEach(function (id, i) {
      found[id] = { bytes: raw.subarray(offset, offset + bundle.len[i]), total: bundle.total[i], cut: bundle.cut[i] };
      offset += bundle.len[i];
    });
    return found;
  }

  function drawLogs(meta, block, bundle, c) {
    var idx = c.idx;
    title("logs of checkout " + idx + " of series " + sid, [[at("checkout", idx), "checkout " + idx]]);
    var stored = bundleIndex(bundle);
    var pending = [];

    function section(logId, heading) {
      if (!logId) return null;
      var box = el("section", { id: "log-" + logId }, el("h3", {}, visible(heading)));
      var log = stored[logId];
      var lines = bundle.large[String(logId)];
      var pruned = (bundle.pruned || {})[logId];
      if (pruned) box.appendChild(prunedNote(pruned));
      else if (lines !== undefined) {
        box.appendChild(el("p", { class: "pw-wait" }, "loading…"));
        pending.push(load("data/log-" + logId + ".js").then(function () {
          var big = got.log[logId];
          return inflate(bytesOf(big.z)).then(function (text) {
            var head = text.split("\n").slice(0, HEAD_LINES).join("\n");
            box.replaceChildren(box.firstChild);
            if (big.cut) box.appendChild(el("p", {}, big.total + " bytes produced; the store kept the head and the tail."));
            box.appendChild(numbered(logId, head, 1, idx, "logs"));
            box.appendChild(el("p", {}, big.lines + " lines: ", link("log.html#log=" + logId, "the whole log, paged"),
              " \u00b7 ", link("log-" + logId + ".txt", "download")));
          });
        }));
      } else if (!log) box.appendChild(el("p", {}, "(no output)"));
      else {
        if (log.cut) box.appendChild(el("p", {}, log.total + " bytes produced; the store kept the head and the tail."));
        pending.push(inflate(log.bytes).then(function (text) { box.appendChild(numbered(logId, text, 1, idx, "logs")); }));
      }
      return box;
    }

    var parts = [el("p", {}, link(at("checkout", idx), "checkout " + idx), " \u00b7 commit ", el("code", {}, c.sha.slice(0, 12))),
      prunedNote(c.pruned)];
    parts.push(section(c.blog, "build"));
    c.qruns.forEach(function (q) { parts.push(section(q[2], "quirk " + q[0] + " (" + q[1] + ")")); });
    var detail = c.d || { reps: [], results: [] };
    detail.reps.forEach(function (r) {
      if (r[3] !== null) parts.push(section(r[3], "between repetitions, before " + ("00" + r[0]).slice(-3)));
    });
    detail.results.forEach(function (r) {
      var heading = "repetition " + ("00" + r[1]).slice(-3) + " \u00b7 " + r[2] + " \u00b7 " + r[3] +
        (r[4] ? " \u00b7 " + r[4] : "") + (r[6] !== null ? " \u00b7 exit " + r[6] : "");
      var outputs = [[r[7], "standard output"], [r[8], "standard error"]]
        .filter(function (o) { return shown(bundle, stored, o[0]); })
        .map(function (o) { return section(o[0], o[1]); });
      parts.push(el("section", { id: "result-" + r[0], class: "result" }, el("h2", {}, visible(heading)),
        outputs.length ? outputs : el("p", {}, "(no output)")));
    });
    ((c.ph && c.ph.s) || []).forEach(function (s) {
      var outputs = [[s[13], s[6] === "fetch" ? "file " + s[8] : "standard output"], [s[14], "standard error"]]
        .filter(function (o) { return shown(bundle, stored, o[0]); })
        .map(function (o) { return section(o[0], o[1]); });
      if (!outputs.length) return;
      var heading = "repetition " + rep3(s[1]) + " \u00b7 " + s[2] + " \u00b7 " + s[3] + " on " +
        (s[4] || "run host") + " (" + s[5] + ") \u00b7 " + s[7] + " \u00b7 " + s[9];
      parts.push(el("section", { id: "steplog-" + s[0], class: "result" }, el("h2", {}, visible(heading)), outputs));
    });
    root.replaceChildren.apply(root, parts.filter(function (p) { return p; }));
    return Promise.all(pending);
  }

  /* -- one large log ------------------------------------------------------------- */

  function drawLog(meta, logId, big) {
    var idx = big.c;
    title("log " + logId, [[at("checkout", idx), "checkout " + idx], [at("logs", idx), "logs"]]);
    if (big.pruned) {
      root.replaceChildren(prunedNote(big.pruned), el("p", {}, link(at("logs", idx), "the logs of checkout " + idx)));
      return Promise.resolve();
    }
    return inflate(bytesOf(big.z)).then(function (text) {
      var lines = text.split("\n");
      if (lines.length && !lines[lines.length - 1]) lines.pop();
      var parts = [el("p", {}, big.lines + " lines, " + big.size + " bytes \u00b7 ",
        link("log-" + logId + ".txt", "download the whole log"))];
      if (big.cut) parts.push(el("p", {}, big.total + " bytes produced; the store kept the head and the tail."));
      if (lines.length > 2 * PAGE_LINES) {
        var skipped = lines.length - 2 * PAGE_LINES;
        parts.push(numbered(logId, lines.slice(0, PAGE_LINES).join("\n"), 1, idx, "log"));
        parts.push(el("p", {}, "\u2026 " + skipped + " lines not shown here: download the whole log \u2026"));
        parts.push(numbered(logId, lines.slice(-PAGE_LINES).join("\n"), lines.length - PAGE_LINES + 1, idx, "log"));
      } else parts.push(numbered(logId, lines.join("\n"), 1, idx, "log"));
      root.replaceChildren.apply(root, parts);
    });
  }

  /* -- the commits up to a checkout --------------------------------------------------- */

  function drawCommits(meta, entry, idx) {
    title("commits up to checkout " + idx + " of series " + sid);
    var prev = entry[0];
    var since = prev !== null
      ? ["since ", link(at("checkout", prev), "checkout " + prev), " (" + entry[1].slice(0, 10) + ")"]
      : ["up to the first checkout"];
    var parts = [el("p", {}, el("strong", {}, String(entry[3].length)), " commits ", since, " to ",
      link(at("checkout", idx), "checkout " + idx), " (" + entry[2].slice(0, 10) + ")")];
    var culprits = {};
    changesAt(meta, idx).forEach(function (ch) {
      if (ch.culprit) (culprits[ch.culprit.sha] = culprits[ch.culprit.sha] || []).push(ch);
    });
    entry[3].slice().reverse().forEach(function (c) {
      var url = commitUrl(meta, c[0]);
      var name = url ? external(url, c[0].slice(0, 12), c[0]) : el("code", {}, c[0].slice(0, 12));
      var blamed = culprits[c[0]];
      var mark = blamed
        ? el("span", { class: "culprit-mark", title: "named by a drill as the first commit at the new level" },
            "\u2691 culprit of " + blamed.map(function (ch) { return visible(ch.metric); }).join(", ") + " ",
            link(fromRoot(blamed[0].culprit.href), "drill " + blamed[0].culprit.drill))
        : null;
      parts.push(el("article", { class: blamed ? "commit culprit" : "commit", id: anchorOf(c[0]) },
        mark,
        el("h3", {}, name, " " + visible(c[3])),
        el("p", {}, c[1] + " \u00b7 " + visible(c[2])),
        c[4].trim() ? el("pre", {}, visible(c[4])) : null,
        el("ul", { class: "files" }, c[5].map(function (f) {
          var href = fileUrl(meta, c[0], f) || url;
          return el("li", {}, href ? external(href, f, f + " in " + c[0].slice(0, 12)) : visible(f));
        }))));
    });
    root.replaceChildren.apply(root, parts);
  }

  /* -- which page, which checkout --------------------------------------------------- */

  var drawn = null; /* what the page shows: "c=12", "log=7" */

  function parse() {
    var found = /^#(c|log)=(\d+)(?:&to=([A-Za-z0-9_-]+))?$/.exec(window.location.hash);
    return found ? { key: found[1], id: Number(found[2]), to: found[3] || null } : null;
  }

  function draw() {
    var want = parse();
    var kind = root.dataset.kind;
    if (!want || (want.key === "log") !== (kind === "log")) {
      message(kind === "log" ? "no log chosen: open one from the logs of a checkout"
        : "no checkout chosen: open one from the series page or a plot");
      return Promise.resolve();
    }
    var shown = want.key + "=" + want.id;
    if (drawn === shown) { show(want.to); return Promise.resolve(); }
    return load("data/meta.js").then(function () {
      var meta = got.meta[sid];
      if (kind === "log") {
        return load("data/log-" + want.id + ".js").then(function () { return drawLog(meta, want.id, got.log[want.id]); });
      }
      var b = blockOf(meta, want.id);
      if (b < 0) { message("checkout " + want.id + " is not in series " + sid); return null; }
      var wanted = [load("data/checkouts-" + b + ".js")];
      if (kind === "logs") wanted.push(load("data/logs-" + b + ".js"));
      if (kind === "commits") wanted.push(load("data/commits-" + b + ".js"));
      return Promise.all(wanted).then(function () {
        var block = got.checkouts[b];
        var c = checkoutOf(block, want.id);
        if (!c) { message("checkout " + want.id + " is not in series " + sid); return null; }
        if (kind === "checkout") return drawCheckout(meta, block, c);
        if (kind === "logs") return drawLogs(meta, block, got.logs[b], c);
        return drawCommits(meta, got.commits[b][String(want.id)], want.id);
      });
    }).then(function () {
      drawn = shown;
      root.dataset.drawn = shown;
      show(want.to);
    });
  }

  function start() {
    root = document.getElementById("pw-page");
    if (!root) return;
    sid = Number(root.dataset.series);
    draw().catch(function (error) { message("this page cannot be drawn: " + error.message); });
  }

  window.addEventListener("hashchange", function () {
    if (root) draw().catch(function (error) { message("this page cannot be drawn: " + error.message); });
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
