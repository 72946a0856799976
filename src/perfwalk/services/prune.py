"""Retention: ``perfwalk prune`` and the end of a ``watch`` cycle drop the logs and
the profiles' stacks of old checkouts, by a rule (``[retention]``, or the command's
options): older than some days, or the oldest beyond a size of all the store's logs
and profiles.

Nothing else is dropped: every value, summary, status, triage, drill answer and
machine state stays, as do the rows of the logs and profiles themselves (what they
held, and when and why they were pruned). Some checkouts keep their outputs whatever
the rule (:data:`KEEP_REASONS`): the ends of a change found now, of a change triaged,
told, seen by ``watch`` or measured again, of a build broken or a test newly failing;
a drill's culprit and parent, and the ends of the change it drilled; a try's two
sides; the newest checkout of each series.

:func:`plan_prune` says what a rule would drop (``perfwalk prune`` without --apply: a
dry run, nothing written); :func:`apply_prune` drops it, a few checkouts per
transaction (a prune stopped midway leaves every checkout whole), then gives the
space back (:meth:`perfwalk.store.retention.Retention.reclaim`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from perfwalk.config.model import Config
from perfwalk.errors import UsageError
from perfwalk.orchestrate.findings.changes import Findings, find_all
from perfwalk.quantities import format_bytes, many
from perfwalk.store import Store
from perfwalk.store.records import SeriesRow
from perfwalk.store.retention import CheckoutOutputs, Dropped, PruneRow, Reclaimed

#: why a checkout keeps its outputs whatever the rule, in the order a dry run says them
#: (a checkout kept for two reasons counts for the first)
CHANGE = "that a change points at"
DRILL = "of a drill's culprit or parent"
TRY = "of a try's two sides"
NEWEST = "of the newest checkout of each series"
KEEP_REASONS = (CHANGE, DRILL, TRY, NEWEST)

#: the most logs one transaction of a prune drops (a checkout with more is dropped
#: alone): a prune stopped midway, or waiting for the store, holds little
BATCH_LOGS = 500


@dataclass(frozen=True)
class Rule:
    """What to drop: the outputs of the checkouts measured more than ``older_than``
    days ago, and of the oldest beyond ``max_size`` bytes of logs and profiles in all
    (within ``series``, when given)."""

    older_than: int | None = None
    max_size: int | None = None
    series: tuple[int, ...] = ()

    @classmethod
    def of(
        cls,
        config: Config,
        *,
        older_than: int | None = None,
        max_size: int | None = None,
        series: Sequence[int] = (),
    ) -> Rule:
        """The rule of the options given, the others from ``[retention]``; a
        UsageError when neither gives one."""
        rule = cls(
            older_than if older_than is not None else config.retention.older_than,
            max_size if max_size is not None else config.retention.max_size,
            tuple(sorted(set(series))),
        )
        if rule.older_than is None and rule.max_size is None:
            raise UsageError(
                f"nothing says what to prune: {config.path} has no [retention] older_than "
                "or max_size, and neither --older-than nor --max-size was given",
                hint="e.g. perfwalk prune --older-than 90 (a dry run: it only says what it "
                "would drop), or set [retention] older_than = 90 (docs/retention.md)",
            )
        return rule

    @property
    def words(self) -> str:
        """``older than 30 days``, ``beyond 2.00 GiB``, or both."""
        parts = []
        if self.older_than is not None:
            parts.append(f"older than {many(self.older_than, 'day')}")
        if self.max_size is not None:
            parts.append(f"beyond {format_bytes(self.max_size)}")
        return " or ".join(parts)


@dataclass(frozen=True)
class Kept:
    """The checkouts the rule chose whose outputs are kept, and why."""

    reason: str
    checkouts: tuple[CheckoutOutputs, ...]

    @property
    def logs(self) -> int:
        return sum(c.logs for c in self.checkouts)

    @property
    def profiles(self) -> int:
        return sum(c.profiles for c in self.checkouts)


@dataclass(frozen=True)
class PrunePlan:
    """What ``rule`` drops at ``now``: the outputs of ``dropped`` (by series and index),
    and those it leaves to ``kept``; ``total``, the stored bytes of every log and
    profile not pruned yet (within the rule's series)."""

    rule: Rule
    now: datetime
    dropped: tuple[CheckoutOutputs, ...]
    kept: tuple[Kept, ...]
    total: int
    names: dict[int, str] = field(default_factory=dict)  # series id → name

    @property
    def logs(self) -> int:
        return sum(c.logs for c in self.dropped)

    @property
    def profiles(self) -> int:
        return sum(c.profiles for c in self.dropped)

    @property
    def bytes(self) -> int:
        return sum(c.bytes for c in self.dropped)

    @property
    def after(self) -> int:
        """The stored bytes of logs and profiles left."""
        return self.total - self.bytes

    @property
    def over(self) -> int:
        """What is left beyond ``max_size`` (what the kept outputs hold beyond it)."""
        most = self.rule.max_size
        return 0 if most is None else max(0, self.after - most)

    @property
    def measured(self) -> tuple[datetime, datetime] | None:
        """When the oldest and the newest checkout dropped were measured."""
        dates = sorted(c.measured_at for c in self.dropped if c.measured_at is not None)
        return (dates[0], dates[-1]) if dates else None

    def by_series(self) -> dict[int, tuple[CheckoutOutputs, ...]]:
        found: dict[int, list[CheckoutOutputs]] = defaultdict(list)
        for c in self.dropped:
            found[c.series_id].append(c)
        return {sid: tuple(checkouts) for sid, checkouts in sorted(found.items())}


@dataclass(frozen=True)
class PruneReport:
    """A prune: its plan; applied or not (a dry run); what it dropped; the space given
    back (None: not asked, or a dry run); the prunes stopped midway since the last one
    that finished (their checkouts stay pruned; this one goes on where they stopped)."""

    plan: PrunePlan
    applied: bool = False
    done: Dropped = field(default_factory=Dropped)
    reclaimed: Reclaimed | None = None
    stopped: tuple[PruneRow, ...] = ()


def prune(
    config: Config,
    rule: Rule,
    *,
    apply: bool = False,
    say: Callable[[str], None] = lambda _s: None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> PruneReport:
    """``perfwalk prune``: what ``rule`` drops from ``config``'s store, dropped with
    ``apply`` (and the space given back), else only said."""
    with Store.open(config.store.url, read_only=not apply) as store:
        known = {s.id for s in store.list_series()}
        missing = [sid for sid in rule.series if sid not in known]
        if missing:
            raise UsageError(
                f"--series {missing[0]}: the store {store.url} has no such series",
                hint="`perfwalk list` shows its series",
            )
        plan = plan_prune(store, rule, find_all(store, config, rule.series or None), clock())
        if not apply:
            return PruneReport(plan, stopped=_stopped(store))
        return apply_prune(store, plan, say=say, clock=clock)


def plan_prune(store: Store, rule: Rule, found: Findings, now: datetime) -> PrunePlan:
    """What ``rule`` drops at ``now``, ``found`` the findings of its series (their
    changes' and breaks' checkouts keep their outputs)."""
    every = {s.id: s for s in store.list_series()}
    outputs = store.retention.outputs(rule.series or None)
    keep = _kept(store, found, outputs, every)
    candidates = [c for c in outputs if c.logs or c.profiles]
    chosen: dict[int, CheckoutOutputs] = {}
    passed: dict[int, CheckoutOutputs] = {}
    if rule.older_than is not None:
        limit = now - timedelta(days=rule.older_than)
        for c in candidates:
            if c.measured_at is not None and c.measured_at < limit:
                (passed if c.checkout_id in keep else chosen)[c.checkout_id] = c
    total = sum(c.bytes for c in candidates)
    if rule.max_size is not None:
        left = total - sum(c.bytes for c in chosen.values())
        oldest_first = sorted(
            (c for c in candidates if c.measured_at is not None),
            key=lambda c: (c.measured_at or now, c.series_id, c.idx),
        )
        for c in oldest_first:
            if left <= rule.max_size:
                break
            if c.checkout_id in chosen:
                continue
            if c.checkout_id in keep:
                passed[c.checkout_id] = c
                continue
            chosen[c.checkout_id] = c
            left -= c.bytes
    by_place = sorted(passed.values(), key=lambda c: (c.series_id, c.idx))
    kept = tuple(
        Kept(reason, tuple(c for c in by_place if keep[c.checkout_id] == reason))
        for reason in KEEP_REASONS
    )
    return PrunePlan(
        rule=rule,
        now=now,
        dropped=tuple(sorted(chosen.values(), key=lambda c: (c.series_id, c.idx))),
        kept=tuple(k for k in kept if k.checkouts),
        total=total,
        names={sid: every[sid].name for sid in {c.series_id for c in outputs}},
    )


def apply_prune(
    store: Store,
    plan: PrunePlan,
    *,
    say: Callable[[str], None] = lambda _s: None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    reclaim: bool = True,
) -> PruneReport:
    """Drop what ``plan`` says, a few checkouts per transaction (``say`` told after
    each series), then (``reclaim``) give the space back, this prune's and that of any
    earlier one whose store was busy then."""
    stopped = _stopped(store)
    done = Dropped()
    if plan.dropped:
        prune_id = store.retention.start(plan.rule.words, plan.now)
        for sid, checkouts in plan.by_series().items():
            for batch in _batches(checkouts):
                more = store.retention.drop(prune_id, [c.checkout_id for c in batch])
                done = _added(done, more)
            say(
                f"series {sid}: the outputs of {many(len(checkouts), 'checkout')} pruned "
                f"({many(done.logs, 'log')} so far)"
            )
        store.retention.finish(prune_id, clock())
    reclaimed = store.retention.reclaim() if reclaim else None
    return PruneReport(plan, True, done, reclaimed, stopped)


def _stopped(store: Store) -> tuple[PruneRow, ...]:
    """The prunes stopped midway since the last one that finished."""
    stopped: list[PruneRow] = []
    for row in store.retention.prunes():
        stopped = [] if row.finished_at is not None else [*stopped, row]
    return tuple(stopped)


def _added(done: Dropped, more: Dropped) -> Dropped:
    return Dropped(
        done.checkouts + more.checkouts,
        done.logs + more.logs,
        done.profiles + more.profiles,
        done.bytes + more.bytes,
    )


def _batches(checkouts: Iterable[CheckoutOutputs]) -> Iterator[list[CheckoutOutputs]]:
    """``checkouts`` in groups of at most :data:`BATCH_LOGS` logs (or one checkout)."""
    batch: list[CheckoutOutputs] = []
    logs = 0
    for c in checkouts:
        if batch and logs + c.logs > BATCH_LOGS:
            yield batch
            batch, logs = [], 0
        batch.append(c)
        logs += c.logs
    if batch:
        yield batch


def _kept(
    store: Store,
    found: Findings,
    outputs: Sequence[CheckoutOutputs],
    every: dict[int, SeriesRow],
) -> dict[int, str]:
    """The checkouts (by id) whose outputs no rule drops, each with its first reason."""
    by_idx = {(c.series_id, c.idx): c.checkout_id for c in outputs}
    by_sha: dict[tuple[int, str], list[int]] = defaultdict(list)
    for c in outputs:
        by_sha[(c.series_id, c.sha)].append(c.checkout_id)
    reasons: dict[int, str] = {}

    def at(reason: str, ids: Iterable[int | None]) -> None:
        for checkout_id in ids:
            if checkout_id is not None:
                reasons.setdefault(checkout_id, reason)

    def ends(series_id: int, *shas: object) -> list[int]:
        return [i for sha in shas if isinstance(sha, str) for i in by_sha[(series_id, sha)]]

    in_scope = {c.series_id for c in outputs}
    ends_found = [(e.series_id, e.before.idx, e.after.idx) for e in found.changes]
    ends_found += [(e.series_id, e.before.idx, e.after.idx) for e in found.breaks]
    for series_id, before_idx, after_idx in ends_found:
        at(CHANGE, (by_idx.get((series_id, i)) for i in (before_idx, after_idx)))
    said = set(store.seen.keys()) | set(store.triage.current().keys())
    said |= {(m.series_id, m.before_sha, m.after_sha) for m in store.outbox.all()}
    for series_id, before, after in said:
        at(CHANGE, ends(series_id, before, after))
    for series_id in in_scope:
        for before_idx, after_idx in store.confirmations.of_series(series_id):
            at(CHANGE, (by_idx.get((series_id, i)) for i in (before_idx, after_idx)))
    for drill in store.drills.all():
        answer = drill.answer or {}
        at(DRILL, ends(drill.series_id, answer.get("lo"), answer.get("hi"), answer.get("culprit")))
        parent = drill.change.get("series")
        if isinstance(parent, int):
            idxs = (drill.change.get("before_idx"), drill.change.get("after_idx"))
            at(DRILL, (by_idx.get((parent, i)) for i in idxs if isinstance(i, int)))
            at(DRILL, ends(parent, answer.get("lo"), answer.get("hi"), answer.get("culprit")))
    at(TRY, (c.checkout_id for c in outputs if every[c.series_id].kind == "try"))
    newest: dict[int, CheckoutOutputs] = {}
    for c in outputs:
        if c.series_id not in newest or c.idx > newest[c.series_id].idx:
            newest[c.series_id] = c
    at(NEWEST, (c.checkout_id for c in newest.values()))
    return reasons
