"""How ``perfwalk changes`` writes a change, a break and an excursion or drift in the
terminal: its head line (its kind and state in colour), its triage, its drill's
answer, its verdict's chain, its table of metrics within the terminal's width, its
re-measure and its commits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from perfwalk.cli.tables import table_text
from perfwalk.cli.terminal import BETTER, STATE_STYLES, WORSE, fitted, paint, wrapped
from perfwalk.quantities import format_levels, format_size, format_value, many
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:
    from perfwalk.orchestrate.findings.change_events import (
        ChangeEvent,
        MetricChange,
        MetricEpisode,
        Remeasure,
    )
    from perfwalk.report.change_list import Culprit, DrillMark, ListedChange, TriageMark
    from perfwalk.services.change_json import Marks

#: the columns of a change's table in `perfwalk changes`
CHANGE_COLUMNS = (
    *("metric", "before", "after", "change", "95% interval", "confidence"),
    *("verdict", "checkouts"),
)
#: the columns of a change's table that `perfwalk changes` leaves out, in this order,
#: while it is wider than the terminal: checkouts, 95% interval, confidence (its
#: verdict's line says it), before and after; then it wraps (docs/cli.md)
CHANGE_DROPS = ((7,), (4,), (5,), (1, 2))


def event_text(
    event: ChangeEvent, marks: Marks | None, width: int | None = None, colour: bool = False
) -> str:
    """A change as `perfwalk changes` shows it, within ``width`` columns: its lines
    wrapped, its table without the columns of :data:`CHANGE_DROPS` it has no room
    for, its commits' subjects and authors, and its culprit's, cut (:func:`fitted`);
    with ``colour``, its kind worse or better and its verdict's state in their
    colours."""
    from perfwalk.analysis.changepoints import EDGE_NOTE

    b, a = event.before, event.after
    verdict = event.verdict
    head = (
        f"{event.kind.upper()} {event.id} ({verdict.state.value}) in series {event.series_id} "
        f"{show_controls(event.series_name)!r}{variant_text(event.variant, event.variant_of)}"
        f": between checkout {b.idx} "
        f"({b.sha[:10]}, {b.date:%Y-%m-%d %H:%M}) and "
        f"{a.idx} ({a.sha[:10]}, {a.date:%Y-%m-%d %H:%M}), {len(event.commits)} "
        f"commit{'' if len(event.commits) == 1 else 's'}"
    )
    lines = [head, f"  triage: {_triage_text(None if marks is None else marks.triage)}"]
    if marks is not None and marks.drill is not None:
        lines.append(f"  {_drill_text(marks.drill, marks.culprit, width)}")
    lines.append(f"  {verdict.state.value}: {show_controls(verdict.told())}")
    for m in event.metrics:  # a metric that another chain decided
        if m.verdict.chain != verdict.chain:
            told = f"{m.verdict.state.value}: {m.verdict.told()}"
            lines.append(f"  {show_controls(m.test)}.{show_controls(m.name)} {show_controls(told)}")
    rows = [list(CHANGE_COLUMNS), *(_metric_row(m) for m in event.metrics)]
    after = [f"  {m.test}.{m.name}: {EDGE_NOTE}" for m in event.metrics if m.edge]
    for quirk in event.known_causes:
        after.append(f"  known cause: quirk {quirk.letter}: {show_controls(quirk.comment)}")
    if event.counters:
        after.append(f"  {counters_text(event)}")
    if any(m.remeasured is not None for m in event.metrics):
        after.append(f"  {_remeasure_word(event.confirmed)}: {_remeasure_how(event)}")
        after += [_remeasure_text(m, m.remeasured) for m in event.metrics if m.remeasured]
    said = [part for line in lines for part in wrapped(line, width)]
    said[0] = _painted_head(said[0], event, colour)
    said += table_text(
        rows, width=width, colour=colour, style=_metric_style, drop=CHANGE_DROPS, indent="  "
    )
    said += [part for line in after for part in wrapped(line, width, indent="      ")]
    for commit in event.commits:
        start = f"  {commit.id[:10]} {commit.date:%Y-%m-%d} "
        said.append(start + fitted(f"{commit.author}: {commit.subject}", len(start), width))
    return "\n".join(said)


#: the counters that moved with a change named in its text (docs/analysis.md)
COUNTERS_SHOWN = 3


def counters_text(event: ChangeEvent) -> str:
    """``moved with it: interrupts per bench.packets ×2.0 [1.9, 2.1] (nstat on dut); …``:
    the first :data:`COUNTERS_SHOWN` of the snapshot counters that moved with the
    change, their names neutralised (they come from a command's output)."""
    said = [
        f"{show_controls(c.said)} "
        f"({show_controls(c.snapshot)}{f' on {show_controls(c.role)}' if c.role else ''})"
        for c in event.counters[:COUNTERS_SHOWN]
    ]
    more = len(event.counters) - COUNTERS_SHOWN
    if more > 0:
        said.append(f"and {more} more")
    return "moved with it: " + "; ".join(said)


def _painted_head(line: str, event: ChangeEvent, colour: bool) -> str:
    """The first line of a change with its kind (``REGRESSION 5:7``) worse or better,
    and its state (``(confirmed)``) in their colours."""
    kind = f"{event.kind.upper()} {event.id}"
    state = event.verdict.state.value
    if not colour or not line.startswith(f"{kind} ({state})"):
        return line
    rest = line[len(kind) + len(state) + 3 :]
    return (
        f"{paint(kind, WORSE if event.regression else BETTER)} "
        f"({paint(state, STATE_STYLES.get(state))}){rest}"
    )


def _metric_style(_row: int, col: int, cell: str) -> str | None:
    """The colour of a cell of a change's table (:data:`perfwalk.cli.tables.Styler`):
    its change worse or better, its verdict by state."""
    if col == 3:
        return WORSE if cell.endswith(" worse") else BETTER
    if col == 6:
        return STATE_STYLES.get(cell)
    return None


def variant_text(variant: str | None, walk: int | None) -> str:
    """ " (variant fast of series 4)" for a walk's variant's series; "" otherwise."""
    if variant is None:
        return ""
    of = f" of series {walk}" if walk is not None else ""
    return f" (variant {show_controls(variant)}{of})"


def break_text(change: ListedChange, width: int | None, colour: bool) -> str:
    """A build broken or a test newly failing as `perfwalk changes` shows it: its id,
    series and checkouts, its statuses, its triage and its drill's answer."""
    head = (
        f"{change.word.upper()} {change.id} in series {change.series_id} "
        f"{show_controls(change.series_name)!r}: {show_controls(change.metric)} "
        f"{change.levels_text()} between checkout {change.before_idx} "
        f"({change.before_sha[:10]}) and {change.after_idx} ({change.after_sha[:10]}, "
        f"{change.date:%Y-%m-%d %H:%M}), {many(change.commits, 'commit')}"
    )
    lines = [head, f"  triage: {_triage_text(change.triage)}"]
    if change.drill is not None:
        lines.append(f"  {_drill_text(change.drill, change.culprit, width)}")
    if change.culprit is not None and change.culprit.author:
        lines.append(f"  by {show_controls(change.culprit.author)}")
    said = [part for line in lines for part in wrapped(line, width)]
    said[0] = paint(said[0], "bold red", colour)
    return "\n".join(said)


def _triage_text(mark: TriageMark | None) -> str:
    """ "untriaged", or "expected by ada@lab on 2024-03-04 09:30 UTC: why (bug: URL)"."""
    if mark is None:
        return "untriaged"
    bug = f" (bug: {show_controls(mark.bug)})" if mark.bug else ""
    return (
        f"{mark.state} by {show_controls(mark.who)} on {mark.at:%Y-%m-%d %H:%M} UTC: "
        f"{show_controls(mark.reason)}{bug}"
    )


def _drill_text(drill: DrillMark, culprit: Culprit | None, width: int | None) -> str:
    """What the newest drill across the change answered: its culprit (its subject cut
    to a line of ``width`` columns, two of them an indent), the range it narrowed the
    change to, or why it named no commit."""
    head = f"drill {drill.drill}:"
    if drill.verdict == "culprit":
        sha = drill.hi if culprit is None else culprit.sha
        start = f"{head} culprit {sha[:10]}"
        if culprit is None or not culprit.subject:
            return start
        return f"{start} " + fitted(repr(show_controls(culprit.subject)), len(start) + 3, width)
    if drill.verdict == "range":
        return f"{head} narrowed to after {drill.lo[:10]} up to {drill.hi[:10]}"
    word = "not confirmed" if drill.verdict == "no-change" else drill.verdict
    why = f": {show_controls(drill.reason)}" if drill.reason else ""
    return f"{head} {word}{why}"


def _remeasure_word(confirmed: bool | None) -> str:
    """What a change's re-measure says of it (None: it is still undecided)."""
    if confirmed is None:
        return "re-measure undecided yet"
    return "confirmed by a re-measure" if confirmed else "refuted by a re-measure"


def _remeasure_how(event: ChangeEvent) -> str:
    """How a change was measured again: its rounds (a one-pair re-measure of an older
    store: once more) and what the sequential test made of them."""
    again = next(m.remeasured for m in event.metrics if m.remeasured is not None)
    if not again.outcome:
        return "its two checkouts measured once more, side by side, at the end of the walk"
    sides = [sum(1 for r in again.rounds if r.get("side") == s) for s in ("before", "after")]
    loaded = sum(1 for r in again.rounds if r.get("loaded"))
    state = again.outcome if again.final else f"{again.outcome}, to be measured on"
    own = (event.before.idx, event.after.idx)
    measured = tuple(
        next((r.get("checkout") for r in again.rounds if r.get("side") == s), at)
        for s, at in zip(("before", "after"), own, strict=True)
    )
    which = (
        "its two checkouts"
        if measured == own
        else f"checkouts {measured[0]} and {measured[1]} (around its {own[0]} and {own[1]})"
    )
    return (
        f"{which} measured again side by side, {sides[0]} + {sides[1]} "
        f"repetitions interleaved ({loaded} on a loaded machine): {state}"
    )


def _remeasure_text(m: MetricChange, again: Remeasure) -> str:
    """``    latency.value: 110.1 ms -> 110.2 ms (+0.1 %), did not hold (the change:
    +10.0 %)``, then the sequential test's reason and p-value when it ran."""
    if again.before is None or again.after is None:
        seen = "no value (the test failed)"
    else:
        from perfwalk.analysis.confirmation import moved

        went = moved(again.before, again.after)
        seen = f"{format_levels(again.before, again.after, m.unit, '->')} ({format_size(went)})"
    verdict = "held" if again.held else "did not hold"
    if again.outcome == "undecided":
        verdict = f"undecided yet (nearer to: {verdict})"
    why = f"; {show_controls(again.reason)}" if again.reason else ""
    if again.p_value is not None:
        why += f" (p = {again.p_value:.2g})"
    return (
        f"    {show_controls(m.test)}.{show_controls(m.name)}: {seen}, {verdict} "
        f"(the change: {format_size(m.size)}){why}"
    )


def episode_text(e: MetricEpisode) -> str:
    first, last = e.first, e.last
    what = (
        "away from its level and back: an excursion, not a change"
        if e.kind == "excursion"
        else "a slow drift, no step"
    )
    return (
        f"{e.kind.upper()} in series {e.series_id} {show_controls(e.series_name)!r}"
        f"{variant_text(e.variant, None)}: "
        f"{show_controls(e.test)}.{show_controls(e.name)} [{show_controls(e.unit)}] "
        f"{format_levels(e.before, e.after, e.unit, '->')} ({format_size(e.size)} "
        f"{'worse' if e.worse else 'better'}, z {e.z:+.1f}) over checkouts {first.idx} "
        f"({first.sha[:10]}, {first.date:%Y-%m-%d %H:%M}) to {last.idx} ({last.sha[:10]}, "
        f"{last.date:%Y-%m-%d %H:%M}), {what}"
    )


def _metric_row(m: MetricChange) -> list[str]:
    mark = "worse" if m.regression else "better"
    headline = m.verdict.headline
    return [
        f"{m.test}.{m.name} [{m.unit}]",
        format_value(m.before, m.unit),
        format_value(m.after, m.unit),
        f"{headline.text()} {mark}",
        headline.interval() or "-",
        headline.confidence_text(),
        m.verdict.state.value,
        f"{m.checkouts_before} | {m.checkouts_after}",
    ]
