"""The configurable parser: a Python regular expression, every match a value.

Options (checked when the parser is made, so a bad config fails before a walk):

- ``pattern`` (required): a regular expression with a named group ``value``
  (the number) and optionally groups ``name`` and ``unit``. Matched per the
  whole output; use ``(?m)`` for ``^``/``$`` at line ends.
- ``name``: the value name when the pattern has no ``name`` group (or it did not
  take part in the match); default ``value``.
- ``unit``: required unless the pattern has a ``unit`` group.
- ``scale``: a number every value is multiplied by (``1000`` for s → ms).

A match whose ``value`` group is not a number gives no value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from perfwalk.errors import ConfigError
from perfwalk.model import Value
from perfwalk.parsers.values import finite, require

OPTIONS = ("pattern", "name", "unit", "scale")
_HINT = "regex parser options: pattern (required), name, unit, scale"


def _text_option(options: Mapping[str, object], option: str, key: str) -> str | None:
    value = options.get(option)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"expected a non-empty string, got {value!r}", key=f"{key}.{option}")
    return value


def _pattern(options: Mapping[str, object], key: str) -> re.Pattern[str]:
    source = _text_option(options, "pattern", key)
    where = f"{key}.pattern"
    if source is None:
        raise ConfigError(
            "required: a regular expression with a named group 'value'",
            key=where,
            hint=r"for example: pattern = 'elapsed (?P<value>[0-9.]+) s'",
        )
    try:
        pattern = re.compile(source)
    except (re.error, RecursionError, OverflowError) as error:
        raise ConfigError(f"not a valid regular expression: {error}", key=where) from None
    if "value" not in pattern.groupindex:
        raise ConfigError(
            "the pattern has no named group 'value' for the number",
            key=where,
            hint=r"name the number's group: (?P<value>[0-9.]+)",
        )
    return pattern


def _scale(options: Mapping[str, object], key: str) -> float:
    scale = options.get("scale", 1.0)
    if (
        isinstance(scale, bool)
        or not isinstance(scale, int | float)
        or (isinstance(scale, int) and abs(scale) >= 2**1023)  # no float: isfinite would raise
        or not math.isfinite(scale)
    ):
        shown = repr(scale) if len(repr(scale)) <= 40 else repr(scale)[:40] + "…"
        raise ConfigError(
            f"expected a finite number, got {shown}",
            key=f"{key}.scale",
            hint="scale = 1000 multiplies every value by 1000 (s → ms)",
        )
    return float(scale)


@dataclass(frozen=True)
class RegexParser:
    """A parser made from checked options; call it with the output text."""

    pattern: re.Pattern[str]
    name: str = "value"
    unit: str | None = None
    scale: float = 1.0

    def __call__(self, text: str) -> tuple[Value, ...]:
        values = []
        groups = self.pattern.groupindex
        for match in self.pattern.finditer(text):
            number = finite(match["value"] or "")
            name = (match["name"] if "name" in groups else None) or self.name
            unit = (match["unit"] if "unit" in groups else None) or self.unit
            if number is not None and unit:
                values.append(Value(name, number * self.scale, unit))
        return require(
            values, f"matches of the pattern {self.pattern.pattern!r} with a number as 'value'"
        )


def make(options: Mapping[str, object], key: str) -> RegexParser:
    """A parser from checked ``options``; ``key`` is where they are (``parser_options``)."""
    unknown = sorted(str(option) for option in options if option not in OPTIONS)
    if unknown:
        raise ConfigError(
            f"unknown option {unknown[0]!r} of the regex parser",
            key=f"{key}.{unknown[0]}",
            hint=_HINT,
        )
    pattern = _pattern(options, key)
    unit = _text_option(options, "unit", key)
    if unit is None and "unit" not in pattern.groupindex:
        raise ConfigError(
            "required: the pattern has no group 'unit', so the unit must be given",
            key=f"{key}.unit",
            hint="unit = 's' (or add a named group (?P<unit>...) to the pattern)",
        )
    name = _text_option(options, "name", key) or "value"
    return RegexParser(pattern, name, unit, _scale(options, key))
