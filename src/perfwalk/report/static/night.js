/* perfwalk: the index's "last night" strip turns red by itself once the last walk or
 * watch cycle ended longer ago than its stale_after (src/perfwalk/report/last_night.py):
 * the page is static, and a cron that stopped publishes no new page to say so.
 *
 * <p id="last-night" data-ended="<ms since 1970, UTC>" data-stale-after="<seconds>">
 * ... <span class="stale-note"></span></p>
 */
(function () {
  "use strict";

  function span(seconds) {  // as last_night.span: rounded down to its largest unit
    var units = [["day", 86400], ["hour", 3600], ["minute", 60]];
    for (var i = 0; i < units.length; i++) {
      if (seconds >= units[i][1]) {
        var n = Math.floor(seconds / units[i][1]);
        return n + " " + units[i][0] + (n === 1 ? "" : "s");
      }
    }
    var s = Math.max(0, Math.floor(seconds));
    return s + " second" + (s === 1 ? "" : "s");
  }

  function check() {
    var strip = document.getElementById("last-night");
    if (!strip || !strip.dataset.ended) return;
    var age = (Date.now() - Number(strip.dataset.ended)) / 1000;
    var limit = Number(strip.dataset.staleAfter);
    var note = strip.querySelector(".stale-note");
    if (age > limit) {
      strip.classList.add("stale");
      if (note) {
        note.textContent = "stale: no run for " + span(age) + ", more than " + span(limit) +
          " ([watch] stale_after)";
      }
    }
    strip.dataset.checked = "1";
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", check);
  } else {
    check();
  }
})();
