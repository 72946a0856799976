"""The parsers of a walk's tests: each test's, each role's, and those a quirk gives a
test where it holds; every one runs in the walk's parse worker, bounded by its
test's ``parse_timeout`` (:mod:`perfwalk.orchestrate.walk.parsing`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from perfwalk.config.model import Config, TestConfig
from perfwalk.orchestrate.checkout.quirks import PlannedQuirk, replaced_test
from perfwalk.orchestrate.walk.parsing import ParseWorker
from perfwalk.parsers import Parser, get_parser


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
