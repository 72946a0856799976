"""From a store URL to a configured SQLAlchemy engine, and database errors to StoreError.

SQLite (``sqlite:///path``, the default) runs in WAL mode with foreign keys on and
a busy timeout; SQLAlchemy emits ``BEGIN`` itself (the sqlite3 module's own
transaction handling would autocommit DDL and let reads escape the transaction),
and write transactions take the write lock up front (``BEGIN IMMEDIATE``) so two
writers wait for each other instead of failing. PostgreSQL is reached through
psycopg 3 (``postgresql+psycopg://``; a bare ``postgresql://`` means the same).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from perfwalk.errors import StoreError
from perfwalk.secret_text import MASK, hide_password, url_secrets

__all__ = ["Connected", "Database", "StorePart", "hide_password"]

SQLITE_BUSY_TIMEOUT_MS = 30_000
PG_CONNECT_TIMEOUT_S = 10

_URL_HINT = (
    "give a SQLAlchemy URL: sqlite:///path/to/results.db (a file) or "
    "postgresql+psycopg://user:password@host/database"
)
_BEGIN_OPTION = "perfwalk_begin"


class Database:
    """An engine plus what is needed to report its errors without leaking the password."""

    def __init__(self, url: str) -> None:
        parsed = _parse(url)
        self.shown = hide_password(parsed.render_as_string(hide_password=True))
        self.backend = parsed.get_backend_name()
        password = parsed.password if isinstance(parsed.password, str) else None
        self._secrets = sorted({*url_secrets(url), *([password] if password else [])})
        if self.backend == "sqlite":
            _check_sqlite_path(parsed, self.shown)
            self.engine = _sqlite_engine(parsed)
        else:
            self.engine = create_engine(
                parsed,
                pool_pre_ping=True,
                connect_args={"connect_timeout": PG_CONNECT_TIMEOUT_S},
            )

    def dispose(self) -> None:
        self.engine.dispose()

    @contextmanager
    def read(self, action: str) -> Iterator[Connection]:
        """A connection for reading; its transaction is rolled back at the end."""
        with self._errors(action), self.engine.connect() as conn:
            yield conn

    @contextmanager
    def write(self, action: str) -> Iterator[Connection]:
        """One write transaction: committed when the block ends, rolled back on error."""
        with self._errors(action), self.engine.connect() as conn:
            if self.backend == "sqlite":
                conn.execution_options(**{_BEGIN_OPTION: "IMMEDIATE"})
            with conn.begin():
                yield conn

    @contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        try:
            yield
        except SQLAlchemyError as err:
            raise self.error(action, err) from err

    def error(self, action: str, err: SQLAlchemyError) -> StoreError:
        """A StoreError for ``err`` that names the store and says what to do."""
        orig = getattr(err, "orig", None)  # the driver's (or a bind processor's) exception
        reason = str(orig if orig is not None else err).strip().splitlines()
        text = reason[0] if reason else type(err).__name__
        for secret in sorted(self._secrets, key=len, reverse=True):
            text = text.replace(secret, MASK)
        return StoreError(
            f"result store {self.shown}: cannot {action}: {text}", hint=self._hint(text)
        )

    def _hint(self, text: str) -> str | None:
        lowered = text.lower()
        if self.backend == "sqlite":
            if "not a database" in lowered:
                return "this file is not a SQLite database: give the path of a perfwalk store"
            if "unable to open" in lowered or "readonly" in lowered:
                return "check that the file and its directory exist and are writable"
            if "locked" in lowered:
                return "another process holds the store locked for too long; retry when it is done"
            return None
        if "connect" in lowered or "connection" in lowered or "server" in lowered:
            return (
                "check that the PostgreSQL server is running and reachable, and the user, "
                "password and database in the URL"
            )
        return None


def _parse(url: str) -> URL:
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError) as err:
        raise StoreError(f"not a store URL: {hide_password(url)!r}", hint=_URL_HINT) from err
    backend, driver = parsed.get_backend_name(), parsed.get_driver_name()
    shown = hide_password(parsed.render_as_string(hide_password=True))
    if backend == "sqlite":
        if "+" in parsed.drivername and driver != "pysqlite":
            raise StoreError(f"unsupported SQLite driver in {shown}", hint=_URL_HINT)
        return parsed
    if backend == "postgresql":
        if "+" not in parsed.drivername:
            return parsed.set(drivername="postgresql+psycopg")
        if driver != "psycopg":
            raise StoreError(
                f"unsupported PostgreSQL driver {driver!r} in {shown}",
                hint="use postgresql+psycopg:// (psycopg 3 is what perfwalk installs)",
            )
        return parsed
    raise StoreError(f"unsupported database {backend!r} in {shown}", hint=_URL_HINT)


def _sqlite_file(parsed: URL) -> Path | None:
    database = parsed.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _check_sqlite_path(parsed: URL, shown: str) -> None:
    path = _sqlite_file(parsed)
    if path is None:
        return
    parent = path.parent
    if path.is_dir():
        raise StoreError(
            f"result store {shown}: {path} is a directory",
            hint=f"give a file name, e.g. sqlite:///{path / 'results.db'}",
        )
    if not parent.is_dir():
        raise StoreError(
            f"result store {shown}: directory {parent} does not exist",
            hint="create the directory or fix the path",
        )
    target = path if path.exists() else parent
    if not os.access(target, os.W_OK):
        raise StoreError(
            f"result store {shown}: {target} is not writable",
            hint="fix the permissions or choose another path",
        )


def _sqlite_engine(parsed: URL) -> Engine:
    engine = create_engine(parsed, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})
    in_file = _sqlite_file(parsed) is not None

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN (see _on_begin)
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            if in_file:
                cursor.execute("PRAGMA journal_mode = WAL")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get(_BEGIN_OPTION, "DEFERRED")
        conn.exec_driver_sql(f"BEGIN {mode}")

    return engine


class Connected:
    """What every store over a :class:`Database` shares: closing once, and ``with``."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._closed = False

    def close(self) -> None:
        """Release the connections; the store cannot be used afterwards."""
        if not self._closed:
            self._closed = True
            self._db.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class StorePart:
    """A part of an open store (its conductor runs, its drills): the store's database,
    and transactions that fail once the store is closed."""

    def __init__(self, db: Database, check_open: Callable[[], None]) -> None:
        self._db = db
        self._check_open = check_open

    @contextmanager
    def _read(self, action: str) -> Iterator[Connection]:
        self._check_open()
        with self._db.read(action) as conn:
            yield conn

    @contextmanager
    def _write(self, action: str) -> Iterator[Connection]:
        self._check_open()
        with self._db.write(action) as conn:
            yield conn
