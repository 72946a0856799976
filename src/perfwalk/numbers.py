"""Numbers as documents carry them: JSON has no NaN or infinity.

Every JSON perfwalk writes goes through :func:`json_text` (or ``json.dumps`` with
``allow_nan=False``, checked by a test): a number that is not finite is ``null``,
never the ``NaN`` or ``Infinity`` that strict JSON readers refuse.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any


def finite_or_none(value: float | None) -> float | None:
    """``value`` when it is a finite number; None for None, NaN and ±infinity."""
    return value if value is not None and math.isfinite(value) else None


def number_in(value: object) -> float | None:
    """A number a stored document holds (an int or a float, never a bool), as a float;
    None for anything else."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def numbers_in(values: object) -> tuple[float, ...]:
    """The finite numbers of a stored list (:func:`number_in`), in order; what is not
    one is left out, and anything but a list holds none."""
    if not isinstance(values, list):
        return ()
    return tuple(n for v in values if (n := number_in(v)) is not None and math.isfinite(n))


def finite_document(value: Any) -> Any:
    """``value`` (mappings, lists, tuples, scalars) with every float that is not
    finite replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {key: finite_document(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite_document(item) for item in value]
    return value


def json_text(document: Any, **options: Any) -> str:
    """``document`` as strict JSON (``json.dumps`` options allowed): NaN and
    ±infinity as ``null``."""
    return json.dumps(finite_document(document), allow_nan=False, **options)
