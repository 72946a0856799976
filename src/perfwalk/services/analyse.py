"""The analysis use case over a file: find the changes of one series of numbers
(``perfwalk detect``). Comparing two samples is :mod:`perfwalk.services.compare`;
the changes of every stored series are found by
:func:`perfwalk.orchestrate.findings.changes.find_changes`.

Nothing here imports the store or the configuration: ``detect`` starts fast.
"""

from __future__ import annotations

from pathlib import Path

from perfwalk.analysis.changepoints import Detection, find_change_points
from perfwalk.analysis.segments import DEFAULT_TUNING, Tuning
from perfwalk.analysis.series_file import parse_series
from perfwalk.text_files import read_user_text


def file_points(
    path: Path, *, column: str | None = None, delimiter: str = ","
) -> list[list[float]]:
    """The points of a series file (see :func:`perfwalk.analysis.series_file.parse_series`)."""
    return parse_series(read_user_text(path), str(path), column=column, delimiter=delimiter)


def detect_file(
    path: Path, *, column: str | None = None, delimiter: str = ",", tuning: Tuning = DEFAULT_TUNING
) -> Detection:
    """The change points of the series in a file."""
    return find_change_points(file_points(path, column=column, delimiter=delimiter), tuning=tuning)
