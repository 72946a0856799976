"""A host's regress runs that record their commit, as the checkouts of its regress
series (kind ``regress``, one per project and host:
:meth:`perfwalk.store.regress.RegressRecords.series_of`): each such run is a checkout
indexed by the run's id, dated by the run's start, with the commits since the host's
previous run that recorded one (as the project's repository tells them; the run's
commit alone for the first run, or when the repository does not know them).

A regress test that fails after it passed is a change of that series, named, triaged
and told by it and its commit range (:mod:`perfwalk.orchestrate.findings.breaks`). A
run without a commit is no checkout: it is tied to its host and date only, with no
commit range to group, drill or name a change by (the matrix still shows it).
"""

from __future__ import annotations

from dataclasses import dataclass

from perfwalk.config.model import Config
from perfwalk.errors import GitError
from perfwalk.git.repo import Repo
from perfwalk.model import Checkout, Commit
from perfwalk.store import Store


@dataclass(frozen=True)
class RegressSeries:
    """A host's regress series: its id, and whether it was made just now (its history's
    breaks are then not news)."""

    id: int
    made: bool


def track_runs(store: Store, config: Config, host: str) -> RegressSeries | None:
    """The regress series of ``host`` in ``config``'s project, with each run of the host
    that records a commit as one of its checkouts (those not yet there added); None
    when no run of the host records one."""
    runs = [r for r in reversed(store.regress.runs(host)) if r.commit]  # oldest first
    if not runs:
        return None
    series_id, made = store.regress.series_of(config.project.name, host, runs[0].started_at)
    have = {checkout.idx for checkout in store.checkouts(series_id)}
    repo = _repository(config)
    previous: str | None = None
    for run in runs:
        assert run.commit is not None  # (chosen so)
        if run.id not in have:
            since = _since(repo, previous, run.commit)
            store.add_checkout(
                series_id,
                Checkout(index=run.id, commit=run.commit, date=run.started_at, since=since),
            )
        previous = run.commit
    return RegressSeries(series_id, made)


def _repository(config: Config) -> Repo | None:
    try:
        return Repo(config.project.repo)
    except GitError:  # the runs are kept without their commits' words
        return None


def _since(repo: Repo | None, previous: str | None, commit: str) -> tuple[Commit, ...]:
    """The commits after ``previous`` up to ``commit`` (the first run: ``commit``
    alone); none that the repository does not know."""
    if repo is None or previous == commit:
        return ()
    try:
        if previous is not None:
            return repo.commits_between(previous, commit)
        return (repo.commit(commit),)
    except GitError:
        try:
            return (repo.commit(commit),)
        except GitError:
            return ()
