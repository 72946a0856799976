"""Google Benchmark ``--benchmark_format=json`` (or ``--benchmark_out``'s file).

For every entry of ``benchmarks``, named as Google Benchmark names it (aggregates
keep their suffix: ``BM_x/64_mean``, ``BM_x/64_stddev``):

- ``<name>.real_time``, ``<name>.cpu_time`` in the entry's ``time_unit`` (``ns``,
  ``us``, ``ms`` or ``s``: any other is a ParseError);
- ``<name>.items_per_second`` (``items/s``), ``<name>.bytes_per_second``
  (``bytes/sec``) when the benchmark sets them.

Aggregates whose ``aggregate_unit`` is ``percentage`` (``_cv``) are given in
``percent``. Repetitions (``--benchmark_repetitions``) repeat an entry's name:
the value is the mean of the repetitions. Entries that failed or were skipped
(``error_occurred``, ``skipped``) give no value; when none is left, their
messages are the ParseError's.
"""

from __future__ import annotations

from perfwalk.errors import ParseError
from perfwalk.model import Value
from perfwalk.parsers.jsontext import (
    JsonObject,
    as_object,
    find_object,
    list_at,
    number_at,
    optional_number,
    str_at,
)
from perfwalk.parsers.values import mean_of_repeats, require

RATES = (("items_per_second", "items/s"), ("bytes_per_second", "bytes/sec"))
#: The time units Google Benchmark writes (``--benchmark_time_unit``): no other is read.
TIME_UNITS = ("ns", "us", "ms", "s")


def _values(name: str, entry: JsonObject, where: str) -> list[Value]:
    if entry.get("aggregate_unit") == "percentage":
        scale, time_unit, rates = 100.0, "percent", [(key, "percent") for key, _ in RATES]
    else:
        scale, time_unit, rates = 1.0, str_at(entry, "time_unit", where), list(RATES)
        if time_unit not in TIME_UNITS:
            raise ParseError(
                f"{where}.time_unit: {time_unit[:40]!r} is not one of "
                f"{', '.join(TIME_UNITS)} (the units Google Benchmark writes)"
            )
    values = [
        Value(f"{name}.{key}", number_at(entry, key, where) * scale, time_unit)
        for key in ("real_time", "cpu_time")
    ]
    for key, unit in rates:
        rate = optional_number(entry, key, where)
        if rate is not None:
            values.append(Value(f"{name}.{key}", rate * scale, unit))
    return values


def parse(text: str) -> tuple[Value, ...]:
    doc = find_object(text, ("context", "benchmarks"), "Google Benchmark")
    values: list[Value] = []
    failures: list[str] = []
    for index, item in enumerate(list_at(doc, "benchmarks", "Google Benchmark JSON")):
        where = f"Google Benchmark JSON benchmarks[{index}]"
        entry = as_object(item, where)
        name = str_at(entry, "name", where)
        if entry.get("error_occurred") is True or bool(entry.get("skipped")):
            message = entry.get("error_message", entry.get("skip_message", "skipped"))
            failures.append(f"{name}: {message}")
            continue
        values += _values(name, entry, where)
    if not values and failures:
        raise ParseError("Google Benchmark: no benchmark ran: " + "; ".join(failures))
    return require(mean_of_repeats(values), "Google Benchmark entries in 'benchmarks'")
