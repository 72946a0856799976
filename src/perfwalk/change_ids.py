"""How a change is named: ``SERIES:CHECKOUT`` or ``SERIES:COMMIT``.

A change (a step in one series' values) is named by its series and the checkout
after the step. A walk's checkouts never move, so a walk's change is named by that
checkout's index (``3:14``). A push series places each pushed commit by its date,
so a push of an older commit moves the indexes of the newer ones up: a push series'
change is named by the commit after the step instead, its first
:data:`COMMIT_DIGITS` hex digits (``34:4a84497e1f3c``), which no later push moves;
more of them where another commit of the series starts with the same ones
(:func:`commit_digits`: git's ids never do, made-up ones may).

Every command and endpoint that takes a change id takes either form for any series
(:func:`names_change`): a checkout index, or 4 hex digits or more of the commit after
the step. What a person's word is stored under is neither: it is the change's
series and commit range (:mod:`perfwalk.store.triage`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: The hex digits of the after-commit in the id of a push series' change.
COMMIT_DIGITS = 12
#: The forms of a change id, as messages name them.
FORMS = "SERIES:CHECKOUT or SERIES:COMMIT"

_ID = re.compile(r"(\d{1,18}):(\d{1,9}|[0-9A-Fa-f]{4,64})")


def change_id(series_id: int, after_idx: int, after_sha: str, *, digits: int | None) -> str:
    """The id of the change of series ``series_id`` whose new level starts at checkout
    ``after_idx`` (commit ``after_sha``): by the first ``digits`` hex digits of the
    commit (a push series, :func:`commit_digits`), else (None) by the checkout index."""
    return f"{series_id}:{after_idx if digits is None else after_sha[:digits]}"


def commit_digits(shas: Sequence[str]) -> dict[str, int]:
    """For each commit of a series, how many of its first hex digits name it: at least
    :data:`COMMIT_DIGITS`, one more than it shares with any other (all of them when
    another one starts with the whole of it)."""
    ordered = sorted(set(shas))
    found: dict[str, int] = {}
    for at, sha in enumerate(ordered):
        shared = max(
            (_common(sha, ordered[near]) for near in (at - 1, at + 1) if 0 <= near < len(ordered)),
            default=0,
        )
        found[sha] = min(len(sha), max(COMMIT_DIGITS, shared + 1))
    return found


def _common(one: str, other: str) -> int:
    """How many first characters ``one`` and ``other`` share."""
    count = 0
    for a, b in zip(one, other, strict=False):
        if a != b:
            break
        count += 1
    return count


def id_series(text: str) -> int | None:
    """The series a change id names; None when ``text`` is not a change id."""
    found = _ID.fullmatch(text.strip())
    return None if found is None else int(found.group(1))


def names_change(text: str, series_id: int, after_idx: int, after_sha: str) -> bool:
    """Whether ``text`` names that change: its series with the index of the checkout
    after the step, or with 4 hex digits or more of that checkout's commit."""
    found = _ID.fullmatch(text.strip())
    if found is None or int(found.group(1)) != series_id:
        return False
    after = found.group(2)
    if after.isdigit() and int(after) == after_idx:
        return True
    return len(after) >= 4 and after_sha.startswith(after.lower())
