"""What a series' parsers missed, read from the store: the checkouts where a test
passed without metrics it gave at the checkouts before
(:mod:`perfwalk.analysis.lost_values`: a regex that misses some lines), and the
metrics the configuration declares (``[test.metrics.<name>]``, as ``perfwalk init``'s
example does) that the series never produced. ``perfwalk run`` says them at its end,
``perfwalk show`` under its table, the checkout page on the checkout."""

from __future__ import annotations

from dataclasses import dataclass

from perfwalk.analysis.lost_values import LostValues, TestNames, lost_values
from perfwalk.config.instruments import ALL_INSTRUMENT_METRICS
from perfwalk.config.model import Config
from perfwalk.quantities import many
from perfwalk.store import Store


@dataclass(frozen=True)
class NeverProduced:
    """The configuration's ``[test.metrics.<name>]`` of ``test``, never produced in the
    series, whose test gave ``produced``."""

    test: str
    name: str
    produced: tuple[str, ...]

    def said(self) -> str:
        gave = ", ".join(self.produced) if self.produced else "no value"
        return (
            f"test {self.test}: [test.metrics.{self.name}] declares a metric the series never "
            f"produced (the test gave: {gave}); name the table after a metric its parser gives "
            f"(`perfwalk parse --test {self.test} OUTPUT` lists them) or remove it"
        )


@dataclass(frozen=True)
class ParserFindings:
    """The values a series' parsers lost, by checkout, and its declared metrics that
    never came."""

    lost: tuple[LostValues, ...] = ()
    never: tuple[NeverProduced, ...] = ()

    def lines(self, series_id: int, test: str | None = None) -> list[str]:
        """What ``perfwalk run`` says at its end and ``perfwalk show`` under its table:
        one line per test and what it lost, with the checkouts, and one per declared
        metric never produced (of ``test`` only, unless None), each with its remedy."""
        at: dict[tuple[str, str], list[int]] = {}
        for lost in self.lost:
            if test in (None, lost.test):
                at.setdefault((lost.test, lost.said()), []).append(lost.idx)
        lines = []
        for (name, said), idxs in at.items():
            shown = ", ".join(map(str, idxs[:10])) + (", …" if len(idxs) > 10 else "")
            lines.append(
                f"warning: {said}, at {many(len(idxs), 'checkout')} ({shown}): fix its parser "
                f"(`perfwalk parse --test {name} FILE` tries it on an output `perfwalk log "
                f"{series_id}:{idxs[0]} --test {name}` shows), then `perfwalk reparse "
                f"{series_id}` reads the stored outputs again, without a walk"
            )
        return lines + [f"warning: {x.said()}" for x in self.never if test in (None, x.test)]

    def said_by_checkout(self) -> dict[int, tuple[str, ...]]:
        """What the parsers lost, said per checkout index."""
        said: dict[int, list[str]] = {}
        for found in self.lost:
            said.setdefault(found.idx, []).append(found.said())
        return {idx: tuple(lines) for idx, lines in said.items()}


def parsed_names(found: dict[int, dict[str, tuple[int, dict[str, int]]]]) -> dict[int, TestNames]:
    """:meth:`~perfwalk.store.Store.metric_names` without the instruments' metrics:
    what the parsers found."""
    return {
        idx: {
            test: (passed, {n: c for n, c in names.items() if n not in ALL_INSTRUMENT_METRICS})
            for test, (passed, names) in tests.items()
        }
        for idx, tests in found.items()
    }


def parser_findings(store: Store, config: Config | None, series_id: int) -> ParserFindings:
    """What the parsers of series ``series_id`` lost, and the metrics ``config``
    declares that it never produced (of the tests it ran and ``config`` keeps; none
    without a config)."""
    lost = lost_values(parsed_names(store.metric_names(series_id)))
    never: list[NeverProduced] = []
    if config is not None:
        lost = [found for found in lost if config.keeps(found.test)]
        produced = store.produced_metrics(series_id)
        ran = {test for tests in store.test_statuses(series_id).values() for test in tests}
        for test in config.tests:
            if test.name not in ran or not config.keeps(test.name):
                continue
            gave = tuple(sorted(name for t, name in produced if t == test.name))
            never += [
                NeverProduced(test.name, name, gave)
                for name in sorted(test.metrics)
                if (test.name, name) not in produced
            ]
    return ParserFindings(tuple(lost), tuple(never))


def stored_losses(store: Store, series_id: int) -> dict[int, tuple[str, ...]]:
    """What the parsers of series ``series_id`` lost, as the end of its walk or its
    last reparse stored it, said per checkout index (what its checkout pages mark)."""
    found = [LostValues(*loss) for loss in store.parser_losses.of_series(series_id)]
    return ParserFindings(tuple(found)).said_by_checkout()
