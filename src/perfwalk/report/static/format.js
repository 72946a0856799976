/* perfwalk: how a number is written for a person, in the browser as on the command
 * line and the pages (src/perfwalk/quantities.py holds the rules and their reasons;
 * tests/number_format_cases.json the cases both write alike).
 *
 *   perfwalk.format.value(867.7e6, "bytes/sec")  "867.7 MB/s"
 *   perfwalk.format.difference(0.0015, "s")      "+1.50 ms"
 *   perfwalk.format.change(-0.3798)              "-38.0 %"
 *   perfwalk.format.share(0.025)                 "2.5 %"
 *   perfwalk.format.axis(unit)                   a y-axis label formatter
 *   perfwalk.format.unit("us")                   "\u00b5s": the unit as value() spells it
 *
 * Every step is one the Python side takes too (one multiplication or division by an
 * exact power, comparisons, toFixed's rounding of a tie away from zero), so that both
 * give the same digits.
 */
(function () {
  "use strict";

  var MISSING = "n/a";
  var PREFIXES = { "-9": "n", "-6": "\u00b5", "-3": "m", "0": "", "3": "k", "6": "M", "9": "G", "12": "T" };
  var BINARY = { 0: "", 1: "Ki", 2: "Mi", 3: "Gi", 4: "Ti" };
  var TIME = ["s", -9, 0];
  var BYTES = ["B", 0, 12];
  var BITS = ["bit", 0, 12];
  var OPS = ["ops", 0, 12];
  var KNOWN = {};
  function known(words, family, carried) {
    words.forEach(function (w) { KNOWN[w] = [family, carried]; });
  }
  known(["s", "sec", "secs", "second", "seconds"], TIME, 0);
  known(["ms", "msec", "msecs"], TIME, -3);
  known(["us", "usec", "usecs", "\u00b5s", "\u03bcs"], TIME, -6);
  known(["ns", "nsec", "nsecs"], TIME, -9);
  known(["B", "byte", "bytes"], BYTES, 0);
  known(["kB"], BYTES, 3);
  known(["MB"], BYTES, 6);
  known(["GB"], BYTES, 9);
  known(["TB"], BYTES, 12);
  known(["bit", "bits"], BITS, 0);
  known(["kbit"], BITS, 3);
  known(["Mbit"], BITS, 6);
  known(["Gbit"], BITS, 9);
  known(["op", "ops"], OPS, 0);
  var BINARY_BYTES = { KiB: 1, kbytes: 1, MiB: 2, GiB: 3, TiB: 4 };
  var RATES = { bps: "bits/s", kbps: "kbit/s", Kbps: "kbit/s", Mbps: "Mbit/s", Gbps: "Gbit/s" };
  var PER_SECOND = ["s", "sec", "second"];
  var own = Object.prototype.hasOwnProperty;

  function missing(v) {
    return v === null || v === undefined || typeof v !== "number" || !isFinite(v);
  }

  function joined(number, unit) {
    return unit ? number + " " + unit : number;
  }

  function shifted(size, base, power) {
    return power >= 0 ? size * Math.pow(base, power) : size / Math.pow(base, -power);
  }

  function exponent(m) {
    /* Python's "{:.2e}": at least two digits of exponent */
    var parts = m.toExponential(2).split("e");
    var digits = parts[1].slice(1);
    return parts[0] + "e" + parts[1][0] + (digits.length < 2 ? "0" + digits : digits);
  }

  function digitsOf(m) {
    if (m >= 1e15) return exponent(m);
    if (m >= 1) {
      var steps = [[2, 10], [1, 1000]];
      for (var i = 0; i < steps.length; i++) {
        if (m < steps[i][1]) {
          var d = m.toFixed(steps[i][0]);
          if (parseFloat(d) < steps[i][1]) return d;
        }
      }
      return m.toFixed(0);
    }
    var shift = 0;
    while (m * Math.pow(10, shift) < 1) {
      shift += 1;
      if (shift > 6) return exponent(m);
    }
    var text = m.toFixed(2 + shift);
    if (parseFloat(text) * Math.pow(10, shift - 1) >= 1) text = m.toFixed(1 + shift);
    return text;
  }

  function scaled(value, carried, lowest, highest, base) {
    var size = Math.abs(value);
    if (size === 0) return ["0", 0];
    var step = base === 10 ? 3 : 1;
    var power = highest;
    var m;
    for (;;) {
      m = shifted(size, base, carried - power);
      if (m >= 1 || power - step < lowest) break;
      power -= step;
    }
    var digits = digitsOf(m);
    if (parseFloat(digits) >= (base === 10 ? 1000 : 1024) && power + step <= highest) {
      power += step;
      digits = digitsOf(shifted(size, base, carried - power));
    }
    if (digits.indexOf("e") >= 0) {
      digits = digitsOf(shifted(size, base, carried));
      power = 0;
    }
    return [(value < 0 ? "-" : "") + digits, power];
  }

  function value(v, unit) {
    if (missing(v)) return MISSING;
    unit = String(unit === null || unit === undefined ? "" : unit).trim();
    if (unit === "%" || unit === "percent") return joined(scaled(v, 0, 0, 0, 10)[0], "%");
    var spelled = own.call(RATES, unit) ? RATES[unit] : unit;
    var at = spelled.indexOf("/");
    var numerator = at < 0 ? spelled : spelled.slice(0, at);
    var denominator = at < 0 ? "" : spelled.slice(at + 1);
    var suffix = "";
    if (at >= 0) suffix = PER_SECOND.indexOf(denominator) >= 0 ? "/s" : "/" + denominator;
    var found;
    if (own.call(BINARY_BYTES, numerator) && denominator.indexOf("/") < 0) {
      found = scaled(v, BINARY_BYTES[numerator], 0, 4, 1024);
      return joined(found[0], BINARY[found[1]] + "B" + suffix);
    }
    if (!own.call(KNOWN, numerator) || denominator.indexOf("/") >= 0) {
      found = scaled(v, 0, 0, 12, 10);
      return [found[0], PREFIXES[found[1]], unit].filter(function (w) { return w; }).join(" ");
    }
    var family = KNOWN[numerator][0];
    found = scaled(v, KNOWN[numerator][1], family[1], family[2], 10);
    return joined(found[0], PREFIXES[found[1]] + family[0] + suffix);
  }

  function difference(v, unit) {
    var text = value(v, unit);
    if (text === MISSING || text[0] === "-" || text === "0" || text.slice(0, 2) === "0 ") return text;
    return "+" + text;
  }

  function share(fraction) {
    if (missing(fraction)) return MISSING;
    var shown = fraction * 100;
    var size = Math.abs(shown);
    var digits = size.toFixed(1);
    if (parseFloat(digits) >= 100) digits = size.toFixed(0);
    var negative = shown < 0 && parseFloat(digits) !== 0;
    return (negative ? "-" : "") + digits + " %";
  }

  function change(fraction) {
    var text = share(fraction);
    if (text === MISSING || text[0] === "-" || text === "0.0 %") return text;
    return "+" + text;
  }

  /* Whether value() writes ``unit`` with its own symbol and prefixes. */
  function knows(unit) {
    unit = String(unit === null || unit === undefined ? "" : unit).trim();
    if (unit === "%" || unit === "percent") return true;
    var spelled = own.call(RATES, unit) ? RATES[unit] : unit;
    var at = spelled.indexOf("/");
    var numerator = at < 0 ? spelled : spelled.slice(0, at);
    if (at >= 0 && spelled.slice(at + 1).indexOf("/") >= 0) return false;
    return own.call(KNOWN, numerator) || own.call(BINARY_BYTES, numerator);
  }

  /* A y-axis label formatter: the value in the axis' unit; a unit value() does not
   * know is left to the axis' name (16.6 G, not 16.6 G cycles, on every label). */
  function axis(unit) {
    var shown = knows(unit) ? unit : "";
    return function (v) {
      return value(v, shown);
    };
  }

  /* ``unit`` spelled as value() writes it ("us" is "\u00b5s", "bytes/sec" is "B/s"). */
  function unit(spelled) {
    var text = value(1, spelled);
    var at = text.indexOf(" ");
    return at < 0 ? "" : text.slice(at + 1);
  }

  var P = (window.perfwalk = window.perfwalk || {});
  P.format = {
    value: value, difference: difference, change: change, share: share, axis: axis, unit: unit,
    MISSING: MISSING,
  };
})();
