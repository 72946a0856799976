"""pytest-benchmark ``--benchmark-json``: the file, or the JSON in pytest's output.

For every benchmark, named by its ``name`` (``test_sort``, ``test_fib[15]``), or
by its ``fullname`` (``tests/test_x.py::test_sort``) when two benchmarks share a
name: ``<name>.min``, ``.max``, ``.mean``, ``.median``, ``.stddev`` in ``s`` and
``<name>.ops`` in ``ops/s``.
"""

from __future__ import annotations

from collections import Counter

from perfwalk.model import Value
from perfwalk.parsers.jsontext import (
    as_object,
    find_object,
    list_at,
    object_at,
    optional_number,
    str_at,
)
from perfwalk.parsers.values import require

STATISTICS = (
    ("min", "s"),
    ("max", "s"),
    ("mean", "s"),
    ("median", "s"),
    ("stddev", "s"),
    ("ops", "ops/s"),
)


def parse(text: str) -> tuple[Value, ...]:
    doc = find_object(text, ("machine_info", "benchmarks"), "pytest-benchmark")
    where = "pytest-benchmark JSON benchmarks"
    entries = [
        as_object(item, f"{where}[{index}]")
        for index, item in enumerate(list_at(doc, "benchmarks", "pytest-benchmark JSON"))
    ]
    names = [str_at(entry, "name", f"{where}[{i}]") for i, entry in enumerate(entries)]
    shared = {name for name, count in Counter(names).items() if count > 1}
    values = []
    for index, (entry, name) in enumerate(zip(entries, names, strict=True)):
        here = f"{where}[{index}]"
        label = str_at(entry, "fullname", here) if name in shared else name
        stats = object_at(entry, "stats", here)
        for statistic, unit in STATISTICS:
            number = optional_number(stats, statistic, f"{here}.stats")
            if number is not None:
                values.append(Value(f"{label}.{statistic}", number, unit))
    return require(values, "benchmarks with 'stats' in the pytest-benchmark JSON")
