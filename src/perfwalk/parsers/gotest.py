"""``go test -bench`` text output.

A result line is ``BenchmarkName-8  1000  1234 ns/op  56 B/op  2 allocs/op ...``:
a name, the iteration count, then (number, unit) pairs, including the ``MB/s``
of ``b.SetBytes`` and the custom metrics of ``b.ReportMetric``. Each pair gives
``<Benchmark>.<unit>`` in ``<unit>``, e.g. ``BenchmarkJoin.ns/op``; the name
keeps its sub-benchmark path and loses its ``-N`` GOMAXPROCS suffix.

A parser returns the values of one execution: when a benchmark appears several
times (``-count N``, or ``-cpu 2,4`` whose suffixes are dropped) each value is
the MEAN of its lines. Go prints no suffix when GOMAXPROCS is 1, so a name that
ends in ``-<digits>`` of its own (``BenchmarkX/size-16`` under ``-cpu 1``) loses
that ending: give such sub-benchmarks names like ``size=16``.
"""

from __future__ import annotations

import re

from perfwalk.model import Value
from perfwalk.parsers.values import finite, mean_of_repeats, require

_LINE = re.compile(
    r"^(?P<name>Benchmark\S*?)(?:-\d+)?[ \t]+\d+[ \t]+(?P<pairs>\S[^\n]*)$", re.MULTILINE
)


def _pairs(name: str, pairs: str) -> list[Value]:
    """The (number, unit) pairs of one result line, up to the first that is not one."""
    words = pairs.split()
    values = []
    for number_text, unit in zip(words[::2], words[1::2], strict=False):
        number = finite(number_text)
        if number is None or finite(unit) is not None:
            break
        values.append(Value(f"{name}.{unit}", number, unit))
    return values


def parse(text: str) -> tuple[Value, ...]:
    values = [
        value for match in _LINE.finditer(text) for value in _pairs(match["name"], match["pairs"])
    ]
    return require(
        mean_of_repeats(values),
        "'Benchmark<Name>-<procs> <iterations> <number> <unit> ...' lines of go test -bench",
    )
