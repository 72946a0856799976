"""The validated configuration: frozen dataclasses, one per section of the file.

Field defaults come from :mod:`perfwalk.config.settings`, where each setting is
declared; paths are absolute (resolved against the config file's directory).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TypeVar

from perfwalk.config.cron import longest_gap
from perfwalk.config.derived import DerivedConfig
from perfwalk.config.drilling import DrillConfig, EnvironmentConfig
from perfwalk.config.env import Env
from perfwalk.config.host_model import HostConfig, InstallConfig
from perfwalk.config.instruments import exact_count
from perfwalk.config.retention import RetentionConfig
from perfwalk.config.settings import default_of
from perfwalk.config.sweeps import NO_PARAMETERS, SweepValue, placeholders
from perfwalk.config.validity import TestValidity, ValidityConfig
from perfwalk.model import Direction
from perfwalk.policy import EXACT_COUNT_MIN_CHANGE, EXACT_COUNT_MIN_SIZE, Summary
from perfwalk.units import default_direction
from perfwalk.untrusted import commit_address


def _empty() -> Mapping[str, str]:
    return MappingProxyType({})


@dataclass(frozen=True)
class ProjectConfig:
    """``[project]``: the software under test."""

    name: str
    repo: Path
    branch: str = default_of("project.branch")
    commit_url: str = default_of("project.commit_url")
    file_url: str = default_of("project.file_url")

    def commit_link(self, commit: str) -> str | None:
        """The web viewer's address of ``commit``; None without ``commit_url``."""
        return commit_address(self.commit_url, commit) if self.commit_url else None


@dataclass(frozen=True)
class StoreConfig:
    """``[store]``: where values and logs are kept."""

    url: str
    worktrees: Path
    log_limit: int = default_of("store.log_limit")
    artifact_limit: int = default_of("store.artifact_limit")


@dataclass(frozen=True)
class BuildConfig:
    """``[build]``: how each checkout is built."""

    host: str = default_of("build.host")
    steps: tuple[str, ...] = default_of("build.steps")
    timeout: float = default_of("build.timeout")
    env: Env = field(default_factory=Env)
    symbols: str = default_of("build.symbols")
    layout: str = default_of("build.layout")
    layout_align: int = default_of("build.layout_align")
    relink: str = default_of("build.relink")


@dataclass(frozen=True)
class RunConfig:
    """``[run]``: the defaults of ``perfwalk run`` (``from`` is ``from_``)."""

    from_: str = default_of("run.from")
    to: str = default_of("run.to")
    quirks_since: str = default_of("run.quirks_since")
    step: str = default_of("run.step")
    repetitions: int = default_of("run.repetitions")  # "auto" is read as repetitions_min
    repetitions_min: int = default_of("run.repetitions_min")
    repetitions_max: int = default_of("run.repetitions_max")
    rse_target: float = default_of("run.rse_target")
    order: str = default_of("run.order")
    warmup: int = default_of("run.warmup")
    cpus: str = default_of("run.cpus")
    between: str = default_of("run.between")
    host: str = default_of("run.host")
    tools: tuple[str, ...] = default_of("run.tools")
    exclude_loaded: bool = default_of("run.exclude_loaded")
    confirm: bool = default_of("run.confirm")
    confirm_max_repetitions: int = default_of("run.confirm_max_repetitions")
    confirm_repetitions: int = default_of("run.confirm_repetitions")
    confirm_seconds: float = default_of("run.confirm_seconds")
    confirm_wait: float = default_of("run.confirm_wait")
    lease_wait: float = default_of("run.lease_wait")
    lease_expiry: float = default_of("run.lease_expiry")


@dataclass(frozen=True)
class AnalysisConfig:
    """``[analysis]``: thresholds, overridable per metric."""

    unstable_rsd: float = default_of("analysis.unstable_rsd")
    outlier: float = default_of("analysis.outlier")
    min_change: float = default_of("analysis.min_change")
    threshold: float = default_of("analysis.threshold")
    min_size: int = default_of("analysis.min_size")
    suspect_load: bool = default_of("analysis.suspect_load")


@dataclass(frozen=True)
class MetricConfig:
    """``[test.metrics.<name>]``: what is configured for one value name (None = not set)."""

    unit: str | None = None
    direction: Direction | None = None
    summary: Summary = default_of("test.metrics.<name>.summary")  # noqa: RUF009 (a str)
    unstable_rsd: float | None = None
    outlier: float | None = None
    min_change: float | None = None
    threshold: float | None = None
    min_size: int | None = None
    ignore: bool = default_of("test.metrics.<name>.ignore")


@dataclass(frozen=True)
class ResolvedMetric:
    """Everything the analysis needs of one metric, nothing left unset."""

    name: str
    unit: str
    direction: Direction
    summary: Summary
    unstable_rsd: float
    outlier: float
    ignore: bool
    min_change: float = default_of("analysis.min_change")
    threshold: float = default_of("analysis.threshold")
    min_size: int = default_of("analysis.min_size")


_UNSET = MetricConfig()


_T = TypeVar("_T")


def _either(configured: _T | None, default: _T) -> _T:
    """The metric's own setting, or the file's [analysis] one."""
    return default if configured is None else configured


@dataclass(frozen=True)
class ServiceConfig:
    """``[[test.service]]``: a background server, ready by a port or a text."""

    role: str
    command: str
    ready_port: int = default_of("test.service.ready_port")
    ready_text: str = default_of("test.service.ready_text")
    ready_timeout: float = default_of("test.service.ready_timeout")


@dataclass(frozen=True)
class RoleConfig:
    """``[test.roles.<role>]``: what one role does in a test, phase by phase."""

    startup: tuple[str, ...] = default_of("test.roles.<name>.startup")
    run: tuple[str, ...] = default_of("test.roles.<name>.run")
    collect: tuple[str, ...] = default_of("test.roles.<name>.collect")
    fetch: tuple[str, ...] = default_of("test.roles.<name>.fetch")
    reset: tuple[str, ...] = default_of("test.roles.<name>.reset")
    parser: str = default_of("test.roles.<name>.parser")
    parser_options: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class ProfileConfig:
    """``[test.profile]``: how the test's command is profiled; ``tool = ""``: not."""

    tool: str = default_of("test.profile.tool")
    frequency: int = default_of("test.profile.frequency")
    min_samples: int = default_of("test.profile.min_samples")
    event: str = default_of("test.profile.event")
    command: str = default_of("test.profile.command")
    repetitions: str = default_of("test.profile.repetitions")
    limit: int = default_of("test.profile.limit")
    role: str = default_of("test.profile.role")

    @property
    def on(self) -> bool:
        return bool(self.tool)


@dataclass(frozen=True)
class InstrumentConfig:
    """``[[test.instrument]]``: a measurement of the test's command beside its values
    (:mod:`perfwalk.config.instruments`); ``runs``: in every repetition ("all") or in
    one extra run per checkout ("extra")."""

    kind: str
    runs: str = default_of("test.instrument.runs")


@dataclass(frozen=True)
class TestConfig:
    """``[[test]]``: a command whose output a parser turns into values.

    ``analysis`` is the file's ``[analysis]``, which metrics fall back to.
    """

    __test__ = False  # not a pytest test class

    name: str
    command: str
    parser: str
    parser_options: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    timeout: float = default_of("test.timeout")
    parse_timeout: float = default_of("test.parse_timeout")
    env: Env = field(default_factory=Env)
    metrics: Mapping[str, MetricConfig] = field(default_factory=lambda: MappingProxyType({}))
    analysis: AnalysisConfig = field(default_factory=AnalysisConfig)
    role: str = default_of("test.role")
    phase_timeout: float = default_of("test.phase_timeout")
    services: tuple[ServiceConfig, ...] = ()
    roles: Mapping[str, RoleConfig] = field(default_factory=lambda: MappingProxyType({}))
    warmup: int | None = None  # None: [run] warmup
    cpus: str | None = None  # None: [run] cpus
    profile: ProfileConfig = field(default_factory=ProfileConfig)
    instruments: tuple[InstrumentConfig, ...] = ()
    group: str = default_of("test.group")
    description: str = default_of("test.description")
    sweep: Mapping[str, SweepValue] = field(default_factory=lambda: NO_PARAMETERS)
    family: str = ""  # the [[test]] name its sweep was expanded from; "": no sweep
    derived: tuple[DerivedConfig, ...] = ()
    validity: TestValidity = field(default_factory=TestValidity)

    def placeholders(self) -> dict[str, str]:
        """Its own placeholders: ``{sweep.<parameter>}`` of a sweep's member."""
        return placeholders(self.sweep)

    def instruments_of(self, runs: str) -> tuple[InstrumentConfig, ...]:
        """Its instruments that measure in every repetition ("all") or in the extra
        run per checkout ("extra")."""
        return tuple(i for i in self.instruments if i.runs == runs)

    def warmups(self, run: RunConfig) -> int:
        """How many uncounted runs precede the test's first repetition at a checkout."""
        return run.warmup if self.warmup is None else self.warmup

    def pinned(self, run: RunConfig) -> str:
        """The CPUs the test's command runs on (a taskset -c list); "" = not pinned."""
        return run.cpus if self.cpus is None else self.cpus

    def metric(self, name: str, parsed_unit: str) -> ResolvedMetric:
        """The metric ``name`` as the parser reported it in ``parsed_unit``.

        The configured unit replaces the parsed one; the direction is the
        configured one or the unit's default; thresholds fall back to [analysis]
        (``min_change`` and ``min_size`` of an instrument's exact count to its own).
        """
        configured = self.metrics.get(name, _UNSET)
        unit = configured.unit if configured.unit is not None else parsed_unit
        exact = exact_count(name)
        return ResolvedMetric(
            name=name,
            unit=unit,
            direction=configured.direction or default_direction(unit),
            summary=configured.summary,
            unstable_rsd=(
                configured.unstable_rsd
                if configured.unstable_rsd is not None
                else self.analysis.unstable_rsd
            ),
            outlier=configured.outlier if configured.outlier is not None else self.analysis.outlier,
            ignore=configured.ignore,
            min_change=_either(
                configured.min_change,
                EXACT_COUNT_MIN_CHANGE if exact else self.analysis.min_change,
            ),
            threshold=_either(configured.threshold, self.analysis.threshold),
            min_size=_either(
                configured.min_size, EXACT_COUNT_MIN_SIZE if exact else self.analysis.min_size
            ),
        )


@dataclass(frozen=True)
class SnapshotConfig:
    """``[[snapshot]]``: a command printing counters, run before and after each test on
    chosen roles' hosts (``roles`` empty: the host of the test's command)."""

    name: str
    command: str
    roles: tuple[str, ...] = default_of("snapshot.roles")
    tests: tuple[str, ...] = default_of("snapshot.tests")
    parser: str = default_of("snapshot.parser")
    per: tuple[str, ...] = default_of("snapshot.per")
    timeout: float = default_of("snapshot.timeout")

    def around(self, test: str) -> bool:
        """Whether it runs around the test named ``test``."""
        return not self.tests or test in self.tests

    def work(self, test: str) -> str:
        """The metric of work (``TEST.METRIC``) of its counters around ``test``; ""
        when they are per second."""
        return next((item for item in self.per if item.split(".", 1)[0] == test), "")


@dataclass(frozen=True)
class QuirkTestConfig:
    """``[quirk.test.<name>]``: what a quirk over a range replaces in a test ("" = keep)."""

    __test__ = False  # not a pytest test class

    command: str = default_of("quirk.test.<name>.command")
    parser: str = default_of("quirk.test.<name>.parser")
    parser_options: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))

    def applied(self, test: TestConfig) -> TestConfig:
        """``test`` as it runs where the quirk holds."""
        if self.parser:
            parser, options = self.parser, self.parser_options
        else:
            parser, options = test.parser, self.parser_options or test.parser_options
        return replace(
            test,
            command=self.command or test.command,
            parser=parser,
            parser_options=options,
        )


@dataclass(frozen=True)
class QuirkConfig:
    """``[[quirk]]``: a known event of the history (``at``/``until`` resolved by the walk).

    ``commands`` (and ``reboot``) run when a walk crosses ``at``; ``patch``,
    ``build_steps`` and ``tests`` hold over the range ``[at, until)``.
    """

    at: str
    comment: str
    until: str = default_of("quirk.until")
    commands: tuple[str, ...] = default_of("quirk.commands")
    patch: Path | None = None
    build_steps: tuple[str, ...] = default_of("quirk.build_steps")
    reboot: bool = default_of("quirk.reboot")
    tests: Mapping[str, QuirkTestConfig] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def ranged(self) -> bool:
        """True when something of this quirk holds over a range of checkouts."""
        return self.patch is not None or bool(self.build_steps) or bool(self.tests)

    @property
    def crossing(self) -> bool:
        """True when something runs as a walk crosses ``at``."""
        return bool(self.commands) or self.reboot


@dataclass(frozen=True)
class ReleaseConfig:
    """``[[release]]``: a release of the project, marked on every plot (``at`` is
    resolved when the site is published)."""

    name: str
    at: str
    comment: str = default_of("release.comment")


@dataclass(frozen=True)
class WalkConfig:
    """``[[walk]]``: a named walk that ``perfwalk run --walk <name>`` continues; what is
    None is taken from ``[run]`` and ``[project]`` when the walk is planned."""

    name: str
    from_: str | None = None
    to: str | None = None
    step: str | None = None
    repetitions: int | None = None
    branch: str | None = None
    host: str | None = None
    variants: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModifierConfig:
    """``[[variant.modifier]]``: commands put in place on a role's host in a test's
    startup and undone in its reset ("" = the [run] host)."""

    apply: tuple[str, ...]
    undo: tuple[str, ...]
    role: str = default_of("variant.modifier.role")


@dataclass(frozen=True)
class VariantConfig:
    """``[[variant]]``: an A/B variant of every checkout: patches before its build, a
    build of its own, runtime modifiers around each test."""

    name: str
    comment: str = default_of("variant.comment")
    patches: tuple[Path, ...] = ()
    build_env: Env = field(default_factory=Env)
    build_steps: tuple[str, ...] = default_of("variant.build_steps")
    run_env: Env = field(default_factory=Env)
    modifiers: tuple[ModifierConfig, ...] = ()
    layout: str = default_of("variant.layout")

    @property
    def own_build(self) -> bool:
        """Whether the variant is built apart from the plain checkout (its tree, its
        build or its layout differ); without, it runs on the plain checkout's build."""
        return (
            bool(self.patches)
            or bool(self.build_env)
            or bool(self.build_steps)
            or bool(self.layout)
        )


@dataclass(frozen=True)
class TryConfig:
    """``[try]``: the confidence of ``perfwalk try`` and its most repetitions per side."""

    confidence: float = default_of("try.confidence")
    max_repetitions: int = default_of("try.max_repetitions")


@dataclass(frozen=True)
class WatchConfig:
    """``[watch]``: the daily loop's site, interval and drill budget per cycle."""

    site: Path = Path(default_of("watch.site"))  # resolved against the file when loaded
    interval: float = default_of("watch.interval")
    drill_builds: int = default_of("watch.drill_builds")
    drill_repetitions: int = default_of("watch.drill_repetitions")
    prove: bool = default_of("watch.prove")
    confirm: bool = default_of("watch.confirm")
    confirm_repetitions: int = default_of("watch.confirm_repetitions")
    confirm_seconds: float = default_of("watch.confirm_seconds")
    schedule: str = default_of("watch.schedule")
    stale_after: float = default_of("watch.stale_after")

    @property
    def stale_seconds(self) -> float:
        """How long after the last run ended the runs are taken for stopped:
        ``stale_after``, else twice the schedule (its longest gap between two times,
        else the interval)."""
        if self.stale_after:
            return self.stale_after
        return 2 * (longest_gap(self.schedule) if self.schedule else self.interval)


@dataclass(frozen=True)
class RegressTestConfig:
    """``[[regress.test]]``: a test directory or a command of the regress suite."""

    __test__ = False  # not a pytest test class

    name: str = default_of("regress.test.name")
    dir: str = default_of("regress.test.dir")
    command: str = default_of("regress.test.command")
    timeout: float | None = None
    source: str = default_of("regress.test.source")


@dataclass(frozen=True)
class RegressConfig:
    """``[regress]``: the functional regression suite of ``perfwalk regress``."""

    host: str = default_of("regress.host")
    dir: str = default_of("regress.dir")
    command: str = default_of("regress.command")
    clean: str = default_of("regress.clean")
    timeout: float = default_of("regress.timeout")
    env: Env = field(default_factory=Env)
    runner: str = default_of("regress.runner")
    format: str = default_of("regress.format")
    output: str = default_of("regress.output")
    source_url: str = default_of("regress.source_url")
    stock_kernel: str = default_of("regress.stock_kernel")
    tests: tuple[RegressTestConfig, ...] = ()


@dataclass(frozen=True)
class ReportConfig:
    """``[report]``: the published site, as others link to it."""

    base_url: str = default_of("report.base_url")  # no trailing slash; "" = not given
    time_zone: str = default_of("report.time_zone")  # an IANA name the loader checked

    def page_link(self, relative: str) -> str | None:
        """The address of the site's page at ``relative``; None without ``base_url``."""
        return f"{self.base_url}/{relative}" if self.base_url else None


@dataclass(frozen=True)
class NotifyConfig:
    """``[notify]``: the receivers of new changes (Apprise URLs, not shown: they may hold
    tokens) and how long a message that cannot be sent is tried again."""

    urls: tuple[str, ...] = field(default=default_of("notify.urls"), repr=False)
    retry_after: float = default_of("notify.retry_after")
    give_up_after: float = default_of("notify.give_up_after")
    timeout: float = default_of("notify.timeout")


@dataclass(frozen=True)
class ApiConfig:
    """``[api]``: where `perfwalk api` listens, the largest body it reads, its base path,
    the names it answers to, how long a request may take to arrive, how many
    connections it serves at once, and the bounds of a push (values, push series per
    project, date)."""

    listen: str = default_of("api.listen")
    max_body: int = default_of("api.max_body")
    base_path: str = default_of("api.base_path")
    allowed_hosts: tuple[str, ...] = default_of("api.allowed_hosts")
    read_timeout: float = default_of("api.read_timeout")
    max_connections: int = default_of("api.max_connections")
    push_values: int = default_of("api.push_values")
    push_series: int = default_of("api.push_series")
    push_future: float = default_of("api.push_future")

    @property
    def host(self) -> str:
        return self.listen.rpartition(":")[0].strip("[]")

    @property
    def port(self) -> int:
        return int(self.listen.rpartition(":")[2])


@dataclass(frozen=True)
class Config:
    """A loaded ``perfwalk.toml``: where it is, its text, its hash and its sections.

    ``hash`` is the sha256 of the validated settings as canonical JSON: two files
    that differ only in comments or layout have the same hash. ``[notify]`` is left
    out: where changes are told is not how they are measured (and its URLs hold
    tokens).
    """

    path: Path
    text: str = field(repr=False)
    hash: str
    project: ProjectConfig
    store: StoreConfig
    build: BuildConfig
    run: RunConfig
    analysis: AnalysisConfig
    tests: tuple[TestConfig, ...]
    snapshots: tuple[SnapshotConfig, ...] = ()
    quirks: tuple[QuirkConfig, ...] = ()
    releases: tuple[ReleaseConfig, ...] = ()
    walks: tuple[WalkConfig, ...] = ()
    variants: tuple[VariantConfig, ...] = ()
    environments: tuple[EnvironmentConfig, ...] = ()
    try_: TryConfig = field(default_factory=TryConfig)
    drill: DrillConfig = field(default_factory=DrillConfig)
    validity: ValidityConfig = field(default_factory=ValidityConfig)
    watch: WatchConfig = field(default_factory=WatchConfig)
    retention: RetentionConfig = field(default_factory=RetentionConfig)
    hosts: Mapping[str, HostConfig] = field(default_factory=lambda: MappingProxyType({}))
    install: Mapping[str, InstallConfig] = field(default_factory=lambda: MappingProxyType({}))
    regress: RegressConfig = field(default_factory=RegressConfig)
    report: ReportConfig = field(default_factory=ReportConfig)
    notify: NotifyConfig = field(default_factory=NotifyConfig)
    api: ApiConfig = field(default_factory=ApiConfig)

    #: the tests a command was told to work on (``--tests``); None: all of them
    only: frozenset[str] | None = None

    def keeps(self, test: str) -> bool:
        """Whether ``test`` is among the tests a command works on (``--tests``)."""
        return self.only is None or test in self.only
