"""The regress use cases: run the configured suite on a host, import results made
elsewhere, list the runs (the matrix is published by :mod:`perfwalk.services.publish`).

A run of the suite holds a lease on its host (as a walk does, in a session of
:mod:`perfwalk.orchestrate.session.session`) while the executor
(:mod:`perfwalk.orchestrate.phases.regress_suite`) runs it, then stores the whole run —
results, logs, the host's system — in one transaction. An import parses the whole
file first: a malformed file stores nothing.

A run stored that records its commit joins the host's regress series
(:mod:`perfwalk.orchestrate.checkout.regress_checkouts`); the tests it shows newly
failing there (twice in a row after a pass) are told to ``[notify] urls`` once
(:func:`perfwalk.orchestrate.findings.notify.tell_regress_breaks`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from perfwalk.config.host_model import HostConfig
from perfwalk.config.model import Config
from perfwalk.config.secrets import config_secrets
from perfwalk.errors import UsageError
from perfwalk.git.walk_steps import parse_date
from perfwalk.model import Status
from perfwalk.orchestrate.checkout.regress_checkouts import track_runs
from perfwalk.orchestrate.findings.notify import tell_regress_breaks
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.orchestrate.phases.regress_suite import (
    Progress,
    bounded_log,
    commit_option,
    plan_suite,
    run_on_host,
    stored_result,
)
from perfwalk.orchestrate.session.leases import lease_name
from perfwalk.orchestrate.session.run_hosts import open_host
from perfwalk.orchestrate.session.session import Leasing, open_session
from perfwalk.regress.formats import read_results
from perfwalk.regress.history import pass_rate
from perfwalk.regress.outcome import SUITE_TEST, ParsedSuite
from perfwalk.report.change_list import ListedChange
from perfwalk.store import Store
from perfwalk.store.regress import Build, NewRegressRun, RegressRunRow


@dataclass(frozen=True)
class RegressSummary:
    """A stored run: its id, and what it says."""

    run_id: int
    host: str
    counts: dict[Status, int]
    failing: list[tuple[str, Status, str]]  # name, status, message of each bad result
    #: the tests this run found newly failing after passing: changes of their own
    #: (``perfwalk changes`` lists them, ``perfwalk drill ID`` names their commit)
    breaks: tuple[ListedChange, ...] = ()

    @property
    def pass_rate(self) -> float | None:
        return pass_rate(self.counts)


@dataclass(frozen=True)
class ImportOptions:
    """``perfwalk regress import`` options; None: from the file, or unknown."""

    host: str
    format: str | None = None
    date: str | None = None
    commit: str | None = None
    arch: str = ""
    os: str = ""
    kernel: str = ""
    build: Build = "unknown"


def run_suite(
    config: Config,
    *,
    host_name: str | None = None,
    commit: str | None = None,
    progress: Progress = lambda _done, _total, _outcome: None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> RegressSummary:
    """Run the configured suite on ``host_name`` (default ``regress.host``) and store it."""
    planned = plan_suite(config)
    name = host_name or config.regress.host
    settings = config.hosts.get(name) or HostConfig(target=name)

    def topology(control: Path) -> Topology:
        return Topology.single(open_host(name, settings, control), local=settings.local)

    with (
        open_session(
            config.store.url,
            topology,
            purpose=f"a regress run of {config.project.name} ({config.path})",
            leasing=Leasing([lease_name(settings)], config.run.lease_wait, config.run.lease_expiry),
            clock=clock,
        ) as session,
        session.holding(connect=None),  # the host connects on first use
    ):
        host = session.topology.member("").host
        new = run_on_host(config, host, planned, commit, progress, clock=clock)
        session.check()
    return _summary(_store_run(config, new, clock), new)


def _store_run(
    config: Config, new: NewRegressRun, clock: Callable[[], datetime]
) -> tuple[int, list[ListedChange]]:
    """Store ``new``; its host's regress series brought up to date and the tests newly
    failing there told (and returned)."""
    with Store.open(config.store.url) as store:
        store.mask_logs(config_secrets(config))
        run_id = store.regress.add_run(new)
        tracked = track_runs(store, config, new.host)
        if tracked is None:
            return run_id, []
        told = tell_regress_breaks(store, config, tracked.id, clock(), history=tracked.made)
    return run_id, [] if tracked.made else told


def _summary(stored: tuple[int, list[ListedChange]], new: NewRegressRun) -> RegressSummary:
    run_id, breaks = stored
    counts: dict[Status, int] = {}
    for result in new.results:
        counts[result.status] = counts.get(result.status, 0) + 1
    failing = sorted(
        ((r.test, r.status, r.message) for r in new.results if r.status >= Status.XPASS),
        key=lambda item: (-item[1], item[0]),
    )
    return RegressSummary(run_id, new.host, counts, failing, tuple(breaks))


# -- import ---------------------------------------------------------------------------


def import_results(
    config: Config,
    path: Path,
    options: ImportOptions,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> RegressSummary:
    """Parse a JUnit XML, TAP or marker log file and store it as a run of ``options.host``.

    The file is parsed whole before anything is stored; a malformed file is a
    ParseError naming it (and the line), and the store is left as it was.
    """
    if not options.host.strip():
        raise UsageError("--host is empty", hint="name the machine the results come from")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UsageError(
            f"cannot read {path}: {error.strerror or error}",
            hint="give the path of a JUnit XML, TAP or marker log file",
        ) from None
    fmt, parsed = read_results(data, str(path), options.format, SUITE_TEST)
    started = _import_date(options.date, parsed, path, clock)
    limit = config.store.log_limit
    new = NewRegressRun(
        host=options.host,
        started_at=started,
        finished_at=started,
        results=tuple(stored_result(outcome, limit) for outcome in parsed.outcomes),
        arch=options.arch,
        os=options.os,
        kernel=options.kernel,
        build=options.build,
        commit=commit_option(config, options.commit),
        origin=fmt,
        label=path.name,
        fingerprint={"hostname": parsed.hostname} if parsed.hostname else {},
        log=bounded_log(data, limit),
    )
    return _summary(_store_run(config, new, clock), new)


def _import_date(
    given: str | None, parsed: ParsedSuite, path: Path, clock: Callable[[], datetime]
) -> datetime:
    if given is not None:
        return parse_date(given)
    if parsed.started is not None:
        return parsed.started
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        return clock()


# -- list ---------------------------------------------------------------------------------


def list_runs(config: Config, host: str | None = None) -> list[RegressRunRow]:
    with Store.open(config.store.url, read_only=True) as store:
        return store.regress.runs(host)
