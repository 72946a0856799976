"""The analysis use cases over files and the store: compare two samples, find the
changes of one series of numbers (the changes of every stored series are found by
:func:`perfwalk.orchestrate.changes.find_changes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from perfwalk.analysis.changepoints import Detection, find_change_points
from perfwalk.analysis.ministat import Sample, parse_column
from perfwalk.analysis.segmentation import DEFAULT_TUNING, Tuning
from perfwalk.analysis.series_file import parse_series
from perfwalk.errors import UsageError
from perfwalk.model import Status
from perfwalk.store import Store
from perfwalk.store.records import CheckoutRow, SeriesRow, ValueRow

# -- compare --------------------------------------------------------------------------


@dataclass(frozen=True)
class ReadOptions:
    """How ``compare`` reads a file: ministat's ``-C`` and ``-d``."""

    column: int = 1
    delimiters: str = " \t"


def file_sample(path: Path, options: ReadOptions = ReadOptions()) -> Sample:
    """The numbers of a file as a ministat sample named by its path."""
    name = str(path)
    return Sample(
        name,
        tuple(
            parse_column(
                _read_text(path), name, column=options.column, delimiters=options.delimiters
            )
        ),
    )


def store_sample(store: Store, operand: str, metric: str | None) -> Sample:
    """The PASS values of one checkout: ``SERIES:CHECKOUT`` (a series id, then a
    checkout index or the start of its commit id; no series id: the newest series).
    ``metric`` is ``TEST.NAME``, or a value name that only one test has; it may be
    left out when the checkout has one metric."""
    series_part, _, checkout_part = operand.partition(":")
    if not checkout_part:
        raise UsageError(
            f"{operand!r} is neither a file nor SERIES:CHECKOUT",
            hint="give a file of numbers, or e.g. 3:14 (series 3, checkout 14) or 3:1a2b3c",
        )
    series = _series(store, series_part, operand)
    checkouts = store.checkouts(series.id)
    checkout = _checkout(checkouts, checkout_part, series, operand)
    rows = [
        r
        for r in store.values(series.id)
        if r.checkout_idx == checkout.idx and r.status is Status.PASS
    ]
    test, name = _pick_metric(rows, metric, operand)
    values = tuple(r.value for r in rows if (r.test, r.name) == (test, name))
    label = f"series {series.id} checkout {checkout.idx} ({checkout.sha[:10]}) {test}.{name}"
    return Sample(label, values)


def _series(store: Store, part: str, operand: str) -> SeriesRow:
    if not part:
        newest = store.list_series()
        if not newest:
            raise UsageError(
                f"{operand}: the store holds no series yet", hint="run `perfwalk run` first"
            )
        return newest[0]
    if not part.isdigit():
        raise UsageError(f"{operand}: {part!r} is not a series id", hint="see `perfwalk list`")
    return store.series(int(part))


def _checkout(
    checkouts: Sequence[CheckoutRow], part: str, series: SeriesRow, operand: str
) -> CheckoutRow:
    if part.isdigit():
        for c in checkouts:
            if c.idx == int(part):
                return c
    matches = [c for c in checkouts if len(part) >= 4 and c.sha.startswith(part.lower())]
    if len(matches) == 1:
        return matches[0]
    what = "is ambiguous" if matches else "matches no checkout"
    raise UsageError(
        f"{operand}: {part!r} {what} of series {series.id}",
        hint=f"give a checkout index (0 to {len(checkouts) - 1}) or at least 4 characters "
        f"of its commit id; see `perfwalk show {series.id}`",
    )


def _pick_metric(rows: Sequence[ValueRow], metric: str | None, operand: str) -> tuple[str, str]:
    available = sorted({(r.test, r.name) for r in rows})
    if not available:
        raise UsageError(
            f"{operand}: no PASS values at this checkout", hint="pick another checkout"
        )
    if metric is None:
        if len(available) == 1:
            return available[0]
        choices = ", ".join(f"{t}.{n}" for t, n in available)
        raise UsageError(
            f"{operand}: several metrics here", hint=f"pick one with --metric: {choices}"
        )
    chosen = [(t, n) for t, n in available if f"{t}.{n}" == metric]
    chosen = chosen or [(t, n) for t, n in available if n == metric]
    if len(chosen) == 1:
        return chosen[0]
    choices = ", ".join(f"{t}.{n}" for t, n in available)
    what = "is ambiguous" if chosen else "is not measured"
    raise UsageError(f"{operand}: metric {metric!r} {what} here", hint=f"metrics: {choices}")


# -- detect ---------------------------------------------------------------------------


def file_points(
    path: Path, *, column: str | None = None, delimiter: str = ","
) -> list[list[float]]:
    """The points of a series file (see :func:`perfwalk.analysis.series_file.parse_series`)."""
    return parse_series(_read_text(path), str(path), column=column, delimiter=delimiter)


def detect_file(
    path: Path, *, column: str | None = None, delimiter: str = ",", tuning: Tuning = DEFAULT_TUNING
) -> Detection:
    """The change points of the series in a file."""
    return find_change_points(file_points(path, column=column, delimiter=delimiter), tuning=tuning)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file", hint="check the path") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a directory, not a file of numbers") from None
    except OSError as error:
        raise UsageError(f"{path}: cannot read it: {error.strerror}") from None
