"""The changes the analysis found as the report lists them
(:mod:`perfwalk.report.change_list`): one :class:`ListedChange` per metric that
stepped, with the culprit a drill named, the newest drill's answer, the current
triage, the host of its series and the commits of its range (what groups it:
:mod:`perfwalk.report.change_groups`); and the excursions and drifts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from perfwalk.analysis.verdict import State
from perfwalk.model import Commit
from perfwalk.orchestrate.findings.breaks import BreakEvent
from perfwalk.orchestrate.findings.change_events import ChangeEvent, MetricChange
from perfwalk.orchestrate.findings.changes import Findings
from perfwalk.report.change_list import (
    TRIAGE_STATES,
    Culprit,
    DrillMark,
    ListedChange,
    ListedEpisode,
    TriageMark,
)
from perfwalk.store import Store


def listed_findings(
    store: Store, found: Findings
) -> tuple[list[ListedChange], list[ListedEpisode]]:
    """The changes of ``found`` as a list to post or to subscribe to (one per metric,
    with the culprit a drill named for it, else for another metric of the same
    commit range, the current triage of its series and commit range, its host and
    the commits of its range), and the
    excursions and drifts. A variant's change gets no drill's answer: the drills
    measured the plain checkout (and a drill of a variant's change is refused)."""
    culprits, drills = _drill_answers(store)
    triaged = triage_marks(store)
    hosts = {s.id: s.host for s in store.list_series()}
    changes = []
    for event in found.changes:
        shas = tuple(c.id for c in event.commits)
        one = event.commits[0] if len(event.commits) == 1 else None
        for metric in event.metrics:
            ends = (event.before.sha, event.after.sha)
            drill = culprits.get((*ends, metric.test, metric.name)) or culprits.get(ends)
            answer = drills.get((*ends, metric.test, metric.name)) or drills.get(ends)
            if event.variant is not None:  # a drill measures the plain checkout, not it
                drill = answer = None
            changes.append(
                ListedChange(
                    series_id=event.series_id,
                    series_name=event.series_name,
                    test=metric.test,
                    name=metric.name,
                    unit=metric.unit,
                    regression=metric.regression,
                    before=metric.before,
                    after=metric.after,
                    size=metric.size,
                    low=metric.low,
                    high=metric.high,
                    confidence=metric.confidence,
                    before_idx=event.before.idx,
                    after_idx=event.after.idx,
                    before_sha=event.before.sha,
                    after_sha=event.after.sha,
                    date=event.after.date,
                    commits=len(event.commits),
                    note=_not_to_act_on(event, metric),
                    culprit=None if drill is None else _culprit(event.commits, *drill),
                    drill=answer,
                    unconfirmed=_unconfirmed(metric),
                    confirmed=metric.remeasured is not None and metric.remeasured.held,
                    state=metric.verdict.state.value,
                    chain=metric.verdict.chain,
                    headline=metric.verdict.headline,
                    known_causes=tuple(q.letter for q in event.known_causes),
                    triage=triaged.get((event.series_id, *ends)),
                    variant=event.variant,
                    commit_digits=event.commit_digits,
                    range_shas=shas,
                    host=hosts.get(event.series_id, ""),
                    author="" if one is None else one.author,
                    subject="" if one is None else one.subject,
                    counters=event.counters,
                )
            )
    episodes = [
        ListedEpisode(
            series_id=e.series_id,
            series_name=e.series_name,
            test=e.test,
            name=e.name,
            kind=e.kind,
            first_idx=e.first.idx,
            last_idx=e.last.idx,
            size=e.size,
            worse=e.worse,
            before=e.before,
            after=e.after,
            variant=e.variant,
        )
        for e in found.episodes
    ]
    changes += [_listed_break(b, culprits, drills, triaged, hosts) for b in found.breaks]
    return changes, episodes


def _listed_break(
    found: BreakEvent,
    culprits: Mapping[tuple[str, ...], tuple[str, int]],
    drills: Mapping[tuple[str, ...], DrillMark],
    triaged: Mapping[tuple[int, str, str], TriageMark],
    hosts: Mapping[int, str],
) -> ListedChange:
    """A build broken or a test newly failing as a change of its kind: failing (1.0)
    after passing (0.0), confirmed as found (a status is noise-free), with the culprit
    its own drill named."""
    ends = (found.before.sha, found.after.sha)
    key = (*ends, *found.drilled)  # only its own drill's: a speed drill's range is not its
    drill = culprits.get(key)
    one = found.commits[0] if len(found.commits) == 1 else None
    return ListedChange(
        series_id=found.series_id,
        series_name=found.series_name,
        test=found.drilled[0],
        name=found.drilled[1],
        unit="",
        regression=True,
        before=0.0,
        after=1.0,
        size=1.0,
        low=1.0,
        high=1.0,
        confidence=1.0,
        before_idx=found.before.idx,
        after_idx=found.after.idx,
        before_sha=found.before.sha,
        after_sha=found.after.sha,
        date=found.after.date,
        commits=len(found.commits),
        culprit=None if drill is None else _culprit(found.commits, *drill),
        drill=drills.get(key),
        chain=(f"{found.said()} in series {found.series_id}",),
        triage=triaged.get((found.series_id, *ends)),
        broke=found.kind,
        statuses=(found.passed.name, found.failed.name),
        range_shas=tuple(c.id for c in found.commits),
        host=hosts.get(found.series_id, ""),
        author="" if one is None else one.author,
        subject="" if one is None else one.subject,
    )


def _drill_answers(
    store: Store,
) -> tuple[dict[tuple[str, ...], tuple[str, int]], dict[tuple[str, ...], DrillMark]]:
    """In one read of the drills, oldest first (the newest wins), by (before, after,
    test, name) and by (before, after): the culprit commit and drill series of the
    newest drill across those two commits that named one, and what the newest
    finished drill across them answered."""
    culprits: dict[tuple[str, ...], tuple[str, int]] = {}
    answers: dict[tuple[str, ...], DrillMark] = {}
    proofs = store.proofs.latest()
    for drill in store.drills.all():
        before, after = drill.change.get("before_sha"), drill.change.get("after_sha")
        if drill.verdict is None or not (isinstance(before, str) and isinstance(after, str)):
            continue
        answer = drill.answer or {}
        keys: tuple[tuple[str, ...], ...] = ((before, after, drill.test, drill.name),)
        if not drill.change.get("broke"):  # a break's drill answers for its break only
            keys += ((before, after),)
        mark = DrillMark(
            drill=drill.series_id,
            verdict=drill.verdict,
            lo=str(answer.get("lo") or before),
            hi=str(answer.get("hi") or after),
            reason=str(answer.get("reason") or ""),
            proof=proofs[drill.series_id].said() if drill.series_id in proofs else "",
        )
        culprit = answer.get("culprit")
        for key in keys:
            answers[key] = mark
            if drill.verdict == "culprit" and isinstance(culprit, str):
                culprits[key] = (culprit, drill.series_id)
    return culprits, answers


def triage_marks(store: Store) -> dict[tuple[int, str, str], TriageMark]:
    """The current word on every triaged change, by its key (series and commit range;
    a state this perfwalk does not know, from a newer one, is left out)."""
    return {
        key: TriageMark(state=state, reason=row.reason, who=row.who, at=row.at, bug=row.bug)
        for key, row in store.triage.current().items()
        for state in TRIAGE_STATES
        if row.state == state
    }


def _culprit(commits: Sequence[Commit], sha: str, drill: int) -> Culprit:
    commit = next((c for c in commits if c.id == sha), None)
    if commit is None:
        return Culprit(sha, "", "", drill)
    return Culprit(sha, commit.subject, commit.author, drill)


def _not_to_act_on(event: ChangeEvent, metric: MetricChange) -> str:
    """Why a metric's change is not one to act on: a quirk explains it, or as the
    site says (:func:`_unconfirmed`); "" when it is."""
    if event.known_causes:
        letters = ", ".join(q.letter for q in event.known_causes)
        return f"known cause: quirk {letters}"
    return _unconfirmed(metric)


def _unconfirmed(metric: MetricChange) -> str:
    """Why a metric's change is not to act on though detected, as its verdict's last
    line says: refuted ("refuted by drill 7 (NO-CHANGE…)"), suspect ("suspect:
    machine load: …") or a layout artefact ("layout artefact: code moved, not
    changed: …"); "" when it is confirmed or undecided."""
    verdict = metric.verdict
    if verdict.state in (State.REFUTED, State.SUSPECT, State.LAYOUT):
        return verdict.because
    return ""
