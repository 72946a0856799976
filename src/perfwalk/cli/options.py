"""The numbers of the command line: each option's type parses a word and checks it
against a rule declared once: the rule of the setting it overrides
(:mod:`perfwalk.config.settings`) or one of the bounds of :mod:`perfwalk.limits`.

A word that is not a number, ``nan``, ``inf``, a negative count or a count that
would exhaust the memory is refused by argparse with a message naming the option
(``argument -n/--repetitions: expected 1 to 10000, got 99999999999999999999``),
exit 2, before anything runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from perfwalk.limits import MAX_ID, MAX_TOTAL, MAX_WIDTH, MAX_Z, MIN_INTERVAL
from perfwalk.quantities import read_bytes

if TYPE_CHECKING:
    from perfwalk.config.settings import Rule

#: makes the rules of an option when they are first needed: the settings are
#: imported by a command that reads an option, or its help, not by every start
Rules = Callable[[], Sequence["Rule"]]


class Bounded:
    """An argparse type: a word read by ``read`` (int or float) that obeys the rules
    ``rules`` makes; ``expected`` says what they allow (for docs/cli.md)."""

    def __init__(self, read: Callable[[str], float], what: str, rules: Rules) -> None:
        self.read = read
        self.what = what
        self._make = rules
        self._rules: tuple[Rule, ...] | None = None
        self.__name__ = what

    @property
    def rules(self) -> tuple[Rule, ...]:
        if self._rules is None:
            self._rules = tuple(self._make())
        return self._rules

    @property
    def expected(self) -> str:
        return "; ".join(found.expected for found in self.rules)

    def __call__(self, word: str) -> Any:
        try:
            value = self.read(word)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {self.what}, got {word[:40]!r}") from None
        for found in self.rules:
            problem = found.problem(value)
            if problem is not None:
                raise argparse.ArgumentTypeError(problem)
        return value


def integer(rules: Rules) -> Bounded:
    """A whole number obeying ``rules``."""
    return Bounded(int, "a whole number", rules)


def number(rules: Rules) -> Bounded:
    """A number obeying ``rules`` (which refuse NaN and infinity)."""
    return Bounded(float, "a number", rules)


def _of_setting(dotted: str) -> Rules:
    """The rules of the setting ``dotted``."""

    def make() -> Sequence[Rule]:
        from perfwalk.config.settings import setting

        return setting(dotted).rules

    return make


def _named(name: str) -> Rules:
    """The rule ``name`` of :mod:`perfwalk.config.settings` (COUNT, WAIT_SECONDS)."""

    def make() -> Sequence[Rule]:
        from perfwalk.config import settings

        found: Rule = getattr(settings, name)
        return (found,)

    return make


def _rule(expected: str, ok: Callable[[Any], bool]) -> Rules:
    def make() -> Sequence[Rule]:
        from perfwalk.config.settings import rule

        return (rule(expected, ok),)

    return make


def _between(low: float, high: float, *, low_included: bool = True, also: str = "") -> Rules:
    lowest = f">= {low:g}" if low_included else f"> {low:g}"
    return _rule(
        f"{lowest} and at most {high:g}{also}",
        lambda value: (low <= value if low_included else low < value) and value <= high,
    )


#: repetitions at each checkout, as [run] repetitions
REPETITIONS = integer(_named("COUNT"))
#: a series id of the store
SERIES_ID = integer(_rule(f"a series id, 1 to {MAX_ID}", lambda value: 1 <= value <= MAX_ID))
#: the id of a record of the store (an applied modifier's)
RECORD_ID = integer(_rule(f"a record id, 1 to {MAX_ID}", lambda value: 1 <= value <= MAX_ID))
#: an index from 0 (a repetition of a checkout)
INDEX = integer(_rule(f"an index, 0 to {MAX_ID}", lambda value: 0 <= value <= MAX_ID))
#: a count of up to MAX_COUNT (trials, builds, points of a level)
COUNT = integer(_named("COUNT"))
#: the repetitions a drill may run in all
TOTAL = integer(_rule(f"2 to {MAX_TOTAL}", lambda value: 2 <= value <= MAX_TOTAL))
#: a z threshold of the change detector
Z = number(_between(0, MAX_Z, low_included=False))
#: the smallest relative change the change detector reports, as [analysis] min_change
MIN_CHANGE = number(_of_setting("analysis.min_change"))
#: seconds to wait (0 = not at all)
WAIT = number(_named("WAIT_SECONDS"))
#: a TCP port to listen on; 0 = any free one
PORT = integer(_rule("a TCP port, 0 to 65535 (0: any free port)", lambda v: 0 <= v <= 65535))
#: how often serve looks for new results
INTERVAL = number(_between(MIN_INTERVAL, 86400, also=" (a day)"))
#: the width of a text plot
WIDTH = integer(_rule(f"2 to {MAX_WIDTH}", lambda value: 2 <= value <= MAX_WIDTH))
#: a column of a file, from 1
COLUMN = integer(_named("COUNT"))
#: seconds a parse may take, as a test's parse_timeout
PARSE_TIMEOUT = number(_of_setting("test.parse_timeout"))
#: days, as [retention] older_than
RETENTION_DAYS = integer(_of_setting("retention.older_than"))
#: a size in bytes, as [retention] max_size: 500M, 2GiB, 1.5GB, 4096
SIZE = Bounded(
    read_bytes,
    "a size such as 500M, 2GiB, 1.5GB or 4096",
    _rule("a size: 500M, 2GiB (binary), 1.5GB (SI) or bytes", lambda value: value >= 0),
)


def names_list(word: str) -> tuple[str, ...]:
    """``a,b``: names separated by commas (blanks around them ignored); an empty name
    is refused."""
    names = tuple(part.strip() for part in word.split(","))
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected names separated by commas, got {word[:40]!r}")
    return names


def names_of_tests(word: str) -> tuple[str, ...]:
    """``net,udp[size=64,streams=1]``: names separated by the commas outside brackets."""
    from perfwalk.config.test_selection import split_names

    return split_names(word)


def add_tests_option(p: argparse.ArgumentParser, doing: str, *, one: bool = False) -> None:
    """``--tests NAME,…``: what a command does to some of the tests only (``one``:
    ``--test TEST`` too, a test by its name as stored)."""
    if one:
        p.add_argument("--test", help="only this test")
    p.add_argument(
        "--tests",
        metavar="NAME,…",
        type=names_of_tests,
        help=f"{doing} only these tests, separated by commas: groups ([[test]] group), "
        "tests and sweeps (a sweep's name, or some of its members: udp[size=64]); the "
        "configuration is not changed",
    )
