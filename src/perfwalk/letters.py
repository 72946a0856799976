"""Quirk letters: the short label of a quirk on every plot, table and legend.

Quirk ``i`` (0-based, in date order) is shown as ``A``…``Z`` for 0…25, ``a``…``z``
for 26…51, then the same 52 letters again with one prime (U+2032 ``′``) added per
wrap: 52 → ``A′``, 78 → ``a′``, 104 → ``A′′``. The predecessor used an apostrophe;
the prime cannot be confused with a quote in a page, a shell word or a CSV cell.
"""

from __future__ import annotations

import string

PRIME = "\u2032"
_LETTERS = string.ascii_uppercase + string.ascii_lowercase


def quirk_letter(index: int) -> str:
    """The label of quirk number ``index`` (0-based); raises ValueError below 0."""
    if index < 0:
        raise ValueError(f"quirk index must be 0 or more, not {index}")
    wraps, position = divmod(index, len(_LETTERS))
    return _LETTERS[position] + PRIME * wraps


def quirk_index(letter: str) -> int:
    """The inverse of :func:`quirk_letter`; raises ValueError for anything else."""
    base, primes = letter[:1], letter[1:]
    if not base or base not in _LETTERS or primes.strip(PRIME):
        raise ValueError(f"not a quirk letter: {letter!r}")
    return len(primes) * len(_LETTERS) + _LETTERS.index(base)
