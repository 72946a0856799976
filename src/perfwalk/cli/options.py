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
from collections.abc import Callable
from typing import Any

from perfwalk.config.settings import COUNT as COUNT_RULE
from perfwalk.config.settings import WAIT_SECONDS, Rule, rule, setting
from perfwalk.limits import MAX_ID, MAX_TOTAL, MAX_WIDTH, MAX_Z, MIN_INTERVAL


class Bounded:
    """An argparse type: a word read by ``read`` (int or float) that obeys ``rules``;
    ``expected`` says what it allows (for docs/cli.md)."""

    def __init__(self, read: Callable[[str], float], what: str, *rules: Rule) -> None:
        self.read = read
        self.what = what
        self.rules = rules
        self.expected = "; ".join(found.expected for found in rules)
        self.__name__ = what

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


def integer(*rules: Rule) -> Bounded:
    """A whole number obeying ``rules``."""
    return Bounded(int, "a whole number", *rules)


def number(*rules: Rule) -> Bounded:
    """A number obeying ``rules`` (which refuse NaN and infinity)."""
    return Bounded(float, "a number", *rules)


def _between(low: float, high: float, *, low_included: bool = True, also: str = "") -> Rule:
    lowest = f">= {low:g}" if low_included else f"> {low:g}"
    return rule(
        f"{lowest} and at most {high:g}{also}",
        lambda value: (low <= value if low_included else low < value) and value <= high,
    )


#: repetitions at each checkout, as [run] repetitions
REPETITIONS = integer(*setting("run.repetitions").rules)
#: a series id of the store
SERIES_ID = integer(rule(f"a series id, 1 to {MAX_ID}", lambda value: 1 <= value <= MAX_ID))
#: a count of up to MAX_COUNT (trials, builds, points of a level)
COUNT = integer(COUNT_RULE)
#: the repetitions a drill may run in all
TOTAL = integer(rule(f"2 to {MAX_TOTAL}", lambda value: 2 <= value <= MAX_TOTAL))
#: a z threshold of the change detector
Z = number(_between(0, MAX_Z, low_included=False))
#: seconds to wait (0 = not at all)
WAIT = number(WAIT_SECONDS)
#: a TCP port to listen on; 0 = any free one
PORT = integer(rule("a TCP port, 0 to 65535 (0: any free port)", lambda v: 0 <= v <= 65535))
#: how often serve looks for new results
INTERVAL = number(_between(MIN_INTERVAL, 86400, also=" (a day)"))
#: the width of a text plot
WIDTH = integer(rule(f"2 to {MAX_WIDTH}", lambda value: 2 <= value <= MAX_WIDTH))
#: a column of a file, from 1
COLUMN = integer(COUNT_RULE)
