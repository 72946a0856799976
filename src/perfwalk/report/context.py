"""What every page of a series needs besides its own checkouts: the series, all its
checkouts, the commit-link template, zoom links, the changes to mark and the other
findings (excursions, drifts) to show."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from perfwalk.report import layout
from perfwalk.report.change_list import ListedChange, ListedEpisode
from perfwalk.store import CheckoutRow, SeriesRow


@dataclass(frozen=True)
class Zoom:
    """A finer series that covers the interval before a checkout."""

    series_id: int
    label: str  # first date / step, e.g. ``2024-01-03/1hour``


@dataclass(frozen=True)
class SeriesContext:
    series: SeriesRow
    checkouts: Sequence[CheckoutRow]
    commit_url: str = ""
    zooms: dict[int, tuple[Zoom, ...]] = field(default_factory=dict)  # checkout idx → zooms
    changes: Sequence[ListedChange] = ()
    episodes: Sequence[ListedEpisode] = ()
    _positions: dict[int, int] = field(default_factory=dict, repr=False, compare=False)

    @property
    def id(self) -> int:
        return self.series.id

    def commit_href(self, sha: str) -> str | None:
        return self.commit_url.replace("{commit}", sha) if self.commit_url else None

    def blocks(self) -> list[Sequence[CheckoutRow]]:
        """The checkouts cut into plot blocks (each a whole number of table pages)."""
        size = layout.PLOT_BLOCK
        return [self.checkouts[i : i + size] for i in range(0, len(self.checkouts), size)]

    def position(self, idx: int) -> int:
        """The 0-based position of checkout ``idx`` in the series."""
        if not self._positions:
            self._positions.update({row.idx: pos for pos, row in enumerate(self.checkouts)})
        return self._positions[idx]


def zoom_links(
    every: Sequence[SeriesRow], checkouts: Mapping[int, Sequence[CheckoutRow]]
) -> dict[int, dict[int, tuple[Zoom, ...]]]:
    """For each series, the finer series covering the interval before each checkout.

    Series T zooms into checkout c of series S (T ≠ S) when T's checkouts (two or
    more) all lie between S's checkout before c and c itself, or when T is S's
    child (``parent_id``: a finer walk started from S) and overlaps that interval.
    """
    spans: dict[int, tuple[datetime, datetime]] = {
        s.id: (checkouts[s.id][0].date, checkouts[s.id][-1].date) for s in every if checkouts[s.id]
    }
    found: dict[int, dict[int, list[Zoom]]] = defaultdict(lambda: defaultdict(list))
    for outer in every:
        rows = checkouts[outer.id]
        for inner in every:
            if inner.id == outer.id or inner.id not in spans:
                continue
            first, last = spans[inner.id]
            child = inner.parent_id == outer.id
            if not child and len(checkouts[inner.id]) < 2:
                continue
            for before, after in itertools.pairwise(rows):
                inside = before.date <= first and last <= after.date
                overlaps = first < after.date and before.date < last  # more than an end
                if inside or (child and overlaps):
                    label = f"{first:%Y-%m-%d}/{inner.step}"
                    found[outer.id][after.idx].append(Zoom(inner.id, label))
    return {sid: {idx: tuple(zooms) for idx, zooms in per.items()} for sid, per in found.items()}
