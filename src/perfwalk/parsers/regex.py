"""The configurable parser: a Python regular expression, every match one or more values.

The pattern is searched in the whole output (use ``(?m)`` for ``^``/``$`` at line
ends). Its named groups say what a match holds:

- ``value``: a number, named by the ``name`` group of the match (when the pattern
  has one and it took part), else by the ``name`` option (default ``value``);
- any other named group (``compress``, ``decompress``, …): a number named by its
  group: ``compress``, or ``<name>.compress`` when a ``name`` group took part;
- ``name`` and ``unit``: the name and the unit of the match's values, read from the
  output.

Options (checked when the parser is made, so a bad config fails before a walk):

- ``pattern`` (required): the regular expression, with ``value`` or another named
  group for a number.
- ``name``: the name of the ``value`` group's values when the pattern has no
  ``name`` group (or it did not take part in the match); default ``value``.
- ``unit``: the unit of every value; ``units``: a table, the unit of each group
  (``{ compress = "MB/s" }``). A value's unit is its group's in ``units``, else the
  match's ``unit`` group, else ``unit``; one of them must give every group a unit.
- ``scale``: a number every value is multiplied by (``1000`` for s → ms), or a table
  of a number per group (``{ compress = 1e6 }``; a group not in it: 1).

A group whose text is not a finite number (``nan``, ``1e999``, ``-``), or that did not
take part in the match, gives no value; the match's other groups still do.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from perfwalk.errors import ConfigError
from perfwalk.model import Value
from perfwalk.parsers.values import finite, require

OPTIONS = ("pattern", "name", "unit", "units", "scale")
#: the groups that are not a value of their own
RESERVED = ("name", "unit")
_HINT = "regex parser options: pattern (required), name, unit, units, scale"
_EXAMPLE = r"(?P<compress>[0-9.]+) MB/s, (?P<decompress>[0-9.]+) MB/s"


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def _text(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"expected a non-empty string, got {_shown(value)}", key=where)
    return value


def _text_option(options: Mapping[str, object], option: str, key: str) -> str | None:
    value = options.get(option)
    return None if value is None else _text(value, f"{key}.{option}")


def _pattern(options: Mapping[str, object], key: str) -> re.Pattern[str]:
    source = _text_option(options, "pattern", key)
    where = f"{key}.pattern"
    if source is None:
        raise ConfigError(
            "required: a regular expression with a named group for the number",
            key=where,
            hint=r"for example: pattern = 'elapsed (?P<value>[0-9.]+) s', or one group per "
            f"value: pattern = '{_EXAMPLE}'",
        )
    try:
        pattern = re.compile(source)
    except (re.error, RecursionError, OverflowError) as error:
        raise ConfigError(f"not a valid regular expression: {error}", key=where) from None
    if not _value_groups(pattern):
        raise ConfigError(
            "the pattern has no named group for a number: 'value', or one named group per value",
            key=where,
            hint=r"name the number's group: (?P<value>[0-9.]+), or give each number its "
            f"name: {_EXAMPLE}",
        )
    return pattern


def _value_groups(pattern: re.Pattern[str]) -> tuple[str, ...]:
    """The groups of ``pattern`` that hold a value, in the order of the pattern."""
    return tuple(g for g in pattern.groupindex if g not in RESERVED)


def _number(value: object, where: str, hint: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, int) and abs(value) >= 2**1023)  # no float: isfinite would raise
        or not math.isfinite(value)
    ):
        raise ConfigError(f"expected a finite number, got {_shown(value)}", key=where, hint=hint)
    return float(value)


def _per_group(
    options: Mapping[str, object], option: str, key: str, groups: tuple[str, ...]
) -> Mapping[str, object]:
    """The table ``option`` (a key per group of the pattern), checked."""
    table = options[option]
    where = f"{key}.{option}"
    if not isinstance(table, Mapping):
        raise ConfigError(f"expected a table of a group's name = …, got {_shown(table)}", key=where)
    for group in table:
        if group not in groups:
            close = difflib.get_close_matches(str(group), groups, n=1)
            raise ConfigError(
                f"no group {str(group)!r} in the pattern; its groups: {', '.join(groups)}",
                key=f"{where}.{group}",
                hint=f"did you mean {close[0]}?" if close else f"name a group: (?P<{group}>…)",
            )
    return table


def _units(
    options: Mapping[str, object], key: str, pattern: re.Pattern[str]
) -> tuple[str | None, dict[str, str]]:
    groups = _value_groups(pattern)
    unit = _text_option(options, "unit", key)
    units: dict[str, str] = {}
    if options.get("units") is not None:
        table = _per_group(options, "units", key, groups)
        units = {str(g): _text(u, f"{key}.units.{g}") for g, u in table.items()}
    if unit is None and "unit" not in pattern.groupindex:
        missing = [g for g in groups if g not in units]
        if missing and groups == ("value",):
            raise ConfigError(
                "required: the pattern has no group 'unit', so the unit must be given",
                key=f"{key}.unit",
                hint="unit = 's' (or add a named group (?P<unit>...) to the pattern)",
            )
        if missing:
            raise ConfigError(
                f"no unit for the group{'s' if len(missing) > 1 else ''} "
                f"{', '.join(missing)}: the pattern has no group 'unit'",
                key=f"{key}.units",
                hint=f'units = {{ {missing[0]} = "MB/s" }} gives a group its unit, unit = '
                '"MB/s" every group one; a group that holds no number is unnamed: (?:…)',
            )
    return unit, units


def _scales(options: Mapping[str, object], key: str, groups: tuple[str, ...]) -> dict[str, float]:
    scale = options.get("scale", 1.0)
    hint = (
        "scale = 1000 multiplies every value by 1000 (s → ms); scale = { "
        f"{groups[0]} = 1000 }} only the group {groups[0]}'s"
    )
    if isinstance(scale, Mapping):
        table = _per_group(options, "scale", key, groups)
        given = {str(g): _number(s, f"{key}.scale.{g}", hint) for g, s in table.items()}
        return {g: given.get(g, 1.0) for g in groups}
    every = _number(scale, f"{key}.scale", hint)
    return dict.fromkeys(groups, every)


@dataclass(frozen=True)
class RegexParser:
    """A parser made from checked options; call it with the output text.

    ``units`` and ``scales`` are per value group (``scales`` has every group)."""

    pattern: re.Pattern[str]
    name: str = "value"
    unit: str | None = None
    scale: float = 1.0
    units: Mapping[str, str] = field(default_factory=dict)
    scales: Mapping[str, float] = field(default_factory=dict)

    def __call__(self, text: str) -> tuple[Value, ...]:
        values = []
        groups = _value_groups(self.pattern)
        has_name = "name" in self.pattern.groupindex
        has_unit = "unit" in self.pattern.groupindex
        for match in self.pattern.finditer(text):
            named = match["name"] if has_name else None
            read_unit = match["unit"] if has_unit else None
            for group in groups:
                number = finite(match[group] or "")
                if number is None:
                    continue
                if group == "value":
                    name = named or self.name
                else:
                    name = f"{named}.{group}" if named else group
                unit = self.units.get(group) or read_unit or self.unit
                if unit:
                    values.append(Value(name, number * self.scales.get(group, self.scale), unit))
        return require(values, self._looked_for(groups))

    def _looked_for(self, groups: tuple[str, ...]) -> str:
        if groups == ("value",):
            return f"matches of the pattern {self.pattern.pattern!r} with a number as 'value'"
        return (
            f"matches of the pattern {self.pattern.pattern!r} with a number in a group "
            + " or ".join(repr(g) for g in groups)
        )


def make(options: Mapping[str, object], key: str) -> RegexParser:
    """A parser from checked ``options``; ``key`` is where they are (``parser_options``)."""
    unknown = sorted(str(option) for option in options if option not in OPTIONS)
    if unknown:
        close = difflib.get_close_matches(unknown[0], OPTIONS, n=1)
        raise ConfigError(
            f"unknown option {unknown[0]!r} of the regex parser",
            key=f"{key}.{unknown[0]}",
            hint=(f"did you mean {close[0]}? " if close else "") + _HINT,
        )
    pattern = _pattern(options, key)
    groups = _value_groups(pattern)
    name = _text_option(options, "name", key)
    if name is not None and "value" not in groups:
        raise ConfigError(
            "the pattern has no group 'value' for this name to name; its values are named "
            f"by their groups: {', '.join(groups)}",
            key=f"{key}.name",
            hint="remove name, or rename the pattern's groups as the values should be named",
        )
    unit, units = _units(options, key, pattern)
    scales = _scales(options, key, groups)
    scale = scales.get("value", 1.0)
    return RegexParser(pattern, name or "value", unit, scale, units, scales)
