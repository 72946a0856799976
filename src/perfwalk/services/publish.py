"""The publish use cases: the store's series as a static site, with the changes the
analysis found marked and its other findings (excursions, drifts) shown; the
functional-regression matrix; and serving the site while a run adds results."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from perfwalk.analysis.levels import MetricPoints
from perfwalk.analysis.verdict import State
from perfwalk.config.model import Config
from perfwalk.errors import GitError
from perfwalk.git.repo import Repo
from perfwalk.model import Commit
from perfwalk.orchestrate.breaks import BreakEvent
from perfwalk.orchestrate.changes import ChangeEvent, Findings, MetricChange, find_all
from perfwalk.report import layout
from perfwalk.report.change_list import (
    TRIAGE_STATES,
    Culprit,
    DrillMark,
    ListedChange,
    ListedEpisode,
    TriageMark,
)
from perfwalk.report.last_night import LastNight, last_night
from perfwalk.report.matrix import MatrixOptions, MatrixReport, publish_matrix
from perfwalk.report.releases import resolve_releases
from perfwalk.report.server import SiteServer
from perfwalk.report.site import PublishOptions, PublishReport, publish
from perfwalk.report.times import SiteTimes
from perfwalk.store import Store


def detected_changes(store: Store, config: Config) -> list[ListedChange]:
    """The changes the analysis finds in every series, as the site lists and marks them."""
    return detected_findings(store, config)[0]


def night_of(store: Store, config: Config) -> LastNight | None:
    """What the index's "last night" strip says of the store's last run (None: none
    ended yet), its changes found in its walks' series only; the site published when
    ``[watch] site`` has an index (its time)."""
    last = store.runs.last()
    if last is None:
        return None
    chosen = sorted({w.series_id for w in store.runs.walks_of(last) if w.series_id is not None})
    index = config.watch.site / layout.INDEX
    published = datetime.fromtimestamp(index.stat().st_mtime, UTC) if index.is_file() else None
    return last_night(
        store,
        listed_findings(store, find_all(store, config, chosen))[0],
        stale_after=config.watch.stale_seconds,
        published_at=published,
    )


def detected_findings(
    store: Store, config: Config
) -> tuple[list[ListedChange], list[ListedEpisode]]:
    """The changes the analysis finds in every series, and the excursions and drifts
    of their metrics, as the site lists, marks and shows them."""
    return listed_findings(store, find_all(store, config))


def listed_findings(
    store: Store, found: Findings
) -> tuple[list[ListedChange], list[ListedEpisode]]:
    """The changes of ``found`` as a list to post or to subscribe to (one per metric,
    with the culprit a drill named for it, else for another metric of the same
    commit range, and the current triage of its series and commit range), and the
    excursions and drifts. A variant's change gets no drill's answer: the drills
    measured the plain checkout (and a drill of a variant's change is refused)."""
    culprits, drills = _drill_answers(store)
    triaged = triage_marks(store)
    changes = []
    for event in found.changes:
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
    changes += [_listed_break(b, culprits, drills, triaged) for b in found.breaks]
    return changes, episodes


def _listed_break(
    found: BreakEvent,
    culprits: Mapping[tuple[str, ...], tuple[str, int]],
    drills: Mapping[tuple[str, ...], DrillMark],
    triaged: Mapping[tuple[int, str, str], TriageMark],
) -> ListedChange:
    """A build broken or a test newly failing as a change of its kind: failing (1.0)
    after passing (0.0), confirmed as found (a status is noise-free), with the culprit
    its own drill named."""
    ends = (found.before.sha, found.after.sha)
    key = (*ends, *found.drilled)  # only its own drill's: a speed drill's range is not its
    drill = culprits.get(key)
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


def store_state(store: Store) -> list[tuple[object, ...]]:
    """What a publish depends on in the store, cheaply: per series its state, number
    of checkouts with repetitions and newest repetition, then the triage (how many
    changes have a word, the newest word's id), then per conductor run its state,
    newest step and values; equal states, equal sites."""
    state: list[tuple[object, ...]] = []
    for series in store.list_series():
        marks = store.site.repetition_marks(series.id)
        newest = max((top for _n, top in marks.values()), default=0)
        state.append((series.id, series.state, len(store.checkouts(series.id)), newest))
    words = store.triage.current()
    state.append((0, "triage", len(words), max((w.id for w in words.values()), default=0)))
    state += [
        ("conduct", s.run.id, s.run.state, s.newest_step, s.values, s.run.parser)
        for s in store.conduct.summaries()
    ]
    return state


def publish_store(
    store: Store,
    config: Config,
    out: Path,
    *,
    full: bool = False,
    listed: tuple[list[ListedChange], list[ListedEpisode]] | None = None,
    points: Mapping[int, Sequence[MetricPoints]] | None = None,
) -> PublishReport:
    """Bring the site under ``out`` up to date with ``store`` (incrementally unless
    ``full``), using every core for a long series; ``listed`` is what
    :func:`listed_findings` made of the analysis and ``points`` the summaries it read
    (:attr:`Findings.points`, cut into levels by the pages), when the caller has them
    already."""
    releases = resolve_releases(config)  # before anything is written: a bad one stops it
    if listed is None:
        found = find_all(store, config)
        listed, points = listed_findings(store, found), found.points
    changes, episodes = listed
    options = PublishOptions(
        points=points,
        changes=tuple(changes),
        episodes=tuple(episodes),
        full=full,
        workers=os.cpu_count() or 1,
        store_url=config.store.url,
        releases=releases,
        times=SiteTimes(config.report.time_zone),
    )
    return publish(store, config, out, options)


def publish_site(config: Config, out: Path, *, full: bool = False) -> PublishReport:
    """The whole site: the functional-regression matrix (when there are regress runs),
    then every series, with the index linking both."""
    with Store.open(config.store.url, read_only=True) as store:
        any_run = bool(store.regress.runs())
    if any_run:
        publish_regress(config, out, full=full)
    with Store.open(config.store.url, read_only=True) as store:
        return publish_store(store, config, out, full=full)


def publish_regress(config: Config, out: Path, *, full: bool = False) -> MatrixReport:
    """Write the matrix pages under ``out/regress`` (new runs only unless ``full``)."""
    options = MatrixOptions(
        source_url=config.regress.source_url,
        commit_url=config.project.commit_url,
        full=full,
        times=SiteTimes(config.report.time_zone),
    )
    with (
        Store.open(config.store.url, read_only=True) as store,
        _commit_log(config) as commits,
    ):
        return publish_matrix(store, out, options, commits)


@contextlib.contextmanager
def _commit_log(config: Config) -> Iterator[Callable[[str, str], Sequence[Commit] | None]]:
    """The commits between two runs' commits, from the project's repository when there is
    one (None for commits it does not know)."""
    try:
        repo: Repo | None = Repo(config.project.repo)
    except GitError:
        repo = None

    def between(after: str, until: str) -> Sequence[Commit] | None:
        if repo is None:
            return None
        try:
            return repo.commits_between(after, until)
        except GitError:
            return None

    yield between


def serve_site(
    config: Config,
    out: Path,
    *,
    port: int = 8000,
    interval: float = 2.0,
    allowed_hosts: Sequence[str] = (),
    ready: Callable[[str, PublishReport], None] = lambda _url, _report: None,
    published: Callable[[PublishReport], None] = lambda _report: None,
    failed: Callable[[Exception], None] = lambda _error: None,
    stop: threading.Event | None = None,
) -> None:
    """Publish ``out``, serve it on 127.0.0.1:``port`` and bring it up to date every
    ``interval`` seconds (only the pages that changed are rewritten) until ``stop``
    is set or Ctrl-C; ``allowed_hosts``: names a request may give besides the
    loopback ones (see report.server). ``ready`` gets the address once serving; ``published`` each
    publish that wrote something; ``failed`` the error of a publish that failed,
    after which the site is still served and the publish tried again."""
    stop = stop or threading.Event()
    with Store.open(config.store.url, read_only=True) as store:
        seen = store_state(store)
        report = publish_store(store, config, out)
        with SiteServer(out, port, allowed_hosts=allowed_hosts) as server:
            ready(server.url, report)
            while not stop.wait(interval):
                try:
                    now = store_state(store)
                    if now == seen:  # nothing new: no analysis, no publish
                        continue
                    report = publish_store(store, config, out)
                except Exception as error:  # told, and the server goes on
                    failed(error)
                    continue
                seen = now
                if report.written:
                    published(report)
