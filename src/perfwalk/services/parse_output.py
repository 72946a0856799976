"""What a parser makes of a saved output (``perfwalk parse``): a parser and its options
tried on a file before a walk runs them.

No store; a configuration only to take a test's parser, options and metrics (``--test``).
The parse runs as a walk's does, in a parse worker stopped after the test's
``parse_timeout`` (:mod:`perfwalk.orchestrate.walk.parsing`), so a pattern that backtracks
for ever on the output ends here too.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfwalk.config.model import Config, TestConfig
from perfwalk.config.settings import default_of
from perfwalk.errors import ParseError, UsageError
from perfwalk.model import Direction, Value
from perfwalk.orchestrate.phases.derived_values import derived_values
from perfwalk.orchestrate.walk.parsing import ParseWorker
from perfwalk.parsers import get_parser
from perfwalk.units import default_direction

#: seconds a parse may take when no test gives its parse_timeout
DEFAULT_LIMIT: float = float(default_of("test.parse_timeout"))


@dataclass(frozen=True)
class FoundValue:
    """One value as a walk would store it: ``configured`` when the test's
    ``[test.metrics.<name>]`` sets its direction, else the direction is its unit's."""

    name: str
    value: float
    unit: str
    direction: Direction
    configured: bool = False


@dataclass(frozen=True)
class Parsed:
    """The values a parser found (and a test's derived metrics), or (none found) the
    parser's reason; with values, what a derived metric could not be computed from."""

    parser: str
    values: tuple[FoundValue, ...]
    reason: str = ""


@dataclass(frozen=True)
class ParserChoice:
    """A parser, its options, the key its options are named by in errors, and the
    test they come from (None: given on the command line)."""

    name: str
    options: Mapping[str, object]
    key: str = "parser"
    test: TestConfig | None = None
    #: seconds the parse may take; None: the test's parse_timeout, else DEFAULT_LIMIT
    timeout: float | None = None

    @property
    def limit(self) -> tuple[float, str]:
        """The seconds the parse may take and the setting that says so."""
        if self.timeout is not None:
            return self.timeout, "--timeout"
        if self.test is not None:
            return self.test.parse_timeout, f"test.{self.test.name}.parse_timeout"
        return DEFAULT_LIMIT, "--timeout"


def options_from(pairs: Sequence[str], toml_text: str | None) -> dict[str, object]:
    """Parser options from ``--options-toml`` text, then ``--option K=V`` pairs over it.

    ``K`` may be dotted (``units.compress=MB/s``); ``V`` is read as a TOML value when it
    is one (``1000``, ``true``, ``"text"``, ``{ a = 1 }``), else taken as it is written.
    """
    options: dict[str, Any] = {}
    if toml_text is not None:
        try:
            options = tomllib.loads(toml_text)
        except tomllib.TOMLDecodeError as error:
            raise UsageError(
                f"--options-toml: not TOML: {error}",
                hint="the keys of parser_options, one per line; a pattern with backslashes "
                "between single quotes (a TOML literal string): --options-toml "
                "\"pattern = 'took (?P<value>\\\\d+) ms'\"",
            ) from None
    for pair in pairs:
        key, equals, text = pair.partition("=")
        parts = key.strip().split(".")
        if not equals or not all(part.strip() for part in parts):
            raise UsageError(
                f"--option {pair!r}: expected KEY=VALUE",
                hint="for example: --option unit=ms --option units.compress=MB/s",
            )
        table = options
        for part in parts[:-1]:
            inner = table.setdefault(part.strip(), {})
            if not isinstance(inner, dict):
                raise UsageError(f"--option {pair!r}: {part} is a value, not a table")
            table = inner
        table[parts[-1].strip()] = _value(text)
    return options


def _value(text: str) -> object:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parser_of_test(config: Config, name: str) -> ParserChoice:
    """The parser and options of the test ``name`` of ``config`` (a sweep's name: its
    first member's)."""
    for test in config.tests:
        if name in (test.name, test.family):
            return ParserChoice(
                test.parser, test.parser_options, key=f"test.{test.name}.parser", test=test
            )
    tests = ", ".join(dict.fromkeys(test.family or test.name for test in config.tests))
    raise UsageError(
        f"--test {name}: no such test", hint=f"the tests of the configuration: {tests}"
    )


def read_output(path: Path | None, stdin: bytes | None = None) -> str:
    """The saved output as a walk reads it: bytes as written (``\\r`` kept), invalid
    UTF-8 replaced; ``path`` None: ``stdin``."""
    if path is None:
        data = stdin or b""
    else:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise UsageError(f"{path}: no such file", hint="check the path") from None
        except IsADirectoryError:
            raise UsageError(f"{path} is a directory, not a saved output") from None
        except OSError as error:
            raise UsageError(f"{path}: cannot read it: {error.strerror}") from None
    return data.decode("utf-8", errors="replace")


def parse_output(choice: ParserChoice, text: str) -> Parsed:
    """What the parser of ``choice`` finds in ``text``; a ConfigError for bad options."""
    parser = get_parser(choice.name, choice.options, key=choice.key)
    where = f" of test {choice.test.name}" if choice.test is not None else ""
    limit, setting = choice.limit
    with ParseWorker() as worker:
        try:
            values = worker.parse(
                parser,
                text,
                limit=limit,
                label=f"parser {choice.name!r}{where}",
                setting=setting,
            )
        except ParseError as error:
            return Parsed(choice.name, (), error.message)
    left_out: list[str] = []
    if choice.test is not None:  # and its derived metrics, as a repetition stores them
        derived, left_out = derived_values(choice.test, values)
        values += tuple(value for value, _direction in derived)
    return Parsed(choice.name, tuple(_found(choice.test, values)), "; ".join(left_out))


def _found(test: TestConfig | None, values: Iterable[Value]) -> Iterable[FoundValue]:
    for value in values:
        if test is None:
            yield FoundValue(value.name, value.value, value.unit, default_direction(value.unit))
            continue
        metric = test.metric(value.name, value.unit)
        configured = test.metrics.get(value.name)
        yield FoundValue(
            value.name,
            value.value,
            metric.unit,
            metric.direction,
            configured=configured is not None and configured.direction is not None,
        )
