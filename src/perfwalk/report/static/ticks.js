/* perfwalk: where a time axis ticks, in the site's one time zone (docs/report.md,
 * "Times").
 *
 * ECharts places a time axis' ticks at round times of UTC (it is told useUTC, so that
 * the reader's own zone never places them): in Europe/Berlin a day's tick would sit at
 * 01:00 and a day's points straddle two ticks. These ticks are round times of the
 * site's zone instead: its midnights, the first of its months and years, or whole
 * hours and minutes of its clock, as many as fit.
 *
 *   perfwalk.ticks.at(lo, hi, 6, "Europe/Berlin")  → [ms, …] (the instants, ascending)
 *   perfwalk.ticks.label(ms, "Europe/Berlin")      → "2024-05-02" at the zone's
 *                                                    midnight, else "05-02 06:30"
 *   perfwalk.ticks.minute(ms, "Europe/Berlin")     → "2024-05-02 06:30" (tooltips)
 *
 * Pure: instants (ms since 1970, UTC) and a zone's IANA name in, instants and text
 * out; the zone's rules are the browser's (Intl.DateTimeFormat).
 */
(function () {
  "use strict";

  var MINUTE = 60000;
  var HOUR = 60 * MINUTE;
  var DAY = 24 * HOUR;
  /* the steps a time axis may tick at, finest first: [unit, how many, about how long] */
  var STEPS = [
    ["minute", 1], ["minute", 2], ["minute", 5], ["minute", 10], ["minute", 15],
    ["minute", 30], ["hour", 1], ["hour", 2], ["hour", 3], ["hour", 6], ["hour", 12],
    ["day", 1], ["day", 2], ["day", 3], ["day", 4], ["day", 7], ["day", 14], ["month", 1], ["month", 2],
    ["month", 3], ["month", 6], ["year", 1], ["year", 2], ["year", 5], ["year", 10],
    ["year", 20], ["year", 50], ["year", 100],
  ].map(function (s) {
    var unit = { minute: MINUTE, hour: HOUR, day: DAY, month: 30 * DAY, year: 365 * DAY };
    return [s[0], s[1], unit[s[0]] * s[1]];
  });

  var clocks = {};
  /* The zone's clock at ``ms`` written as if it were UTC: Date.UTC(its year, month,
   * day, hour, minute, second) plus the milliseconds. */
  function wall(ms, zone) {
    var clock = clocks[zone];
    if (!clock) {
      clock = clocks[zone] = new Intl.DateTimeFormat("en-US", {
        timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric",
        day: "numeric", hour: "numeric", minute: "numeric", second: "numeric",
      });
    }
    var part = {};
    clock.formatToParts(new Date(ms)).forEach(function (p) {
      part[p.type] = Number(p.value);
    });
    var whole = Date.UTC(part.year, part.month - 1, part.day, part.hour % 24, part.minute,
      part.second);
    return whole + (((ms % 1000) + 1000) % 1000);
  }

  /* The instant at which the zone's clock reads ``clock`` (as :func:`wall` writes it);
   * a time the clock skips (a spring forward) is the instant just after the gap. */
  function instant(clock, zone) {
    var guess = clock - (wall(clock, zone) - clock);
    return clock - (wall(guess, zone) - guess);
  }

  /* The coarsest step fine enough for ``count`` ticks over ``span`` ms. */
  function stepFor(span, count) {
    var wanted = span / Math.max(1, count);
    for (var i = 0; i < STEPS.length; i++) {
      if (STEPS[i][2] >= wanted) return STEPS[i];
    }
    return STEPS[STEPS.length - 1];
  }

  /* The round times of ``zone``'s clock from ``first`` to ``last`` (its clock, as
   * :func:`wall` writes it) at ``step``, as the zone's clock reads them. */
  function roundTimes(first, last, step) {
    var unit = step[0];
    var n = step[1];
    var found = [];
    var at = new Date(first);
    var y = at.getUTCFullYear();
    var m = at.getUTCMonth();
    if (unit === "minute" || unit === "hour") { /* a divisor of a day: from midnight */
      var size = step[2];
      for (var c = first - (((first % size) + size) % size); c <= last + size; c += size) {
        found.push(c);
      }
    } else if (unit === "day") { /* the days 1, 1 + n, 1 + 2n … of each month */
      for (var d = Date.UTC(y, m, at.getUTCDate()); d <= last; d += DAY) {
        if ((new Date(d).getUTCDate() - 1) % n === 0) found.push(d);
      }
    } else if (unit === "month") { /* the first of January, of 1 + n … */
      for (var k = 0; Date.UTC(y, m + k, 1) <= last; k++) {
        if ((m + k) % n === 0) found.push(Date.UTC(y, m + k, 1));
      }
    } else { /* the first of January of the years a multiple of n */
      for (var year = y - (((y % n) + n) % n); Date.UTC(year, 0, 1) <= last; year += n) {
        found.push(Date.UTC(year, 0, 1));
      }
    }
    return found;
  }

  /* About ``count`` ticks (at least 2 where the span holds them) between ``lo`` and
   * ``hi`` (ms), at round times of ``zone``'s clock: the instants, ascending, each
   * once. */
  function at(lo, hi, count, zone) {
    if (!(isFinite(lo) && isFinite(hi)) || hi < lo) return [];
    var step = stepFor(hi - lo, Math.max(2, count));
    var ticks = [];
    roundTimes(wall(lo, zone), wall(hi, zone), step).forEach(function (clock) {
      var t = instant(clock, zone);
      if (t >= lo && t <= hi && (!ticks.length || t > ticks[ticks.length - 1])) ticks.push(t);
    });
    return ticks;
  }

  /* ``ms`` as the zone's clock reads it, to the minute: "2024-05-02 06:30". */
  function minute(ms, zone) {
    var iso = new Date(wall(ms, zone)).toISOString(); /* "2024-05-02T06:30:00.000Z" */
    return iso.slice(0, 10) + " " + iso.slice(11, 16);
  }

  /* A tick's label: the zone's day at its midnight ("2024-05-02"), else its day and
   * minute ("05-02 06:30"). */
  function label(ms, zone) {
    var told = minute(ms, zone);
    return told.slice(11) === "00:00" ? told.slice(0, 10) : told.slice(5);
  }

  var P = (window.perfwalk = window.perfwalk || {});
  P.ticks = { at: at, label: label, minute: minute, wall: wall, instant: instant };
})();
