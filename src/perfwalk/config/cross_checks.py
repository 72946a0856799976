"""The checks of a configuration that involve several settings at once: unique test,
walk, release, snapshot and variant names, parser options, the roles the hosts play,
``until`` without a range, a quirk's test replacements, adaptive repetitions."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from perfwalk.config.checker import Checker
from perfwalk.config.instruments import INSTRUMENT_KINDS
from perfwalk.config.settings import AUTO, AUTO_MAX, AUTO_MIN, BASE_VARIANT, RANDOM_LAYOUT
from perfwalk.errors import ConfigError
from perfwalk.parsers import get_parser


def check_tests(checker: Checker, tests: list[dict[str, Any]]) -> None:
    """Test names are unique; each parser accepts its options."""
    hint = "a test's name is its id in the store; give each test its own"
    for index, test in _uniquely_named(checker, tests, "test", hint):
        _check_parser(checker, test["parser"], test["parser_options"], f"test[{index}]")


def check_walks(checker: Checker, walks: list[dict[str, Any]]) -> None:
    """Walk names are unique: each names one series in the store."""
    hint = "a walk's name finds its series in the store; give each walk its own"
    list(_uniquely_named(checker, walks, "walk", hint))  # each table, checked as taken


def check_releases(checker: Checker, releases: list[dict[str, Any]]) -> None:
    """Release names are unique: each names a line on the plots and a window."""
    hint = "a release's name labels its line and its window on the plots; give each its own"
    list(_uniquely_named(checker, releases, "release", hint))


def check_snapshots(
    checker: Checker, snapshots: list[dict[str, Any]], tests: list[dict[str, Any]]
) -> None:
    """Snapshot names are unique; the tests a snapshot names are tests of the file."""
    hint = "a snapshot's name tells its counters apart on the pages; give each its own"
    known = [test["name"] for test in tests]
    for index, snapshot in _uniquely_named(checker, snapshots, "snapshot", hint):
        for number, name in enumerate(snapshot["tests"]):
            if name not in known:
                checker.fail(
                    f"snapshot[{index}].tests[{number}]",
                    f"no [[test]] is named {name!r}",
                    hint=f"name one of the tests: {', '.join(known)}",
                )


def check_variants(
    checker: Checker, variants: list[dict[str, Any]], walks: list[dict[str, Any]]
) -> None:
    """Variant names are unique (each names its series and its columns); a walk's
    variants are variants of the file, other than base."""
    hint = "a variant's name names its series and columns; give each variant its own"
    list(_uniquely_named(checker, variants, "variant", hint))
    known = [v["name"] for v in variants if v["name"] != BASE_VARIANT]
    for index, named in enumerate(walks):
        for number, name in enumerate(named["variants"]):
            if name not in known:
                what = (
                    "base is the plain checkout, always measured"
                    if name == BASE_VARIANT
                    else (f"no [[variant]] is named {name!r}")
                )
                checker.fail(
                    f"walk[{index}].variants[{number}]",
                    what,
                    hint=f"name one of: {', '.join(known)}"
                    if known
                    else f'add [[variant]] name = "{name}" with its patches or modifiers',
                )


def check_environments(checker: Checker, environments: list[dict[str, Any]]) -> None:
    """Environment names are unique (each names its builds and its column)."""
    hint = "an environment's name names its builds and its column; give each its own"
    list(_uniquely_named(checker, environments, "environment", hint))


def check_relink(checker: Checker, build: dict[str, Any], variants: list[dict[str, Any]]) -> None:
    """A relink command is run only to lay out a build at random: something builds so."""
    layouts = [build["layout"], *(v["layout"] for v in variants)]
    if build["relink"] and RANDOM_LAYOUT not in layouts:
        checker.fail(
            "build.relink",
            'is run only with layout = "random", and neither [build] nor a [[variant]] '
            f"has it ([build] layout is {build['layout']!r})",
            hint='set layout = "random" in [build] or in a [[variant]], or remove relink',
        )


def _uniquely_named(
    checker: Checker, tables: list[dict[str, Any]], section: str, hint: str
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The ``[[section]]`` tables with their indexes, each after the check that no
    table before it has its name."""
    seen: dict[str, int] = {}
    for index, table in enumerate(tables):
        name = table["name"]
        if name in seen:
            checker.fail(
                f"{section}[{index}].name",
                f"duplicate {section} name {name!r} ({section}[{seen[name]}] has it too)",
                hint=hint,
            )
        seen[name] = index
        yield index, table


def _check_parser(checker: Checker, parser: str, options: Mapping[str, object], where: str) -> None:
    """The parser ``parser`` accepts ``options`` (the keys of ``where``)."""
    try:
        get_parser(parser, options, key=f"{where}.parser")
    except ConfigError as error:
        if error.path is not None:
            raise
        message = error.message
        if error.key and message.startswith(f"{error.key}: "):
            message = message[len(error.key) + 2 :]
        checker.fail(error.key or f"{where}.parser_options", message, hint=error.hint)


def check_topology(checker: Checker, values: dict[str, Any]) -> None:
    """Each role belongs to one host; every role a test or an install names exists;
    a service has a readiness check; the role parsers accept their options."""
    owner: dict[str, str] = {}
    for name, host in values["hosts"].items():
        _check_power(checker, name, host)
        for role in host["roles"]:
            if role in owner:
                checker.fail(
                    f"hosts.{name}.roles",
                    f"role {role!r} is played by hosts {owner[role]!r} and {name!r}",
                    hint="a role belongs to one host; give the other host another role",
                )
            owner[role] = name
    known = ", ".join(sorted(owner)) or "none (add roles = [...] to a [hosts.<name>] table)"

    def check_role(role: str, key: str) -> None:
        if role and role not in owner:
            checker.fail(
                key,
                f"no host plays the role {role!r}",
                hint=f"roles of [hosts]: {known}; add it to the roles of a host",
            )

    for role in values["install"]:
        check_role(role, f"install.{role}")
    for index, snapshot in enumerate(values["snapshot"]):
        for number, role in enumerate(snapshot["roles"]):
            check_role(role, f"snapshot[{index}].roles[{number}]")
    for index, variant in enumerate(values["variant"]):
        for number, modifier in enumerate(variant["modifiers"]):
            check_role(modifier["role"], f"variant[{index}].modifier[{number}].role")
    for index, test in enumerate(values["test"]):
        where = f"test[{index}]"
        check_role(test["role"], f"{where}.role")
        for number, service in enumerate(test["services"]):
            key = f"{where}.service[{number}]"
            check_role(service["role"], f"{key}.role")
            if not service["ready_port"] and not service["ready_text"]:
                checker.fail(
                    key,
                    "a service needs a readiness check: ready_port or ready_text",
                    hint="ready_port = 5201 waits until the port accepts; ready_text = "
                    '"listening" until that text is in its output; perfwalk never sleeps blindly',
                )
        _check_profile(checker, test, where, check_role)
        _check_instruments(checker, test, where)
        for role, phases in test["roles"].items():
            check_role(role, f"{where}.roles.{role}")
            if phases["parser"]:
                _check_parser(
                    checker, phases["parser"], phases["parser_options"], f"{where}.roles.{role}"
                )


def _check_power(checker: Checker, name: str, host: dict[str, Any]) -> None:
    """Power commands are for ssh hosts (powering this machine would stop perfwalk);
    at_end = "power_off" needs a power_off command."""
    if host["target"] == "local":
        for key in ("power_cycle", "power_on", "power_off"):
            if host[key]:
                checker.fail(
                    f"hosts.{name}.{key}",
                    f"host {name} is this machine: its {key} command would stop perfwalk",
                    hint=f'power commands are for ssh hosts; remove {key} or set it to ""',
                )
    if host["at_end"] == "power_off" and not host["power_off"]:
        checker.fail(
            f"hosts.{name}.at_end",
            'at_end = "power_off" but the host has no power_off command',
            hint=f'give hosts.{name}.power_off (e.g. "ipmitool … chassis power off"), or '
            'at_end = "leave"',
        )


def _check_profile(
    checker: Checker,
    test: dict[str, Any],
    where: str,
    check_role: Callable[[str, str], None],
) -> None:
    """A profiler command writes to its {profile} file; a profiled role has run commands."""
    profile = test["profile"]
    key = f"{where}.profile"
    if profile["tool"] == "command":
        if not profile["command"].strip():
            checker.fail(
                f"{key}.command",
                'tool = "command" needs the profiler\'s command',
                hint='e.g. command = "py-spy record -f raw -o {profile} --": it is placed before '
                "the test's command and writes folded stacks to {profile}",
            )
        if "{profile}" not in profile["command"]:
            checker.fail(
                f"{key}.command",
                "the profiler command does not name the file it writes: {profile} is missing",
                hint="write the folded stacks to {profile}: py-spy record -f raw -o {profile} --",
            )
    elif profile["command"]:
        checker.fail(
            f"{key}.command",
            f'command is the profiler of tool = "command", but tool = {profile["tool"]!r}',
            hint='set tool = "command", or remove command',
        )
    role = profile["role"]
    if profile["tool"] and role and role != test["role"]:
        check_role(role, f"{key}.role")
        if role not in test["roles"] or not test["roles"][role]["run"]:
            checker.fail(
                f"{key}.role",
                f"role {role!r} has no run commands in this test to profile",
                hint=f"add run = [...] to [test.roles.{role}], or leave role empty to profile "
                "the test's command",
            )


def _check_instruments(checker: Checker, test: dict[str, Any], where: str) -> None:
    """Each kind of instrument once per test; no role named like one (its values,
    ``<role>.<value>``, would pass for the instrument's)."""
    seen: set[str] = set()
    for number, instrument in enumerate(test["instruments"]):
        kind = instrument["kind"]
        if kind not in INSTRUMENT_KINDS:
            close = difflib.get_close_matches(kind, INSTRUMENT_KINDS, 1)
            checker.fail(
                f"{where}.instrument[{number}].kind",
                f"test {test['name']!r} names an unknown instrument {kind!r}; the known "
                f"kinds: {', '.join(INSTRUMENT_KINDS)}",
                hint=(f"did you mean {close[0]!r}? " if close else "")
                + "docs/instruments.md describes each kind",
            )
        if kind in seen:
            checker.fail(
                f"{where}.instrument[{number}].kind",
                f"test {test['name']!r} has the instrument {kind!r} twice",
                hint="keep one [[test.instrument]] of each kind",
            )
        seen.add(kind)
    for role in test["roles"]:
        if role in INSTRUMENT_KINDS:
            checker.fail(
                f"{where}.roles.{role}",
                f"test {test['name']!r}: the role {role!r} has the name of an instrument",
                hint="name the role otherwise: its values would be named like the instrument's",
            )


def check_run(checker: Checker, values: dict[str, Any]) -> None:
    """Adaptive repetitions go up from ``repetitions``; rounds keep every build."""
    run = values["run"]
    if run["repetitions"] == AUTO:  # adaptive: from repetitions_min to repetitions_max
        run["repetitions"] = run["repetitions_min"] or AUTO_MIN
        run["repetitions_max"] = run["repetitions_max"] or AUTO_MAX
        if run["repetitions_max"] < run["repetitions"]:
            checker.fail(
                "run.repetitions_max",
                f"repetitions_max = {run['repetitions_max']} is below repetitions_min = "
                f"{run['repetitions']}, the least each checkout gets",
                hint="raise repetitions_max, or lower repetitions_min",
            )
    elif run["repetitions_min"]:
        checker.fail(
            "run.repetitions_min",
            f'repetitions_min = {run["repetitions_min"]} goes with repetitions = "auto", '
            f"but repetitions = {run['repetitions']} is a fixed count",
            hint='set repetitions = "auto" for adaptive repetitions, or remove repetitions_min',
        )
    if run["repetitions_max"] and run["repetitions_max"] < run["repetitions"]:
        checker.fail(
            "run.repetitions_max",
            f"repetitions_max = {run['repetitions_max']} is below repetitions = "
            f"{run['repetitions']}, the least each checkout gets",
            hint="raise repetitions_max above repetitions, or set it to 0 for a fixed count",
        )
    if run["order"] == "rounds" and values["install"]:
        role = next(iter(values["install"]))
        checker.fail(
            "run.order",
            f'order = "rounds" measures every checkout again in each round, but [install.{role}] '
            "installs one checkout at a time on its host",
            hint='keep order = "checkout" (the default) for what must be installed per checkout',
        )


def check_quirks(
    checker: Checker, quirks: list[dict[str, Any]], tests: list[dict[str, Any]]
) -> None:
    """``until`` ends a range: it means nothing without a patch, build steps or a test
    replaced; a replaced test is a test of [[test]], its parser accepts its options."""
    by_name = {test["name"]: test for test in tests}
    for index, quirk in enumerate(quirks):
        where = f"quirk[{index}]"
        ranged = quirk["patch"] is not None or quirk["build_steps"] or quirk["tests"]
        if quirk["until"] and not ranged:
            checker.fail(
                f"{where}.until",
                "until ends the quirk's range, but nothing of this quirk holds over a range",
                hint='add patch = "<file>", build_steps = [...] or a [quirk.test.<name>] table, '
                "or remove until (commands run once, where the walk crosses at)",
            )
        for name, replaced in quirk["tests"].items():
            key = f"{where}.test.{name}"
            test = by_name.get(name)
            if test is None:
                known = ", ".join(sorted(by_name))
                checker.fail(
                    key,
                    f"no [[test]] is named {name!r}",
                    hint=f"name one of the tests: {known}",
                )
            if not (replaced["command"] or replaced["parser"] or replaced["parser_options"]):
                checker.fail(
                    key,
                    "replaces nothing: no command, parser or parser_options",
                    hint="set its command, parser or parser_options (what changes at these "
                    "checkouts), or remove the table",
                )
            parser = replaced["parser"] or test["parser"]
            options = replaced["parser_options"]
            if not replaced["parser"] and not options:
                options = test["parser_options"]
            _check_parser(checker, parser, options, key)
