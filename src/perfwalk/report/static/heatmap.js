/* perfwalk: the heatmaps of a series page (report/heatmaps.py writes their data).
 *
 * Each div.heatmap holds its data as JSON in data-heatmap: x (a label per checkout),
 * href (its checkout page), y (a label per range of values), cells ([x, y, share of
 * the checkout's samples in that range]), coloured by the square root of the share so
 * that a tail of a few percent shows. Apache ECharts draws it on a canvas (every
 * label is drawn as text); the tooltip's HTML goes through echarts.format.encodeHTML,
 * with the characters that would reorder the text shown as \uNNNN. A click on a cell
 * opens its checkout, where each repetition's histogram is drawn.
 */
(function () {
  "use strict";

  function encode(text) {
    var shown = String(text).replace(/[\u202a-\u202e\u2066-\u2069]/g, function (c) {
      return "\\u" + c.charCodeAt(0).toString(16);
    });
    return echarts.format.encodeHTML(shown);
  }

  function draw(el) {
    var data = JSON.parse(el.getAttribute("data-heatmap"));
    var share = window.perfwalk.format.share;
    var top = 0;
    /* the colour is the square root of the share: a tail of 1 % still shows */
    var cells = data.cells.map(function (c) {
      top = Math.max(top, c[2]);
      return [c[0], c[1], c[2], Math.sqrt(c[2])];
    });
    var chart = echarts.init(el);
    chart.setOption({
      animation: false,
      tooltip: {
        formatter: function (p) {
          return encode(data.x[p.value[0]]) + "<br>" + encode(data.y[p.value[1]]) + ": " +
            encode(share(p.value[2])) + " of the samples";
        },
      },
      grid: { left: 160, right: 20, top: 10, bottom: 110 },
      xAxis: { type: "category", data: data.x, axisLabel: { rotate: 40 } },
      yAxis: { type: "category", data: data.y },
      visualMap: {
        dimension: 3, min: 0, max: Math.sqrt(top) || 1, orient: "horizontal", left: "center", bottom: 0,
        inRange: { color: ["#f7fbff", "#6baed6", "#08306b"] },
        formatter: function (v) { return share(v * v); },
      },
      series: [{ type: "heatmap", data: cells }],
    });
    chart.on("click", function (p) { window.location.href = data.href[p.value[0]]; });
    window.addEventListener("resize", function () { chart.resize(); });
  }

  document.querySelectorAll("div.heatmap[data-heatmap]").forEach(draw);
})();
