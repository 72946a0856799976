"""The try use case: is a change (a commit, a patch, a variant) faster or slower than
its base, before it lands?

``perfwalk try BASE [HEAD] [--patch FILE…] [--variant NAME]`` builds both sides once
(A: BASE; B: HEAD, or BASE, with the patches and the variant), then measures them in
turns, A B B A A B B A …, on the same host(s), each repetition stored as it ends in a
series of kind ``try``. After every pair it asks the sequential test
(:mod:`perfwalk.analysis.sequential`) about every metric, and stops as soon as each is
decided (a difference beyond ``min_change`` either way, or equivalence within it) or
when a side reached ``[try] max_repetitions``. The verdicts are stored with the try
(:mod:`perfwalk.store.tries`). With ``--metric TEST.VALUE`` it stops as soon as that
metric is decided (an instrument's count, say, decided long before the wall time), and
only that metric's verdict says whether B is worse; the others are told as they stand.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from perfwalk.analysis.ranks import RankTest, mann_whitney
from perfwalk.analysis.sequential import FIRST_LOOK, Decision, Verdict, decide, side
from perfwalk.config.model import Config, TestConfig, VariantConfig
from perfwalk.config.test_selection import named_metric
from perfwalk.errors import UsageError
from perfwalk.git.repo import Repo
from perfwalk.limits import MAX_USER_FILE_BYTES
from perfwalk.model import Checkout, Direction, Status
from perfwalk.numbers import finite_or_none
from perfwalk.orchestrate.checkout.variants import chosen_variants
from perfwalk.orchestrate.session.session import config_session
from perfwalk.orchestrate.walk.alternation import Alternation, BuiltSide, TrySide, alternating
from perfwalk.orchestrate.walk.provenance import describe_series
from perfwalk.store.records import NewResult
from perfwalk.store.tries import NewTry
from perfwalk.text_files import read_user_file

#: the step a try's series shows where a walk shows 1day or commit
TRY_STEP = "try"


@dataclass(frozen=True)
class TryOptions:
    """What the command line asks of a try; None takes ``[try]``'s value."""

    base: str
    head: str | None = None
    patches: tuple[Path, ...] = ()
    variant: str | None = None
    max_repetitions: int | None = None
    confidence: float | None = None
    profile: bool = False  # profile both sides once decided, even without [test.profile]
    metric: str | None = None  # TEST.VALUE: the one metric that decides (None: every one)


@dataclass
class MetricSides:
    """One metric's values on each side, in the order measured."""

    test: str
    name: str
    unit: str
    direction: Direction
    min_change: float
    a: list[float] = field(default_factory=list)
    b: list[float] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.test}.{self.name}"

    def ranks(self) -> RankTest | None:
        """Mann–Whitney U of B against A (None without values on both sides)."""
        return mann_whitney(self.a, self.b) if self.a and self.b else None


@dataclass(frozen=True)
class TryResult:
    """A finished try: its series, what it compared, the decision per metric, the
    repetitions it used and why it stopped."""

    series_id: int
    base: str
    head: str
    described: str  # "0123abcd + fast.diff", "0123abcd as variant notso", a commit
    metrics: tuple[MetricSides, ...]
    decisions: dict[str, Decision]
    repetitions: tuple[int, int]  # A, B
    stopped: str
    confidence: float
    deciding: str | None = None  # the one metric that decides (``--metric``)

    @property
    def worse(self) -> tuple[MetricSides, ...]:
        """The metrics B made worse beyond their min_change (of the deciding one alone,
        when one was named)."""
        return tuple(
            m
            for m in self.metrics
            if self.decisions[m.key].verdict is Verdict.WORSE and self.deciding in (None, m.key)
        )


def run_try(
    config: Config,
    options: TryOptions,
    *,
    say: Callable[[str], None] = lambda _s: None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> TryResult:
    """Build both sides, measure them in turns until every metric is decided or the
    most repetitions are spent; every repetition is stored as it ends."""
    most = options.max_repetitions or config.try_.max_repetitions
    confidence = options.confidence or config.try_.confidence
    repo = Repo(config.project.repo)
    base = repo.commit(options.base)
    head = repo.commit(options.head) if options.head is not None else base
    patches = tuple((p.name, _patch_text(p)) for p in options.patches)
    variant = _b_variant(config, options)
    if options.metric is not None:
        named_metric(config, options.metric, "try --metric")
    if options.head is None and variant is None:
        raise UsageError(
            f"try {options.base}: nothing to compare it with",
            hint="give a second commit (HEAD), --patch FILE or --variant NAME",
        )
    described = head.id[:12] if options.head is not None else base.id[:12]
    if options.patches:
        described += " + " + ", ".join(p.name for p in options.patches)
    if options.variant is not None:
        described += f" as variant {options.variant}"
    sides = (
        TrySide("A", Checkout(0, base.id, base.date, since=(base,))),
        TrySide("B", Checkout(1, head.id, head.date, since=(head,)), variant),
    )
    purpose = f"a try of {described} against {base.id[:12]} in {config.project.name}"
    with config_session(config, purpose, clock, say) as session, session.holding():
        session.sweep(say)
        store, topology = session.store, session.topology
        series_id = store.create_series(
            describe_series(
                config,
                topology,
                name=f"try {described} vs {base.id[:12]}",
                spec=(base.id, head.id, TRY_STEP),
                repetitions=most,
                between=config.run.between,
                quirks=(),
                kind="try",
                started_at=clock(),
            )
        )
        store.tries.start(
            series_id,
            NewTry(
                base_sha=base.id,
                head_sha=head.id,
                confidence=confidence,
                max_repetitions=most,
                patches=patches,
                variant=options.variant,
            ),
        )
        say(f"try {series_id}: {described} (B) against {base.id[:12]} (A)")
        with alternating(session, config, repo, series_id, purpose) as alternation:
            turns = _Turns(config, alternation, most, confidence, say, options.metric)
            stopped = turns.run(sides)
            turns.profile(profiled_tests(config, options.profile))
        decisions = turns.decisions()
        store.tries.finish(
            series_id, [verdict_json(m, decisions[m.key]) for m in turns.metrics()], stopped
        )
    return TryResult(
        series_id=series_id,
        base=base.id,
        head=head.id,
        described=described,
        metrics=turns.metrics(),
        decisions=decisions,
        repetitions=(turns.count["A"], turns.count["B"]),
        stopped=stopped,
        confidence=confidence,
        deciding=options.metric,
    )


def profiled_tests(config: Config, asked: bool) -> tuple[TestConfig, ...]:
    """The tests a try profiles in an extra run once decided: those with [test.profile]
    ``repetitions = "extra"`` (with ``"all"`` every repetition was profiled already);
    with ``asked`` (``--profile``) also those without a tool, with perf."""
    found = []
    for test in config.tests:
        if test.profile.on and test.profile.repetitions == "extra":
            found.append(test)
        elif asked and not test.profile.on:  # perf, with its other settings (frequency…)
            profile = dataclasses.replace(test.profile, tool="perf", repetitions="extra")
            found.append(dataclasses.replace(test, profile=profile))
    return tuple(found)


def _patch_text(patch: Path) -> str:
    """The text of a ``--patch`` file (a UsageError says what is wrong with its path)."""
    data = read_user_file(
        patch,
        f"--patch {patch}",
        MAX_USER_FILE_BYTES,
        hint="give a patch file (`git diff > fix.diff`), its path relative to where perfwalk runs",
    )
    return data.decode(errors="replace")


def _b_variant(config: Config, options: TryOptions) -> VariantConfig | None:
    """What B is besides its commit: the named variant, with the patches after its own."""
    variant = None
    if options.variant is not None:
        [variant] = chosen_variants(config, (options.variant,), "--variant")
    if options.patches:
        variant = variant or VariantConfig(name="patch")
        variant = dataclasses.replace(
            variant, patches=(*variant.patches, *(p.resolve() for p in options.patches))
        )
    return variant


@dataclass
class _Turns:
    """The loop of a try: the sides in turns, a look after every pair."""

    config: Config
    alternation: Alternation
    most: int
    confidence: float
    say: Callable[[str], None]
    deciding: str | None = None  # the one metric that decides (``--metric``)
    count: dict[str, int] = field(default_factory=lambda: {"A": 0, "B": 0})
    _metrics: dict[str, MetricSides] = field(default_factory=dict)
    _last: dict[str, Decision] = field(default_factory=dict)
    _ran: dict[str, Sequence[NewResult]] = field(default_factory=dict)
    built: dict[str, BuiltSide] = field(default_factory=dict)

    def profile(self, tests: Sequence[TestConfig]) -> None:
        """One extra profiled run of each of ``tests`` on each side, after its counted
        repetitions: B's profile against A's is drawn on the try's page."""
        if not tests:
            return
        for name in ("A", "B"):
            self.say(f"profiling {name}: {', '.join(t.name for t in tests)}")
            self.alternation.profile(self.built[name], self.count[name], tests)

    def run(self, sides: Sequence[TrySide]) -> str:
        """Measure until decided; why it stopped."""
        built = self.built
        for one in sides:
            self.say(f"building {one.name}: {one.checkout.commit[:12]}")
            done = self.alternation.build(one)
            if done.build.status is not Status.PASS:
                raise UsageError(
                    f"try: side {one.name} ({one.checkout.commit[:12]}) did not build: "
                    f"{done.build.failed}",
                    hint="see its build log: perfwalk log "
                    f"{self.alternation.series_id}:{0 if one.name == 'A' else 1} --build",
                )
            built[one.name] = done
        position = 0
        while True:
            turn = side(position)
            ran = self.alternation.measure(built[turn], self.count[turn])
            self.count[turn] += 1
            self._ran[turn] = ran
            self._add(turn, ran)
            position += 1
            if position % 2:
                continue
            pairs = position // 2
            missing = [s for s in ("A", "B") if not self._has_values(s)]
            if pairs >= FIRST_LOOK and missing:
                raise UsageError(
                    f"try: side {missing[0]} gave no value in {pairs} repetitions; "
                    f"its last: {self._outcomes(self._ran.get(missing[0], ()))}",
                    hint="see its outputs: perfwalk log "
                    f"{self.alternation.series_id}:{0 if missing[0] == 'A' else 1}",
                )
            decisions = self._look()
            if self.deciding is not None:
                if pairs >= FIRST_LOOK and self.deciding not in decisions:
                    raise UsageError(
                        f"try --metric {self.deciding}: the tests gave no such value in "
                        f"{pairs} repetitions; they gave {', '.join(decisions) or 'none'}",
                        hint="name one of those (TEST.VALUE), or leave --metric out",
                    )
                what, finished = self.deciding, self.deciding in decisions
                finished = finished and decisions[self.deciding].final
            else:
                what = "every metric"
                finished = bool(decisions) and all(d.final for d in decisions.values())
            if pairs >= self.most:  # final there, decided or not
                return f"the maximum of {self.most} repetitions per side was reached"
            if finished:
                return f"{what} was decided after {pairs} + {pairs} repetitions"

    def _add(self, turn: str, ran: Sequence[NewResult]) -> None:
        tests = {test.name: test for test in self.config.tests}
        for result in ran:
            if result.status is not Status.PASS:
                continue
            for value, _direction in result.values:
                resolved = tests[result.test].metric(value.name, value.unit)
                if resolved.ignore:
                    continue
                key = f"{result.test}.{value.name}"
                metric = self._metrics.setdefault(
                    key,
                    MetricSides(
                        result.test,
                        value.name,
                        resolved.unit,
                        resolved.direction,
                        resolved.min_change,
                    ),
                )
                (metric.a if turn == "A" else metric.b).append(value.value)

    def _has_values(self, turn: str) -> bool:
        return any(m.a if turn == "A" else m.b for m in self._metrics.values())

    def _look(self) -> dict[str, Decision]:
        """Each metric's decision now; a decided one keeps its verdict (the intervals of
        all looks hold together, so a later look cannot overturn it)."""
        for key, metric in self._metrics.items():
            before = self._last.get(key)
            if before is None or not before.final:
                self._last[key] = self._decide(metric)
        return dict(self._last)

    def _decide(self, metric: MetricSides) -> Decision:
        return decide(
            metric.a,
            metric.b,
            higher_is_better=metric.direction is Direction.HIGHER,
            confidence=self.confidence,
            min_change=metric.min_change,
            most=self.most,
        )

    def decisions(self) -> dict[str, Decision]:
        """The decision per metric (one never looked at is decided now)."""
        for key, metric in self._metrics.items():
            if key not in self._last:
                self._last[key] = self._decide(metric)
        return dict(self._last)

    def metrics(self) -> tuple[MetricSides, ...]:
        return tuple(self._metrics.values())

    @staticmethod
    def _outcomes(ran: Sequence[NewResult]) -> str:
        """Each test's status and message in one repetition."""
        said = (f"{r.test} {r.status.name}" + (f" ({r.message})" if r.message else "") for r in ran)
        return "; ".join(said) or "no test ran"


def verdict_json(metric: MetricSides, decision: Decision) -> dict[str, Any]:
    ranks = metric.ranks()
    return {
        "test": metric.test,
        "name": metric.name,
        "unit": metric.unit,
        "direction": metric.direction.value,
        "verdict": decision.verdict.value,
        "change": finite_or_none(decision.change),
        "low": finite_or_none(decision.low),
        "high": finite_or_none(decision.high),
        "count_a": decision.count_a,
        "count_b": decision.count_b,
        "reason": decision.reason,
        "mann_whitney_p": None if ranks is None else ranks.p,
    }
