"""The checks of a ``[[test]]`` table's group, sweep and derived metrics that involve
several of its settings (or other tests), then the expansion of its sweep into its
members (:mod:`perfwalk.config.sweeps`), done on the checked values of the file.

Everything here names the table as the file has it (``test[2].derived[0].expression``),
so the checks run before the expansion, which renumbers the tests.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from perfwalk.config.checker import Checker
from perfwalk.config.derived import parse
from perfwalk.config.instruments import INSTRUMENT_METRICS
from perfwalk.config.settings import SECTIONS
from perfwalk.config.sweeps import PREFIX, expand

_METRICS = next(
    s for s in next(s for s in SECTIONS if s.key == "test").sections if s.key == "metrics"
)
#: ``{sweep.size}`` in a command: the parameter it names
_SWEEP_PLACEHOLDER = re.compile(r"(?<![$\\{])\{sweep\.([a-z0-9_]+)\}")


def check_test_parts(checker: Checker, tests: list[dict[str, Any]]) -> None:
    """No group has a test's name; every ``{sweep.<parameter>}`` of a test's commands
    is a parameter of its sweep; its derived metrics are each named once, after no
    instrument's metric, read only values declared before them and numeric sweep
    parameters, and their unit and direction agree with its ``[test.metrics]``."""
    names = {test["name"]: index for index, test in enumerate(tests)}
    for index, test in enumerate(tests):
        where = f"test[{index}]"
        group = test["group"]
        if group in names:
            checker.fail(
                f"{where}.group",
                f"group {group!r} is also the name of test[{names[group]}]: --tests {group} "
                "would name both",
                hint="give the group another name (or the test)",
            )
        _check_placeholders(checker, test, where)
        _check_derived(checker, test, where)


def _commands(test: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key, text) of every command of a test's table."""
    found = [("command", test["command"])]
    found += [(f"service[{n}].command", s["command"]) for n, s in enumerate(test["services"])]
    for role, phases in test["roles"].items():
        for phase in ("startup", "run", "collect", "reset"):
            found += [(f"roles.{role}.{phase}[{n}]", t) for n, t in enumerate(phases[phase])]
    return found


def _check_placeholders(checker: Checker, test: Mapping[str, Any], where: str) -> None:
    sweep = test["sweep"]
    for key, text in _commands(test):
        for parameter in _SWEEP_PLACEHOLDER.findall(text):
            if parameter not in sweep:
                checker.fail(
                    f"{where}.{key}",
                    f"{{sweep.{parameter}}}: the test's sweep has no parameter {parameter!r}",
                    hint=f"its parameters: {', '.join(sweep)}"
                    if sweep
                    else f"add [test.sweep] {parameter} = [...] to the test, or remove it",
                )


def _check_derived(checker: Checker, test: dict[str, Any], where: str) -> None:
    sweep = test["sweep"]
    instruments = {
        metric.name
        for instrument in test["instruments"]
        for metric in INSTRUMENT_METRICS.get(instrument["kind"], ())
    }
    declared = [d["name"] for d in test["derived"]]
    for number, derived in enumerate(test["derived"]):
        key = f"{where}.derived[{number}]"
        name = derived["name"]
        if name in declared[:number]:
            checker.fail(
                f"{key}.name",
                f"{name!r} is derived twice (derived[{declared.index(name)}] too)",
                hint="give each derived metric its own name",
            )
        if name in instruments:
            checker.fail(
                f"{key}.name",
                f"{name!r} is a metric of the test's instrument",
                hint="give the derived metric another name",
            )
        for read in sorted(parse(derived["expression"]).names):
            _check_name(checker, read, (name, declared[number:]), sweep, f"{key}.expression")
        _merge_metric(checker, test, derived, key, where)


def _check_name(
    checker: Checker,
    read: str,
    derived: tuple[str, list[str]],
    sweep: Mapping[str, Any],
    key: str,
) -> None:
    """``read``, a name the expression of the derived metric ``derived[0]`` reads, is a
    numeric sweep parameter or a value other than it and those derived after it
    (``derived[1]``, it first)."""
    name, later = derived
    if read.startswith(PREFIX):
        parameter = read[len(PREFIX) :]
        if parameter not in sweep:
            checker.fail(
                key,
                f"{read}: the test's sweep has no parameter {parameter!r}",
                hint=f"its parameters: {', '.join(sweep)}"
                if sweep
                else "a sweep.<parameter> is a parameter of the test's [test.sweep]",
            )
        words = [v for v in sweep[parameter] if isinstance(v, str)]
        if words:
            checker.fail(
                key,
                f"{read} is not a number everywhere ({words[0]!r})",
                hint="an expression computes with numbers: use a numeric parameter",
            )
    elif read == name:
        checker.fail(key, f"{name} reads itself", hint="compute it from measured values")
    elif read in later:
        checker.fail(
            key,
            f"{read} is derived after {name}",
            hint=f"declare [[test.derived]] {read} before {name}",
        )


def _merge_metric(
    checker: Checker, test: dict[str, Any], derived: Mapping[str, Any], key: str, where: str
) -> None:
    """The derived metric's unit and direction in its ``[test.metrics.<name>]`` (made
    when there is none): what every lookup of the metric finds; a ConfigError when that
    table sets another."""
    name = derived["name"]
    metrics = test["metrics"]
    raw: dict[str, Any] = {"unit": derived["unit"]}
    if derived["direction"] is not None:
        raw["direction"] = derived["direction"].value
    configured = metrics.get(name)
    if configured is None:
        metrics[name] = checker.table(_METRICS, raw, f"{where}.metrics.{name}")
        return
    for setting, value in (("unit", derived["unit"]), ("direction", derived["direction"])):
        there = configured[setting]
        if value is not None and there is not None and there != value:
            checker.fail(
                f"{where}.metrics.{name}.{setting}",
                f"{getattr(there, 'value', there)} here, {getattr(value, 'value', value)} in {key}",
                hint=f"set the {setting} of {name} once, in {key}",
            )
        if there is None:
            configured[setting] = value


def expand_tests(values: dict[str, Any]) -> None:
    """The checked ``values`` of the file with every swept test replaced by its
    members; what names a swept test (a quirk's ``[quirk.test.<name>]``, a snapshot's
    ``tests``) names each of its members."""
    members: dict[str, list[str]] = {}
    tests = expand(values["test"])
    for test in tests:
        if test["family"]:
            members.setdefault(str(test["family"]), []).append(str(test["name"]))
    values["test"] = tests
    for quirk in values["quirk"]:
        quirk["tests"] = {
            member: replaced
            for name, replaced in quirk["tests"].items()
            for member in members.get(name, [name])
        }
    for snapshot in values["snapshot"]:
        snapshot["tests"] = tuple(
            member for name in snapshot["tests"] for member in members.get(name, [name])
        )
