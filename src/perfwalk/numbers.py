"""Numbers as documents carry them: JSON has no NaN or infinity."""

from __future__ import annotations

import math


def finite_or_none(value: float | None) -> float | None:
    """``value`` when it is a finite number; None for None, NaN and ±infinity."""
    return value if value is not None and math.isfinite(value) else None
