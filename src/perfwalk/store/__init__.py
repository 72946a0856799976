"""The result store: series, checkouts, repetitions, results, values and logs.

SQLAlchemy Core over SQLite (default) or PostgreSQL, schema versioned by
:mod:`perfwalk.store.migrations`. Open it with :meth:`Store.open`.
"""

from perfwalk.store.migrations import LATEST_VERSION
from perfwalk.store.records import (
    SERIES_KINDS,
    SERIES_STATES,
    CheckoutRow,
    DirectionName,
    NewRepetition,
    NewResult,
    NewSeries,
    NewSnapshot,
    NewStep,
    PassedValue,
    QuirkInfo,
    QuirkRunRow,
    RepetitionRow,
    ResultRow,
    ResultSummaryRow,
    SeriesKind,
    SeriesRow,
    SeriesState,
    SnapshotRow,
    StepRow,
    StoredValue,
    ValueRow,
)
from perfwalk.store.store import Store

__all__ = [
    "LATEST_VERSION",
    "SERIES_KINDS",
    "SERIES_STATES",
    "CheckoutRow",
    "DirectionName",
    "NewRepetition",
    "NewResult",
    "NewSeries",
    "NewSnapshot",
    "NewStep",
    "PassedValue",
    "QuirkInfo",
    "QuirkRunRow",
    "RepetitionRow",
    "ResultRow",
    "ResultSummaryRow",
    "SeriesKind",
    "SeriesRow",
    "SeriesState",
    "SnapshotRow",
    "StepRow",
    "Store",
    "StoredValue",
    "ValueRow",
]
