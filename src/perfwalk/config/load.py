"""Read and validate ``perfwalk.toml`` into a :class:`~perfwalk.config.model.Config`.

The checks walk the declarations of :mod:`perfwalk.config.settings`: unknown keys
(with a "did you mean"), missing required keys, wrong types and disallowed values
are found the same way for every setting. Only what involves several settings at
once (unique test and walk names, parser options, ``until`` without a range, a quirk's
test replacements) is checked by name here. Every problem is a
:class:`~perfwalk.errors.ConfigError` naming the file, the dotted key
(``test[2].metrics.sender.direction``) and a remedy.
"""

from __future__ import annotations

import difflib
import enum
import hashlib
import json
import os
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NoReturn

from perfwalk.config.env import Env
from perfwalk.config.instruments import INSTRUMENT_KINDS
from perfwalk.config.model import (
    AnalysisConfig,
    ApiConfig,
    BuildConfig,
    Config,
    HostConfig,
    InstallConfig,
    InstrumentConfig,
    MetricConfig,
    ModifierConfig,
    NotifyConfig,
    ProfileConfig,
    ProjectConfig,
    QuirkConfig,
    QuirkTestConfig,
    RegressConfig,
    RegressTestConfig,
    ReleaseConfig,
    ReportConfig,
    RoleConfig,
    RunConfig,
    ServiceConfig,
    SnapshotConfig,
    StoreConfig,
    TestConfig,
    TryConfig,
    VariantConfig,
    WalkConfig,
    WatchConfig,
)
from perfwalk.config.settings import (
    AUTO,
    AUTO_MAX,
    AUTO_MIN,
    BASE_VARIANT,
    RANDOM_LAYOUT,
    SECTIONS,
    Form,
    Invalid,
    Rule,
    Section,
    Setting,
    described,
    toml_value,
    walk,
)
from perfwalk.errors import ConfigError, UsageError
from perfwalk.limits import MAX_USER_FILE_BYTES
from perfwalk.parsers import get_parser
from perfwalk.secret_text import hide_password
from perfwalk.text_files import read_user_file

#: The file perfwalk looks for when none is named.
DEFAULT_CONFIG_NAME = "perfwalk.toml"
#: How deep arrays and tables may nest (the deepest setting needs 4: test.metrics.<name>).
MAX_DEPTH = 32

#: The dataclass of each section, by its dotted path.
_CLASSES: Mapping[str, type] = {
    "project": ProjectConfig,
    "store": StoreConfig,
    "build": BuildConfig,
    "run": RunConfig,
    "analysis": AnalysisConfig,
    "test": TestConfig,
    "test.metrics": MetricConfig,
    "test.service": ServiceConfig,
    "test.roles": RoleConfig,
    "test.profile": ProfileConfig,
    "test.instrument": InstrumentConfig,
    "hosts": HostConfig,
    "install": InstallConfig,
    "snapshot": SnapshotConfig,
    "quirk": QuirkConfig,
    "quirk.test": QuirkTestConfig,
    "release": ReleaseConfig,
    "walk": WalkConfig,
    "variant": VariantConfig,
    "variant.modifier": ModifierConfig,
    "try": TryConfig,
    "watch": WatchConfig,
    "regress": RegressConfig,
    "regress.test": RegressTestConfig,
    "report": ReportConfig,
    "notify": NotifyConfig,
    "api": ApiConfig,
}

_ANALYSIS = next(s for s in SECTIONS if s.key == "analysis")
_INDEX = re.compile(r"\[\d+\]")
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def load_config(path: Path, text: str | None = None) -> Config:
    """Read, validate and resolve the configuration file at ``path`` (or ``text``, its
    content as read elsewhere: a job of team mode carries it to its worker).

    Relative paths in the file are resolved against the file's directory.
    Raises :class:`ConfigError` for anything wrong, naming the file and the key.
    """
    where = Path(os.path.abspath(path))
    checker = _Checker(str(path), where.parent)
    if text is None:
        text = checker.read(path)
    values = checker.root(checker.parse(text))
    _check_tests(checker, values["test"])
    _check_quirks(checker, values["quirk"], values["test"])
    _check_walks(checker, values["walk"])
    _check_releases(checker, values["release"])
    _check_snapshots(checker, values["snapshot"], values["test"])
    _check_variants(checker, values["variant"], values["walk"])
    _check_relink(checker, values["build"], values["variant"])
    _check_topology(checker, values)
    _check_run(checker, values)
    project = values["project"]
    project["name"] = project["name"] or project["repo"].name
    hashed = {**values, "store": {**values["store"], "url": hide_password(values["store"]["url"])}}
    del hashed["notify"]  # where changes are told is not how they are measured
    del hashed["api"]  # nor where they are served
    del hashed["release"]  # nor the releases marked on the pages
    canonical = json.dumps(_plain(hashed), sort_keys=True, separators=(",", ":"))
    analysis = AnalysisConfig(**values["analysis"])
    extra = {"test": {"analysis": analysis}}
    sections = {
        s.attribute: _build(s, values[s.key], s.key, extra) for s in SECTIONS if s is not _ANALYSIS
    }
    return Config(
        path=where,
        text=text,
        hash=hashlib.sha256(canonical.encode()).hexdigest(),
        analysis=analysis,
        **sections,
    )


class _Checker:
    """Checks one file's values against the declarations; raises on the first problem."""

    def __init__(self, shown: str, base: Path) -> None:
        self.shown = shown
        self.base = base

    def fail(self, key: str | None, message: str, hint: str | None = None) -> NoReturn:
        raise ConfigError(message, path=self.shown, key=key, hint=hint)

    def read(self, path: Path) -> str:
        try:
            data = read_user_file(
                path,
                "",
                MAX_USER_FILE_BYTES,
                hint="give the path of a configuration file (`perfwalk init` writes one)",
                pipes=True,
            )
        except UsageError as error:
            hint = f"name the file in it, e.g. {path / DEFAULT_CONFIG_NAME}"
            self.fail(None, error.message, hint=hint if path.is_dir() else error.hint)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            self.fail(
                None,
                f"not UTF-8 text (byte {error.start})",
                hint="a TOML file is UTF-8; convert it with iconv",
            )

    def parse(self, text: str) -> dict[str, Any]:
        try:
            parsed = tomllib.loads(text.removeprefix("\ufeff"))
        except RecursionError:
            self._too_deep()
        except tomllib.TOMLDecodeError as error:
            reason = str(error)
            position = _TOML_POSITION.search(reason)
            if position is None:
                self.fail(None, f"invalid TOML: {reason}", hint="the file ends too early")
            line, column = int(position.group(1)), int(position.group(2))
            lines = text.splitlines()
            shown = lines[line - 1] if line <= len(lines) else ""
            self.fail(
                None,
                f"invalid TOML at line {line}, column {column}: {reason[: position.start()]}",
                hint=f"line {line} reads: {shown.strip()!r}; see https://toml.io for the syntax",
            )
        if _depth(parsed) > MAX_DEPTH:
            self._too_deep()
        return parsed

    def _too_deep(self) -> NoReturn:
        self.fail(
            None,
            f"arrays and tables nested more than {MAX_DEPTH} deep",
            hint="no setting nests that deep: look for a run of [ or { brackets",
        )

    def root(self, raw: dict[str, Any]) -> dict[str, Any]:
        self.unknown(raw, tuple(s.key for s in SECTIONS), "")
        return {s.key: self.section(s, raw.get(s.key), s.key) for s in SECTIONS}

    def section(self, section: Section, raw: object, where: str) -> Any:
        """The values of ``section`` (None when absent from the file)."""
        if section.form is Form.TABLE:
            return self.table(section, self.a_table(raw, where), where)
        if section.form is Form.NAMED:
            named = self.a_table(raw, where)
            return {
                name: self.table(section, self.a_table(item, f"{where}.{name}"), f"{where}.{name}")
                for name, item in named.items()
            }
        items = [] if raw is None else raw
        if not isinstance(items, list):
            self.fail(
                where,
                f"expected an array of tables, got {described(items)}",
                hint=f"write each one under its own [[{section.key}]] header, with two brackets",
            )
        if len(items) < section.min_items:
            example = next(s for s in section.settings if s.required)
            self.fail(
                where,
                f"at least {section.min_items} [[{section.key}]] required, found {len(items)}",
                hint=f"add [[{section.key}]] with {example.key} = {toml_value(example.sample)} …",
            )
        return [
            self.table(section, self.a_table(item, f"{where}[{index}]"), f"{where}[{index}]")
            for index, item in enumerate(items)
        ]

    def a_table(self, raw: object, where: str) -> dict[str, Any]:
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            header = _INDEX.sub("", where)
            self.fail(where, f"expected a table, got {described(raw)}", f"write it as [{header}]")
        return raw

    def table(self, section: Section, raw: dict[str, Any], where: str) -> dict[str, Any]:
        self.unknown(raw, section.keys, where)
        values = {s.attribute: self.setting(s, raw, f"{where}.{s.key}") for s in section.settings}
        for child in section.sections:
            where_child = f"{where}.{child.key}"
            values[child.attribute] = self.section(child, raw.get(child.key), where_child)
        return values

    def setting(self, setting: Setting, raw: dict[str, Any], key: str) -> Any:
        if setting.key in raw:
            value = self.checked(setting, raw[setting.key], key)
        elif setting.required:
            self.fail(key, f"missing required key {setting.key!r}", hint=_about(setting))
        elif setting.default is None:
            return None
        else:
            value = setting.kind.convert(setting.default)
        try:
            return setting.finish(value, self.base) if setting.finish else value
        except Invalid as error:
            self.fail(key, error.message, hint=error.hint)

    def checked(self, setting: Setting, raw: object, key: str) -> Any:
        mismatch = setting.kind.check(raw)
        if mismatch is not None:
            inner, got = mismatch
            self.fail(key + inner, f"expected {setting.kind.article}, got {got}", _about(setting))
        value = setting.kind.convert(raw)
        for rule in (*setting.kind.rules, *setting.rules):
            problem = rule.problem(value)
            if problem is not None:
                self.fail(key, problem, hint=_rule_hint(rule, value, setting))
        return value

    def unknown(self, raw: Mapping[str, object], known: tuple[str, ...], where: str) -> None:
        for name, value in raw.items():
            if name in known:
                continue
            what = "section" if not where and isinstance(value, dict | list) else "key"
            close = difflib.get_close_matches(name, known, 1)
            homes = [path.rsplit(".", 1)[0] for path, _, found in walk() if found.key == name]
            if close:
                hint = f"did you mean {close[0]!r}? "
            elif homes:
                hint = f"{name!r} is a key of {', '.join(homes)}. "
            else:
                hint = ""
            key = f"{where}.{name}" if where else name
            self.fail(key, f"unknown {what} {name!r}", f"{hint}Known here: {', '.join(known)}")


def _depth(value: object) -> int:
    """How deep arrays and tables nest in ``value`` (counted without recursion)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth + 1)
            if deepest > MAX_DEPTH:
                break
            stack.extend((child, depth + 1) for child in item)
    return deepest


def _about(setting: Setting) -> str:
    """What a setting is, with an example line."""
    sample = setting.sample
    example = f"; e.g. {setting.key} = {toml_value(sample)}" if sample not in (None, "") else ""
    return f"{setting.key}: {setting.help}{example}"


def _rule_hint(rule: Rule, value: object, setting: Setting) -> str:
    close = difflib.get_close_matches(str(value), rule.choices, 1)
    return f"did you mean {close[0]!r}?" if close else _about(setting)


def _check_tests(checker: _Checker, tests: list[dict[str, Any]]) -> None:
    """Test names are unique; each parser accepts its options."""
    hint = "a test's name is its id in the store; give each test its own"
    for index, test in _uniquely_named(checker, tests, "test", hint):
        _check_parser(checker, test["parser"], test["parser_options"], f"test[{index}]")


def _check_walks(checker: _Checker, walks: list[dict[str, Any]]) -> None:
    """Walk names are unique: each names one series in the store."""
    hint = "a walk's name finds its series in the store; give each walk its own"
    list(_uniquely_named(checker, walks, "walk", hint))  # each table, checked as taken


def _check_releases(checker: _Checker, releases: list[dict[str, Any]]) -> None:
    """Release names are unique: each names a line on the plots and a window."""
    hint = "a release's name labels its line and its window on the plots; give each its own"
    list(_uniquely_named(checker, releases, "release", hint))


def _check_snapshots(
    checker: _Checker, snapshots: list[dict[str, Any]], tests: list[dict[str, Any]]
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


def _check_variants(
    checker: _Checker, variants: list[dict[str, Any]], walks: list[dict[str, Any]]
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


def _check_relink(checker: _Checker, build: dict[str, Any], variants: list[dict[str, Any]]) -> None:
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
    checker: _Checker, tables: list[dict[str, Any]], section: str, hint: str
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


def _check_parser(
    checker: _Checker, parser: str, options: Mapping[str, object], where: str
) -> None:
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


def _check_topology(checker: _Checker, values: dict[str, Any]) -> None:
    """Each role belongs to one host; every role a test or an install names exists;
    a service has a readiness check; the role parsers accept their options."""
    owner: dict[str, str] = {}
    for name, host in values["hosts"].items():
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


def _check_profile(
    checker: _Checker,
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


def _check_instruments(checker: _Checker, test: dict[str, Any], where: str) -> None:
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


def _check_run(checker: _Checker, values: dict[str, Any]) -> None:
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


def _check_quirks(
    checker: _Checker, quirks: list[dict[str, Any]], tests: list[dict[str, Any]]
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


def _build(
    section: Section, value: Any, path: str, extra: Mapping[str, Mapping[str, object]]
) -> Any:
    """The dataclass(es) of ``section`` from its checked values."""
    if section.form is Form.ARRAY:
        return tuple(_make(section, item, path, extra) for item in value)
    if section.form is Form.NAMED:
        return MappingProxyType({n: _make(section, v, path, extra) for n, v in value.items()})
    return _make(section, value, path, extra)


def _make(
    section: Section, values: dict[str, Any], path: str, extra: Mapping[str, Mapping[str, object]]
) -> Any:
    fields = dict(values)
    for child in section.sections:
        child_path = f"{path}.{child.key}"
        fields[child.attribute] = _build(child, fields[child.attribute], child_path, extra)
    return _CLASSES[path](**fields, **extra.get(path, {}))


def _plain(value: object) -> object:
    """``value`` as JSON data: paths as strings, enums as their values, secrets masked."""
    if isinstance(value, Env):
        return value.masked()
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    return value
