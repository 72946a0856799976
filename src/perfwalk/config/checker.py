"""The checker of one configuration file: read, parsed as TOML, and every value
checked against its declaration in :mod:`perfwalk.config.settings` — unknown keys
(with a "did you mean"), missing required keys, wrong types and disallowed values,
found the same way for every setting. Each problem is a
:class:`~perfwalk.errors.ConfigError` naming the file, the dotted key and a remedy.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from perfwalk.config.settings import (
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
from perfwalk.text_files import read_user_file

#: The file perfwalk looks for when none is named.
DEFAULT_CONFIG_NAME = "perfwalk.toml"
#: How deep arrays and tables may nest (the deepest setting needs 4: test.metrics.<name>).
MAX_DEPTH = 32

_INDEX = re.compile(r"\[\d+\]")
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


class Checker:
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
