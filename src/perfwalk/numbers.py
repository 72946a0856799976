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
