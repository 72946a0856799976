/* perfwalk: the interactive plots of the published site.
 *
 * The drawing, zoom and pan, legend toggles, tooltips, markers and PNG export are
 * Apache ECharts' (echarts.min.js, copied into the site); this file only turns the
 * site's data files into ECharts options and wires the clicks.
 *
 * Data files are scripts (they load from file:// too): series-<id>/data/meta.js
 * calls perfwalk.meta(id, {...}) and series-<id>/data/<key>-<block>.js calls
 * perfwalk.block(id, key, block, {c: checkouts, n: {name: {s, p}}}), where s (each
 * checkout's summary) and p (each checkout's PASS values, one per repetition) are
 * float64 little-endian in base64, NaN for none; f (when any) lists the checkouts
 * whose build failed or whose test did not pass, [position in c, severity, what],
 * drawn as a gap in the lines and a marker at the bottom of the plot coloured by
 * status (a click opens the checkout). Every text in them is shown as text:
 * ECharts draws on a canvas and the tooltips go through echarts.format.encodeHTML.
 *
 * A plot may draw several series (data-series: their ids): on the index every
 * series, on a walk's page with variants (data-variants) the walk and the series of
 * each variant, in its columns' order, each line named by its variant (meta.variant)
 * and a click on a point opening that variant's checkout page.
 *
 * Level of detail: the summary line is downsampled by ECharts (LTTB); the
 * repetition points are all drawn while at most POINT_LIMIT are in view, else the
 * lowest and highest point of each run of checkouts, so spikes stay visible. Zooming
 * in brings back every point.
 */
(function () {
  "use strict";

  var POINT_LIMIT = 12000;
  var P = (window.perfwalk = window.perfwalk || {});
  var metas = {};
  var blocks = {};
  var loading = {};

  P.meta = function (sid, meta) {
    metas[sid] = meta;
  };
  P.block = function (sid, key, block, data) {
    blocks[sid + "/" + key + "/" + block] = data;
  };

  function load(src) {
    if (!loading[src]) {
      loading[src] = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = src;
        script.onload = resolve;
        script.onerror = function () {
          reject(new Error("cannot load " + src));
        };
        document.head.appendChild(script);
      });
    }
    return loading[src];
  }

  /* float64 little-endian numbers from base64 (NaN: none) */
  function numbers(text) {
    var raw = atob(text);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return new Float64Array(bytes.buffer);
  }
  P.numbers = numbers;

  /* Text for a tooltip's HTML: escaped, and the characters that would reorder what
   * follows them (bidi embeddings, overrides, isolates) shown as \uNNNN. */
  function encode(text) {
    var shown = String(text).replace(/[\u202a-\u202e\u2066-\u2069]/g, function (c) {
      return "\\u" + c.charCodeAt(0).toString(16);
    });
    return echarts.format.encodeHTML(shown);
  }

  /* Times in the site's one time zone (meta.zone, [report] time_zone), never the
   * viewer's: "2024-05-03 17:30" (ticks.js). */
  function isoDate(ms, zone) {
    return P.ticks.minute(ms, zone);
  }
  function zoneOf(line) {
    return (line && line.meta.zone) || "UTC";
  }
  /* A time axis ticked at round times of the zone (its midnights, months, hours:
   * ticks.js), not of UTC, from ``lo`` to ``hi``, as many as the plot's width holds;
   * its labels the zone's day at a midnight, else the day and minute. */
  function zoneAxis(el, lo, hi, zone) {
    if (typeof lo !== "number" || typeof hi !== "number") return {};
    var width = el.clientWidth - (compact(el) ? 20 : 100);
    var ticks = P.ticks.at(lo, hi, Math.floor(width / (compact(el) ? 75 : 110)), zone);
    return {
      axisTick: { customValues: ticks },
      axisLabel: {
        customValues: ticks,
        hideOverlap: true,
        fontSize: compact(el) ? 10 : 12,
        formatter: function (ms) {
          return P.ticks.label(ms, zone);
        },
      },
    };
  }

  /* Every (series, value name) of one plot: its checkouts, summary line and points. */
  function gather(el, base) {
    var key = el.dataset.key;
    var sids = el.dataset.series.split(" ");
    return Promise.all(
      sids.map(function (sid) {
        return load(base + "series-" + sid + "/data/meta.js");
      })
    ).then(function () {
      var wanted = [];
      sids.forEach(function (sid) {
        var meta = metas[sid];
        var spec = meta && meta.keys[key];
        if (!spec) return;
        var sealed = {};
        spec.sealed.forEach(function (s) {
          sealed[s] = true;
          wanted.push(load(base + "series-" + sid + "/data/" + key + "-s" + s + ".js"));
        });
        spec.blocks.forEach(function (b) {
          if (!sealed[Math.floor(b / spec.seal)]) {
            wanted.push(load(base + "series-" + sid + "/data/" + key + "-" + b + ".js"));
          }
        });
      });
      return Promise.all(wanted).then(function () {
        var lines = [];
        sids.forEach(function (sid) {
          var meta = metas[sid];
          var spec = meta && meta.keys[key];
          if (!spec) return;
          spec.names.forEach(function (name) {
            var line = {
              sid: sid, meta: meta, name: name, summary: [], points: [], shas: {}, failed: [],
            };
            spec.blocks.forEach(function (b) {
              var data = blocks[sid + "/" + key + "/" + b];
              var cks = data.c;
              cks.forEach(function (c) {
                line.shas[c[0]] = c[2];
              });
              var own = data.n[name];
              if (!own) return;
              var summary = numbers(own.s);
              var values = numbers(own.p);
              var failed = {};
              (data.f || []).forEach(function (f) {
                var c = cks[f[0]];
                failed[f[0]] = true;
                line.failed.push([c[1], c[0], f[1], f[2], c[3]]);
              });
              var at = 0;
              for (var i = 0; i < cks.length; i++) {
                var c = cks[i];
                var reps = c[4];
                if (summary[i] === summary[i]) line.summary.push([c[1], summary[i], c[0], c[3]]);
                else if (failed[i]) line.summary.push([c[1], null, c[0], c[3]]); /* a gap */
                for (var r = 0; r < reps.length; r++) {
                  var y = values[at + r];
                  if (y === y) line.points.push([c[1], y, c[0], reps[r], c[3]]);
                }
                at += reps.length;
              }
            });
            lines.push(line);
          });
        });
        return lines;
      });
    });
  }

  /* At most POINT_LIMIT points of ``points`` (sorted by x) between x0 and x1. */
  function detail(points, x0, x1, xi, limit) {
    var inside = [];
    for (var i = 0; i < points.length; i++) {
      var x = points[i][xi];
      if (x >= x0 && x <= x1) inside.push(points[i]);
    }
    if (inside.length <= limit) return inside;
    var runs = Math.ceil(inside.length / (limit / 2));
    var out = [];
    for (var start = 0; start < inside.length; start += runs) {
      var lo = inside[start];
      var hi = inside[start];
      for (var k = start + 1; k < Math.min(start + runs, inside.length); k++) {
        if (inside[k][1] < lo[1]) lo = inside[k];
        if (inside[k][1] > hi[1]) hi = inside[k];
      }
      out.push(lo);
      if (hi !== lo) out.push(hi);
    }
    return out;
  }

  /* perfwalk.format (format.js): the site's one way to write a number */
  function percentText(size) {
    if (size === null) return "";
    return P.format.change(size);
  }

  /* A line's excursions (shaded spans, halfway to the checkouts around them) and
   * drifts (dashed lines from the level at their first checkout to the level at
   * their last): blue, never red or green, for neither is a change. */
  function episodesOf(el, line, byOrder) {
    var spans = [];
    var drifts = [];
    (line.meta.episodes || [])
      .filter(function (e) {
        return e.key === el.dataset.key && e.name === line.name;
      })
      .forEach(function (e) {
        var from = byOrder ? e.from_pos : e.from;
        var to = byOrder ? e.to_pos : e.to;
        var size = percentText(e.size);
        if (e.kind === "excursion") {
          spans.push([
            {
              xAxis: byOrder ? e.span[2] : e.span[0],
              name: "excursion " + size,
              itemStyle: { color: "rgba(60, 110, 200, 0.16)" },
              label: { color: "#2f5fb0" },
            },
            { xAxis: byOrder ? e.span[3] : e.span[1] },
          ]);
        } else if (e.before !== null && e.after !== null) {
          drifts.push([
            {
              coord: [from, e.before],
              name: "drift " + size,
              symbol: "circle",
              symbolSize: 4,
              lineStyle: { color: "#2f5fb0", type: "dashed", width: 2 },
              label: { color: "#2f5fb0", position: "middle", formatter: "drift " + size },
            },
            { coord: [to, e.after], symbol: "circle", symbolSize: 4 },
          ]);
        } else {
          /* a level of 0 or beyond a float: the span only */
          spans.push([
            {
              xAxis: from,
              name: "drift " + size,
              itemStyle: { color: "rgba(60, 110, 200, 0.08)" },
              label: { color: "#2f5fb0" },
            },
            { xAxis: to },
          ]);
        }
      });
    return { spans: spans, drifts: drifts };
  }

  /* A line's name in the legend and tooltips: on a walk's page with variants
   * (data-variants), "variant: value name", the plain checkout's being "base". */
  function label(line, several, variants) {
    if (variants) return (line.meta.variant || "base") + ": " + line.name;
    return several ? line.meta.name + ": " + line.name : line.name;
  }

  /* On a walk's page with variants, each line's look: the colour of its variant (its
   * place in data-series: the plain checkout's first, then the variants in the
   * columns' order, the same in every plot), a dash and a symbol per value name. */
  function variantLooks(el, lines) {
    var sids = el.dataset.series.split(" ");
    var names = [];
    lines.forEach(function (l) {
      if (names.indexOf(l.name) < 0) names.push(l.name);
    });
    var dashes = ["solid", "dashed", "dotted"];
    var symbols = ["circle", "rect", "triangle", "diamond"];
    return lines.map(function (l) {
      var at = names.indexOf(l.name);
      return {
        colour: sids.indexOf(l.sid),
        dash: dashes[at % dashes.length],
        symbol: symbols[at % symbols.length],
      };
    });
  }

  function options(el, lines, byOrder) {
    var palette = [
      "#5470c6", "#ee6666", "#3ba272", "#fc8452", "#9a60b4",
      "#73c0de", "#fac858", "#ea7ccc", "#91cc75", "#2f4554",
    ];
    var xi = byOrder ? 4 : 0;
    var several = el.dataset.series.split(" ").length > 1;
    var variants = el.dataset.variants === "1";
    var total = 0;
    lines.forEach(function (l) {
      total += l.points.length;
    });
    var limit = Math.max(1000, Math.floor(POINT_LIMIT / Math.max(1, lines.length)));
    var reach = quirkReach(lines, xi, byOrder);
    var drawn = {}; // the quirks and releases drawn already: once per plot
    var series = [];
    var looks = variants ? variantLooks(el, lines) : null;
    var marked = {}; /* a series' failures: once, however many of its lines the plot has */
    lines.forEach(function (line, n) {
      var look = looks
        ? looks[n]
        : { colour: line.colourAt === undefined ? n : line.colourAt, dash: "solid", symbol: "circle" };
      var colour = palette[look.colour % palette.length];
      var name = label(line, several, variants);
      var summary = line.summary.map(function (s) {
        return byOrder ? [s[3], s[1], s[2], null, s[0]] : [s[0], s[1], s[2], null, s[3]];
      });
      var points = byOrder
        ? line.points.map(function (p) {
            return [p[4], p[1], p[2], p[3], p[0]];
          })
        : line.points;
      line.shown = points;
      var quirks = quirkMarks(line, byOrder, drawn);
      var changes = [];
      line.meta.changes.forEach(function (c, at) {
        if (c.key !== el.dataset.key || c.name !== line.name) return;
        var tint = c.unconfirmed
          ? "rgba(128, 128, 128, 0.15)" // not to act on: grey, whichever way it went
          : c.regression
            ? "rgba(213, 94, 0, 0.2)" /* Okabe–Ito vermillion */
            : "rgba(0, 158, 115, 0.2)"; /* Okabe–Ito bluish green: not the excursions' blue */
        var size = percentText(c.size);
        var note = c.unconfirmed ? " (" + c.unconfirmed + ")" : "";
        changes.push([
          {
            xAxis: byOrder ? c.from_pos : c.from,
            /* the arrow follows the value (up, down), the word says better or worse */
            name: (c.size > 0 ? "\u25b2 " : c.size < 0 ? "\u25bc " : "") + size + " " +
              (c.verdict || (c.regression ? "worse" : "better")) + note,
            itemStyle: { color: tint },
            pwChange: at, // its tooltip and its click: meta.changes[at]
            cursor: c.open ? "pointer" : "default",
          },
          { xAxis: byOrder ? c.to_pos : c.to },
        ]);
      });
      var episodes = episodesOf(el, line, byOrder);
      var areas = changes.concat(episodes.spans, quirks.bands);
      var marks = quirks.lines.concat(episodes.drifts, releaseMarks(line, byOrder, drawn));
      series.push({
        id: "s|" + line.sid + "|" + line.name,
        name: name,
        type: "line",
        data: summary,
        sampling: "lttb",
        showSymbol: false,
        /* not silent, for its change bands answer hovers and clicks (a series' silence
         * is its marks'); the points above it answer theirs */
        symbolSize: 4,
        color: colour,
        lineStyle: { width: 1.5, type: look.dash },
        encode: { x: 0, y: 1 },
        markLine: marks.length
          ? {
              symbol: "none",
              silent: false, // a quirk's letter opens its commands and patch
              lineStyle: { color: "#6030c0", type: "dashed" },
              label: { color: "#6030c0", position: "end" },
              data: marks,
            }
          : undefined,
        markArea: areas.length ? { silent: false, label: { position: "top" }, data: areas } : undefined,
      });
      series.push({
        id: "p|" + line.sid + "|" + line.name,
        name: name,
        type: "scatter",
        data: detail(points, -Infinity, Infinity, 0, limit),
        symbol: look.symbol,
        symbolSize: 4,
        color: colour,
        large: true,
        largeThreshold: 5000,
        z: 3,
        encode: { x: 0, y: 1 },
      });
      if (line.failed.length && !marked[line.sid]) {
        marked[line.sid] = true;
        series.push(failureSeries(line, several, byOrder, Object.keys(marked).length - 1));
      }
    });
    var about = described(lines, el.dataset.key);
    var grid = { left: 70, right: 30, top: about ? 76 : 60, bottom: 80 };
    var zone = zoneOf(lines[0]);
    stackLabels(series, el.clientWidth - grid.left - grid.right, lines, byOrder);
    return {
      animation: false,
      title: { text: el.dataset.title, subtext: about, left: "center", textStyle: { fontSize: 14 } },
      grid: grid,
      legend: { type: "scroll", top: about ? 40 : 24 },
      tooltip: {
        trigger: "item",
        confine: true,
        formatter: tooltip(lines, several, variants, byOrder),
      },
      useUTC: true, /* never the viewer's zone: the axis is labelled in the site's */
      xAxis: byOrder
        ? { type: "value", name: "checkout", minInterval: 1, min: reach[0], max: reach[1] }
        : {
            type: "time",
            name: "checkout date",
            min: reach[0],
            max: reach[1],
          },
      yAxis: yAxisOf(el, false),
      dataZoom: [
        { type: "inside", filterMode: "none" },
        {
          type: "slider",
          filterMode: "none",
          bottom: 20,
          showDataShadow: false,
          labelFormatter: byOrder ? undefined : function (ms) {
            return isoDate(ms, zone);
          },
        },
      ],
      toolbox: {
        right: 10,
        feature: {
          dataZoom: { yAxisIndex: "none", title: { zoom: "zoom", back: "undo zoom" } },
          restore: { title: "reset" },
          myOrder: {
            show: true,
            title: byOrder ? "x: checkout date" : "x: commit order",
            icon: "path://M2,20 L22,20 M2,20 L2,2 M6,16 L10,10 L14,13 L20,4",
            onclick: function () {
              draw(el, lines, !byOrder);
            },
          },
          saveAsImage: { title: "PNG", name: el.dataset.file, pixelRatio: 2 },
          mySvg: {
            show: true,
            title: "SVG",
            icon: "path://M4,2 L16,2 L20,6 L20,22 L4,22 Z M8,12 L16,12 M8,16 L16,16",
            onclick: function () {
              svg(el);
            },
          },
        },
      },
      series: series,
      _limit: limit,
    };
  }

  /* Change bands' labels that would overprint each other (changes a few checkouts
   * apart) stacked: each label (centred over its band, LABEL_FONT) takes the first row
   * where it clears the labels before it by LABEL_GAP px at the plot's ``width`` over
   * the whole x range; the first row above the plot, the next ones inside its top,
   * LABEL_ROW px apart. Zooming in only moves them apart. */
  var LABEL_FONT = "12px sans-serif";
  var LABEL_GAP = 6;
  var LABEL_ROW = 16;
  var measure = null;

  function textWidth(text) {
    if (!measure) measure = document.createElement("canvas").getContext("2d");
    measure.font = LABEL_FONT;
    return measure.measureText(text).width;
  }

  /* The x range of the lines' checkouts: [lo, hi] (Infinity, -Infinity without any);
   * every checkout with points has a summary: its x range is the points'. */
  function xRange(lines, byOrder) {
    var lo = Infinity;
    var hi = -Infinity;
    lines.forEach(function (l) {
      l.summary.forEach(function (p) {
        var x = byOrder ? p[3] : p[0];
        if (x < lo) lo = x;
        if (x > hi) hi = x;
      });
    });
    return [lo, hi];
  }

  function stackLabels(series, width, lines, byOrder) {
    var range = xRange(lines, byOrder);
    var lo = range[0];
    var hi = range[1];
    if (!(hi > lo) || width <= 0) return;
    var labels = [];
    series.forEach(function (one) {
      ((one.markArea && one.markArea.data) || []).forEach(function (band) {
        if (band[0].pwChange === undefined) return;
        var middle = ((band[0].xAxis + band[1].xAxis) / 2 - lo) / (hi - lo) * width;
        var half = textWidth(band[0].name) / 2;
        labels.push({ band: band[0], left: middle - half, right: middle + half });
      });
    });
    labels.sort(function (a, b) {
      return a.left - b.left;
    });
    var rows = []; /* each row's rightmost edge so far */
    labels.forEach(function (label) {
      var row = 0;
      while (row < rows.length && rows[row] + LABEL_GAP > label.left) row++;
      rows[row] = label.right;
      label.band.label = row === 0
        ? { position: "top", fontSize: 12, color: "#333" }
        : { position: "insideTop", fontSize: 12, color: "#333", offset: [0, 2 + (row - 1) * LABEL_ROW] };
      label.band.pwRow = row;
    });
  }

  /* The severity of each status (its index) and its colour: the ramp of style.css. */
  var STATUS = ["", "PASS", "XFAIL", "SKIP", "XPASS", "FAIL", "NOEXIT", "NOTERM",
    "NORUN", "NOLOG", "NOCLEAN", "NOEXIST"];
  var STATUS_COLOUR = ["#999999", "#eef5fb", "#fdf3b4", "#fbe38c", "#fec44f", "#fe9929",
    "#ec7014", "#cc4c02", "#a63b03", "#8c2d04", "#662506", "#3f1603"];
  var CROSS = "path://M2,0 L5,3 L8,0 L10,2 L7,5 L10,8 L8,10 L5,7 L2,10 L0,8 L3,5 L0,2 Z";

  /* A series' failed checkouts (its line's "failed": [ms, idx, severity, what, pos]):
   * a cross at the bottom of the plot, coloured by status, outlined to show on white;
   * its tooltip says what failed, a click opens the checkout. */
  function failureSeries(line, several, byOrder, row) {
    return {
      id: "f|" + line.sid,
      name: several ? line.meta.name + ": failed" : "failed checkouts",
      type: "scatter",
      yAxisIndex: 1,
      symbol: CROSS,
      symbolSize: 11,
      z: 4,
      cursor: "pointer",
      color: STATUS_COLOUR[11], /* its legend's */
      encode: { x: 0, y: 1 },
      data: line.failed.map(function (f) {
        return {
          value: [byOrder ? f[4] : f[0], 0.04 + 0.06 * row, f[1], f[2]], /* a row per series */
          name: "checkout " + f[1] + ": " + f[3],
          itemStyle: { color: STATUS_COLOUR[f[2]] || "#999999", borderColor: "#222", borderWidth: 1 },
        };
      }),
    };
  }
  P.STATUS = STATUS;

  /* A line's quirks not drawn yet on this plot (``drawn``: once per plot, however
   * many series share them): a lettered dashed line where each starts, a band over
   * the range of one that holds over a range; a click opens its commands and patch on
   * its series' setup page. */
  function quirkMarks(line, byOrder, drawn) {
    var lines = [];
    var bands = [];
    line.meta.quirks.forEach(function (q) {
      var x = byOrder ? q[3] : q[1];
      var seen = "q|" + q[0] + "|" + q[1];
      var range = drawn["b|" + seen] ? null : q[4]; // a drill's quirk may mark no range
      if (range) drawn["b|" + seen] = true;
      if (drawn[seen] && !range) return;
      var first = !drawn[seen];
      drawn[seen] = true;
      var open = "series-" + line.sid + "/setup.html#quirk-" + q[0].replace(/[^A-Za-z0-9]/g, "_");
      var tip = "<b>quirk " + encode(q[0]) + "</b> " + encode(isoDate(q[1], zoneOf(line))) + "<br>" +
        encode(q[2]) + "<br><i>click: its commands and patch</i>";
      if (x !== null && first) {
        lines.push({
          xAxis: x, name: q[0], label: { formatter: q[0] }, pwQuirk: open, pwTip: tip,
          lineStyle: { color: "#6030c0", type: "dashed" },
        });
      }
      if (range) {
        bands.push([
          {
            xAxis: byOrder ? range[2] : range[0],
            name: q[0],
            pwQuirk: open,
            pwTip: tip,
            itemStyle: { color: "rgba(96, 48, 192, 0.07)" },
            /* its letter once: on its line when the line is drawn here */
            label: { show: !(x !== null && first), color: "#6030c0", position: "insideTop" },
          },
          { xAxis: byOrder ? range[3] : range[1] },
        ]);
      }
    });
    return { lines: lines, bands: bands };
  }

  /* The releases, once per plot: a solid dark line with the release's name at its
   * foot (quirks are dashed purple and lettered at the top, changes shaded). */
  function releaseMarks(line, byOrder, drawn) {
    if (drawn.releases) return [];
    drawn.releases = true;
    var marks = [];
    (line.meta.releases || []).forEach(function (r) {
      var x = byOrder ? r[2] : r[1];
      if (x === null) return;
      marks.push({
        xAxis: x,
        name: r[0],
        pwTip: "<b>release " + encode(r[0]) + "</b> " + encode(isoDate(r[1], zoneOf(line))) +
          (r[4] ? " · " + encode(r[4]) : "") + (r[3] ? "<br>" + encode(r[3]) : ""),
        lineStyle: { color: "#303030", type: "solid", width: 1.5 },
        label: { formatter: r[0], position: "insideStartTop", color: "#303030", fontWeight: "bold" },
      });
    });
    return marks;
  }

  /* The window chosen above the plots (select#release-window, kept in the URL's hash
   * as r=<first>:<last>, places of releases in date order; no last: up to now) as
   * [x0, x1] of this plot (null: the data's end), or null for all. */
  function windowOf(lines, byOrder) {
    var chosen = P.releaseWindow;
    if (!chosen || !lines.length) return null;
    var parts = chosen.split(":");
    var releases = lines[0].meta.releases || [];
    function at(n) {
      if (n === "" || n === undefined) return null;
      var r = releases[Number(n)];
      if (!r) return null;
      return byOrder ? r[2] : r[1];
    }
    var x0 = at(parts[0]);
    var x1 = at(parts[1]);
    if (x0 === null && parts[0] !== "") return null;
    if (byOrder && x1 !== null) x1 = Math.max(x0, x1 - 0.5); // before the next release's checkout
    var hi = -Infinity;
    lines.forEach(function (l) {
      l.summary.forEach(function (p) {
        hi = Math.max(hi, byOrder ? p[3] : p[0]);
      });
    });
    if (x1 !== null && x1 >= hi) x1 = null; // a release after the last checkout: up to now
    return [x0, x1];
  }

  function applyWindow(el, chart, lines, byOrder) {
    var span = windowOf(lines, byOrder);
    var zoom = { type: "dataZoom", start: 0, end: 100 };
    if (span) {
      zoom = { type: "dataZoom" };
      if (span[0] !== null) zoom.startValue = span[0];
      else zoom.start = 0;
      if (span[1] !== null) zoom.endValue = span[1];
      else zoom.end = 100;
    }
    chart.dispatchAction(zoom);
    el.dataset.window = P.releaseWindow || "";
  }

  /* Every drawn plot of the page, zoomed to the window chosen; the plots drawn later
   * take it when they are. */
  P.setWindow = function (value) {
    P.releaseWindow = value || "";
    document.querySelectorAll("div.plot[data-key]").forEach(function (el) {
      var chart = window.echarts && echarts.getInstanceByDom(el);
      if (chart && el.pwLines) applyWindow(el, chart, el.pwLines, el.pwByOrder);
    });
  };

  function hashWindow() {
    var found = /(?:^#|&)r=([0-9]*:[0-9]*)/.exec(window.location.hash);
    return found ? found[1] : "";
  }

  function startWindow() {
    var select = document.getElementById("release-window");
    if (!select) return;
    var chosen = hashWindow();
    if (chosen && select.querySelector('option[value="' + chosen + '"]')) select.value = chosen;
    P.releaseWindow = select.value;
    select.addEventListener("change", function () {
      var rest = window.location.hash.replace(/^#/, "").split("&").filter(function (part) {
        return part && part.indexOf("r=") !== 0;
      });
      if (select.value) rest.push("r=" + select.value);
      history.replaceState(null, "", rest.length ? "#" + rest.join("&") : window.location.pathname + window.location.search);
      P.setWindow(select.value);
    });
  }

  /* The x range: the data's, stretched (by a tenth at most) to show quirks just
   * outside it, such as one dated shortly before the first checkout. */
  function quirkReach(lines, xi, byOrder) {
    var range = xRange(lines, byOrder);
    var lo = range[0];
    var hi = range[1];
    if (!isFinite(lo)) return [null, null];
    var slack = (hi - lo) / 10 || 1;
    var low = lo;
    var high = hi;
    lines.forEach(function (l) {
      l.meta.quirks.forEach(function (q) {
        var x = byOrder ? q[3] : q[1];
        if (x === null) return;
        if (x < low && x >= lo - slack) low = x;
        if (x > high && x <= hi + slack) high = x;
      });
    });
    return [low === lo ? null : low, high === hi ? null : high];
  }

  /* A change band's tooltip: Δ with its interval, confidence, verdict and its chain,
   * culprit, triage. */
  function changeTip(line, c) {
    var told = [
      "<b>" + encode((c.regression ? "regression " : "improvement ") + (c.metric || "")) + "</b>",
      encode(c.levels || "") + "",
      "\u0394 " + encode((c.arrow ? c.arrow + " " : "") + (c.delta || percentText(c.size)) +
        (c.verdict ? " " + c.verdict : "")),
      "confidence " + encode(c.confidence || ""),
    ];
    if (c.state) told.push("<b>" + encode(c.state) + "</b>" +
      (c.chain && c.chain.length ? ": " + encode(c.chain.join("; ")) : ""));
    if (c.culprit) told.push("culprit " + encode(c.culprit.sha.slice(0, 12) + " " + c.culprit.subject));
    else if (c.range) told.push(encode("drill " + c.range.drill + ": " + c.range.verdict + " " +
      c.range.lo.slice(0, 10) + ".." + c.range.hi.slice(0, 10)));
    else told.push("not drilled");
    if (c.note && !(c.chain && c.chain.indexOf(c.note) >= 0)) told.push(encode(c.note));
    if (c.triage) told.push("triage: " + encode(c.triage) + (c.triage_why ? " (" + encode(c.triage_why) + ")" : ""));
    told.push("<i>click: " + (c.culprit ? "the culprit's drill" : "the checkout after it") + "</i>");
    return told.join("<br>");
  }

  function tooltip(lines, several, variants, byOrder) {
    return function (p) {
      var parts = String(p.seriesId).split("|");
      if (parts[0] === "f") return encode(p.name || "");
      var line = lines.filter(function (l) {
        return l.sid === parts[1] && l.name === parts.slice(2).join("|");
      })[0];
      if (!line || !p.data) return "";
      if (p.componentType === "markLine" || (p.data && p.data.pwTip)) {
        return p.data && p.data.pwTip ? p.data.pwTip : encode(p.name || "");
      }
      if (p.componentType === "markArea") {
        var change = p.data.pwChange !== undefined ? line.meta.changes[p.data.pwChange] : null;
        return change ? changeTip(line, change) : encode(p.name || "");
      }
      var d = p.data;
      var when = byOrder ? d[4] : d[0];
      var what = parts[0] === "s" ? "summary" : "repetition " + ("00" + d[3]).slice(-3);
      return (
        "<b>" + encode(label(line, several, variants)) + "</b><br>" +
        "checkout " + encode(d[2]) + " · " + encode(line.shas[d[2]] || "") + "<br>" +
        encode(isoDate(when, zoneOf(line))) + "<br>" +
        encode(what) + ": <b>" + encode(P.format.value(d[1], line.meta.keys[lineKey(line)].unit)) + "</b>"
      );
    };
  }

  function lineKey(line) {
    return line.key;
  }

  /* The test's description under the plot's title: as the walk of its first line that
   * recorded one has it (meta.keys[key].description); "" for none. */
  function described(lines, key) {
    for (var n = 0; n < lines.length; n++) {
      var spec = lines[n].meta.keys[key];
      if (spec && spec.description) return spec.description;
    }
    return "";
  }

  function svg(el) {
    var chart = echarts.getInstanceByDom(el);
    var option = chart.getOption();
    option.animation = false;
    option.toolbox = [{ show: false }];
    var off = echarts.init(null, null, {
      renderer: "svg",
      ssr: true,
      width: chart.getWidth(),
      height: chart.getHeight(),
    });
    off.setOption(option);
    var text = off.renderToSVGString();
    off.dispose();
    var url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
    var a = document.createElement("a");
    a.href = url;
    a.download = (el.dataset.file || "plot") + ".svg";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () {
      URL.revokeObjectURL(url);
    }, 1000);
  }

  function draw(el, lines, byOrder) {
    var chart = echarts.getInstanceByDom(el) || echarts.init(el);
    el.pwLines = lines;
    el.pwByOrder = byOrder;
    var option = options(el, lines, byOrder);
    fit(el, option, lines);
    var zone = zoneOf(lines[0]);
    var span = windowOf(lines, byOrder) || [null, null];
    var x = option.xAxis;
    var data = xRange(lines, byOrder); /* the axis' ends when min or max is not set */
    var lo = span[0] !== null ? span[0] : x.min !== null ? x.min : data[0];
    var hi = span[1] !== null ? span[1] : x.max !== null ? x.max : data[1];
    if (!byOrder && isFinite(lo) && isFinite(hi)) Object.assign(x, zoneAxis(el, lo, hi, zone));
    /* the x axis of the window shown now: ticked anew at the zone's round times */
    function shownAxis() {
      var zoom = chart.getOption().dataZoom[0];
      return byOrder ? {} : zoneAxis(el, zoom.startValue, zoom.endValue, zone);
    }
    el.pwTicks = function () {
      if (!byOrder) chart.setOption({ xAxis: shownAxis() });
    };
    el.pwDraw = function () {
      draw(el, lines, byOrder);
    };
    el.pwLog = function () {
      var wanted = logWanted(el, lines);
      chart.setOption({ yAxis: yAxisOf(el, wanted) });
    };
    var limit = option._limit;
    delete option._limit;
    chart.setOption(option, true);
    applyWindow(el, chart, lines, byOrder);
    var timer = null;
    chart.off("datazoom");
    chart.on("datazoom", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var zoom = chart.getOption().dataZoom[0];
        var x0 = zoom.startValue;
        var x1 = zoom.endValue;
        chart.setOption({
          xAxis: shownAxis(),
          series: lines.map(function (line) {
            return {
              id: "p|" + line.sid + "|" + line.name,
              data: detail(line.shown, x0, x1, 0, limit),
            };
          }),
        });
      }, 80);
    });
    chart.off("click");
    chart.on("click", function (p) {
      if ((p.componentType === "markLine" || p.componentType === "markArea") && p.data &&
          p.data.pwQuirk) {
        window.location.href = el.dataset.base + p.data.pwQuirk;
        return;
      }
      if (p.componentType === "markArea" && p.data && p.data.pwChange !== undefined) {
        var parts = String(p.seriesId).split("|");
        var meta = metas[parts[1]];
        var change = meta && meta.changes[p.data.pwChange];
        if (change && change.open) window.location.href = el.dataset.base + change.open;
        return;
      }
      if (!p.data || p.componentType !== "series") return;
      var sid = String(p.seriesId).split("|")[1];
      var idx = p.value ? p.value[2] : p.data[2];
      window.location.href = el.dataset.base + "series-" + sid + "/checkout.html#c=" + idx;
    });
  }

  /* -- the plots' width, y scale and filter ---------------------------------------- *
   * A plot takes the width of the page; one narrower than COMPACT_WIDTH (a phone) has
   * its legend below the grid, no toolbox, smaller margins and fewer axis labels. Its
   * y axis may be logarithmic (a box above it), when all its values are above 0. A
   * page with FILTER_FROM plots or more has a box that shows only the plots whose
   * title or value names hold the text typed in it. */
  var COMPACT_WIDTH = 600;
  var FILTER_FROM = 5;
  var resizing = null;

  function compact(el) {
    return el.clientWidth < COMPACT_WIDTH;
  }

  /* ``option`` (a whole plot's) fitted to the plot's width and its y scale. */
  function fit(el, option, lines) {
    var small = compact(el);
    el.dataset.compact = small ? "1" : "";
    option.yAxis = yAxisOf(el, logWanted(el, lines));
    if (!small) return;
    option.grid = { left: 6, right: 14, top: 40, bottom: 112, containLabel: true };
    option.legend = { type: "scroll", bottom: 2, left: "center" };
    option.toolbox.show = false;
    option.title.textStyle.fontSize = 12;
    option.title.textStyle.width = Math.max(100, el.clientWidth - 16);
    option.title.textStyle.overflow = "truncate";
    option.xAxis.splitNumber = 3;
    option.xAxis.nameLocation = "middle";
    option.xAxis.nameGap = 24;
    option.xAxis.axisLabel = { hideOverlap: true, fontSize: 10 };
    option.dataZoom[1].bottom = 36;
    option.dataZoom[1].height = 22;
    /* the bands' and drifts' labels would cover the plot: their tooltips tell them */
    option.series.forEach(function (one) {
      if (one.markArea) one.markArea.label = { show: false };
      if (one.markLine) {
        one.markLine.data.forEach(function (mark) {
          if (mark[0] && mark[0].label) mark[0].label = { show: false };
        });
      }
    });
  }

  function positive(lines) {
    return lines.every(function (l) {
      return (
        l.summary.every(function (s) { return s[1] === null || s[1] > 0; }) &&
        l.points.every(function (p) { return p[1] === null || p[1] > 0; })
      );
    });
  }

  /* Whether the plot's y axis is to be logarithmic: asked for, and every value > 0
   * (else the box is unticked and a note says why). */
  function logWanted(el, lines) {
    if (el.dataset.log !== "1") return false;
    if (positive(lines)) return true;
    el.dataset.log = "";
    if (el.pwBar) {
      el.pwBar.querySelector("input").checked = false;
      el.pwBar.querySelector(".pw-plot-note").textContent =
        "no log scale: some values are 0 or less";
    }
    return false;
  }

  /* The plot's y axes: the values' (its labels written by perfwalk.format, in the
   * unit or, compact, without it: the title has it) and the failures' markers' (at
   * the bottom, whatever the values' range). */
  function yAxisOf(el, log) {
    var unit = el.dataset.unit;
    var spelled = P.format.unit(unit); /* as its labels write it: µs, not us */
    var axis = log
      ? { type: "log", name: spelled + " (log)", scale: true }
      : { type: "value", name: spelled, scale: true };
    axis.axisLabel = { formatter: P.format.axis(unit) };
    if (el.dataset.compact === "1") {
      axis.name = log ? "log" : ""; /* the unit is in the title */
      axis.splitNumber = 4;
      axis.axisLabel = { hideOverlap: true, fontSize: 10, formatter: P.format.axis("") };
    }
    return [axis, { type: "value", min: 0, max: 1, show: false }];
  }

  /* The box above a plot that makes its y axis logarithmic. */
  function controls(el) {
    var bar = document.createElement("p");
    bar.className = "pw-plot-controls";
    var label = document.createElement("label");
    var box = document.createElement("input");
    box.type = "checkbox";
    box.className = "pw-log";
    box.title = "logarithmic y axis for " + (el.dataset.title || "this plot");
    label.append(box, " log scale");
    var note = document.createElement("span");
    note.className = "pw-plot-note";
    bar.append(label, note);
    el.parentNode.insertBefore(bar, el);
    el.pwBar = bar;
    box.addEventListener("change", function () {
      note.textContent = "";
      el.dataset.log = box.checked ? "1" : "";
      if (el.pwLog) el.pwLog();
    });
  }

  /* The box that shows only the plots whose title or value names hold its text. */
  function filterBox(plots) {
    var bar = document.createElement("p");
    bar.className = "pw-plot-filter";
    var input = document.createElement("input");
    input.type = "search";
    input.placeholder = "find a metric by name";
    input.setAttribute("aria-label", "find a metric by name");
    var count = document.createElement("span");
    count.className = "pw-plot-count";
    bar.append(input, count);
    var box = plots[0].parentNode;
    box.parentNode.insertBefore(bar, box);
    function apply() {
      var text = input.value.trim().toLowerCase();
      var shown = 0;
      plots.forEach(function (el) {
        var words = ((el.dataset.title || "") + "\n" + (el.dataset.names || "")).toLowerCase();
        var show = words.indexOf(text) >= 0;
        var was = !el.hidden;
        if (show) shown++;
        [el].concat(el.pwParts || []).forEach(function (one) {
          one.hidden = !show;
          if (one.pwBar) one.pwBar.hidden = !show;
          var chart = show && !was && window.echarts && echarts.getInstanceByDom(one);
          if (chart) chart.resize();
        });
      });
      count.textContent = shown + " of " + plots.length + " plots";
    }
    input.addEventListener("input", apply);
    apply();
  }

  /* After the window changed size: every drawn plot resized, redrawn if it crossed
   * COMPACT_WIDTH. */
  function refit() {
    if (!window.echarts) return;
    document.querySelectorAll("div.plot[data-key]").forEach(function (el) {
      var chart = echarts.getInstanceByDom(el);
      if (!chart || el.hidden) return;
      chart.resize();
      if ((compact(el) ? "1" : "") !== el.dataset.compact && el.pwDraw) el.pwDraw();
      else if (el.pwTicks) el.pwTicks(); /* as many ticks as the new width holds */
    });
  }

  /* This script runs before the library is parsed (both deferred, this one first),
   * so that data files load while it is; drawing waits for the library. */
  var library = new Promise(function (resolve) {
    if (document.readyState === "complete" || window.echarts) resolve();
    else document.addEventListener("DOMContentLoaded", resolve);
  });
  var turn = Promise.resolve();

  function show(el) {
    var base = el.dataset.base || "";
    performance.mark("pw-start");
    /* one plot loaded and drawn at a time, in the order they come into view: the
     * first one on the screen is not slowed down by the others */
    turn = turn
      .then(function () {
        return Promise.all([gather(el, base), library]);
      })
      .then(function (got) {
        return got[0];
      })
      .then(function (lines) {
        performance.mark("pw-gathered");
        lines.forEach(function (line, n) {
          line.key = el.dataset.key;
          line.colourAt = n; /* its colour, whichever plot of the split it is drawn in */
        });
        var parts = split(el, lines);
        parts.forEach(function (part) {
          paint(part[0], part[1]);
        });
        performance.mark("pw-drawn");
      })
      .catch(function (error) {
        el.textContent = "this plot cannot be drawn: " + error.message;
        el.dataset.painted = "error";
      });
  }

  function paint(el, lines) {
    var chart = echarts.init(el);
    chart.on("finished", function () {
      if (!el.dataset.painted) {
        el.dataset.painted = String(performance.now());
        if (P.painted === undefined) P.painted = performance.now();
      }
    });
    draw(el, lines, false);
  }

  /* A plot whose values' scales differ by more than perfwalk.scales.FACTOR (scales.js)
   * split into a plot per group of values of a like scale: [[div, its lines], …], the
   * first the plot's own div (its title then names its values), the others new divs
   * after it (el.pwParts: hidden and shown with it). */
  function split(el, lines) {
    var names = [];
    var values = {};
    lines.forEach(function (line) {
      if (!values[line.name]) {
        values[line.name] = [];
        names.push(line.name);
      }
      line.summary.forEach(function (s) {
        if (s[1] !== null) values[line.name].push(s[1]);
      });
    });
    var groups = P.scales.groups(names.map(function (name) {
      return [name, values[name]];
    }));
    if (groups.length < 2) return [[el, lines]];
    var title = el.dataset.title || "";
    var after = el;
    el.pwParts = [];
    return groups.map(function (group, n) {
      var part = el;
      if (n > 0) {
        part = el.cloneNode(false);
        el.pwParts.push(part);
        after.parentNode.insertBefore(part, after.nextSibling);
        controls(part);
        after = part;
      }
      part.dataset.title = title + ": " + group.join(", ");
      part.dataset.names = group.join("\n");
      part.dataset.scale = String(n);
      part.dataset.file = (el.dataset.file || "plot") + (n ? "-" + n : "");
      return [part, lines.filter(function (line) {
        return group.indexOf(line.name) >= 0;
      })];
    });
  }

  function start() {
    startWindow();
    var plots = document.querySelectorAll("div.plot[data-key]");
    plots.forEach(controls);
    if (plots.length >= FILTER_FROM) filterBox(plots);
    window.addEventListener("resize", function () {
      clearTimeout(resizing);
      resizing = setTimeout(refit, 150);
    });
    if (!("IntersectionObserver" in window)) {
      plots.forEach(show);
      return;
    }
    var seen = new IntersectionObserver(
      function (entries) {
        entries.forEach(function (entry) {
          if (entry.isIntersecting) {
            seen.unobserve(entry.target);
            show(entry.target);
          }
        });
      },
      { rootMargin: "300px" }
    );
    plots.forEach(function (el) {
      seen.observe(el);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
