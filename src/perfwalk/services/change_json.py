"""The changes as ``perfwalk changes --format json`` prints them and the HTTP API
serves them (``GET /api/v1/changes``): one document, built in one place.

A change carries, besides its analysis, its verdict (its state, the chain of
evidence that decided it, its headline size and confidence: :func:`verdict_json`),
the current triage of its commit range and the newest finished drill across it with
the culprit that drill named (:class:`Marks`). A refuted change is listed apart, in
``ruled_out``. The alert groups (:mod:`perfwalk.report.change_groups`) of the
changes not refuted come in ``groups``, newest first, each with its members' ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from perfwalk.analysis.counter_moves import CounterMove
from perfwalk.analysis.floor import Sight
from perfwalk.analysis.verdict import Verdict
from perfwalk.numbers import finite_or_none
from perfwalk.orchestrate.findings.breaks import BreakEvent
from perfwalk.orchestrate.findings.change_events import ChangeEvent, CheckoutRef, MetricEpisode
from perfwalk.orchestrate.findings.changes import Findings
from perfwalk.report.change_groups import ChangeGroup, grouped
from perfwalk.report.change_list import (
    Culprit,
    DrillMark,
    ListedChange,
    ListedEpisode,
    TriageMark,
)


def changes_document(
    found: Findings, listing: tuple[list[ListedChange], list[ListedEpisode]]
) -> dict[str, Any]:
    """``{"groups": [...], "changes": [...], "episodes": [...], "ruled_out": [...],
    "floors": [...], "breaks": [...]}``: the alert groups (:func:`group_json`), every
    change of ``found`` with its marks from ``listing``
    (:func:`perfwalk.orchestrate.findings.listed_changes.listed_findings`), the refuted ones
    apart, what the walks could see in each metric (:func:`sight_json`), and the builds
    broken and tests newly failing (:func:`break_json`)."""
    marks = marks_of(listing[0])
    listed_breaks = {(c.key, c.test): c for c in listing[0] if c.broke}
    return {
        "groups": [group_json(g) for g in grouped(c for c in listing[0] if not c.refuted)],
        "changes": [
            event_json(e, marks.get(change_key(e))) for e in found.changes if not e.refuted
        ],
        "episodes": [episode_json(e) for e in found.episodes],
        "ruled_out": [event_json(e, marks.get(change_key(e))) for e in found.changes if e.refuted],
        "floors": [
            sight_json(series, sight) for series, sights in found.sights.items() for sight in sights
        ],
        "breaks": [
            break_json(
                b, listed_breaks.get(((b.series_id, b.before.sha, b.after.sha), b.drilled[0]))
            )
            for b in found.breaks
        ],
    }


def break_json(found: BreakEvent, listed: ListedChange | None) -> dict[str, Any]:
    """A build broken (``kind`` build) or a test newly failing (``kind`` test) of a
    walk's or of the regress suite (``suite``: walk, regress; ``host``: its series'
    host): its checkouts (a regress series': its runs), statuses and commits, and its
    triage and its own drill's answer."""
    marks = None if listed is None else Marks(listed.triage, listed.drill, listed.culprit)
    return {
        "id": found.id,
        "series": found.series_id,
        "series_name": found.series_name,
        "kind": found.kind,
        "suite": found.suite,
        "host": found.host,
        "test": found.test or None,
        "before": ref_json(found.before),
        "after": ref_json(found.after),
        "passed": found.passed.name,
        "failed": found.failed.name,
        "commits": len(found.commits),
        "triage": triage_json(None if marks is None else marks.triage),
        "drill": drill_json(marks),
    }


def group_json(group: ChangeGroup) -> dict[str, Any]:
    """An alert group: its ``id`` (what ``perfwalk triage`` and ``POST
    /groups/{id}/triage`` take), its ``culprit`` (null: not drilled to one) or its
    narrowest range (``before`` excluded … ``after``, ``commits``), its ``author``, its
    ``triage`` state (``mixed`` when its members differ), whether it ``needs_action``
    (an untriaged regression), its ``worst`` metric change, its ``spread``, and its
    ``members``: one per metric, by change id."""
    worst = group.worst
    return {
        "id": group.id,
        "culprit": None if group.culprit is None else group.culprit.sha,
        "before": group.before,
        "after": group.after,
        "commits": group.commits,
        "author": group.author or None,
        "subject": group.subject or None,
        "date": group.date.isoformat(),
        "triage": group.triage_state,
        "needs_action": group.needs_action,
        "regression": group.regression,
        "metrics": group.metrics,
        "hosts": group.hosts,
        "series": list(group.series),
        "spread": group.spread(),
        "worst": {
            "change": worst.id,
            "series": worst.series_id,
            "test": worst.test,
            "name": worst.name,
            "text": worst.size_text(),
            "size": finite_or_none(worst.measured.size),
            "state": worst.state,
        },
        "members": [
            {"change": c.id, "series": c.series_id, "test": c.test, "name": c.name}
            for c in group.members
        ],
    }


def sight_json(series: int, sight: Sight) -> dict[str, Any]:
    """What the walk could see in one metric (:class:`Sight`): its floor, what it left
    out, and the most likely step below its bar."""
    floor, step = sight.floor, sight.floor.candidate
    return {
        "series": series,
        "test": sight.test,
        "name": sight.name,
        "floor": finite_or_none(floor.relative),
        "min_change": sight.min_change,
        "sees_min_change": floor.sees(sight.min_change),
        "noise": finite_or_none(floor.noise),
        "within": finite_or_none(floor.within),
        "autocorrelation": floor.autocorrelation,
        "checkouts": floor.points,
        "values": sight.values,
        "loaded": sight.loaded,
        "excluded": sight.excluded,
        "kept": sight.kept,
        "load": sight.load or None,
        "changes": sight.changes,
        "undecided": sight.undecided or None,
        "likely_step_again": sight.again or None,
        "likely_step": None
        if step is None
        else {
            "before": step.previous,
            "after": step.index,
            "relative": finite_or_none(step.relative),
            "share": step.share,
        },
    }


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    """A verdict: ``state``, ``chain`` (its evidence as lines, the deciding one last),
    ``size`` (the headline size: relative, null beyond the float range), ``source``
    (where it was measured: ``walk 1``, ``drill 6``), ``confidence`` (null when that
    measure has none) and ``text`` (``+41.7 % (drill 6)``) and ``confidence_text``
    (``> 99.99 %``) as every page writes them."""
    headline = verdict.headline
    return {
        "state": verdict.state.value,
        "chain": list(verdict.chain),
        "size": finite_or_none(headline.size),
        "source": headline.source,
        "confidence": headline.confidence,
        "text": headline.text(),
        "confidence_text": headline.confidence_text(),
    }


@dataclass(frozen=True)
class Marks:
    """What a change carries besides its analysis: the current triage of its commit
    range, the newest finished drill across it, and the culprit that drill named."""

    triage: TriageMark | None
    drill: DrillMark | None
    culprit: Culprit | None


def change_key(event: ChangeEvent) -> tuple[int, str, str]:
    return (event.series_id, event.before.sha, event.after.sha)


def marks_of(listed: list[ListedChange]) -> dict[tuple[int, str, str], Marks]:
    """Per change (series and commit range), from its metrics' listed rows: the
    triage (the same for all of them) and the newest drill's answer of any of them."""
    rows: dict[tuple[int, str, str], list[ListedChange]] = {}
    for change in listed:
        if not change.broke:  # a break's marks are its own (break_json)
            rows.setdefault(change.key, []).append(change)
    marks = {}
    for key, metrics in rows.items():
        drills = [c.drill for c in metrics if c.drill is not None]
        drill = max(drills, key=lambda d: d.drill) if drills else None
        culprit = next(
            (
                c.culprit
                for c in metrics
                if c.culprit is not None and (drill is None or c.culprit.drill == drill.drill)
            ),
            None,
        )
        marks[key] = Marks(metrics[0].triage, drill, culprit)
    return marks


def episode_json(e: MetricEpisode) -> dict[str, Any]:
    return {
        "kind": e.kind,
        "series": e.series_id,
        "series_name": e.series_name,
        "variant": e.variant or "base",
        "test": e.test,
        "name": e.name,
        "unit": e.unit,
        "direction": e.direction.value,
        "first": ref_json(e.first),
        "last": ref_json(e.last),
        "before": e.before,
        "after": e.after,
        "relative": finite_or_none(e.size),
        "z": e.z,
        "confidence": e.confidence,
        "checkouts": e.checkouts,
        "worse": e.worse,
    }


def ref_json(r: CheckoutRef) -> dict[str, Any]:
    return {"idx": r.idx, "commit": r.sha, "date": r.date.isoformat()}


def triage_json(mark: TriageMark | None) -> dict[str, Any] | None:
    if mark is None:
        return None
    return {
        "state": mark.state,
        "reason": mark.reason,
        "bug": mark.bug,
        "who": mark.who,
        "at": mark.at.isoformat(),
    }


def drill_json(marks: Marks | None) -> dict[str, Any] | None:
    if marks is None or marks.drill is None:
        return None
    drill, culprit = marks.drill, marks.culprit
    named = None
    if drill.verdict == "culprit":
        named = (
            {"commit": drill.hi, "subject": None, "author": None}
            if culprit is None
            else {
                "commit": culprit.sha,
                "subject": culprit.subject or None,
                "author": culprit.author or None,
            }
        )
    return {
        "drill": drill.drill,
        "verdict": drill.verdict,
        "lo": drill.lo,
        "hi": drill.hi,
        "reason": drill.reason,
        "culprit": named,
    }


def counter_json(move: CounterMove) -> dict[str, Any]:
    """A ``[[snapshot]]`` counter that moved with a change (docs/analysis.md, "What
    moved with it"): where it was read, its unit of work, its median rate on each side,
    its ratio (or relative change) with its interval, the rank test's p and Cliff's
    delta, and its largest move between neighbouring checkouts without a change."""
    return {
        "snapshot": move.snapshot,
        "role": move.role or None,
        "test": move.test,
        "counter": move.counter,
        "per": move.per,
        "before": finite_or_none(move.before),
        "after": finite_or_none(move.after),
        "ratio": finite_or_none(move.ratio),
        "relative": finite_or_none(move.change),
        "low": finite_or_none(move.low),
        "high": finite_or_none(move.high),
        "text": move.effect,
        "p": move.p,
        "cliffs_delta": move.delta,
        "repetitions_before": move.n_before,
        "repetitions_after": move.n_after,
        "neighbour_move": finite_or_none(move.noise),
    }


def event_json(event: ChangeEvent, marks: Marks | None) -> dict[str, Any]:
    ref = ref_json
    return {
        "id": event.id,
        "series": event.series_id,
        "series_name": event.series_name,
        "variant": event.variant or "base",
        "variant_of": event.variant_of,
        "kind": event.kind,
        "before": ref(event.before),
        "after": ref(event.after),
        "metrics": [
            {
                "test": m.test,
                "name": m.name,
                "unit": m.unit,
                "direction": m.direction.value,
                "before": m.before,
                "after": m.after,
                "relative": finite_or_none(m.size),
                "relative_low": finite_or_none(m.low),
                "relative_high": finite_or_none(m.high),
                "z": m.z,
                "confidence": m.confidence,
                "checkouts_before": m.checkouts_before,
                "checkouts_after": m.checkouts_after,
                "regression": m.regression,
                "edge": m.edge,
                "suspect": m.suspect or None,
                "verdict": verdict_json(m.verdict),
                "remeasured": (
                    None
                    if m.remeasured is None
                    else {
                        "before": m.remeasured.before,
                        "after": m.remeasured.after,
                        "held": m.remeasured.held,
                    }
                ),
            }
            for m in event.metrics
        ],
        "known_causes": [
            {
                "letter": q.letter,
                "date": q.at_date.isoformat(),
                "commit": q.commit,
                "comment": q.comment,
            }
            for q in event.known_causes
        ],
        "verdict": verdict_json(event.verdict),
        "counters": [counter_json(c) for c in event.counters],
        "not_confirmed_by": event.ruled_out_by,
        "confirmed_by_remeasure": event.confirmed,
        "triage": triage_json(None if marks is None else marks.triage),
        "drill": drill_json(marks),
        "commits": [
            {"commit": c.id, "date": c.date.isoformat(), "author": c.author, "subject": c.subject}
            for c in event.commits
        ],
    }
