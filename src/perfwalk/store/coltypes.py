"""Column types that store the same thing the same way on SQLite and PostgreSQL.

- :class:`UTCDateTime`: aware datetimes in, UTC out (naive ones are refused);
- :class:`SafeText`: text that both back-ends accept (NUL and lone surrogates,
  which can come from untrusted test output or commit messages, are replaced);
- :class:`Real`: a double that may be NaN (SQLite cannot store NaN; NULL stands for it);
- :data:`ID`: 64-bit keys on PostgreSQL, rowid-backed INTEGER keys on SQLite.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, DateTime, Double, Integer, Text
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

ID = BigInteger().with_variant(Integer(), "sqlite")
"""Primary and foreign keys."""

_REPLACEMENT = "\ufffd"


class UTCDateTime(TypeDecorator[datetime]):
    """A point in time, stored in UTC (``timestamptz`` on PostgreSQL)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value.isoformat()} given: timestamps must be aware")
        utc = value.astimezone(UTC)
        return utc.replace(tzinfo=None) if dialect.name == "sqlite" else utc

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:  # noqa: ARG002
        if value is None:
            return None
        if not isinstance(value, datetime):  # pragma: no cover - both drivers give datetimes
            raise TypeError(f"expected a datetime from the database, got {value!r}")
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def safe_text(value: str) -> str:
    """``value`` without the characters a database refuses (NUL, lone surrogates)."""
    if "\x00" in value:
        value = value.replace("\x00", _REPLACEMENT)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-8", errors="replace").decode("utf-8")
    return value


class SafeText(TypeDecorator[str]):
    """Untrusted text; see :func:`safe_text`."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:  # noqa: ARG002
        return None if value is None else safe_text(value)


def stored_real(value: float | None) -> float | None:
    """A number as :class:`Real` stores it: NaN as None (NULL)."""
    if value is None:
        return None
    number = float(value)
    return None if math.isnan(number) else number


class Real(TypeDecorator[float]):
    """A double precision number; NaN is stored as NULL and read back as NaN."""

    impl = Double
    cache_ok = True

    def process_bind_param(self, value: float | None, dialect: Dialect) -> float | None:  # noqa: ARG002
        return stored_real(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> float:  # noqa: ARG002
        return math.nan if value is None else float(value)
