"""What a walk's last lines say of the changes it found: how many by verdict, and each
change (at most :data:`MOST`) with its state, its headline size and its chain of
evidence, as ``perfwalk changes`` tells them at length."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from perfwalk.cli import exits
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:
    from perfwalk.config.model import Config
    from perfwalk.orchestrate.changes import ChangeEvent

#: the most changes a walk's last lines name one by one
MOST = 10


class WalkChanges(NamedTuple):
    """What a walk's last lines say of its changes, of what it could not see, and the
    exit status they give when the walk judges its changes (``[run] confirm``)."""

    lines: list[str]
    blind: list[str]
    status: int


def walk_changes(config: Config, series_id: int) -> WalkChanges:
    """The changes of a walk's series with their verdicts (:func:`change_lines`), the
    metrics it could not judge (as ``perfwalk changes`` says them), and the status
    ``perfwalk changes --series`` would exit with. A try's series has neither."""
    from perfwalk.cli.analysis_commands import changes_status, undecided_lines
    from perfwalk.orchestrate.changes import find_all
    from perfwalk.services.change_json import marks_of
    from perfwalk.services.inspect import opened
    from perfwalk.services.publish import listed_findings

    with opened(config, read_only=True) as store:
        series = store.series(series_id)
        if series.kind == "try":
            return WalkChanges([], [], exits.OK)
        found = find_all(store, config, [series_id])
        marks = marks_of(listed_findings(store, found)[0])
    blind = undecided_lines(found.undecided, {series_id: series.name})
    status = changes_status(found.changes, marks, blind=bool(found.undecided))
    return WalkChanges(change_lines(found.changes, series_id), blind, status)


def change_lines(events: Sequence[ChangeEvent], series_id: int) -> list[str]:
    """``changes of series 5: 1 confirmed, 1 suspect (`perfwalk changes --series 5`)``
    and a line per change (the refuted ones counted apart); nothing when the walk
    found none."""
    if not events:
        return []
    states = Counter(e.verdict.state.value for e in events)
    order = ("confirmed", "suspect", "undecided", "refuted")
    counts = ", ".join(f"{states[s]} {s}" for s in order if states[s])
    lines = [f"changes of series {series_id}: {counts} (`perfwalk changes --series {series_id}`)"]
    shown = [e for e in events if not e.refuted][:MOST]
    for event in shown:
        verdict = event.verdict
        metric = next(m for m in event.metrics if m.verdict is verdict)
        lines.append(
            f"  {event.kind.upper()} {event.id} ({verdict.state.value}) "
            f"{show_controls(metric.test)}.{show_controls(metric.name)} "
            f"{show_controls(verdict.headline.text())}: {show_controls(verdict.told())}"
        )
    more = sum(1 for e in events if not e.refuted) - len(shown)
    if more > 0:
        lines.append(f"  … and {more} more")
    return lines
