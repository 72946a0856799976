"""The live page and the host-use page on a real store: hostile text (a series name, a
host, a command, a test's output with escape sequences and markup) is escaped and
its control characters shown; a step's output is kept bounded; a killed walk's
hosts are not shown, a finished walk's rows are gone; busy spans that
overlap count once, split over the days they cross; jobs are listed with their walk."""

from __future__ import annotations

import dataclasses
import subprocess
from datetime import timedelta
from pathlib import Path

from perfwalk.report.host_use import host_days, window
from perfwalk.report.pages.hosts import hosts_page
from perfwalk.report.pages.now import now_page
from perfwalk.report.times import SiteTimes
from perfwalk.store import Store
from perfwalk.store.host_use import BusySpan
from perfwalk.store.leases import Holder
from perfwalk.store.live import TAIL_BYTES, TAIL_LINES, LivePlace
from tests.report.history import HOSTILE, HOSTILE_LOG, PUBLISHED_AT, T0, _series

NOW = T0 + timedelta(hours=1)


def test_the_live_page_escapes_what_a_walk_and_its_test_said(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path / 'store.db'}") as store:
        sid = store.create_series(_series(f"nightly {HOSTILE}", "1day", None, ()))
        place = LivePlace(series_id=sid, checkout=2, commit="c0ffee" * 6, repetition=0, step="x")
        many = "".join(f"line {n}\n" for n in range(1000))
        store.live.write(
            place,
            f"dut{HOSTILE}"[:255],
            command=HOSTILE,
            started_at=T0,
            ended_at=None,
            updated_at=NOW,
            tail=many + HOSTILE_LOG.decode(errors="replace"),
        )
        (row,) = store.live.now()
        assert len(row.tail.split("\n")) <= TAIL_LINES
        assert len(row.tail) <= TAIL_BYTES
        text = now_page([row], NOW, SiteTimes("Europe/Berlin"), served=True)
    assert "<script>window.pwned" not in text
    assert "onerror=" not in text.replace("onerror=&quot;", "")
    assert "\x1b" not in text
    assert "\\x1b[31mred\\x1b[0m" in text
    assert "runs for 1 hour" in text
    assert "checkout 3 (c0ffeec0ffee), repetition 1, x" in text
    assert "As of 2024-03-01 14:00:00, read from the store" in text  # Berlin, UTC+1
    assert f'<a href="series-{sid}.html">' in text


def test_the_host_use_page_merges_overlaps_and_lists_walks_and_jobs() -> None:
    day = PUBLISHED_AT.replace(hour=0)
    spans = [  # 6 hours on "box" by two walks that overlap by 2 hours, across midnight
        BusySpan(
            host="box",
            series_id=1,
            series_name="a",
            started_at=day - timedelta(hours=2),
            finished_at=day + timedelta(hours=2),
        ),
        BusySpan(
            host="box",
            series_id=2,
            series_name="b",
            started_at=day,
            finished_at=day + timedelta(hours=4),
        ),
        BusySpan(
            host=HOSTILE,
            series_id=2,
            series_name="b",
            started_at=day,
            finished_at=day + timedelta(hours=1),
        ),
        BusySpan(
            host="old",
            series_id=3,
            series_name="c",
            started_at=day - timedelta(days=90),
            finished_at=day - timedelta(days=90, hours=-1),
        ),
    ]
    times = SiteTimes()
    hosts = host_days(spans, {2: [41, 42]}, PUBLISHED_AT, times)
    assert [h.host for h in hosts] == sorted(["box", HOSTILE])  # "old" is out of the window
    box = next(h for h in hosts if h.host == "box")
    assert box.busy == 6 * 3600
    assert box.shares[-2] == 2 / 24  # the day before: its last 2 hours
    assert box.shares[-1] == 4 / 12  # today, up to noon: 4 hours of 12
    assert [(w.series_id, w.repetitions, w.jobs) for w in box.walks] == [
        (2, 1, (41, 42)),
        (1, 1, ()),
    ]
    assert len(window(PUBLISHED_AT, times)) == len(box.shares) == 28
    text = hosts_page(hosts, [], PUBLISHED_AT, times)
    assert "<script>window.pwned" not in text
    assert "<td>41, 42</td>" in text
    assert 'class="day busy-2"' in text  # a third of today


def test_a_killed_walks_hosts_are_not_shown_as_busy(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    with Store.open(f"sqlite:///{tmp_path / 'store.db'}") as store:
        alive = store.create_series(_series("alive", "1day", None, ()))
        killed = store.create_series(_series("killed", "1day", None, ()))
        me = Holder.this_process("walk")
        store.walkers.record(alive, me, NOW)
        store.walkers.record(killed, dataclasses.replace(me, pid=dead.pid), NOW)
        for sid in (alive, killed):
            place = LivePlace(series_id=sid, checkout=0, commit="", repetition=0, step="test t")
            store.live.write(
                place, "box", command="t", started_at=NOW, ended_at=None, updated_at=NOW, tail=""
            )
        assert [row.series_name for row in store.live.now()] == ["alive"]
        store.set_series_state(alive, "finished", NOW)
        assert store.live.now() == []
