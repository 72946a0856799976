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
from perfwalk.config.model import Config
from perfwalk.errors import GitError
from perfwalk.git.repo import Repo
from perfwalk.model import Commit
from perfwalk.orchestrate.findings.changes import find_all
from perfwalk.orchestrate.findings.kept_tests import of_tests
from perfwalk.orchestrate.findings.listed_changes import listed_findings
from perfwalk.report import layout
from perfwalk.report.change_list import ListedChange, ListedEpisode
from perfwalk.report.last_night import LastNight, last_night
from perfwalk.report.matrix import MatrixOptions, MatrixReport, publish_matrix
from perfwalk.report.pages.now import now_page
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


def store_state(store: Store) -> list[tuple[object, ...]]:
    """What a publish depends on in the store, cheaply: per series its state, number
    of checkouts with repetitions, newest repetition and newest reparse, then the
    triage (how many changes have a word, the newest word's id), then per conductor run
    its state, newest step and values; equal states, equal sites."""
    state: list[tuple[object, ...]] = []
    for series in store.list_series():
        marks = store.site.repetition_marks(series.id)
        newest = max((mark[1] for mark in marks.values()), default=0)
        reparsed = max((mark[2] for mark in marks.values() if len(mark) > 2), default=0)
        checkouts = len(store.checkouts(series.id))
        state.append((series.id, series.state, checkouts, newest, reparsed))
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
        found = of_tests(find_all(store, config), config.keeps)
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
    after which the site is still served and the publish tried again. The live page
    (``now.html``) is read from the store at each request."""
    stop = stop or threading.Event()
    times = SiteTimes(config.report.time_zone)
    with Store.open(config.store.url, read_only=True) as store:

        def live() -> bytes:
            return now_page(store.live.now(), datetime.now(UTC), times, served=True).encode()

        seen = store_state(store)
        report = publish_store(store, config, out)
        made = {layout.NOW: live}
        with SiteServer(out, port, allowed_hosts=allowed_hosts, made=made) as server:
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
