"""What a new series records of where it was measured: the configuration (secrets
masked), the exact commands, every host's fingerprint, the quirks on its history."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from perfwalk.config.model import Config, TestConfig
from perfwalk.config.secrets import config_secrets, hide_url_passwords, mask_config_text
from perfwalk.hosts.fingerprint import fingerprint
from perfwalk.orchestrate.checkout.quirks import PlannedQuirk
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.orchestrate.walk.plan import WalkPlan
from perfwalk.secret_text import mask_text
from perfwalk.store.records import Measuring, NewSeries, QuirkInfo, SeriesKind


def describe_series(
    config: Config,
    topology: Topology,
    *,
    name: str,
    spec: tuple[str, str, str],
    repetitions: int,
    between: str,
    quirks: Sequence[PlannedQuirk],
    started_at: datetime,
    parent: int | None = None,
    kind: SeriesKind = "walk",
    planned_checkouts: int | None = None,
    measuring: Measuring | None = None,
    walk: str | None = None,
) -> NewSeries:
    """A new series of ``config`` walked on ``topology``, with its provenance."""
    return NewSeries(
        name=name,
        project=config.project.name,
        repo=str(config.project.repo),
        from_spec=spec[0],
        to_spec=spec[1],
        step=spec[2],
        repetitions=repetitions,
        between=between,
        host=topology.member("").host.name,
        config_hash=config.hash,
        config_text=mask_config_text(config.text),
        commands=walk_commands(config, between, quirks),
        fingerprint=_fingerprints(topology, list(config.run.tools)),
        parent_id=parent,
        kind=kind,
        quirks=tuple(QuirkInfo(q.letter, q.at.date, q.at.commit, q.comment) for q in quirks),
        started_at=started_at,
        planned_checkouts=planned_checkouts,
        measuring=measuring,
        walk=walk,
    )


def walk_commands(
    config: Config, between: str, quirks: Sequence[PlannedQuirk]
) -> dict[str, object]:
    """The commands of a walk as its setup page shows them (secrets masked); a quirk's
    by its letter: what runs when the walk crosses it and what it replaces over its
    range (``range`` says whether it has one, as :mod:`perfwalk.orchestrate.findings.series_search`
    reads it)."""
    secrets = config_secrets(config)

    def shown(command: str) -> str:
        return hide_url_passwords(mask_text(command, secrets))

    return {
        "build": [shown(step) for step in config.build.steps],
        "between": shown(between),
        "tests": {t.name: _test_commands(t, config, shown) for t in config.tests},
        "quirks": {q.letter: _quirk(q, shown) for q in quirks},
    }


def _test_commands(
    test: TestConfig, config: Config, shown: Callable[[str], str]
) -> dict[str, object]:
    """A test's command and parser, with its CPUs when pinned and its warm-up runs, its
    group and description, the sweep it is a member of with its parameters, and its
    derived metrics (what the plots group, title and tell)."""
    found: dict[str, object] = {"command": shown(test.command), "parser": test.parser}
    if test.group:
        found["group"] = test.group
    if test.description:
        found["description"] = test.description
    if test.family:
        found["family"] = test.family
        found["sweep"] = dict(test.sweep)
    if test.derived:
        found["derived"] = {d.name: shown(d.expression) for d in test.derived}
    if cpus := test.pinned(config.run):
        found["cpus"] = cpus
        found["pinned"] = f"taskset -c {cpus} sh -c {shlex.quote(shown(test.command))}"
    if warmup := test.warmups(config.run):
        found["warmup"] = warmup
    return found


def _quirk(quirk: PlannedQuirk, shown: Callable[[str], str]) -> dict[str, object]:
    described: dict[str, object] = {
        "commands": [shown(c) for c in quirk.commands],
        "range": quirk.config.ranged,
    }
    if quirk.config.reboot:
        described["reboot"] = True
    if quirk.patch is not None:
        described["patch"] = quirk.patch.name
        described["patch_text"] = _patch_text(quirk.patch, shown)
    if quirk.config.build_steps:
        described["build_steps"] = [shown(step) for step in quirk.config.build_steps]
    if quirk.config.tests:
        described["tests"] = {
            name: {"command": shown(replaced.command), "parser": replaced.parser}
            for name, replaced in sorted(quirk.config.tests.items())
        }
    return described


#: The most of a quirk's patch kept with a series' commands (its setup page shows it).
PATCH_TEXT_LIMIT = 64 * 1024


def _patch_text(patch: Path, shown: Callable[[str], str]) -> str:
    """A quirk's patch as its setup page shows it: its text (secrets masked), the first
    :data:`PATCH_TEXT_LIMIT` bytes of a longer one."""
    try:
        data = patch.read_bytes()
    except OSError as error:
        return f"(cannot read {patch}: {error.strerror})"
    text = data[:PATCH_TEXT_LIMIT].decode("utf-8", errors="replace")
    if len(data) > PATCH_TEXT_LIMIT:
        text += f"\n… ({len(data) - PATCH_TEXT_LIMIT} more bytes in {patch.name})\n"
    return shown(text)


def _fingerprints(topology: Topology, tools: list[str]) -> dict[str, str]:
    """The [run] host's fingerprint, and every other host's as ``<name>.<key>``."""
    default = topology.member("")
    found = fingerprint(default.host, tools)
    for member in topology:
        if member.name != default.name:
            other = fingerprint(member.host, tools)
            found.update({f"{member.name}.{key}": value for key, value in other.items()})
    return found


def walk_series(
    config: Config, topology: Topology, plan: WalkPlan, started_at: datetime
) -> NewSeries:
    """The new series that walks ``plan``."""
    return describe_series(
        config,
        topology,
        name=plan.name,
        spec=plan.spec,
        repetitions=plan.repetitions,
        between=plan.between,
        quirks=plan.quirks,
        parent=plan.parent,
        started_at=started_at,
        planned_checkouts=len(plan.checkouts)
        if plan.budget is None
        else min(plan.budget, len(plan.checkouts)),
        measuring=plan.measuring,
        walk=plan.named.name if plan.named is not None else None,
    )
