/* perfwalk's sweep profiles: a family's value (y) against its swept parameter (x),
 * one line per range of checkouts, from the JSON each div.sweep-plot carries
 * (report/pages/sweeps.py). Every text is set as text: echarts does not read it as
 * markup (tooltips are built with perfwalk.format and escaped here). */
(function () {
  "use strict";
  var P = (window.perfwalk = window.perfwalk || {});

  function escaped(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  /* A log x axis when the parameter spans a decade or more (64 … 1500 bytes). */
  function logX(xs) {
    return xs[0] > 0 && xs[xs.length - 1] / xs[0] >= 10;
  }

  function option(data) {
    var log = logX(data.xs);
    return {
      animation: false,
      title: { text: data.title, textStyle: { fontSize: 13 } },
      legend: { type: "scroll", top: 24 },
      grid: { top: 64, left: 72, right: 24, bottom: 48 },
      tooltip: {
        trigger: "axis",
        formatter: function (items) {
          var lines = [escaped(data.parameter + " = " + items[0].value[0])];
          items.forEach(function (item) {
            lines.push(
              escaped(item.seriesName) + ": " + escaped(P.format.value(item.value[1], data.unit))
            );
          });
          return lines.join("<br>");
        },
      },
      xAxis: {
        type: log ? "log" : "value",
        name: data.parameter + (log ? " (log)" : ""),
        nameLocation: "middle",
        nameGap: 28,
        min: data.xs[0],
        max: data.xs[data.xs.length - 1],
      },
      yAxis: {
        type: "value",
        name: data.unit_shown,
        scale: true,
        axisLabel: { formatter: P.format.axis(data.unit) },
      },
      series: data.lines.map(function (line) {
        return {
          type: "line",
          name: line.label,
          showSymbol: true,
          connectNulls: false,
          data: data.xs.map(function (x, n) {
            return [x, line.values[n]];
          }),
        };
      }),
    };
  }

  function paint(el) {
    try {
      var data = JSON.parse(el.dataset.profile);
      var chart = echarts.init(el);
      chart.on("finished", function () {
        if (!el.dataset.painted) el.dataset.painted = String(performance.now());
      });
      chart.setOption(option(data));
      window.addEventListener("resize", function () {
        chart.resize();
      });
    } catch (error) {
      el.textContent = "this plot cannot be drawn: " + error.message;
      el.dataset.painted = "error";
    }
  }

  function start() {
    document.querySelectorAll("div.sweep-plot[data-profile]").forEach(paint);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
