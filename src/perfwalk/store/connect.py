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
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import quote

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import (
    ArgumentError,
    DisconnectionError,
    InterfaceError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout

from perfwalk.errors import StoreError, StoreUnavailable
from perfwalk.secret_text import MASK, hide_password, url_secrets

__all__ = ["Connected", "Database", "StorePart", "Transactions", "hide_password"]

SQLITE_BUSY_TIMEOUT_MS = 30_000
PG_CONNECT_TIMEOUT_S = 10

_URL_HINT = (
    "give a SQLAlchemy URL: sqlite:///path/to/results.db (a file) or "
    "postgresql+psycopg://user:password@host/database"
)
_BEGIN_OPTION = "perfwalk_begin"


#: What the commands that only read a store can do with one that cannot be written.
READ_ONLY_HINT = (
    "commands that only read the store (list, show, status, export, changes, compare, "
    "report, serve, regress runs, regress publish) work on it; to write, copy it "
    "somewhere writable and point [store] url there"
)


class Database:
    """An engine plus what is needed to report its errors without leaking the password.

    ``read_only``: every connection only reads (a SQLite file opened ``mode=ro``,
    ``immutable`` on a read-only file system; a PostgreSQL session in read-only
    transactions), and :meth:`write` refuses. Such a store may sit on read-only media.
    """

    def __init__(self, url: str, *, read_only: bool = False) -> None:
        parsed = _parse(url)
        self.shown = hide_password(parsed.render_as_string(hide_password=True))
        self.backend = parsed.get_backend_name()
        self.read_only = read_only
        self._one_state = threading.local()  # the connection of one_state(), per thread
        password = parsed.password if isinstance(parsed.password, str) else None
        self._secrets = sorted({*url_secrets(url), *([password] if password else [])})
        self.log_secrets: tuple[bytes, ...] = tuple(s.encode() for s in self._secrets)
        if self.backend == "sqlite":
            _check_sqlite_file(parsed, self.shown, read_only=read_only)
            self.engine = _sqlite_engine(parsed, read_only=read_only)
        else:
            self.engine = create_engine(
                parsed,
                pool_pre_ping=True,
                connect_args={"connect_timeout": PG_CONNECT_TIMEOUT_S},
            )
            if read_only:
                event.listen(self.engine, "connect", _pg_read_only)

    def dispose(self) -> None:
        self.engine.dispose()

    @contextmanager
    def read(self, action: str) -> Iterator[Connection]:
        """A connection for reading; its transaction is rolled back at the end (within
        :meth:`one_state`, that block's connection and transaction)."""
        pinned: Connection | None = getattr(self._one_state, "conn", None)
        if pinned is not None:
            with self._errors(action):
                yield pinned
            return
        with self._errors(action), self.engine.connect() as conn:
            yield conn

    @contextmanager
    def one_state(self, action: str) -> Iterator[None]:
        """Every read of this thread within the block sees the store in one state,
        whatever is written meanwhile: the reads share one transaction (REPEATABLE READ
        on PostgreSQL, where each statement would see the state as it starts; SQLite's
        transaction sees one state already). Nested, the outer block holds."""
        if getattr(self._one_state, "conn", None) is not None:
            yield
            return
        with self._errors(action), self.engine.connect() as conn:
            if self.backend != "sqlite":
                conn.execution_options(isolation_level="REPEATABLE READ")
            self._one_state.conn = conn
            try:
                yield
            finally:
                self._one_state.conn = None

    @contextmanager
    def write(self, action: str) -> Iterator[Connection]:
        """One write transaction: committed when the block ends, rolled back on error."""
        if self.read_only:
            raise StoreError(
                f"result store {self.shown}: cannot {action}: it was opened read-only",
                hint="this command only reads the store; this is a bug if it got here",
            )
        with self._errors(action), self.engine.connect() as conn:
            if self.backend == "sqlite":
                conn.execution_options(**{_BEGIN_OPTION: "IMMEDIATE"})
            with conn.begin():
                yield conn

    @contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        """Every error of the database, SQLAlchemy's and the driver's own (a read
        through the driver's cursor), as a StoreError naming the store."""
        driver = getattr(self.engine.dialect, "loaded_dbapi", None)
        driver_error: type[Exception] = getattr(driver, "Error", SQLAlchemyError)
        try:
            yield
        except SQLAlchemyError as err:
            raise self.error(action, err) from err
        except driver_error as err:
            raise self.error(action, err) from err

    def error(self, action: str, err: Exception) -> StoreError:
        """A StoreError for ``err`` that names the store and says what to do."""
        orig = getattr(err, "orig", None)  # the driver's (or a bind processor's) exception
        reason = str(orig if orig is not None else err).strip().splitlines()
        text = reason[0] if reason else type(err).__name__
        for secret in sorted(self._secrets, key=len, reverse=True):
            text = text.replace(secret, MASK)
        if len(text) > 200:  # a damaged row's text, quoted by the driver
            text = text[:200] + "…"
        kind = StoreUnavailable if self._unavailable(err) else StoreError
        return kind(f"result store {self.shown}: cannot {action}: {text}", hint=self._hint(text))

    def _unavailable(self, err: Exception) -> bool:
        """Whether ``err`` says the database cannot be reached now: the driver's
        OperationalError or InterfaceError (PEP 249: a lost or refused connection, a
        server that went away, a file that stayed locked), a pool with no connection
        left to give."""
        if isinstance(err, OperationalError | InterfaceError | DisconnectionError | PoolTimeout):
            return True
        driver = getattr(self.engine.dialect, "loaded_dbapi", None)
        kinds = tuple(
            kind
            for kind in (
                getattr(driver, "OperationalError", None),
                getattr(driver, "InterfaceError", None),
            )
            if isinstance(kind, type)
        )
        return bool(kinds) and isinstance(err, kinds)

    def _hint(self, text: str) -> str | None:
        lowered = text.lower()
        if self.backend == "sqlite":
            if "not a database" in lowered:
                return "this file is not a SQLite database: give the path of a perfwalk store"
            if "malformed" in lowered or "could not decode" in lowered:
                return (
                    "the store file is damaged: restore it from a backup (sqlite3 FILE "
                    "'.recover' saves what it can)"
                )
            if "readonly" in lowered or "read-only" in lowered:
                return READ_ONLY_HINT
            if "unable to open" in lowered:
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
    shown = hide_password(parsed.render_as_string(hide_password=True))
    backend = parsed.get_backend_name()
    if backend not in ("sqlite", "postgresql"):  # before SQLAlchemy looks for its dialect
        raise StoreError(f"unsupported database {backend!r} in {shown}", hint=_URL_HINT)
    driver = parsed.get_driver_name()
    if backend == "sqlite":
        if "+" in parsed.drivername and driver != "pysqlite":
            raise StoreError(f"unsupported SQLite driver in {shown}", hint=_URL_HINT)
        return parsed
    if "+" not in parsed.drivername:
        return parsed.set(drivername="postgresql+psycopg")
    if driver != "psycopg":
        raise StoreError(
            f"unsupported PostgreSQL driver {driver!r} in {shown}",
            hint="use postgresql+psycopg:// (psycopg 3 is what perfwalk installs)",
        )
    return parsed


def _sqlite_file(parsed: URL) -> Path | None:
    database = parsed.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _check_sqlite_file(parsed: URL, shown: str, *, read_only: bool) -> None:
    """Refuse a SQLite store file that cannot be opened: to read, it must be a file;
    to write, a writable file or, for a new one, a writable directory to create it in."""
    path = _sqlite_file(parsed)
    if path is None:
        return
    if path.is_dir():
        raise StoreError(
            f"result store {shown}: {path} is a directory",
            hint=f"give a file name, e.g. sqlite:///{path / 'results.db'}",
        )
    if read_only:
        if not path.is_file():
            raise StoreError(
                f"result store {shown}: no store at {path}",
                hint="fix the path in [store] url, or store something first (perfwalk run)",
            )
        return
    parent = path.parent
    if not parent.is_dir():
        raise StoreError(
            f"result store {shown}: directory {parent} does not exist",
            hint="create the directory or fix the path",
        )
    target = _write_target(path)
    if _read_only_file_system(target):
        raise StoreError(
            f"result store {shown}: {target} is on a read-only file system", hint=READ_ONLY_HINT
        )
    if not os.access(target, os.W_OK):
        if not path.exists():
            raise StoreError(
                f"result store {shown}: no store at {path}, and {parent} is not writable "
                "to create one",
                hint="fix the path in [store] url, or the directory's permissions",
            )
        raise StoreError(
            f"result store {shown}: {target} is not writable",
            hint="fix the permissions; " + READ_ONLY_HINT,
        )


def _write_target(path: Path) -> Path:
    """What must be writable to write the SQLite file ``path``: the file, or the
    directory where it is to be created."""
    return path if path.exists() else path.parent


def _read_only_file_system(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def can_write(url: str) -> bool:
    """Whether the store at ``url`` could be written: a PostgreSQL database (its
    server decides), or a SQLite file (or, for a new one, its directory) on a
    writable file system with write permission."""
    parsed = _parse(url)
    if parsed.get_backend_name() != "sqlite":
        return True
    path = _sqlite_file(parsed)
    if path is None:
        return True
    target = _write_target(path)
    return not _read_only_file_system(target) and os.access(target, os.W_OK)


def is_missing_file(url: str) -> bool:
    """Whether ``url`` is a SQLite store whose file does not exist yet."""
    parsed = _parse(url)
    path = _sqlite_file(parsed) if parsed.get_backend_name() == "sqlite" else None
    return path is not None and not path.exists()


def _pg_read_only(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
    finally:
        cursor.close()
    dbapi_connection.commit()


def _sqlite_engine(parsed: URL, *, read_only: bool = False) -> Engine:
    path = _sqlite_file(parsed)
    if read_only and path is not None:
        # mode=ro: this process never writes. immutable: nothing can change the file (a
        # read-only file system, or a directory no one here may write to without a
        # WAL index): SQLite then needs no -shm file beside it, which it could not
        # create. Not with a write-ahead log left beside it: immutable would ignore it.
        wal = Path(f"{path}-wal")
        immutable = (
            _read_only_file_system(path)
            or (not os.access(path.parent, os.W_OK) and not Path(f"{path}-shm").exists())
        ) and not (wal.exists() and wal.stat().st_size > 0)
        query = "mode=ro" + ("&immutable=1" if immutable else "")
        parsed = parsed.set(
            database=f"file:{quote(str(path.resolve()))}?{query}", query={"uri": "true"}
        )
    engine = create_engine(parsed, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})
    in_file = path is not None and not read_only

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


class Transactions:
    """Transactions on a :class:`Database` that fail once its store is closed: what
    a store and each of its parts share."""

    _db: Database

    def _check_open(self) -> None:
        raise NotImplementedError

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

    @contextmanager
    def one_state(self, action: str) -> Iterator[None]:
        """The reads of this thread within the block see the store in one state
        (:meth:`Database.one_state`): what an analysis reads in several queries agrees,
        whatever a push or a walk writes meanwhile. Not for writes."""
        self._check_open()
        with self._db.one_state(action):
            yield


class Connected(Transactions):
    """A store over a :class:`Database`: its transactions, closing once, and ``with``."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._closed = False

    @property
    def url(self) -> str:
        """The store's URL, password hidden."""
        return self._db.shown

    @property
    def read_only(self) -> bool:
        """Whether the store was opened only to read."""
        return self._db.read_only

    def mask_logs(self, secrets: Iterable[str]) -> None:
        """Mask ``secrets`` (a configuration's, see ``config_secrets``) in every log
        written from now on, as the store URL's password already is."""
        known = set(self._db.log_secrets)
        self._db.log_secrets = tuple(sorted(known | {s.encode() for s in secrets if s}))

    def opens_own_connections(self) -> bool:
        """Whether a process forked from this one can reach the same data through a
        connection of its own (every store but an in-memory SQLite database)."""
        database = self._db.engine.url.database
        return self._db.backend != "sqlite" or database not in (None, "", ":memory:")

    def forget_inherited_connections(self) -> None:
        """In a process made by ``os.fork``: leave the connections inherited from the
        parent to the parent (never use nor close them); this process opens its own."""
        self._db.engine.dispose(close=False)

    def close(self) -> None:
        """Release the connections; the store cannot be used afterwards."""
        if not self._closed:
            self._closed = True
            self._db.dispose()

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"result store {self._db.shown} is closed")

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class StorePart(Transactions):
    """A part of an open store (its drills, its leases, its regress runs…), reached
    as an attribute of the store: the store's database, and transactions that fail
    once the store is closed."""

    def __init__(self, db: Database, check_open: Callable[[], None]) -> None:
        self._db = db
        self._store_open = check_open

    def _check_open(self) -> None:
        self._store_open()
