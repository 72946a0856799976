"""hyperfine ``--export-json``: the file's content, or the JSON in mixed output.

With ``--export-json /dev/stdout`` the JSON follows the text report, and with
several commands hyperfine writes the whole document again after each one: the
last document is complete and is the one used.

Values, in ``s``, for each command: ``mean``, ``median``, ``min``, ``max``,
``stddev`` (missing with a single run). With several commands the names are
prefixed with the command (or its ``--command-name``): ``<command>.mean``.
"""

from __future__ import annotations

from perfwalk.errors import ParseError
from perfwalk.model import Value
from perfwalk.parsers.jsontext import as_object, find_object, list_at, optional_number, str_at

STATISTICS = ("mean", "median", "min", "max", "stddev")


def parse(text: str) -> tuple[Value, ...]:
    doc = find_object(text, ("results",), "hyperfine")
    results = list_at(doc, "results", "hyperfine JSON")
    if not results:
        raise ParseError("hyperfine JSON: the 'results' list is empty: no command was measured")
    values = []
    for index, item in enumerate(results):
        where = f"hyperfine JSON results[{index}]"
        result = as_object(item, where)
        prefix = f"{str_at(result, 'command', where)}." if len(results) > 1 else ""
        for statistic in STATISTICS:
            number = optional_number(result, statistic, where)
            if number is not None:
                values.append(Value(prefix + statistic, number, "s"))
    if not values:
        raise ParseError("hyperfine JSON: no mean, median, min, max or stddev in the results")
    return tuple(values)
