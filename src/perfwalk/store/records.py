"""What goes into the result store and what comes out of it: frozen records.

``New*`` records are inputs (built by the walk); ``*Row`` records are read back.
Indexes are called ``idx`` and commit ids ``sha``, like the columns that hold them.
Every timestamp read back is timezone-aware UTC, except commit dates, which keep
the offset git recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Literal

from perfwalk.model import EMPTY_LOG, Commit, Direction, Log, MachineState, Pruned, Status, Value
from perfwalk.quantities import many

SeriesState = Literal["running", "finished", "interrupted"]
SeriesKind = Literal["walk", "drill", "variant", "try", "push", "regress", "environment"]
DirectionName = Literal["higher", "lower"]

SERIES_STATES: tuple[SeriesState, ...] = ("running", "finished", "interrupted")
SERIES_KINDS: tuple[SeriesKind, ...] = (
    "walk",
    "drill",
    "variant",
    "try",
    "push",
    "regress",
    "environment",
)
UNFINISHED_STATES: tuple[SeriesState, ...] = ("running", "interrupted")
_DIRECTION_NAMES: dict[Direction | str, DirectionName] = {
    **{d: d.value for d in Direction},
    **{d.value: d.value for d in Direction},
}


def stored_direction(direction: Direction | str) -> DirectionName:
    """The name a value's direction is stored as, from either spelling (ValueError for
    neither); a lookup, as a value is written thousands of times a second."""
    found = _DIRECTION_NAMES.get(direction)
    return found if found is not None else Direction(direction).value


@dataclass(frozen=True)
class QuirkInfo:
    """A dated known event of a series, drawn as a lettered marker."""

    letter: str
    at_date: datetime
    commit: str | None = None
    comment: str = ""


@dataclass(frozen=True, kw_only=True)
class Measuring:
    """How a walk orders and counts its repetitions (``[run] order``, adaptive repetitions).

    ``seed`` shuffles each round of ``rounds`` (None in checkout order);
    ``repetitions_max`` is None for a fixed count, else the most a checkout gets
    while the relative standard error of its values is not below ``rse_target``.
    """

    order: str = "checkout"
    seed: int | None = None
    repetitions_max: int | None = None
    rse_target: float | None = None


@dataclass(frozen=True, kw_only=True)
class ExtensionInfo:
    """One extension of a walk's series (``perfwalk run --extend``): more repetitions
    at the checkouts it has, or variants measured at them beside as many new
    repetitions of the plain checkout; each repetition numbered after those stored.

    ``last_repetition`` is the id of the last repetition the store held when it
    started (0: none): a repetition of the series with a greater id is one it added.
    """

    id: int
    series_id: int
    started_at: datetime
    finished_at: datetime | None  # None: not finished (running, or interrupted)
    repetitions_before: int  # the repetitions per checkout the series had planned
    repetitions: int  # those of the plain checkout after it
    variants: tuple[str, ...] = ()  # the variants it added (none: more repetitions)
    variant_repetitions: int | None = None  # each added variant's, per checkout
    order: str = "checkout"  # the series' order, which it measured in too
    seed: int | None = None  # its own shuffles' (rounds, variants interleaved)
    last_repetition: int = 0
    config_hash: str = ""
    added: int | None = None  # the repetitions it added, once finished

    def said(self) -> str:
        """What it measured, without when: "from 2 to 8 repetitions per checkout", or
        "variant fast, 2 repetitions per checkout beside as many new ones of the plain
        checkout (2 to 4)"; how it ordered them; the repetitions added once finished."""
        if self.variants:
            noun = "variants" if len(self.variants) > 1 else "variant"
            what = (
                f"{noun} {', '.join(self.variants)}, "
                f"{many(self.variant_repetitions or 0, 'repetition')} per checkout beside as "
                f"many new ones of the plain checkout ({self.repetitions_before} to "
                f"{self.repetitions})"
            )
        else:
            what = f"from {self.repetitions_before} to {self.repetitions} repetitions per checkout"
        if self.order == "rounds":
            what += f", in rounds shuffled with seed {self.seed}"
        elif self.seed is not None:
            what += f", interleaved with seed {self.seed}"
        if self.added is None:
            return f"{what}; not finished (`perfwalk run --extend {self.series_id}` continues it)"
        return f"{what}; {many(self.added, 'repetition')} added"


@dataclass(frozen=True, kw_only=True)
class NewSeries:
    """One walk about to start: what, where, how, and its provenance."""

    name: str
    project: str
    repo: str
    from_spec: str
    to_spec: str
    step: str
    repetitions: int
    between: str
    host: str
    config_hash: str
    config_text: str
    commands: Mapping[str, Any]
    fingerprint: Mapping[str, Any]
    started_at: datetime
    parent_id: int | None = None
    kind: SeriesKind = "walk"
    quirks: tuple[QuirkInfo, ...] = ()
    planned_checkouts: int | None = None  # how many checkouts the walk plans
    measuring: Measuring | None = None  # None: checkout order, fixed repetitions
    walk: str | None = None  # the [[walk]] continued in this series (None: none)
    variant: str | None = None  # kind variant: the [[variant]] it measures


@dataclass(frozen=True, kw_only=True)
class SeriesRow:
    """A stored series (see :class:`NewSeries`), with its state and quirks."""

    id: int
    name: str
    project: str
    repo: str
    from_spec: str
    to_spec: str
    step: str
    repetitions: int
    between: str
    host: str
    state: SeriesState
    started_at: datetime
    finished_at: datetime | None
    config_hash: str
    config_text: str
    commands: dict[str, Any]
    fingerprint: dict[str, Any]
    parent_id: int | None
    kind: SeriesKind
    quirks: tuple[QuirkInfo, ...] = ()
    planned_checkouts: int | None = None  # None: not known (a drill, an older series)
    measuring: Measuring | None = None  # None: checkout order, fixed repetitions
    walk: str | None = None  # the [[walk]] continued in this series (None: none)
    variant: str | None = None  # kind variant: the [[variant]] it measures (None: base)
    extensions: tuple[ExtensionInfo, ...] = ()  # ``perfwalk run --extend``, oldest first

    @property
    def variant_name(self) -> str:
        """The variant the series measures: ``base`` for the plain checkout."""
        return self.variant or "base"

    @property
    def order(self) -> str:
        """checkout or rounds."""
        return "checkout" if self.measuring is None else self.measuring.order

    @property
    def adaptive(self) -> bool:
        """Whether a checkout gets repetitions until its values are precise enough."""
        return self.measuring is not None and self.measuring.repetitions_max is not None

    def planned_at(self, checkout: CheckoutRow) -> int | None:
        """How many repetitions the walk plans at ``checkout``: the series' planned
        ones (:attr:`planned_repetitions`), or those planned at it when more (an
        adaptive walk's, where its level was not clear). None for a drill."""
        planned = self.planned_repetitions
        return None if planned is None else max(planned, checkout.planned_repetitions or 0)

    @property
    def planned_repetitions(self) -> int | None:
        """How many repetitions a walk plans at a checkout (the most, when adaptive): a
        repetition beyond them (or those planned at the checkout when more:
        :meth:`planned_at`) is a re-measure of a change (``[run] confirm``, numbered
        after them and after those stored). None for a drill (it asks for more as it
        goes)."""
        if self.kind not in ("walk", "variant"):
            return None
        if self.measuring is not None and self.measuring.repetitions_max is not None:
            return self.measuring.repetitions_max
        return self.repetitions


@dataclass(frozen=True, kw_only=True)
class QuirkRunRow:
    """One application of a quirk's fix-up at a checkout."""

    letter: str
    status: Status
    log_id: int


@dataclass(frozen=True, kw_only=True)
class CheckoutRow:
    """A stored checkout: build outcome, quirks crossed, commits since the previous one."""

    id: int
    series_id: int
    idx: int
    sha: str
    date: datetime
    quirks: tuple[str, ...]
    build_status: Status | None
    build_seconds: float | None
    build_log_id: int | None
    commit_count: int
    quirk_runs: tuple[QuirkRunRow, ...] = ()
    #: of its commits, those a push told and git has not yet (perfwalk.store.commits)
    claimed: int = 0
    #: its logs and profiles dropped by retention (the last prune that did); None: kept
    pruned: Pruned | None = None
    #: the repetitions planned at it when more than its series' (an adaptive walk's):
    #: its own; None: its series' (:meth:`SeriesRow.planned_at`)
    planned_repetitions: int | None = None


@dataclass(frozen=True, kw_only=True)
class NewResult:
    """One test's outcome in a repetition, with its output and values.

    ``values`` pairs each value with its metric's better direction
    (a :class:`~perfwalk.model.Direction` or ``"higher"`` / ``"lower"``).
    """

    test: str
    status: Status
    message: str = ""
    duration: float | None = None
    exit_code: int | None = None
    command: str = ""
    stdout: Log = EMPTY_LOG
    stderr: Log = EMPTY_LOG
    values: tuple[tuple[Value, Direction | str], ...] = ()
    role: str = ""  # the role whose host ran the command; "" = the [run] host
    host: str = ""

    def row(self, repetition_id: int, stdout_id: int, stderr_id: int) -> dict[str, Any]:
        """Its row of the result table, its outputs stored as logs ``stdout_id`` and
        ``stderr_id``."""
        return {
            "repetition_id": repetition_id,
            "test": self.test,
            "status": int(self.status),
            "message": self.message,
            "duration": self.duration,
            "exit_code": self.exit_code,
            "command": self.command,
            "stdout_log_id": stdout_id,
            "stderr_log_id": stderr_id,
            "role": self.role,
            "host": self.host,
        }


@dataclass(frozen=True, kw_only=True)
class NewStep:
    """One step of a multi-host test or of a conductor trial, with its output.

    ``phase`` is startup, run, collect, reset, between, install, console, warmup or
    instrument (an instrument's extra run);
    ``kind`` says what the step was: command, service, fetch (``stdout`` holds the
    fetched file), reboot or console.
    """

    phase: str
    role: str
    host: str
    kind: str
    name: str
    command: str
    status: Status
    started_at: datetime
    finished_at: datetime
    test: str = ""
    message: str = ""
    exit_code: int | None = None
    stdout: Log = EMPTY_LOG
    stderr: Log = EMPTY_LOG


@dataclass(frozen=True, kw_only=True)
class NewSnapshot:
    """The counters a ``[[snapshot]]`` command printed on a role's host before and after
    a test (None: that side could not be run or read; ``message`` says why)."""

    test: str
    name: str
    role: str
    host: str
    parser: str
    before: Mapping[str, int | float] | None
    after: Mapping[str, int | float] | None
    status: Status = Status.PASS
    message: str = ""


@dataclass(frozen=True, kw_only=True)
class SnapshotRow:
    """A stored snapshot (see :class:`NewSnapshot`) of a repetition."""

    id: int
    repetition_id: int
    test: str
    name: str
    role: str
    host: str
    parser: str
    before: Mapping[str, int | float] | None
    after: Mapping[str, int | float] | None
    status: Status
    message: str


@dataclass(frozen=True, kw_only=True)
class SnapshotSpan:
    """A snapshot of a series read, with where it was taken: its checkout and
    repetition (indexes), and the seconds between the end of its command before the
    test and the start of its command after (None when its steps were not stored)."""

    checkout_idx: int
    repetition_idx: int
    test: str
    name: str
    role: str
    before: Mapping[str, int | float]
    after: Mapping[str, int | float]
    seconds: float | None


@dataclass(frozen=True, kw_only=True)
class NewRepetition:
    """One execution of the tests at a checkout; stored in one transaction."""

    idx: int
    started_at: datetime
    finished_at: datetime
    results: tuple[NewResult, ...] = ()
    between_status: Status | None = None
    between_log: Log | None = None
    steps: tuple[NewStep, ...] = ()
    #: the counters of the [[snapshot]]s around its tests
    snapshots: tuple[NewSnapshot, ...] = ()
    #: the state of each host it ran on that could be read, by host name
    machines: Mapping[str, MachineState] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class StoredValue:
    """A value of a stored result."""

    name: str
    unit: str
    value: float
    direction: DirectionName


@dataclass(frozen=True, kw_only=True)
class ResultRow:
    """A stored result, with its values in the order they were given."""

    id: int
    test: str
    status: Status
    message: str
    duration: float | None
    exit_code: int | None
    command: str
    stdout_log_id: int
    stderr_log_id: int
    values: tuple[StoredValue, ...] = ()
    role: str = ""
    host: str = ""


@dataclass(frozen=True, kw_only=True)
class StepRow:
    """A stored step (see :class:`NewStep`), of a repetition or of a conductor trial."""

    id: int
    repetition_id: int | None
    conduct_id: int | None
    trial: int | None
    test: str
    phase: str
    role: str
    host: str
    idx: int
    kind: str
    name: str
    command: str
    status: Status
    message: str
    exit_code: int | None
    started_at: datetime
    finished_at: datetime
    stdout_log_id: int
    stderr_log_id: int


@dataclass(frozen=True, kw_only=True)
class RepetitionRow:
    """A stored repetition with its results, in the order they were given."""

    id: int
    checkout_id: int
    idx: int
    started_at: datetime
    finished_at: datetime
    between_status: Status | None
    between_log_id: int | None
    results: tuple[ResultRow, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ValueRow:
    """One value of a series, flat, with where it was measured (analysis, export)."""

    checkout_id: int
    checkout_idx: int
    sha: str
    date: datetime
    repetition_idx: int
    result_id: int
    test: str
    status: Status
    name: str
    unit: str
    value: float
    direction: DirectionName


#: a value of a PASS result, as change detection reads a whole series
#: (:meth:`perfwalk.store.Store.passed_values`): (checkout idx, repetition idx, test,
#: name, unit, value, direction)
PassedValue = tuple[int, int, str, str, str, float, DirectionName]


@dataclass(frozen=True, kw_only=True)
class ResultSummaryRow:
    """One result of a series, flat, without values (status matrices)."""

    checkout_id: int
    checkout_idx: int
    sha: str
    date: datetime
    repetition_idx: int
    result_id: int
    test: str
    status: Status
    message: str
    duration: float | None


def stored_commit(row: Any) -> Commit:
    """A commit as a ``git_commit`` row keeps it, its date in its own time zone again."""
    return Commit(
        id=row.sha,
        date=row.date.astimezone(timezone(timedelta(minutes=row.tz_offset))),
        author=row.author,
        subject=row.subject,
        body=row.body,
        files=tuple(row.files),
    )
