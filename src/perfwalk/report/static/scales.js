/* perfwalk: which values of one plot share a y axis (docs/report.md, "Plots").
 *
 * A plot shows one test's values of one unit; when their scales differ by more than
 * FACTOR (a compression speed of 350 MB/s beside a decompression speed of 3 900 MB/s),
 * a step in the smaller would be a flat line on the larger's axis, so plot.js draws
 * each group of values of a like scale as a plot of its own.
 *
 *   perfwalk.scales.groups([["compress", [350, 352]], ["decompress", [3900]]])
 *     → [["compress"], ["decompress"]]
 *
 * A value's scale is the median of its magnitudes (every checkout's summary, of every
 * series that has it: a variant's line stays with its walk's). Scales are taken from
 * the smallest: a value joins the group of the smallest scale not yet grouped when its
 * own is at most FACTOR times that one; a value without numbers joins the first group.
 * The groups keep the values' order (the first group holds the first value), and each
 * group its values in their order. Pure: numbers in, names out.
 */
(function () {
  "use strict";

  var FACTOR = 3;

  /* The median of the magnitudes of the finite numbers of ``values``; NaN for none. */
  function median(values) {
    var kept = [];
    for (var i = 0; i < values.length; i++) {
      var v = values[i];
      if (typeof v === "number" && isFinite(v)) kept.push(Math.abs(v));
    }
    if (!kept.length) return NaN;
    kept.sort(function (a, b) {
      return a - b;
    });
    var mid = kept.length >> 1;
    return kept.length % 2 ? kept[mid] : (kept[mid - 1] + kept[mid]) / 2;
  }

  /* ``named``: [[name, numbers], …] in the plot's order → the names' groups. */
  function groups(named, factor) {
    factor = factor || FACTOR;
    var scaled = [];
    var unknown = [];
    named.forEach(function (pair, at) {
      var m = median(pair[1]);
      if (m === m) scaled.push({ name: pair[0], scale: m, at: at });
      else unknown.push({ name: pair[0], at: at });
    });
    var bySize = scaled.slice().sort(function (a, b) {
      return a.scale - b.scale || a.at - b.at;
    });
    var found = [];
    var base = null;
    bySize.forEach(function (one) {
      if (base === null || one.scale > base * factor || (base === 0 && one.scale > 0)) {
        found.push([]);
        base = one.scale;
      }
      found[found.length - 1].push(one);
    });
    if (!found.length) found.push([]);
    var first = found.filter(function (g) {
      return g.some(function (one) { return one.at === 0; });
    })[0] || found[0];
    unknown.forEach(function (one) {
      first.push(one);
    });
    found.forEach(function (g) {
      g.sort(function (a, b) { return a.at - b.at; });
    });
    found.sort(function (a, b) {
      return a[0].at - b[0].at;
    });
    return found.map(function (g) {
      return g.map(function (one) { return one.name; });
    });
  }

  var P = (window.perfwalk = window.perfwalk || {});
  P.scales = { FACTOR: FACTOR, median: median, groups: groups };
})();
