"""fio ``--output-format=json`` (also ``normal,json``: text around the JSON).

For each job and each of ``read`` and ``write`` that did any I/O:

- ``<job>.<dir>.bw`` in ``bytes/sec`` (``bw_bytes``, or fio's KiB/s ``bw`` x 1024);
- ``<job>.<dir>.iops`` in ``iops``;
- ``<job>.<dir>.clat`` in ``ns``: mean completion latency (``clat_ns``, or the
  microseconds of fio 2's ``clat``).

Jobs that share a name (``--numjobs=N`` without ``group_reporting``) are one
job: bandwidth and IOPS are summed, latency is the mean over all their I/Os.
A job that reports an error is a ParseError.
"""

from __future__ import annotations

from dataclasses import dataclass

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
from perfwalk.parsers.values import require

DIRECTIONS = ("read", "write")


@dataclass
class _Total:
    bw: float = 0.0
    iops: float = 0.0
    clat_sum: float = 0.0  # mean latency (ns) x number of samples
    clat_count: float = 0.0


def _clat_ns(stats: JsonObject, where: str) -> tuple[float, float] | None:
    """(mean in ns, number of samples) of the completion latency, if reported."""
    for key, to_ns in (("clat_ns", 1.0), ("clat", 1000.0)):
        if isinstance(stats.get(key), dict):
            clat = as_object(stats[key], f"{where}.{key}")
            count = optional_number(clat, "N", f"{where}.{key}")
            mean = optional_number(clat, "mean", f"{where}.{key}")
            if mean is None or count == 0:
                return None
            return mean * to_ns, 1.0 if count is None else count
    return None


def _add(total: _Total, stats: JsonObject, where: str) -> None:
    bw_bytes = optional_number(stats, "bw_bytes", where)
    total.bw += bw_bytes if bw_bytes is not None else number_at(stats, "bw", where) * 1024
    total.iops += number_at(stats, "iops", where)
    clat = _clat_ns(stats, where)
    if clat is not None:
        total.clat_sum += clat[0] * clat[1]
        total.clat_count += clat[1]


def parse(text: str) -> tuple[Value, ...]:
    doc = find_object(text, ("jobs",), "fio")
    totals: dict[tuple[str, str], _Total] = {}
    for index, item in enumerate(list_at(doc, "jobs", "fio JSON")):
        where = f"fio JSON jobs[{index}]"
        job = as_object(item, where)
        name = str_at(job, "jobname", where)
        error = optional_number(job, "error", where)
        if error:
            raise ParseError(f"fio job {name!r} reported error {error:g}")
        for direction in DIRECTIONS:
            if not isinstance(job.get(direction), dict):
                continue
            stats = as_object(job[direction], f"{where}.{direction}")
            if not optional_number(stats, "io_bytes", f"{where}.{direction}"):
                continue
            _add(totals.setdefault((name, direction), _Total()), stats, f"{where}.{direction}")
    values = []
    for (name, direction), total in totals.items():
        prefix = f"{name}.{direction}"
        values += [
            Value(f"{prefix}.bw", total.bw, "bytes/sec"),
            Value(f"{prefix}.iops", total.iops, "iops"),
        ]
        if total.clat_count:
            values.append(Value(f"{prefix}.clat", total.clat_sum / total.clat_count, "ns"))
    return require(values, "fio jobs with read or write I/O (io_bytes > 0)")
