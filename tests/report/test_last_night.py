"""The last night's counts at lab scale: a walk whose new checkouts crossed two
culprits, each slowing 100 metrics, brought 2 new regressions, not 200; a build broken
by one commit in two walks is one build broken, a test newly failing in two walks one
test."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from perfwalk.report.last_night import last_night
from perfwalk.store import Store
from perfwalk.store.run_records import WALK, WATCH, RunRecord
from tests.report.test_markdown import change, two_culprits
from tests.store.factories import new_series

ENDED = datetime(2026, 11, 28, 3, 42, tzinfo=UTC)


def test_the_last_night_counts_culprits_and_tests_not_metrics(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path / 'store.db'}") as store:
        amd, arm = (store.create_series(new_series(name=name)) for name in ("amd64", "arm64"))
        start = ENDED - timedelta(hours=1)
        for sid in (amd, arm):  # a watch cycle of two walks
            store.runs.add(RunRecord(WALK, "", sid, start, ENDED, 30, 0))
        store.runs.add(RunRecord(WATCH, "", None, start, ENDED, 60, None))
        slower = two_culprits([amd], 100)
        broken = [
            change(series_id=sid, test=test, broke=kind, statuses=("PASS", "NOEXIT"))
            for sid in (amd, arm)
            for test, kind in (("build", "build"), ("check", "test"))
        ]
        night = last_night(store, [*slower, *broken], stale_after=86400)
    assert night is not None
    print(night.found())
    assert night.found() == "2 new regressions, 1 build broken, 1 test newly failing"
