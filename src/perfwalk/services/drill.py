"""The drill use case: narrow a detected change down to the commit that caused it.

A drill is a series of kind ``drill`` whose parent is the series where the change
was seen. The pure scheduler (:mod:`perfwalk.drill`) says which commit to measure
next and how many repetitions to add; this module builds and measures it through
the walk (:class:`perfwalk.orchestrate.walk.walk.Walk`, one checkout per commit tried,
indexed by its position between the two ends), stores every repetition as it
finishes and every step as it ends, and at the end the answer with its evidence.

The line, the search and the culprit's profiles are measured in
:mod:`perfwalk.orchestrate.drilling`; this module chooses what to drill, starts the
drill series and stores its answer.

When the drill names a culprit, its differential profile is in the answer (``profile``:
the ids of the two profiles, the 20 functions whose share of the samples changed most
beyond the noise of the counts and how many changed within it, as
:func:`perfwalk.analysis.profile_diff.differential` gives them): the profiles stored
at the culprit and at its parent (by the walk or the drill), or, when there are none and
the test has [test.profile] or the drill was asked for them (``profile``), one profiled
run at each of the two commits.

Values already stored at a commit of the line — by the parent walk, a finer walk
or an earlier drill of the same project, host and configuration — are reused: a
commit that has enough is never built again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from perfwalk.analysis.breaks import BUILD
from perfwalk.analysis.thresholds import CONFIGURED, Thresholds
from perfwalk.change_ids import FORMS, id_series
from perfwalk.config.model import Config, TestConfig
from perfwalk.drill import Budget, Done, Verdict
from perfwalk.errors import UsageError
from perfwalk.git.repo import Repo
from perfwalk.model import Commit
from perfwalk.numbers import finite_or_none
from perfwalk.orchestrate.drilling.culprit_profiles import culprit_profiles
from perfwalk.orchestrate.drilling.search import run_search, searching, walked_line
from perfwalk.orchestrate.drilling.target import DrillTarget
from perfwalk.orchestrate.findings.breaks import BreakEvent, series_breaks
from perfwalk.orchestrate.findings.change_events import ChangeEvent, MetricChange
from perfwalk.orchestrate.findings.changes import find_changes
from perfwalk.orchestrate.phases.regress_suite import checkout_dir
from perfwalk.orchestrate.session.session import config_session
from perfwalk.orchestrate.walk.provenance import describe_series
from perfwalk.store import Store
from perfwalk.store.drills import DrillRow, Provenance
from perfwalk.store.regress import REGRESS_KIND

#: the use case; its target (what one drill narrows) is defined with the search it drives
__all__ = [
    "DRILL_STEP",
    "DrillResult",
    "DrillTarget",
    "answer_json",
    "between_target",
    "change_targets",
    "drilled_target",
    "finished_drill",
    "profile_drilled",
    "run_drill",
]

#: the step a drill series shows where a walk shows 1day or commit
DRILL_STEP = "drill"


@dataclass(frozen=True)
class DrillResult:
    """A finished drill: its series, the line it searched and the scheduler's answer."""

    series_id: int
    target: DrillTarget
    line: tuple[str, ...]
    done: Done
    reused: int  # values already stored on the line, used at no cost
    commits: Mapping[str, Commit]  # the commits of the answer (lo, hi and those between)
    #: the culprit's differential profile as the answer keeps it (see culprit_profiles)
    profile: Mapping[str, Any] | None = None
    unit: str = ""  # the drilled metric's

    @property
    def culprit(self) -> Commit | None:
        position = self.done.culprit
        return None if position is None else self.commits[self.line[position]]


def change_targets(
    store: Store,
    config: Config,
    *,
    chosen: str | None = None,
    test: str | None = None,
    name: str | None = None,
    tuning: Thresholds = CONFIGURED,
    found: Sequence[ChangeEvent] | None = None,
    breaks: Sequence[BreakEvent] | None = None,
) -> list[DrillTarget]:
    """A drill target per change of the walks of ``config``'s project (or the one
    change ``chosen``), for its strongest metric (or ``test``.``name``); ``found``: the
    changes the caller found already (:func:`perfwalk.orchestrate.findings.changes.find_changes`
    with ``tuning``, of these walks or more) and ``breaks`` (builds broken, tests newly
    failing: :mod:`perfwalk.orchestrate.findings.breaks`), not looked for again. The changes of a
    walk's variants are not drilled (a drill measures the plain checkout): one
    ``chosen`` is refused with a UsageError that says what to do instead."""
    walks = [  # and the hosts' regress series, whose breaks are drilled too
        s.id
        for s in store.list_series()
        if s.kind in ("walk", REGRESS_KIND) and s.project == config.project.name
    ]
    if found is not None:
        ours = set(walks)
        events = [e for e in found if e.series_id in ours]
    else:
        events = find_changes(store, config, walks, tuning=tuning) if walks else []
    if breaks is None:
        breaks = series_breaks(store, [store.series(i) for i in walks])
    broken = [b for b in breaks if b.series_id in set(walks)]
    if chosen is not None:
        broken = [b for b in broken if b.named(chosen)]
        _refuse_sameness(broken)
        picked = [e for e in events if e.named(chosen)]
        if not picked and broken:  # the change named is a break
            events = []
        if len(picked) > 1:
            raise UsageError(
                f"change id {chosen!r} names {len(picked)} changes: "
                + ", ".join(e.id for e in picked),
                hint="give the id `perfwalk changes` lists",
            )
        if not picked and not broken:
            _refuse_variant(store, config, chosen, tuning)
            known = ", ".join(e.id for e in events) or "none"
            raise UsageError(
                f"no change {chosen!r} among the changes of project {config.project.name}"
                f" (known: {known})",
                hint=f"`perfwalk changes` lists them with their ids ({FORMS})",
            )
        events = picked
    targets = []
    for event in events:
        metrics = [
            m
            for m in event.metrics
            if (test is None or m.test == test) and (name is None or m.name == name)
        ]
        if metrics:
            targets.append(_event_target(event, max(metrics, key=lambda m: abs(m.z))))
    for b in broken:
        if not b.commits:  # a regress test that broke at the same commit: nothing to drill
            continue
        drilled_test, drilled_name = b.drilled
        if (test is None or test == drilled_test) and (name is None or name == drilled_name):
            targets.append(_break_target(b))
    return targets


def _break_target(found: BreakEvent) -> DrillTarget:
    """A break's drill: its status, 0.0 passing and 1.0 failing, bisected noise-free."""
    test, name = found.drilled
    return DrillTarget(
        before=found.before.sha,
        after=found.after.sha,
        test=test,
        name=name,
        parent=found.series_id,
        change={
            "id": found.id,
            "series": found.series_id,
            "before_idx": found.before.idx,
            "after_idx": found.after.idx,
            "kind": "regression",
            "broke": found.kind,
            "suite": found.suite,
            "statuses": [found.passed.name, found.failed.name],
            "unit": "",
            "before": 0.0,
            "after": 1.0,
            "relative": None,
            "confidence": 1.0,
            "commits": len(found.commits),
        },
    )


def _refuse_sameness(broken: Sequence[BreakEvent]) -> None:
    """A UsageError when a chosen break has no commit between its two ends: a regress
    test that passed and then failed at the same commit (its host or system changed)."""
    for b in broken:
        if not b.commits:
            raise UsageError(
                f"change {b.id}: {b.said()} at the same commit {b.after.sha[:12]} (runs "
                f"{b.before.idx} and {b.after.idx} of {b.host}): no commit to drill",
                hint="the host or its system changed between the two runs; "
                "`perfwalk regress runs` shows them",
            )


def _refuse_variant(store: Store, config: Config, chosen: str, tuning: Thresholds) -> None:
    """A UsageError when ``chosen`` is a change of a walk's variant: a drill builds and
    measures the plain checkout, and would narrow the walk's values, not the variant's."""
    series_id = id_series(chosen)
    series = next((s for s in store.list_series() if s.id == series_id), None)
    if series is None or series.kind != "variant":
        return
    events = [e for e in find_changes(store, config, [series.id], tuning=tuning) if e.named(chosen)]
    walk = series.parent_id
    after = events[0].after.idx if events else chosen.partition(":")[2]
    compare = (
        f"; `perfwalk compare {series.id}:{events[0].before.idx} {series.id}:{after}` "
        "compares the variant's two checkouts"
        if events
        else ""
    )
    raise UsageError(
        f"change {chosen} is a change of the variant {series.variant_name!r} (series "
        f"{series.id}, beside walk series {walk}): a drill builds and measures the plain "
        "checkout, so it would narrow the walk's values, not the variant's",
        hint=f"drilling a variant is not supported yet: if the walk changed there too "
        f"(`perfwalk changes --series {walk}`), `perfwalk drill {walk}:{after}` drills "
        f"the plain checkout's change{compare}",
    )


def _event_target(event: ChangeEvent, metric: MetricChange) -> DrillTarget:
    return DrillTarget(
        before=event.before.sha,
        after=event.after.sha,
        test=metric.test,
        name=metric.name,
        parent=event.series_id,
        change={
            "id": event.id,
            "series": event.series_id,
            "before_idx": event.before.idx,
            "after_idx": event.after.idx,
            "kind": "regression" if metric.regression else "improvement",
            "unit": metric.unit,
            "before": metric.before,
            "after": metric.after,
            "relative": finite_or_none(metric.size),
            "confidence": metric.confidence,
            "commits": len(event.commits),
        },
    )


def between_target(
    store: Store,
    config: Config,
    ends: tuple[str, str],
    *,
    test: str | None,
    name: str | None,
) -> DrillTarget:
    """The target of ``perfwalk drill --between FIRST LAST --test T --value V``."""
    if test is None or name is None:
        raise UsageError(
            "--between needs the metric to drill",
            hint="add --test TEST --value VALUE (as `perfwalk show` names them)",
        )
    repo = Repo(config.project.repo)
    before, after = repo.resolve(ends[0]), repo.resolve(ends[1])
    parent = None
    walks = [s for s in store.list_series() if s.kind == "walk"]
    for series in reversed([s for s in walks if s.project == config.project.name]):
        if {before, after} <= {c.sha for c in store.checkouts(series.id)}:
            parent = series.id
            break
    change: dict[str, Any] = {"id": None, "series": parent, "between": list(ends)}
    return DrillTarget(before, after, test, name, parent, change)


def finished_drill(drills: Sequence[DrillRow], target: DrillTarget) -> DrillRow | None:
    """The newest of ``drills`` (as :meth:`DrillRecords.all` lists them) that answered the
    same target, if any."""
    for row in reversed(drills):
        if (
            row.verdict is not None
            and (row.test, row.name) == (target.test, target.name)
            and (row.change.get("before_sha"), row.change.get("after_sha"))
            == (target.before, target.after)
        ):
            return row
    return None


def run_drill(
    config: Config,
    target: DrillTarget,
    budget: Budget | None = None,
    *,
    say: Callable[[str], None] = lambda _s: None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    profile: bool = False,
) -> DrillResult:
    """Drill ``target`` down within ``budget``; every repetition and step is stored as
    it ends (a stopped drill keeps them, and a new drill of the same change reuses
    its values). ``profile``: profile the culprit and its parent when nothing stored
    has their profiles, even without [test.profile] (perf, its defaults)."""
    budget = budget or Budget()
    test_config = _drilled_test(config, target)
    walked = walked_line(config, target)
    line = walked.line
    purpose = f"a drill of {target.metric} in {config.project.name} ({config.path})"
    with config_session(config, purpose, clock, say) as session, session.holding():
        session.sweep(say)
        store, topology = session.store, session.topology
        provenance = Provenance(config.project.name, topology.member("").host.name, config.hash)
        stored: dict[int, tuple[float, ...]]
        if target.broke:  # its ends' statuses are the walk's (noise-free): not built again
            stored = {0: (0.0,), len(line) - 1: (1.0,)}
        else:
            found = store.drills.values_at(line, target.test, target.name, provenance)
            stored = {pos: tuple(found[sha]) for pos, sha in enumerate(line) if sha in found}
        reused = sum(map(len, stored.values()))
        series_id = store.create_series(
            describe_series(
                config,
                topology,
                name=f"drill {target.metric} {target.before[:10]}..{target.after[:10]}",
                spec=(target.before, target.after, DRILL_STEP),
                repetitions=budget.max_repetitions,
                between=config.run.between,
                quirks=walked.quirks,
                parent=target.parent,
                kind="drill",
                started_at=clock(),
            )
        )
        change = {
            **target.change,
            "before_sha": target.before,
            "after_sha": target.after,
            "commits": len(line) - 1,
        }
        store.drills.start(series_id, target.test, target.name, change)
        say(
            f"drill {series_id}: {target.metric} over {len(line) - 1} commits after"
            f" {target.before[:12]} up to {target.after[:12]}"
            f" ({reused} stored values reused)"
        )
        with searching(
            session, config, test_config, walked, target=target, series_id=series_id
        ) as search:
            done = run_search(search, stored, budget, say)
            profiled = culprit_profiles(search, done.culprit, test_config, profile=profile, say=say)
            commits = {c.id: c for c in walked.repo.commits_between(line[0], line[-1])}
            commits[line[0]] = walked.repo.commit(line[0])
            answer = answer_json(done, line)
            culprit = None if done.culprit is None else commits[line[done.culprit]]
            answer["subject"] = None if culprit is None else culprit.subject
            answer["reused"] = reused
            # the change's unit; two commits given by --between have none: as measured
            unit = str(target.change.get("unit") or "") or store.drills.measured_unit(
                series_id, target.test, target.name
            )
            answer["unit"] = unit
            if profiled is not None:
                answer["profile"] = profiled
            store.drills.finish(series_id, done.verdict.value, answer)
    return DrillResult(
        series_id=series_id,
        target=target,
        line=line,
        done=done,
        reused=reused,
        commits=commits,
        profile=profiled,
        unit=unit,
    )


def profile_drilled(
    config: Config,
    drilled: DrillRow,
    *,
    say: Callable[[str], None] = lambda _s: None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> dict[str, Any]:
    """The differential profile of the culprit an earlier drill named against its
    parent (``drill --profile`` of a change drilled before): the profiles stored at the
    two commits, else one profiled run at each in the drill's series (perf with the
    test's [test.profile] settings, unless it has a tool); kept in the drill's answer.
    A UsageError when the drill named no culprit."""
    answer = dict(drilled.answer or {})
    culprit = answer.get("culprit")
    target = drilled_target(drilled)
    if drilled.verdict != Verdict.CULPRIT.value or not isinstance(culprit, str):
        change = target.change.get("id") or (
            f"--between {target.before[:12]} {target.after[:12]} --test {target.test} "
            f"--value {target.name}"
        )
        raise UsageError(
            f"drill {drilled.series_id} named no culprit ({drilled.verdict or 'unfinished'}): "
            "there is no commit and parent to profile",
            hint=f"`perfwalk drill {change} --again --profile` drills it again "
            "(--max-builds, --max-repetitions: a larger budget) and profiles the culprit "
            "it names",
        )
    test_config = _drilled_test(config, target)
    walked = walked_line(config, target)
    purpose = f"the profiles of drill {drilled.series_id} ({config.path})"
    with config_session(config, purpose, clock, say) as session, session.holding():
        session.sweep(say)
        series_id = drilled.series_id
        with searching(
            session, config, test_config, walked, target=target, series_id=series_id
        ) as search:
            position = walked.line.index(culprit)
            profiled = culprit_profiles(search, position, test_config, profile=True, say=say)
            assert profiled is not None  # (asked for)
            answer["profile"] = profiled
            session.store.drills.finish(series_id, drilled.verdict, answer)
    return profiled


def drilled_target(drilled: DrillRow) -> DrillTarget:
    """The target an earlier drill narrowed, as it stored it."""
    return DrillTarget(
        before=drilled.change["before_sha"],
        after=drilled.change["after_sha"],
        test=drilled.test,
        name=drilled.name,
        parent=drilled.change.get("series"),
        change=drilled.change,
    )


def _drilled_test(config: Config, target: DrillTarget) -> TestConfig:
    if target.regress:  # the suite's test runs, none of [[test]]: its name alone
        checkout_dir(config)  # before anything is made: in the repository, or refused
        return TestConfig(name=target.test, command="", parser="value")
    if target.broke == BUILD and config.tests:  # the build decides; a test runs beside it
        return config.tests[0]
    found = next((t for t in config.tests if t.name == target.test), None)
    if found is None:
        raise UsageError(
            f"test {target.test!r} is not in {config.path}",
            hint=f"the tests there: {', '.join(t.name for t in config.tests)}",
        )
    return found


def answer_json(done: Done, line: Sequence[str]) -> dict[str, Any]:
    """The stored answer of a drill: everything its page and ``--format json`` show."""
    levels = done.levels
    return {
        "verdict": done.verdict.value,
        "reason": done.reason,
        "lo": line[done.lo],
        "hi": line[done.hi],
        "lo_position": done.lo,
        "hi_position": done.hi,
        "culprit": None if done.culprit is None else line[done.culprit],
        "before": None if levels is None else levels.before,
        "after": None if levels is None else levels.after,
        "relative": None if levels is None else finite_or_none(levels.relative),
        # a change or a noise beyond the float range (values of 1e308) is not a number
        "noise": None if levels is None else finite_or_none(levels.noise),
        "change_low": None if levels is None else finite_or_none(levels.shift.low),
        "change_high": None if levels is None else finite_or_none(levels.shift.high),
        "ends_p": None if levels is None else levels.shift.p_value,
        "step": None
        if done.step is None
        else {
            "estimate": finite_or_none(done.step.estimate),
            "low": finite_or_none(done.step.low),
            "high": finite_or_none(done.step.high),
        },
        "confidence": done.confidence,
        "builds": done.builds,
        "repetitions": done.repetitions,
        "placements": [
            {
                "position": p.position,
                "commit": p.commit,
                "values": len(p.values),
                "median": sorted(p.values)[len(p.values) // 2] if p.values else None,
                "side": p.side.value,
                "evidence": p.evidence,
                "confirmed": p.confirmed,
            }
            for p in done.placements
        ],
    }
