"""How the demo weighs its drills against the known events: a drill across a known
change is judged exact or not; every other drill is reported with its answer."""

from __future__ import annotations

from datetime import UTC, datetime

from perfwalk.composites.demo import drill_findings, other_changes
from perfwalk.demo.project import KnownEvent
from perfwalk.drill import Done, Verdict
from perfwalk.model import Commit
from perfwalk.services.drill import DrillResult, DrillTarget

LINE = tuple(f"{n:02d}" * 20 for n in range(12))  # twelve fake 40-digit ids, in order
WHEN = datetime(2026, 1, 5, tzinfo=UTC)


def _event(at: int, direction: str = "slower") -> KnownEvent:
    return KnownEvent(direction, LINE[at], WHEN, "subject", "", "checksum", "checksum")


def _drill(series_id: int, before: int, after: int, verdict: Verdict, hi: int) -> DrillResult:
    target = DrillTarget(
        LINE[before],
        LINE[after],
        "checksum",
        "checksum",
        1,
        {"kind": "regression", "relative": -0.036, "before_idx": 3, "after_idx": 4},
    )
    line = LINE[before : after + 1]
    done = Done(verdict, 0, hi, "", None, (), None, None, builds=3, repetitions=20)
    commits = {c: Commit(c, WHEN, "Ada", f"commit {c[:2]}") for c in line}
    return DrillResult(series_id, target, line, done, 0, commits)


def test_a_drill_across_a_known_change_is_judged_and_the_others_are_reported() -> None:
    events = [_event(5), _event(9, "faster"), _event(2, "broken-build")]
    answers = [
        _drill(2, 4, 6, Verdict.CULPRIT, 1),  # names LINE[5]: exact
        _drill(3, 8, 10, Verdict.CULPRIT, 2),  # names LINE[10], not LINE[9]
        _drill(4, 0, 2, Verdict.CULPRIT, 1),  # across the broken build only: not known
        _drill(5, 10, 11, Verdict.NO_CHANGE, 1),
    ]
    found = drill_findings(events, answers, LINE)
    assert [(f.exact, f.series_id) for f in found] == [(True, 2), (False, 3)]
    others = other_changes(events, answers, LINE)
    assert [o.target for o in others] == [answers[2].target, answers[3].target]
    assert others[0].detail == (
        "regression checksum.checksum -3.6 % between checkouts 3 and 4; "
        "drill 4 answered CULPRIT 010101010101 'commit 01'"
    )
    assert others[1].detail.endswith("drill 5 answered NO-CHANGE")


def test_no_drill_across_a_known_change_is_said() -> None:
    (finding,) = drill_findings([_event(5)], [_drill(2, 8, 10, Verdict.CULPRIT, 1)], LINE)
    assert (finding.exact, finding.detail, finding.series_id) == (False, "no drill across it", None)
