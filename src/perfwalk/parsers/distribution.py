"""Histograms as results: the percentiles of a distribution a tool printed whole, and
the options of the parsers that read one (``hdrhistogram``, ``bpftrace-hist``,
``dtrace-quantize``).

Each such parser reads the tool's histograms into :class:`~perfwalk.model.Histogram`
buckets and gives, per histogram, a value per configured percentile,
``<histogram>.p<q>`` (``latency.p99``) in the histogram's unit: ordinary metrics
that the analysis watches like any other, each carrying its histogram, which the
store keeps whole with the repetition.

A percentile is the value of the sample of rank ``ceil(q/100 × count)``. In a
bucket of bpftrace or DTrace (a range of values) it is placed linearly between the
bucket's bounds, as Prometheus' ``histogram_quantile`` does; HdrHistogram's rows are
values at their percentiles already, and the percentile is the value of the first
row whose count reaches the rank, as HdrHistogram's ``getValueAtPercentile`` says.

Options (``parser_options``), checked when the parser is made:

- ``percentiles``: the percentiles to give, numbers above 0 and at most 100
  (default ``[50, 90, 99]``);
- ``unit``: the unit of the histogram's values (default ``us``): the tools print
  numbers without one;
- ``name``: the name of a histogram the output does not name (HdrHistogram's table,
  an unnamed DTrace aggregation; default ``latency``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from perfwalk.errors import ConfigError, ParseError
from perfwalk.model import Histogram, Value
from perfwalk.parsers.values import require

OPTIONS = ("percentiles", "unit", "name")
DEFAULT_PERCENTILES: tuple[float, ...] = (50.0, 90.0, 99.0)
DEFAULT_UNIT = "us"
DEFAULT_NAME = "latency"
_HINT = "histogram parser options: percentiles = [50, 90, 99], unit = 'us', name = 'latency'"

#: Buckets as a tool printed them: ``(low, high, count)``.
Buckets = list[tuple[float, float, int]]
#: A histogram read from a text: its name (None: the output does not name it) and
#: its buckets; extra values the tool printed beside it (HdrHistogram's mean).
Found = tuple[str | None, Buckets, dict[str, float]]
#: A tool's reader: the text in, every histogram found in it.
Reader = Callable[[str], list[Found]]


def percentile(histogram: Histogram, q: float, *, interpolate: bool = True) -> float:
    """The ``q``-th percentile (0 < q ≤ 100) of a histogram that holds a sample:
    placed in its bucket, or (``interpolate`` False) the bucket's upper bound."""
    total = histogram.count
    rank = max(1, math.ceil(q * total / 100 - 1e-9))
    seen = 0
    for low, high, count in histogram.buckets:
        if count > 0 and seen + count >= rank:
            if not interpolate:
                return high
            return low + (high - low) * (rank - seen) / count
        seen += count
    raise ValueError(f"histogram {histogram.name!r} holds no sample")


def percentile_name(q: float) -> str:
    """``p50``, ``p99``, ``p99.9``."""
    return f"p{q:g}"


@dataclass(frozen=True)
class DistributionParser:
    """A histogram parser made with its options: a picklable ``text -> values``."""

    parser: str
    read: Reader
    percentiles: tuple[float, ...] = DEFAULT_PERCENTILES
    unit: str = DEFAULT_UNIT
    name: str = DEFAULT_NAME
    interpolate: bool = True

    def __call__(self, text: str) -> tuple[Value, ...]:
        values: list[Value] = []
        names: set[str] = set()
        for given, buckets, extra in self.read(text):
            name = self._unique(given or self.name, names)
            histogram = Histogram(name, self.unit, tuple(buckets))
            if histogram.count <= 0:
                continue  # an empty histogram has no percentile: said below if all are
            for q in self.percentiles:
                value = percentile(histogram, q, interpolate=self.interpolate)
                values.append(Value(f"{name}.{percentile_name(q)}", value, self.unit, histogram))
            for label, number in extra.items():
                values.append(Value(f"{name}.{label}", number, self.unit, histogram))
        return require(values, f"{self.parser}: a histogram holding at least one sample")

    @staticmethod
    def _unique(name: str, taken: set[str]) -> str:
        unique, n = name, 1
        while unique in taken:
            n += 1
            unique = f"{name}_{n}"
        taken.add(unique)
        return unique


def _percentiles(value: object, where: str) -> tuple[float, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str) or not value:
        raise ConfigError(
            f"expected a non-empty list of percentiles, got {value!r}",
            key=where,
            hint="for example: percentiles = [50, 90, 99, 99.9]",
        )
    found = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int | float) or not 0 < item <= 100:
            raise ConfigError(
                f"a percentile is a number above 0 and at most 100, got {item!r}",
                key=where,
                hint="for example: percentiles = [50, 90, 99, 99.9]",
            )
        found.append(float(item))
    return tuple(dict.fromkeys(sorted(found)))


def _text(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip() or value != value.strip():
        raise ConfigError(f"expected a non-empty word, got {value!r}", key=where, hint=_HINT)
    return value


def configured(
    parser: str,
    read: Reader,
    options: Mapping[str, object],
    key: str,
    *,
    interpolate: bool = True,
) -> DistributionParser:
    """The parser ``parser`` of the histograms ``read`` finds, with ``options``; its
    percentiles placed in their buckets or (``interpolate`` False) at their tops."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ConfigError(
            f"unknown option {unknown[0]!r} of the {parser} parser",
            key=f"{key}.{unknown[0]}",
            hint=_HINT,
        )
    percentiles = DEFAULT_PERCENTILES
    if "percentiles" in options:
        percentiles = _percentiles(options["percentiles"], f"{key}.percentiles")
    unit = _text(options["unit"], f"{key}.unit") if "unit" in options else DEFAULT_UNIT
    name = _text(options["name"], f"{key}.name") if "name" in options else DEFAULT_NAME
    return DistributionParser(parser, read, percentiles, unit, name, interpolate)


def ascending(parser: str, buckets: Buckets, where: str) -> Buckets:
    """``buckets`` when their bounds ascend; a ParseError naming ``where`` else."""
    lows = [low for low, _, _ in buckets]
    if any(high < low for low, high, _ in buckets) or lows != sorted(lows):
        raise ParseError(f"{parser}: {where}: the buckets do not ascend")
    return buckets
