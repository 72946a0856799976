"""What a walk's last lines say of the changes it found: how many by verdict, and each
change (at most :data:`MOST`) with its state, its headline size and its chain of
evidence, as ``perfwalk changes`` tells them at length."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from perfwalk.untrusted import show_controls

if TYPE_CHECKING:
    from perfwalk.config.model import Config

#: the most changes a walk's last lines name one by one
MOST = 10


def change_lines(config: Config, series_id: int) -> list[str]:
    """``changes of series 5: 1 confirmed, 1 suspect (`perfwalk changes --series 5`)``
    and a line per change (the refuted ones counted apart); nothing when the walk
    found none."""
    from perfwalk.orchestrate.changes import find_all
    from perfwalk.services.inspect import opened

    with opened(config, read_only=True) as store:
        events = find_all(store, config, [series_id]).changes
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
