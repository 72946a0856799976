"""Bisect the environment, not only the commits: ``perfwalk drill-env``.

A step with no culprit among its commits (a drill's NO-CHANGE while re-measures confirm
it), or two series on the same commits that differ, may follow the environment: the
compiler, a library, a setting. ``perfwalk drill-env ID`` measures the change's two
commits (the last before it and the first after) in each ``[[environment]]`` named,
oldest first — each side built once (an environment's build_env and build_steps make a
build of its own; its host builds and runs it in the place of [run] host; its image
holds its build and its tests, run through its engine on that host) and measured in
rounds, each round over every side, the next in the
reverse order, so that a drift of the machine weighs on every side alike — then says
whether the step follows the code, an environment's move ("the step follows gcc-12 →
gcc-13, not any commit"), both or neither (:mod:`perfwalk.analysis.env_effects`).

The values are a series of kind ``environment`` (one checkout per commit and
environment); what it compared and its answer are stored with it
(:mod:`perfwalk.store.env_drills`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from perfwalk.analysis.env_effects import COMMITS, LEAST, EnvAnswer, env_effects
from perfwalk.analysis.ministat import DEFAULT_CONFIDENCE
from perfwalk.composites.prove import parent_walk_config
from perfwalk.config.drilling import EnvironmentConfig
from perfwalk.config.model import Config, VariantConfig
from perfwalk.errors import UsageError
from perfwalk.git.repo import Repo
from perfwalk.hosts.container import ContainerHost
from perfwalk.model import Checkout, Status
from perfwalk.orchestrate.drilling.target import DrillTarget
from perfwalk.orchestrate.session.session import config_session
from perfwalk.orchestrate.walk.alternation import Alternation, BuiltSide, TrySide, alternating
from perfwalk.orchestrate.walk.provenance import describe_series
from perfwalk.services.drill import between_target, change_targets
from perfwalk.store import Store

#: the step an environment drill's series shows where a walk shows 1day or commit
ENV_STEP = "environments"
#: repetitions per side by default
REPETITIONS = 5


@dataclass(frozen=True)
class EnvDrillResult:
    """A finished environment drill: its series, what it compared, the values of each
    side by (commit, environment) in ``unit``, the answer."""

    series_id: int
    target: DrillTarget
    environments: tuple[EnvironmentConfig, ...]
    values: dict[tuple[str, str], list[float]]
    answer: EnvAnswer
    unit: str = ""

    def said(self) -> str:
        return self.answer.said(self.target.metric)


def env_target(
    store: Store,
    config: Config,
    *,
    chosen: str | None,
    between: tuple[str, str] | None,
    test: str | None,
    name: str | None,
) -> DrillTarget:
    """The change to compare across environments: the one ``chosen`` names (its
    strongest metric, or ``test``.``name``), or the two commits ``between``."""
    if between is not None:
        return between_target(store, config, between, test=test, name=name)
    if chosen is None:
        raise UsageError(
            "drill-env needs the change to compare",
            hint="give its id as `perfwalk changes` lists it, or --between BEFORE AFTER",
        )
    targets = change_targets(store, config, chosen=chosen, test=test, name=name)
    speed = [t for t in targets if not t.broke]
    if not speed:
        raise UsageError(
            f"change {chosen}: a break, not a level: nothing to compare across environments",
            hint="`perfwalk drill` narrows a break to its commit",
        )
    return speed[0]


def chosen_environments(
    config: Config, names: Sequence[str] | None
) -> tuple[EnvironmentConfig, ...]:
    """The ``[[environment]]``s named (in the order given), or all of them in the file's
    order; at least two."""
    known = {e.name: e for e in config.environments}
    if names is None:
        picked = list(config.environments)
    else:
        missing = [n for n in names if n not in known]
        if missing:
            listed = ", ".join(known) or "none"
            raise UsageError(
                f"--environments: no [[environment]] named {missing[0]!r} in {config.path} "
                f"(known: {listed})",
                hint="name the environments of the file, oldest first",
            )
        picked = [known[n] for n in names]
    if len(picked) < 2:
        raise UsageError(
            f"drill-env compares two environments or more; {config.path} names "
            f"{len(picked)} ([[environment]])",
            hint='add [[environment]] name = "…" with its build_env, build_steps, run_env, '
            "host or image for each environment the step may follow (docs/drill.md)",
        )
    return tuple(picked)


def _variant(environment: EnvironmentConfig) -> VariantConfig:
    """An environment as the walk's machinery builds and runs a variant."""
    return VariantConfig(
        name=environment.name,
        comment=environment.comment,
        build_env=environment.build_env,
        build_steps=environment.build_steps,
        run_env=environment.run_env,
    )


def drill_environments(
    store: Store,
    config: Config,
    target: DrillTarget,
    environments: Sequence[EnvironmentConfig],
    *,
    repetitions: int = REPETITIONS,
    confidence: float = DEFAULT_CONFIDENCE,
    say: Callable[[str], None] = lambda _s: None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> EnvDrillResult:
    """Measure ``target``'s two commits in each of ``environments`` (oldest first),
    ``repetitions`` each, in rounds; the answer (its effects all together at
    ``confidence``), stored."""
    if repetitions < LEAST:
        raise UsageError(
            f"--repetitions {repetitions}: each side needs {LEAST} values or more",
            hint=f"give --repetitions {LEAST} or more (default {REPETITIONS})",
        )
    walked = parent_walk_config(store, config, target.parent)
    repo = Repo(walked.project.repo)
    commits = {"before": repo.commit(target.before), "after": repo.commit(target.after)}
    sides: list[tuple[TrySide, str, str]] = []
    for number, environment in enumerate(environments):
        for at in COMMITS:
            commit = commits[at]
            index = len(sides)
            checkout = Checkout(index, commit.id, commit.date, since=(commit,))
            side = TrySide(f"{at[0]}{number}", checkout, _variant(environment))
            sides.append((side, at, environment.name))
    purpose = f"an environment drill of {target.metric} in {config.project.name}"
    hosts = [e.host for e in environments if e.host]
    with config_session(walked, purpose, clock, say, also=hosts) as session, session.holding():
        session.sweep(say)
        topology = session.topology
        series_id = store.create_series(
            describe_series(
                walked,
                topology,
                name=f"environments {target.metric} {target.before[:10]}..{target.after[:10]}",
                spec=(target.before, target.after, ENV_STEP),
                repetitions=repetitions,
                between=walked.run.between,
                quirks=(),
                parent=target.parent,
                kind="environment",
                started_at=clock(),
            )
        )
        store.env_drills.start(
            series_id,
            (target.test, target.name),
            {**target.change, "before_sha": target.before, "after_sha": target.after},
            [(side.checkout.index, at, env) for side, at, env in sides],
            [
                dataclasses.asdict(e) | {"build_env": dict(e.build_env), "run_env": dict(e.run_env)}
                for e in environments
            ],
        )
        say(
            f"environment drill {series_id}: {target.metric} at {target.before[:12]} and "
            f"{target.after[:12]} in {', '.join(e.name for e in environments)}"
        )
        with alternating(session, walked, repo, series_id, purpose) as alternation:
            places = {
                e.name: _placed(alternation, e, mounts=(walked.project.repo, walked.path.parent))
                for e in environments
            }
            built = _build(places, sides, say)
            values, floor, unit = _measure(
                places, walked, target, built, repetitions=repetitions, say=say
            )
        answer = env_effects(
            values,
            [e.name for e in environments],
            min_change=floor,
            step=target.change.get("relative"),
            confidence=confidence,
        )
        store.env_drills.finish(series_id, answer_json(answer, values, unit))
    return EnvDrillResult(series_id, target, tuple(environments), values, answer, unit)


def _placed(
    alternation: Alternation, environment: EnvironmentConfig, mounts: Sequence[Path]
) -> Alternation:
    """Where ``environment``'s sides are built and measured: on its host, in its image
    (the worktrees, ``mounts`` and its host's work directory mounted), else as the walk
    is."""
    if not environment.host and not environment.image:
        return alternation
    base = alternation.topology
    member = base.members[environment.host] if environment.host else base.member("")
    if environment.image:
        seen = (alternation.worktrees.root, *mounts)
        container = ContainerHost(
            member.host,
            environment.image,
            environment.engine,
            mounts=(*(str(path) for path in seen), base.workdir(member.name)),
        )
        member = dataclasses.replace(member, host=container)
    return alternation.elsewhere(base.defaulting(member))


def _build(
    places: dict[str, Alternation],
    sides: Sequence[tuple[TrySide, str, str]],
    say: Callable[[str], None],
) -> list[tuple[BuiltSide, str, str]]:
    """Every side built, each in its environment's place (a UsageError naming the one
    that did not build)."""
    built: list[tuple[BuiltSide, str, str]] = []
    for side, at, env in sides:
        alternation = places[env]
        say(f"building {at} ({side.checkout.commit[:12]}) in {env}{_where(alternation)}")
        done = alternation.build(side)
        if done.build.status is not Status.PASS:
            raise UsageError(
                f"drill-env: {at} ({side.checkout.commit[:12]}) did not build in {env}: "
                f"{done.build.failed}",
                hint=f"see its build log: perfwalk log {alternation.series_id}:"
                f"{side.checkout.index} --build",
            )
        built.append((done, at, env))
    return built


def _where(alternation: Alternation) -> str:
    """Where an environment's sides run: the host, and the image they run in."""
    host = alternation.topology.member("").host
    if isinstance(host, ContainerHost):
        return f" (image {host.image} on {host.name})"
    return f" (on {host.name})"


def _measure(
    places: dict[str, Alternation],
    config: Config,
    target: DrillTarget,
    built: Sequence[tuple[BuiltSide, str, str]],
    *,
    repetitions: int,
    say: Callable[[str], None],
) -> tuple[dict[tuple[str, str], list[float]], float, str]:
    """The built sides measured in rounds (each round the reverse of the one before);
    the metric's values by (commit, environment), its min_change and its unit (as
    measured: two commits given by --between have none before)."""
    test = next(t for t in config.tests if t.name == target.test)
    values: dict[tuple[str, str], list[float]] = {(at, env): [] for _s, at, env in built}
    floor = test.metric(target.name, "").min_change
    unit = str(target.change.get("unit") or "")
    failed: dict[tuple[str, str], str] = {}  # the first failure of each side, and where
    for rep in range(repetitions):
        say(f"round {rep + 1}/{repetitions}")
        for done, at, env in built if rep % 2 == 0 else list(reversed(built)):
            for result in places[env].measure(done, rep):
                if result.test != target.test:
                    continue
                if result.status is not Status.PASS:
                    failed.setdefault(
                        (at, env),
                        f"{result.status.name} on {result.host or 'its host'}: {result.message}; "
                        f"perfwalk log {_series_of(places)}:{done.side.checkout.index}",
                    )
                    continue
                for value, _direction in result.values:
                    if value.name == target.name:
                        values[(at, env)].append(value.value)
                        floor = test.metric(value.name, value.unit).min_change
                        unit = value.unit
    short = [
        f"{at} in {env}: {len(got)}" + (f" ({failed[(at, env)]})" if (at, env) in failed else "")
        for (at, env), got in values.items()
        if len(got) < LEAST
    ]
    if short:
        raise UsageError(
            f"drill-env: {target.metric} has too few values ({', '.join(short)}); "
            f"each side needs {LEAST}",
            hint=f"see the outputs: perfwalk show {_series_of(places)}, and the log "
            "each side names",
        )
    return values, floor, unit


def _series_of(places: dict[str, Alternation]) -> int:
    """The series the environments' sides are stored in (one for all)."""
    return next(iter(places.values())).series_id


def answer_json(
    answer: EnvAnswer, values: dict[tuple[str, str], list[float]], unit: str
) -> dict[str, Any]:
    """The stored answer: the verdict, the pair named, the share, each effect, the
    median of each side and their unit."""
    return {
        "verdict": answer.verdict,
        "moved_by": None if answer.moved_by is None else list(answer.moved_by),
        "share": answer.share,
        "confidence": answer.confidence,
        "each_confidence": answer.each,
        "commits": [dataclasses.asdict(e) for e in answer.commits],
        "environments": [dataclasses.asdict(e) for e in answer.environments],
        "unit": unit,
        "medians": [
            [at, env, sorted(got)[len(got) // 2], len(got)] for (at, env), got in values.items()
        ],
    }
