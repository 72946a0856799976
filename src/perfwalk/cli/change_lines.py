"""What a walk's last lines say of the changes it found: how many by verdict, and each
change (at most :data:`MOST`) with its state, its headline size and its chain of
evidence, as ``perfwalk changes`` tells them at length; the one line a walk or a
watch cycle ends with (:func:`found_line`); and the alert groups as ``perfwalk
changes`` lists them (:func:`group_lines`); the exit status of a list of changes
(:func:`changes_status`), the lines of the metrics a walk could not judge
(:func:`undecided_lines`) and of the changes it measured again (:func:`print_confirmed`)."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from perfwalk.cli import exits
from perfwalk.cli.change_texts import counters_text
from perfwalk.quantities import format_size
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:
    from perfwalk.analysis.floor import Sight
    from perfwalk.config.model import Config
    from perfwalk.orchestrate.confirm.confirm import Confirmed
    from perfwalk.orchestrate.findings.change_events import ChangeEvent
    from perfwalk.report.change_groups import ChangeGroup
    from perfwalk.report.change_list import ListedChange
    from perfwalk.services.change_json import Marks

#: the most changes a walk's last lines name one by one
MOST = 10


class WalkChanges(NamedTuple):
    """What a walk's last lines say of its changes, of what it could not see, and the
    exit status they give when the walk judges its changes (``[run] confirm``)."""

    lines: list[str]
    blind: list[str]
    status: int
    found: str = "no change found"  # the walk's last line (:func:`found_line`)


def walk_changes(config: Config, series_id: int) -> WalkChanges:
    """The changes of a walk's series with their verdicts (:func:`change_lines`), the
    metrics it could not judge (as ``perfwalk changes`` says them), and the status
    ``perfwalk changes --series`` would exit with. A try's series has neither."""
    from perfwalk.cli.terminal import width_of
    from perfwalk.orchestrate.findings.changes import find_all
    from perfwalk.orchestrate.findings.listed_changes import listed_findings
    from perfwalk.services.change_json import marks_of
    from perfwalk.services.inspect import opened

    with opened(config, read_only=True) as store:
        series = store.series(series_id)
        if series.kind == "try":
            return WalkChanges([], [], exits.OK)
        found = find_all(store, config, [series_id])
        listed = listed_findings(store, found)[0]
        marks = marks_of(listed)
    blind = undecided_lines(found.undecided, {series_id: series.name})
    status = changes_status(found.changes, marks, blind=bool(found.undecided))
    authors = {e.after.sha: e.commits[0].author for e in found.changes if len(e.commits) == 1}
    undecided = sum(1 for _series, sight in found.undecided if sight.undecided)
    last = found_line(listed, undecided, authors, width_of(sys.stdout))
    return WalkChanges(change_lines(found.changes, series_id), blind, status, last)


def change_lines(events: Sequence[ChangeEvent], series_id: int) -> list[str]:
    """``changes of series 5: 1 confirmed, 1 suspect (`perfwalk changes --series 5`)``
    and a line per change (the refuted ones counted apart); nothing when the walk
    found none."""
    if not events:
        return []
    states = Counter(e.verdict.state.value for e in events)
    order = ("confirmed", "suspect", "undecided", "layout artefact", "refuted")
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
        if event.counters:
            lines.append(f"    {counters_text(event)}")
    more = sum(1 for e in events if not e.refuted) - len(shown)
    if more > 0:
        lines.append(f"  … and {more} more")
    return lines


#: the order in which :func:`found_line` names a change's verdict: the surest first
_SUREST = {"confirmed": 0, "suspect": 1, "undecided": 2}


def found_line(
    changes: Sequence[ListedChange],
    undecided: int = 0,
    authors: Mapping[str, str] | None = None,
    width: int | None = None,
) -> str:
    """The one line a walk or a watch cycle ends with: ``1 regression: +41.7 % (walk 5)
    latency.latency at 5a17eab3 by Ada Lovelace (confirmed)``, the untriaged
    regressions counted (changes, not metrics; the improvements after them) and the
    worst named: the surest verdict, then the largest headline size; else the worst
    improvement; else ``undecided: …`` when ``undecided`` metrics could not be judged,
    or ``no change found``. A change's commit is its drill's culprit, else the
    checkout after its step; its author the culprit's, else ``authors``' (by the
    commit after the step, for a change of one commit), cut to what a line of
    ``width`` columns leaves it (:func:`perfwalk.cli.terminal.fitted`)."""
    told = [c for c in changes if c.triage is None and not c.refuted]
    regressions = [c for c in told if c.regression]
    improvements = [c for c in told if not c.regression]
    counts = []
    for kind, found in (("regression", regressions), ("improvement", improvements)):
        many = len({c.key for c in found})
        if many:
            counts.append(f"{many} {kind}{'' if many == 1 else 's'}")
    worst = regressions or improvements
    if worst:
        first = min(worst, key=lambda c: (_SUREST.get(c.state, 3), -abs(c.measured.size)))
        return _named(f"{', '.join(counts)}: ", first, authors or {}, width)
    if undecided:
        return (
            f"undecided: {undecided} metric{'' if undecided == 1 else 's'} too noisy to see a "
            "change of its min_change (above)"
        )
    triaged = len({c.key for c in changes if c.triage is not None and not c.refuted})
    return f"no new change found ({triaged} triaged)" if triaged else "no change found"


def _named(start: str, change: ListedChange, authors: Mapping[str, str], width: int | None) -> str:
    """``start`` then "+41.7 % (walk 5) latency.latency at 5a17eab3 by Ada Lovelace
    (confirmed)", the author cut to the room ``width`` leaves."""
    from perfwalk.cli.terminal import fitted

    culprit = change.culprit
    if culprit is not None:
        where, author = f"at {culprit.sha[:8]}", culprit.author
    elif change.commits == 1:
        where, author = f"at {change.after_sha[:8]}", authors.get(change.after_sha, "")
    else:
        where, author = f"in {change.commits} commits up to {change.after_sha[:8]}", ""
    drill = f", drill {culprit.drill}" if culprit is not None else ""
    end = f" ({change.state}{drill})"
    line = f"{start}{show_controls(change.size_text())} {show_controls(change.metric)} {where}"
    if not author:
        return line + end
    line += " by "
    return line + fitted(author.split(" <", 1)[0], len(line) + len(end), width) + end


def painted_found(line: str) -> str:
    """A walk's or a watch cycle's last line
    (:func:`perfwalk.cli.change_lines.found_line`), its count
    worse or better and its verdict's state in their colours on a terminal."""
    from perfwalk.cli.terminal import BETTER, STATE_STYLES, WORSE, paint, wants_colour

    count, sep, rest = line.partition(": ")
    if not sep or not wants_colour(sys.stdout) or count == "undecided":
        return line
    state = rest.rsplit("(", 1)[-1].split(",")[0].rstrip(")")
    painted = rest[: rest.rfind("(")] + "(" + paint(state, STATE_STYLES.get(state))
    painted += rest[rest.rfind("(") + 1 + len(state) :]
    style = WORSE if "regression" in count else BETTER
    return f"{paint(count, 'bold ' + style)}{sep}{painted}"


def group_lines(groups: Sequence[ChangeGroup], width: int | None = None) -> list[str]:
    """The alert groups as ``perfwalk changes`` lists them, one a line (wrapped to
    ``width``, the author cut to what it leaves: :func:`perfwalk.cli.terminal.fitted`):
    ``5a17eab3c0de  +41.7 % (drill 6) worse checksum.checksum, 2 metrics in 2 walks on 1
    host: untriaged, at 5a17eab3c0de by Tomás Ferreira``; nothing when there are none."""
    from perfwalk.cli.terminal import fitted, wrapped

    if not groups:
        return []
    lines = [
        f"alert groups ({len(groups)}; `perfwalk triage GROUP` says what all the changes "
        "of one are):"
    ]
    for group in groups:
        worst = group.worst
        line = show_controls(
            f"  {group.id}  {worst.size_text()} {worst.verdict} {worst.metric}, "
            f"{group.spread()}: {group.triage_state}, {group.where()}"
        )
        if group.author:
            line += " by " + fitted(group.author, len(line) + 4, width)
        lines += wrapped(line, width)
    return lines


def is_untriaged(event: ChangeEvent, marks: Mapping[Any, Marks]) -> bool:
    """Whether nobody said a word on ``event`` (``marks``: by change key)."""
    from perfwalk.services.change_json import change_key

    return (mark := marks.get(change_key(event))) is None or mark.triage is None


def changes_status(
    events: Sequence[ChangeEvent], marks: Mapping[Any, Marks], *, blind: bool = False
) -> int:
    """``perfwalk changes``' exit status: 1 for an untriaged confirmed regression without
    a known cause; else 4 when such a regression is suspect or undecided, or a metric
    the walk could not judge (``blind``); else 0 (a person's triage, a known cause or a
    refuting measure explains the others)."""
    untriaged = [e for e in events if is_untriaged(e, marks)]
    if any(e.to_act_on for e in untriaged):
        return exits.FOUND
    if blind or any(e.to_decide for e in untriaged):
        return exits.UNDECIDED
    return exits.OK


def undecided_lines(undecided: Iterable[tuple[int, Sight]], names: Mapping[int, str]) -> list[str]:
    """Each metric the walk could not judge (:attr:`Findings.undecided`), with its series
    (``names``: by id) and the most likely step it saw below its bar; a metric judged
    only with the values it was told to leave out says so on its changes instead."""
    lines = []
    for series, sight in undecided:
        if not sight.undecided:
            continue
        name = show_controls(names.get(series, ""))
        lines.append(f"series {series} {name!r}: {show_controls(sight.undecided)}")
        step = sight.floor.candidate
        if step is not None:
            lines.append(
                f"  most likely step: between checkout {step.previous} and {step.index}, "
                f"{format_size(step.relative)} ({step.share:.0%} of a change it could see there)"
            )
    return lines


def print_confirmed(confirmed: Confirmed | None) -> None:
    """Each change measured again, and how the walk's changes stand (None: none was)."""
    if confirmed is None:
        return
    for change in confirmed.remeasured:
        print(show_controls(change.said()))
    print(confirmed_line(confirmed))


def confirmed_line(confirmed: Confirmed) -> str:
    """The walk's last line with ``[run] confirm``: how its changes' re-measures went."""
    from perfwalk.analysis.confirmation import HELD

    told = confirmed.confirmed + confirmed.not_confirmed + confirmed.undecided
    # the most likely steps of metrics too noisy to judge that did not become changes
    unheld = sum(1 for r in confirmed.remeasured if r.step and not (r.final and r.outcome == HELD))
    steps = (
        f"{unheld} most likely step{'' if unheld == 1 else 's'} below the bar measured again, "
        "no change held there (undecided metrics stay undecided)"
    )
    if not told and not confirmed.not_measured and not confirmed.left:
        return f"confirm: {steps}" if unheld else "confirm: no change to measure again"
    line = (
        f"confirm: {confirmed.confirmed} of {told} "
        f"change{'' if told == 1 else 's'} confirmed by a re-measure, "
        f"{confirmed.not_confirmed} not confirmed"
    )
    if confirmed.undecided:
        line += f", {confirmed.undecided} undecided"
    if confirmed.not_measured:
        line += f", {confirmed.not_measured} not measured again (a build failed)"
    if confirmed.left:
        line += f", {confirmed.left} left for the next walk"
    if confirmed.spent:
        line += f" (the budget is spent: {confirmed.spent})"
    if unheld:
        line += f"; {steps}"
    return line + "; see `perfwalk changes`"
