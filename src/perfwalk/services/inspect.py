"""Read-only use cases over the store: pick a series, its progress, its summaries."""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

from perfwalk.config.model import Config
from perfwalk.errors import UsageError
from perfwalk.model import Log, Status
from perfwalk.orchestrate.checkout.checkout_ref import find_checkout
from perfwalk.orchestrate.walk.walk_progress import time_left
from perfwalk.quantities import format_value
from perfwalk.store import Store
from perfwalk.store.leases import LeaseRow
from perfwalk.store.phase_steps import POWER_CYCLE
from perfwalk.store.records import CheckoutRow, SeriesRow
from perfwalk.store.walkers import WalkerRow


@contextmanager
def opened(config: Config, *, read_only: bool = False) -> Iterator[Store]:
    """The store of ``config``, closed at the end; ``read_only`` for the commands that
    only read (the store may then be on read-only media)."""
    store = Store.open(config.store.url, read_only=read_only)
    try:
        yield store
    finally:
        store.close()


def pick_series(store: Store, series_id: int | None) -> SeriesRow:
    """The series ``series_id``, or the newest walk (a drill's series only when the
    store holds no walk: a drill ``--between`` two commits has none)."""
    if series_id is not None:
        return store.series(series_id)
    newest = store.list_series()
    if not newest:
        raise UsageError(
            f"the store {store.url} holds no series yet",
            hint="start one with `perfwalk run`",
        )
    walks = [series for series in newest if series.kind == "walk"]
    return (walks or newest)[0]


@dataclass(frozen=True)
class SeriesStatus:
    series: SeriesRow
    state: str  # the stored state, or "interrupted" when its walker is gone
    walker: WalkerRow | None  # who walks (walked) it; None for older series
    walker_gone: bool  # the series says running, but its walker no longer runs
    checkouts: int  # reached so far
    planned: int | None  # checkouts the walk plans (None: not recorded, a drill)
    built: int
    build_failed: int
    repetitions_done: int
    #: planned checkouts × repetitions (adaptive: the most), and those planned beyond
    #: them at some checkouts (an adaptive walk's where a level was not clear)
    repetitions_total: int | None
    repetitions_given_up: int  # planned at checkouts whose build failed
    worst: dict[str, Status]  # per test, over every repetition
    repetitions_again: int = 0  # beyond the plan: re-measures of changes ([run] confirm)
    #: while it runs, the seconds a repetition takes: the median time the last
    #: repetitions to finish took (:func:`recent_pace`)
    pace: float | None = None
    #: … and the seconds a build takes: the median of its checkouts' builds
    build_pace: float | None = None
    builds_left: int = 0  # planned checkouts not built yet
    #: a walker whose process may live but whose leases on the hosts have all
    #: expired (it stopped beating: a worker whose walk the store lost): their last
    #: heartbeat. The walker is then gone as well.
    silent_since: datetime | None = None

    @property
    def eta(self) -> float | None:
        """The seconds left while the walk runs (None: unknown): its repetitions and
        builds left at their measured times (:func:`time_left`, as the walk's progress
        bar estimates it)."""
        if self.pace is None or self.repetitions_total is None:
            return None
        left = self.repetitions_total - self.repetitions_done - self.repetitions_given_up
        return time_left(self.pace, self.build_pace, left, self.builds_left)


#: how many of the last repetitions to finish make the recent rate of a walk
RECENT = 20


def recent_pace(times: Sequence[tuple[datetime, datetime]]) -> float | None:
    """The seconds a repetition takes, from ``times`` ((started, finished) of the last
    repetitions): the median of their own times (a build is timed apart:
    :func:`build_pace`); None without one."""
    if not times:
        return None
    return statistics.median((end - start).total_seconds() for start, end in times)


def build_pace(seconds: Sequence[float | None]) -> float | None:
    """The seconds a build takes: the median of the builds timed (``seconds``, None for
    a checkout not built yet); None without one."""
    timed = [s for s in seconds if s is not None]
    return statistics.median(timed) if timed else None


def series_status(store: Store, series: SeriesRow) -> SeriesStatus:
    rows = store.checkouts(series.id)
    worst: dict[str, Status] = {}
    for result in store.results(series.id):
        worst[result.test] = max(worst.get(result.test, Status.PASS), result.status)
    walker = store.walkers.of([series.id]).get(series.id)
    silent = _silent_since(series, walker, store.leases.list())
    gone = silent is not None or _gone(series, walker)
    failed = [r for r in rows if r.build_status not in (None, Status.PASS)]
    planned = series.planned_checkouts
    # adaptive repetitions: the most a checkout may get (a quiet one needs fewer)
    each = (series.measuring.repetitions_max if series.measuring else None) or series.repetitions
    done = store.done_repetitions(series.id)
    own = {row.idx: series.planned_at(row) for row in rows}  # beyond them: re-measures
    again = sum(1 for idx, rep in done if (most := own.get(idx)) is not None and rep >= most)
    # planned at some checkouts beyond the series' (an adaptive walk's)
    more = sum((most or 0) - (series.planned_repetitions or 0) for most in own.values())
    running = series.state == "running" and not gone
    unbuilt = sum(1 for r in rows if r.build_status is None)
    return SeriesStatus(
        series=series,
        state="interrupted" if gone else series.state,
        walker=walker,
        walker_gone=gone,
        checkouts=len(rows),
        planned=planned,
        built=sum(1 for r in rows if r.build_status is Status.PASS),
        build_failed=len(failed),
        repetitions_done=len(done) - again,
        repetitions_total=None if planned is None else planned * each + more,
        repetitions_given_up=len(failed) * each,
        worst=worst,
        repetitions_again=again,
        pace=recent_pace(store.recent_repetitions(series.id, RECENT)) if running else None,
        build_pace=build_pace([r.build_seconds for r in rows]) if running else None,
        builds_left=0 if planned is None else max(0, planned - len(rows)) + unbuilt,
        silent_since=silent,
    )


def series_states(store: Store, series: list[SeriesRow]) -> dict[int, str]:
    """Each series' state as :func:`series_status` tells it (a ``running`` series whose
    walker is gone is ``interrupted``)."""
    running = [s.id for s in series if s.state == "running"]
    walkers = store.walkers.of(running) if running else {}
    leases = store.leases.list() if running else []

    def gone(one: SeriesRow) -> bool:
        walker = walkers.get(one.id)
        return _gone(one, walker) or _silent_since(one, walker, leases) is not None

    return {s.id: "interrupted" if gone(s) else s.state for s in series}


def _gone(series: SeriesRow, walker: WalkerRow | None) -> bool:
    return series.state == "running" and walker is not None and walker.liveness() == "gone"


def _silent_since(
    series: SeriesRow, walker: WalkerRow | None, leases: Sequence[LeaseRow]
) -> datetime | None:
    """The last heartbeat of the walker of a running series when every lease it holds
    has expired: whatever its process does, it no longer walks (a walk renews its
    leases while it runs). None while it beats, or when it holds no lease (a walk
    recorded before its leases named it, or one without hosts to lease)."""
    if series.state != "running" or walker is None:
        return None
    held = [lease for lease in leases if lease.token == walker.token]
    now = datetime.now(UTC)
    if not held or not all(lease.expired(now) for lease in held):
        return None
    return max(lease.heartbeat_at for lease in held)


@dataclass(frozen=True)
class ShownLog:
    """One stored output of a checkout: what it is (``title``), the command that
    wrote it ("" for a build log) and the output itself, as stored (bounded)."""

    title: str
    command: str
    log: Log


@dataclass(frozen=True)
class CheckoutLogs:
    series: SeriesRow
    checkout: CheckoutRow
    logs: tuple[ShownLog, ...]


def checkout_logs(
    store: Store,
    operand: str,
    *,
    test: str | None = None,
    repetition: int | None = None,
    build: bool = False,
) -> CheckoutLogs:
    """The stored outputs of the checkout ``operand`` (SERIES:CHECKOUT) names: its build
    log with ``build``, else each test's standard output and error (an empty error
    left out) per repetition, then (without ``test``) the output of its hosts' reboots,
    power cycles and console commands; only ``test``'s and ``repetition``'s when given. A test
    or repetition the checkout does not have is a :class:`UsageError` naming those it
    has."""
    series, checkout = find_checkout(store, operand)
    if build:
        if checkout.build_log_id is None:
            raise UsageError(
                f"{operand}: checkout {checkout.idx} has no build log (not built yet)",
                hint=f"see `perfwalk show {series.id}`",
            )
        status = checkout.build_status.name if checkout.build_status else "not built"
        shown = ShownLog(f"build · {status}", "", store.log(checkout.build_log_id))
        return CheckoutLogs(series, checkout, (shown,))
    reps = store.repetitions(checkout.id)
    if repetition is not None:
        chosen = [r for r in reps if r.idx == repetition]
        if not chosen:
            have = f"0 to {len(reps) - 1}" if reps else "none yet"
            raise UsageError(
                f"--repetition {repetition}: checkout {operand} has no such repetition",
                hint=f"its repetitions: {have}",
            )
        reps = chosen
    if test is not None:
        tests = sorted({r.test for rep in reps for r in rep.results})
        if test not in tests:
            raise UsageError(
                f"--test {test}: checkout {operand} ran no such test",
                hint="its tests: " + (", ".join(tests) or "none yet"),
            )
    logs: list[ShownLog] = []
    for rep in reps:
        for result in rep.results:
            if test is not None and result.test != test:
                continue
            facts = [f"repetition {rep.idx}", result.test]
            if result.role:
                facts.append(f"{result.role} on {result.host}")
            facts.append(result.status.name)
            if result.exit_code is not None:
                facts.append(f"exit {result.exit_code}")
            if result.duration is not None:
                facts.append(format_value(result.duration, "s"))
            title = " · ".join(facts)
            logs.append(
                ShownLog(f"{title} · stdout", result.command, store.log(result.stdout_log_id))
            )
            err = store.log(result.stderr_log_id)
            if err.total:
                logs.append(ShownLog(f"{title} · stderr", result.command, err))
        if test is None:  # what its hosts went through: reboots, power cycles, consoles
            for step in store.steps(rep.id):
                if step.kind in HOST_STEPS:
                    title = (
                        f"repetition {rep.idx} · {step.kind} of {step.host} · {step.status.name}"
                    )
                    logs.append(ShownLog(title, step.command, store.log(step.stdout_log_id)))
    return CheckoutLogs(series, checkout, tuple(logs))


#: The steps of a repetition about its hosts that ``perfwalk log`` shows after its tests.
HOST_STEPS = ("reboot", POWER_CYCLE, "console")
