"""Long series of floats: computed point by point with numpy, handed to the search as
``array('d')``.

The search (:mod:`perfwalk.analysis.segmentation`) passes over every point a few
dozen times (differences, squares, running sums, moving sums) and then reads a few
thousand of those numbers one at a time. numpy does the passes; an ``array('d')``
holds their results, whose items are plain Python floats when read one at a time.

Every number is the one plain Python computes: element-wise ``+ - * /``, ``abs`` and
``sqrt`` are exactly rounded in both, and :func:`running_sums` adds in order, as
:func:`itertools.accumulate` does (numpy's ``cumsum`` adds one value after the other;
only its ``sum`` adds pairwise).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

Floats = NDArray[np.float64]


def floats(values: Floats) -> array[float]:
    """``values`` as an ``array('d')`` (a copy)."""
    out = array("d")
    out.frombytes(np.ascontiguousarray(values, dtype=np.float64).data.cast("B"))
    return out


def numbers(values: Sequence[float]) -> Floats:
    """``values`` as a numpy array (an ``array('d')`` without a copy)."""
    if isinstance(values, array):
        return np.frombuffer(values, dtype=np.float64)
    return np.asarray(values, dtype=np.float64)


def running_sums(values: Floats) -> array[float]:
    """0 and the sums of the first 1, 2, … ``values``, added in order: the same numbers
    as ``[0.0, *itertools.accumulate(values)]``."""
    sums = np.empty(len(values) + 1)
    sums[0] = 0.0
    sums[1:] = values
    return floats(np.cumsum(sums))


def per_point(size: int, blocks: Sequence[float], n: int) -> Floats:
    """The values of ``blocks`` of ``size`` points, point by point (``n`` points; the last
    block takes the points beyond)."""
    out = np.repeat(np.asarray(blocks, dtype=np.float64), size)[:n]
    if len(out) < n:
        out = np.concatenate((out, np.full(n - len(out), blocks[-1], dtype=np.float64)))
    return out
