"""What ``perfwalk demo`` says of its night: a new change the watch did not act on is
named with the reason (a machine that was busy while the night was measured), not
left unsaid behind "0 messages arrived"."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from perfwalk.cli.commands import _told_night
from perfwalk.composites.demo import Night
from perfwalk.composites.watch import WatchCycle
from perfwalk.demo.project import KnownEvent
from perfwalk.report.change_list import ListedChange
from perfwalk.report.site import PublishReport

WHEN = datetime(2026, 2, 16, tzinfo=UTC)


def _change(note: str, after_idx: int, state: str = "confirmed") -> ListedChange:
    return ListedChange(
        series_id=1,
        series_name="checksum nightly",
        test="checksum",
        name="checksum",
        unit="us",
        regression=True,
        before=49.19,
        after=68.33,
        size=0.389,
        low=0.364,
        high=0.415,
        confidence=0.9999,
        before_idx=after_idx - 1,
        after_idx=after_idx,
        before_sha="5" * 40,
        after_sha="2" * 40,
        date=WHEN,
        commits=3,
        note=note,
        state=state,
        chain=(note,) if note else (),
    )


def _night(*new: ListedChange) -> Night:
    site = PublishReport(Path("site/index.html"), 0, 1, 0, 0.1, False)
    cycle = WatchCycle(WHEN, (), tuple(new), (), (), site, 1.0)
    event = KnownEvent("slower", "5a17eab3792b" * 3, WHEN, "cksum", "", "checksum", "checksum")
    return Night(event, cycle, ())


def test_a_new_change_left_suspect_is_named_with_why(capsys: pytest.CaptureFixture[str]) -> None:
    load = "suspect: machine load: local: before 16 of 50 repetitions loaded"
    night = _night(_change(load, 40, "suspect"), _change("", 41))
    _told_night(night, "perfwalk triage", "demo.toml")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "the night's notifications: 0 messages arrived"
    assert out[1] == (
        "once looked at: perfwalk triage 1:41 -c demo.toml --state acknowledged "
        '--reason "…" (then `changes` passes)'
    )
    assert out[2] == (
        "the night's change 1:40 (checksum.checksum +38.9 % (series 1)) was neither drilled nor "
        f"told: suspect: {load}"
    )
    assert "on a quiet machine the watch drills it and tells it" in out[3]
    assert len(out) == 4
