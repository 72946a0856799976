"""Where a time axis ticks (src/perfwalk/report/static/ticks.js), run by node: at round
times of the site's zone — its midnights, the first of its months, whole hours of its
clock —, across daylight-saving changes, never at UTC's (ECharts ticked at UTC
midnight: 02:00 in Berlin in summer, 05:30 in Kolkata)."""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

TICKS_JS = Path(__file__).parents[2] / "src" / "perfwalk" / "report" / "static" / "ticks.js"

_NODE_SCRIPT = """
const fs = require("fs"), vm = require("vm");
const window = {};
vm.runInNewContext(fs.readFileSync(process.argv[1], "utf8"), { window: window, Intl: Intl });
const t = window.perfwalk.ticks;
const cases = JSON.parse(process.argv[2]);
process.stdout.write(JSON.stringify(cases.map(([lo, hi, count, zone]) =>
  t.at(lo, hi, count, zone).map((ms) => [ms, t.label(ms, zone), t.minute(ms, zone)]))));
"""


def _ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


#: (zone, from, to, how many ticks wanted, the step expected in the zone's clock)
CASES = [
    # a week at 20:00 UTC in Kolkata (+05:30): a tick at each of its midnights
    ("Asia/Kolkata", datetime(2024, 5, 1, 20, tzinfo=UTC), timedelta(days=8), 11, "day"),
    # Berlin across the spring forward (31 March): its midnights, 23 hours apart once
    ("Europe/Berlin", datetime(2024, 3, 27, 12, tzinfo=UTC), timedelta(days=8), 10, "day"),
    # Los Angeles across the fall back (3 November): 25 hours apart once
    ("America/Los_Angeles", datetime(2024, 10, 30, tzinfo=UTC), timedelta(days=8), 10, "day"),
    # half a day in Kolkata: whole hours of its clock (UTC's are at :30 there)
    ("Asia/Kolkata", datetime(2024, 5, 2, 1, 10, tzinfo=UTC), timedelta(hours=12), 6, "hour"),
    # a year in Los Angeles: the first of its months at its midnight
    ("America/Los_Angeles", datetime(2024, 1, 15, tzinfo=UTC), timedelta(days=365), 6, "month"),
    # ten years in Berlin: the first of January at its midnight
    ("Europe/Berlin", datetime(2015, 6, 1, tzinfo=UTC), timedelta(days=3650), 5, "year"),
]


def test_ticks_sit_at_round_times_of_the_site_s_zone() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: ticks.js is not checked (apt install nodejs)")
    asked = [[_ms(lo), _ms(lo + span), count, zone] for zone, lo, span, count, _ in CASES]
    done = subprocess.run(
        [node, "-e", _NODE_SCRIPT, str(TICKS_JS), json.dumps(asked)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    for (zone, lo, span, count, step), ticks in zip(CASES, json.loads(done.stdout), strict=True):
        local = [
            datetime.fromtimestamp(ms / 1000, UTC).astimezone(ZoneInfo(zone)) for ms, *_ in ticks
        ]
        print(zone, step, [f"{t:%Y-%m-%d %H:%M}" for t in local])
        assert 2 <= len(ticks) <= count + 1, (zone, len(ticks))
        assert all(lo <= t <= lo + span for t in local)
        assert all((t.minute, t.second) == (0, 0) for t in local), zone
        for (_, label, minute), t in zip(ticks, local, strict=True):
            assert minute == f"{t:%Y-%m-%d %H:%M}"
            midnight = (t.hour, t.minute) == (0, 0)
            assert label == (f"{t:%Y-%m-%d}" if midnight else f"{t:%m-%d %H:%M}")
        if step == "day":  # every midnight of the zone in the range, and nothing else
            days = [
                datetime.combine(lo.astimezone(ZoneInfo(zone)).date(), datetime.min.time())
                + timedelta(days=n)
                for n in range(10)
            ]
            wanted = [d.replace(tzinfo=ZoneInfo(zone)) for d in days]
            assert local == [d for d in wanted if lo <= d <= lo + span]
        elif step == "hour":
            assert {t.hour % 2 for t in local} == {0}  # every second hour of its clock
        elif step == "month":
            assert all((t.day, t.hour) == (1, 0) for t in local)
        else:
            assert all((t.month, t.day, t.hour) == (1, 1, 0) for t in local)
