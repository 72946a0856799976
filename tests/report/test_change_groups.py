"""Alert groups (:mod:`perfwalk.report.change_groups`): changes that share a culprit,
or (not drilled) a commit of their ranges, across metrics, series and hosts, are one
group; a group of ranges joins the one culprit it holds; two culprits are two groups
even when a range spans both; the worst member first, the newest group first."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from perfwalk.report.change_groups import grouped, range_of
from perfwalk.report.change_list import Culprit, DrillMark, ListedChange, TriageMark

T0 = datetime(2025, 3, 1, tzinfo=UTC)
#: a first-parent history of 20 commits, oldest first
SHAS = tuple(f"{i:02d}" + "c" * 38 for i in range(20))


def _change(series: int, metric: str, first: int, last: int, **changed: object) -> ListedChange:
    """A change of ``metric`` in ``series`` over commits ``first`` … ``last`` (checkout
    before the step: ``first - 1``)."""
    base = ListedChange(
        series_id=series,
        series_name=f"walk {series}",
        test="bench",
        name=metric,
        unit="ms",
        regression=True,
        before=10.0,
        after=12.0,
        size=0.2,
        low=0.18,
        high=0.22,
        confidence=0.999,
        before_idx=1,
        after_idx=2,
        before_sha=SHAS[first - 1],
        after_sha=SHAS[last],
        date=T0 + timedelta(hours=last),
        commits=last - first + 1,
        range_shas=SHAS[first : last + 1],
        host=f"host-{series % 2}",
    )
    return dataclasses.replace(base, **changed)  # type: ignore[arg-type]


def _culprit(at: int, drill: int = 9) -> Culprit:
    return Culprit(SHAS[at], f"commit {at}", "Ada Lovelace <ada@example.org>", drill)


def test_many_metrics_on_two_hosts_with_two_culprits_are_two_groups() -> None:
    changes = []
    for metric in range(100):
        # walk 1 (host-1) steps every 4 commits: its ranges 5..8 and 13..16, drilled
        changes.append(_change(1, f"m{metric}", 5, 8, culprit=_culprit(6)))
        changes.append(_change(1, f"m{metric}", 13, 16, culprit=_culprit(14)))
        # walk 2 (host-0) steps every 8 commits: its ranges 1..8 and 9..16, not drilled
        changes.append(_change(2, f"m{metric}", 1, 8))
        changes.append(_change(2, f"m{metric}", 9, 16))
    groups = grouped(changes)
    print([(g.id, g.spread(), len(g.members)) for g in groups])
    assert [g.id for g in groups] == [SHAS[14][:12], SHAS[6][:12]]  # newest first
    assert [len(g.members) for g in groups] == [200, 200]
    assert [g.spread() for g in groups] == ["100 metrics in 2 walks on 2 hosts"] * 2
    assert groups[0].author == "Ada Lovelace"
    assert groups[0].where() == f"at {SHAS[14][:12]}"
    assert groups[0].keys == ((1, SHAS[12], SHAS[16]), (2, SHAS[8], SHAS[16]))


def test_undrilled_overlapping_ranges_are_one_group_named_by_the_narrowest() -> None:
    wide = _change(1, "time", 3, 10)
    narrow = _change(2, "time", 7, 8, date=T0 + timedelta(days=3))
    chained = _change(3, "size", 10, 12)  # overlaps wide only
    apart = _change(4, "time", 15, 16)
    groups = grouped([wide, narrow, chained, apart])
    assert [sorted(c.series_id for c in g.members) for g in groups] == [[1, 2, 3], [4]]
    first = groups[0]
    assert first.culprit is None
    assert (first.before, first.after, first.commits) == (SHAS[6], SHAS[8], 2)
    assert first.id == f"{SHAS[6][:12]}..{SHAS[8][:12]}"
    assert first.where() == f"in 2 commits {SHAS[6][:12]}..{SHAS[8][:12]}"


def test_a_range_over_two_culprits_joins_neither() -> None:
    changes = [
        _change(1, "time", 5, 5, culprit=_culprit(5)),
        _change(1, "time", 9, 9, culprit=_culprit(9)),
        _change(2, "time", 1, 12),  # holds both culprits
        _change(3, "time", 2, 6),  # holds one: joins it
    ]
    groups = grouped(changes)
    got = {g.id: sorted(c.series_id for c in g.members) for g in groups}
    assert got == {
        SHAS[5][:12]: [1, 3],
        SHAS[9][:12]: [1],
        f"{SHAS[0][:12]}..{SHAS[12][:12]}": [2],
    }


def test_a_drill_narrowed_range_groups_by_its_narrowed_commits() -> None:
    narrowed = _change(
        1, "time", 1, 10, drill=DrillMark(drill=7, verdict="range", lo=SHAS[7], hi=SHAS[9])
    )
    assert range_of(narrowed) == SHAS[8:10]
    early = _change(2, "time", 2, 4)  # overlaps the walk's range, not the drill's
    groups = grouped([narrowed, early])
    assert len(groups) == 2
    (mine,) = [g for g in groups if g.members[0].series_id == 1]
    assert (mine.before, mine.after, mine.commits) == (SHAS[7], SHAS[9], 2)


def test_the_worst_member_leads_and_triage_reads_over_the_members() -> None:
    word = TriageMark("acknowledged", "looked at", "ada", T0)
    better = _change(1, "speed", 5, 5, regression=False, size=-0.5)
    small = _change(1, "time", 5, 5, size=0.05)
    large_triaged = _change(2, "time", 5, 5, size=0.4, triage=word)
    (group,) = grouped([better, small, large_triaged])
    assert [c.name for c in group.members] == ["time", "time", "speed"]
    assert group.worst is small  # the untriaged regression first
    assert group.needs_action
    assert group.triage_state == "untriaged"
    (done,) = grouped([large_triaged, dataclasses.replace(small, triage=word)])
    assert not done.needs_action
    assert done.triage_state == "acknowledged"
    (mixed,) = grouped(
        [large_triaged, dataclasses.replace(small, triage=dataclasses.replace(word, state="fixed"))]
    )
    assert mixed.triage_state == "mixed"


def test_a_change_without_its_commits_stands_for_its_commit_after_the_step() -> None:
    one = _change(1, "time", 3, 5, range_shas=())
    same = _change(2, "time", 3, 5, range_shas=())
    other = _change(3, "time", 2, 4, range_shas=())
    groups = grouped([one, same, other])
    assert sorted(len(g.members) for g in groups) == [1, 2]
    (pair,) = [g for g in groups if len(g.members) == 2]
    assert (pair.before, pair.after, pair.commits) == (SHAS[2], SHAS[5], 3)
