"""The parsers of a walk's tests: each test's, each role's, and those a quirk gives a
test where it holds; every one runs in the walk's parse worker, bounded by its
test's ``parse_timeout`` (:mod:`perfwalk.orchestrate.walk.parsing`).

And what they lose (:class:`ParserWatch`): a repetition whose test passed without a
metric the test gave at the checkouts before its own (a regex that misses some lines
of the output) is said on the walk's line, once per checkout and test
(:mod:`perfwalk.analysis.lost_values`); at the end of the walk (and after a reparse)
:func:`record_parser_losses` stores what the whole series lost, which the checkout
pages mark (``perfwalk show`` reads it from the values: :mod:`perfwalk.report.parser_findings`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from perfwalk.analysis.lost_values import MetricNames, lost_values
from perfwalk.config.instruments import ALL_INSTRUMENT_METRICS
from perfwalk.config.model import Config, TestConfig
from perfwalk.model import Status
from perfwalk.orchestrate.checkout.quirks import PlannedQuirk, replaced_test
from perfwalk.orchestrate.walk.parsing import ParseWorker
from perfwalk.parsers import Parser, get_parser
from perfwalk.report.parser_findings import parsed_names
from perfwalk.store import Store
from perfwalk.store.records import NewResult


@dataclass
class WalkParsers:
    """The parsers of the tests of ``config``, and of the ``quirks`` that replace one."""

    config: Config
    quirks: Sequence[PlannedQuirk]

    def __post_init__(self) -> None:
        self._parsing = ParseWorker()  # parsers run there, under each test's parse_timeout
        self._parsers: dict[str, Parser] = {
            test.name: self._parsing.bounded(
                get_parser(test.parser, test.parser_options, key=f"test.{test.name}.parser"),
                limit=test.parse_timeout,
                label=f"parser {test.parser!r} of test {test.name}",
                setting=f"test.{test.name}.parse_timeout",
            )
            for test in self.config.tests
        }
        self._role_parsers: dict[str, dict[str, Parser]] = {
            test.name: {
                role: self._parsing.bounded(
                    get_parser(
                        phases.parser, phases.parser_options, key=f"test.{test.name}.roles.{role}"
                    ),
                    limit=test.parse_timeout,
                    label=f"parser {phases.parser!r} of test {test.name}, role {role}",
                    setting=f"test.{test.name}.parse_timeout",
                )
                for role, phases in test.roles.items()
                if phases.parser
            }
            for test in self.config.tests
        }
        self._quirk_parsers: dict[tuple[str, str], Parser] = {}  # (letter, test): a parser
        for quirk in self.quirks:
            for test in self.config.tests:
                replaced = quirk.config.tests.get(test.name)
                if replaced is None or not (replaced.parser or replaced.parser_options):
                    continue
                applied = replaced.applied(test)
                self._quirk_parsers[(quirk.letter, test.name)] = self._parsing.bounded(
                    get_parser(
                        applied.parser,
                        applied.parser_options,
                        key=f"quirk[{quirk.index}].test.{test.name}.parser",
                    ),
                    limit=test.parse_timeout,
                    label=f"parser {applied.parser!r} of test {test.name}, quirk {quirk.letter}",
                    setting=f"test.{test.name}.parse_timeout",
                )

    def here(self, test: TestConfig, holding: Sequence[PlannedQuirk]) -> tuple[TestConfig, Parser]:
        """``test`` and its parser as they run where ``holding`` hold: a quirk that
        holds there may replace its command, its parser or the parser's options."""
        test, letter = replaced_test(holding, test)
        parser = self._quirk_parsers.get((letter or "", test.name), self._parsers[test.name])
        return test, parser

    def roles(self, test: str) -> Mapping[str, Parser]:
        """The parsers of the roles of ``test`` that have one of their own."""
        return self._role_parsers[test]

    def close(self) -> None:
        """Stop the parse worker (the next parse starts it again)."""
        self._parsing.close()


class ParserWatch:
    """What the parsers of a walk's series found so far, checkout by checkout (read
    from the store at the first repetition of each series, then kept up)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._names: dict[int, MetricNames] = {}
        self._told: set[tuple[int, int, str]] = set()

    def check(self, series_id: int, idx: int, results: Sequence[NewResult]) -> list[str]:
        """What the passing ``results`` of a repetition of checkout ``idx`` of series
        ``series_id`` lost, said once per checkout and test."""
        names = self._names.get(series_id)
        if names is None:
            names = MetricNames(parsed_names(self._store.metric_names(series_id)))
            self._names[series_id] = names
        said = []
        for result in results:
            if result.status is not Status.PASS:
                continue
            found = {v.name for v, _ in result.values if v.name not in ALL_INSTRUMENT_METRICS}
            lost = names.lost(idx, result.test, found)
            names.add(idx, result.test, found)
            if lost is not None and (series_id, idx, result.test) not in self._told:
                self._told.add((series_id, idx, result.test))
                said.append(lost.said())
        return said


def record_parser_losses(store: Store, series_id: int) -> None:
    """Store what the parsers of series ``series_id`` lost, checkout by checkout, over
    the whole series (in place of what was stored)."""
    found = lost_values(parsed_names(store.metric_names(series_id)))
    store.parser_losses.replace(series_id, [(x.idx, x.test, x.known, x.missing) for x in found])
