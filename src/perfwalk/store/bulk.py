"""Many rows at a time: IN lists in chunks, multi-row inserts that return their ids,
and rows straight from the driver for the reads of many rows."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from sqlalchemy import Connection

#: Rows per IN list / multi-row insert: well below every back-end's parameter limit.
CHUNK = 500

_T = TypeVar("_T")


def chunks(items: Sequence[_T], size: int = CHUNK) -> Iterator[Sequence[_T]]:
    """``items`` in slices of at most ``size``."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def insert_returning_ids(conn: Connection, table: Any, params: list[dict[str, Any]]) -> list[int]:
    """Insert rows; their new ids in the order of ``params``."""
    if not params:
        return []
    query = table.insert().returning(table.c.id, sort_by_parameter_order=True)
    return [int(row.id) for row in conn.execute(query, params)]


def insert_rows(
    conn: Connection, table: Any, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    """Insert ``rows``, tuples in the order of ``columns``, as the driver inserts many
    rows fastest: SQLite's executemany, PostgreSQL's COPY (psycopg's executemany sends
    them one by one). For inserts of many rows, where a dictionary per row and its
    processing cost more than the insert. Each value must be as its column stores it
    (no type processing here: :func:`~perfwalk.store.coltypes.safe_text` for text,
    :func:`~perfwalk.store.coltypes.stored_real` for a number that may be NaN)."""
    if not rows:
        return
    quote = conn.dialect.identifier_preparer
    into = f"{quote.format_table(table)} ({', '.join(quote.quote(c) for c in columns)})"
    if conn.dialect.name == "postgresql":
        driver = conn.connection.driver_connection  # in the transaction of ``conn``
        with driver.cursor() as cursor, cursor.copy(f"COPY {into} FROM STDIN") as copy:  # type: ignore[union-attr]
            for row in rows:
                copy.write_row(row)
        return
    marks = ", ".join(["?" if conn.dialect.paramstyle == "qmark" else "%s"] * len(columns))
    conn.exec_driver_sql(f"INSERT INTO {into} VALUES ({marks})", list(rows))


def plain_rows(conn: Connection, query: Any) -> list[tuple[Any, ...]]:
    """The rows of ``query`` as the driver gives them: no result processing, for the
    reads of many rows. Bound values are literal integers."""
    sql = str(query.compile(dialect=conn.dialect, compile_kwargs={"literal_binds": True}))
    cursor = conn.connection.cursor()
    try:
        cursor.execute(sql)
        return list(cursor.fetchall())
    finally:
        cursor.close()


def insert_or_keep(conn: Connection) -> Callable[..., Any]:
    """The ``insert`` of the connection's back-end, the one with ``on_conflict_do_nothing``.
    Its dialect is imported when it is used: PostgreSQL's costs every command on an
    SQLite store some 50 ms of start-up."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert
    from sqlalchemy.dialects import sqlite

    return sqlite.insert
