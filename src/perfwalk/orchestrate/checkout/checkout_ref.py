"""``SERIES:CHECKOUT``, as the command line names one checkout of the store: a series
id (none: the newest series, a walk's variants left out: they are named by their own
id), then a checkout index or at least 4 characters of its commit id."""

from __future__ import annotations

from collections.abc import Sequence

from perfwalk.errors import UsageError
from perfwalk.store import Store
from perfwalk.store.records import CheckoutRow, SeriesRow


def find_checkout(store: Store, operand: str) -> tuple[SeriesRow, CheckoutRow]:
    """The series and checkout ``operand`` names; a :class:`UsageError` that says what
    to give instead when it names none."""
    series_part, _, checkout_part = operand.partition(":")
    if not checkout_part:
        raise UsageError(
            f"{operand!r} is not SERIES:CHECKOUT",
            hint="give e.g. 3:14 (series 3, checkout 14) or 3:1a2b3c (a commit id's start)",
        )
    series = _series(store, series_part, operand)
    return series, _checkout(store.checkouts(series.id), checkout_part, series, operand)


def _series(store: Store, part: str, operand: str) -> SeriesRow:
    if not part:  # the newest series of the plain checkout (a variant's is named)
        every = store.list_series()
        newest = [s for s in every if s.kind != "variant"] or every
        if not newest:
            raise UsageError(
                f"{operand}: the store holds no series yet", hint="run `perfwalk run` first"
            )
        return newest[0]
    if not part.isdigit():
        raise UsageError(f"{operand}: {part!r} is not a series id", hint="see `perfwalk list`")
    return store.series(int(part))


def _checkout(
    checkouts: Sequence[CheckoutRow], part: str, series: SeriesRow, operand: str
) -> CheckoutRow:
    if part.isdigit():
        for c in checkouts:
            if c.idx == int(part):
                return c
    matches = [c for c in checkouts if len(part) >= 4 and c.sha.startswith(part.lower())]
    if len(matches) == 1:
        return matches[0]
    what = "is ambiguous" if matches else "matches no checkout"
    raise UsageError(
        f"{operand}: {part!r} {what} of series {series.id}",
        hint=f"give a checkout index (0 to {len(checkouts) - 1}) or at least 4 characters "
        f"of its commit id; see `perfwalk show {series.id}`",
    )
