"""``perfwalk compare``: one to seven samples, each a file of numbers, the standard
input, a checkout of the store or a conductor run's per-trial values
(``conduct:ID``), each compared with the first as ministat does
(Student's t at a confidence level, pooled sd) and by their ranks (Mann-Whitney U,
Cliff's delta). One sample is summarised only.

The store is opened, and imported, only when an operand names a checkout.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from perfwalk.analysis.ministat import (
    DEFAULT_CONFIDENCE,
    MAX_SAMPLES,
    Difference,
    Sample,
    difference,
    parse_column,
)
from perfwalk.analysis.ranks import RankTest, mann_whitney
from perfwalk.errors import UsageError
from perfwalk.model import Status
from perfwalk.text_files import read_user_text

if TYPE_CHECKING:
    from perfwalk.store import Store
    from perfwalk.store.records import ValueRow


#: What stands for the standard input among the operands, and the name ministat
#: gives its sample.
STDIN, STDIN_NAME = "-", "<stdin>"


@dataclass(frozen=True)
class Comparison:
    """The samples, and each after the first against the first: its difference
    (Student's t) and their rank test (in the order of the samples)."""

    samples: tuple[Sample, ...]
    differences: tuple[Difference, ...] = ()
    ranks: tuple[RankTest, ...] = ()

    @property
    def proven(self) -> bool:
        """A difference from the first sample is proven for one of the others."""
        return any(d.proven for d in self.differences)


def compare(
    operands: Sequence[str],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    read: ReadOptions | None = None,
    metric: str | None = None,
    config_file: Path = Path("perfwalk.toml"),
    stdin: Callable[[], str] | None = None,
    store_url: str | None = None,
) -> Comparison:
    """Compare each operand with the first: a file of numbers (read by ``read``),
    ``-`` for the text ``stdin`` reads (the command's standard input; no operand at
    all is ``-``), ``SERIES:CHECKOUT`` of the store that ``config_file`` names
    (``metric`` picks the metric there), or ``conduct:ID``, the values of each trial
    of a conductor run (``metric`` picks the value name). ``store_url``, when given,
    is the store instead of the configuration's. A path that exists is a file even
    when it holds a colon."""
    operands = list(operands) or [STDIN]
    if not 1 <= len(operands) <= MAX_SAMPLES:
        raise UsageError(
            f"{len(operands)} samples to compare: ministat compares 1 to {MAX_SAMPLES}",
            hint="give at most seven files; each is compared with the first",
        )
    if operands.count(STDIN) > 1:
        raise UsageError(
            "the standard input (-) given more than once: it can be read once",
            hint="save it to a file and give the file's name",
        )
    options = read or ReadOptions()
    samples: list[Sample | None] = [
        _file_or_stdin(operand, options, stdin)
        if operand == STDIN or Path(operand).exists() or ":" not in operand
        else None
        for operand in operands
    ]
    if any(sample is None for sample in samples):
        from perfwalk.config.load import load_config
        from perfwalk.store import Store

        url = store_url or load_config(config_file).store.url
        with Store.open(url, read_only=True) as store:
            samples = [
                sample if sample is not None else store_sample(store, operand, metric)
                for sample, operand in zip(samples, operands, strict=True)
            ]
    found = [sample for sample in samples if sample is not None]
    first, others = found[0], found[1:]
    return Comparison(
        samples=tuple(found),
        differences=tuple(difference(other, first, confidence) for other in others),
        ranks=tuple(mann_whitney(first.values, other.values) for other in others),
    )


def _file_or_stdin(operand: str, options: ReadOptions, stdin: Callable[[], str] | None) -> Sample:
    if operand != STDIN:
        return file_sample(Path(operand), options)
    if stdin is None:
        raise UsageError("no standard input to read (-)", hint="pipe the numbers in")
    text = stdin()
    values = parse_column(text, STDIN_NAME, column=options.column, delimiters=options.delimiters)
    return Sample(STDIN_NAME, tuple(values))


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
                read_user_text(path), name, column=options.column, delimiters=options.delimiters
            )
        ),
    )


#: The prefix of an operand that names a conductor run.
CONDUCT = "conduct:"


def store_sample(store: Store, operand: str, metric: str | None) -> Sample:
    """A sample of the store: ``conduct:ID`` (see :func:`conduct_sample`), else a checkout.

    The PASS values of one checkout: ``SERIES:CHECKOUT`` (a series id, then a
    checkout index or the start of its commit id; no series id: the newest series,
    a walk's variants left out: they are named by their series id).
    ``metric`` is ``TEST.NAME``, or a value name that only one test has; it may be
    left out when the checkout has one metric."""
    if operand.startswith(CONDUCT):
        return conduct_sample(store, operand, metric)
    from perfwalk.orchestrate.checkout.checkout_ref import find_checkout

    if ":" not in operand:
        raise UsageError(
            f"{operand!r} is neither a file nor SERIES:CHECKOUT",
            hint="give a file of numbers, or e.g. 3:14 (series 3, checkout 14) or 3:1a2b3c",
        )
    series, checkout = find_checkout(store, operand)
    rows = [
        r
        for r in store.values(series.id)
        if r.checkout_idx == checkout.idx and r.status is Status.PASS
    ]
    test, name = _pick_metric(rows, metric, operand)
    values = tuple(r.value for r in rows if (r.test, r.name) == (test, name))
    label = f"series {series.id} checkout {checkout.idx} ({checkout.sha[:10]}) {test}.{name}"
    return Sample(label, values)


def conduct_sample(store: Store, operand: str, metric: str | None) -> Sample:
    """The values of one name, a value per trial, of the conductor run ``conduct:ID``
    (NaN left out); the sample is named by the operand, as ministat names a file."""
    part = operand[len(CONDUCT) :]
    if not part.isdigit():
        raise UsageError(
            f"{operand}: {part!r} is not a conductor run id",
            hint="give conduct:ID, the id `perfwalk conduct` printed, e.g. conduct:3",
        )
    stored = store.conduct.values(store.conduct.run(int(part)).id)
    names = sorted({v.name for v in stored})
    if not names:
        raise UsageError(
            f"{operand}: the conductor run has no values",
            hint=f"parse its outputs: perfwalk conduct --parse {part} --parser NAME",
        )
    if metric is None and len(names) > 1:
        raise UsageError(
            f"{operand}: several values per trial",
            hint=f"pick one with --metric: {', '.join(names)}",
        )
    name = names[0] if metric is None else metric
    if name not in names:
        raise UsageError(
            f"{operand}: no value {name!r} in this conductor run",
            hint=f"values: {', '.join(names)}",
        )
    return Sample(operand, tuple(v.value for v in stored if v.name == name and v.value == v.value))


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
