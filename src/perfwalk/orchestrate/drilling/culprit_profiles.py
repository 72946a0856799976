"""The differential profile of a drill's culprit against its parent: the profiles
stored at the two commits (by the walk or the drill), or one profiled run at each."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from perfwalk.analysis.profile_diff import differential
from perfwalk.config.model import TestConfig
from perfwalk.model import Status
from perfwalk.orchestrate.drilling.search import Search
from perfwalk.store.profiles import ProfileRow


def _stored_profile(search: Search, sha: str) -> ProfileRow | None:
    """A profile of the drilled test at commit ``sha`` that has stacks, from the drill's
    series or the walk it drills: an extra run's first, the newest first."""
    found: list[ProfileRow] = []
    for series_id in (search.walk.series_id, search.target.parent):
        if series_id is None:
            continue
        for row in search.store.checkouts(series_id):
            if row.sha == sha:
                found += search.store.profiles.at(row.id, search.target.test)
    usable = [p for p in found if p.status is Status.PASS and p.stacks]
    usable.sort(key=lambda p: (not p.extra, -p.id))
    return usable[0] if usable else None


def culprit_profiles(
    search: Search,
    culprit: int | None,
    test: TestConfig,
    *,
    profile: bool,
    say: Callable[[str], None],
) -> dict[str, Any] | None:
    """The differential profile of the culprit (its position on the line) against its
    parent, as the answer keeps it; None without a culprit or when no profile was asked
    for or stored."""
    if culprit is None or culprit == 0:
        return None
    positions = {"before": culprit - 1, "after": culprit}
    rows = {side: _stored_profile(search, search.line[p]) for side, p in positions.items()}
    # without a tool, perf with the test's other [test.profile] settings (frequency…)
    wanted = test.profile if test.profile.on else dataclasses.replace(test.profile, tool="perf")
    if any(row is None for row in rows.values()) and (profile or test.profile.on):
        profiled = dataclasses.replace(
            test, profile=dataclasses.replace(wanted, repetitions="extra")
        )
        for side, position in positions.items():
            if rows[side] is None:
                say(f"  {search.line[position][:12]}: a profiled run ({wanted.tool})")
                search.walk.profile_at(search.planned(position), (profiled,))
                rows[side] = _stored_profile(search, search.line[position])
    before, after = rows["before"], rows["after"]
    if before is None or after is None:
        if not (profile or test.profile.on):
            return None
        failures = [
            p.message
            for p in search.store.profiles.in_series(search.walk.series_id)
            if p.status is not Status.PASS
        ]
        why = failures[-1] if failures else "the profiled runs gave no profile"
        return {"test": test.name, "missing": why}
    diff = differential(before.stacks, after.stacks)
    return {
        "test": test.name,
        "before": _profile_ref(before),
        "after": _profile_ref(after),
        "functions": [row.as_dict() for row in diff.functions],
        "hidden": diff.hidden,
        "unresolved": list(diff.unresolved),
    }


def _profile_ref(row: ProfileRow) -> dict[str, Any]:
    return {
        "profile": row.id,
        "series": row.series_id,
        "checkout": row.checkout_idx,
        "samples": row.samples,
        "dropped": row.dropped,
        "host": row.host,
        "event": row.event,
    }
