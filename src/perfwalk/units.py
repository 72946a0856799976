"""Units and the direction that is better for each by default."""

from __future__ import annotations

from perfwalk.model import Direction

_LOWER_IS_BETTER = frozenset(
    "s sec ms us ns min bytes B KiB MiB GiB kbytes percent % retransmits cycles"
    " instructions misses ns/op B/op allocs/op errors lost".split()
)
_HIGHER_IS_BETTER = frozenset(
    "bits/sec bit/s bps bytes/sec B/s KiB/s MiB/s MB/s ops/sec ops/s 1/sec iops pps"
    " packets/sec files/sec items/s".split()
)


def default_direction(unit: str) -> Direction:
    """The better direction for ``unit``: rates go up, times and sizes go down.

    Unknown units count as lower-is-better unless they look like a rate (``x/s``,
    ``x/sec``), which is the safer default for durations and counters.
    """
    if unit in _HIGHER_IS_BETTER:
        return Direction.HIGHER
    if unit in _LOWER_IS_BETTER:
        return Direction.LOWER
    if unit.endswith(("/s", "/sec", "ps")):
        return Direction.HIGHER
    return Direction.LOWER
