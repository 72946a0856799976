"""How a store is opened: to write (created, or upgraded to the current schema), or
only to read (never written, so it may sit on read-only media or be a colleague's).

A read-only open checks the schema version and writes nothing, with two exceptions
that only apply to a store that can be written anyway: a SQLite file that does not
exist yet is created empty (``perfwalk list`` on a new project says "no series
yet"), and a store of an older perfwalk is upgraded once, as any open always did.
A store that cannot be written and needs either is a StoreError that says so.
"""

from __future__ import annotations

from perfwalk.errors import StoreError
from perfwalk.store.connect import READ_ONLY_HINT, Database, can_write, is_missing_file
from perfwalk.store.migrations import LATEST_VERSION as LATEST
from perfwalk.store.migrations import migrate, read_version


def open_database(url: str, *, read_only: bool = False) -> tuple[Database, int]:
    """The database at ``url`` and its schema version (the current one)."""
    if read_only and not (is_missing_file(url) and can_write(url)):
        db = Database(url, read_only=True)
        try:
            with db.read("open the store") as conn:
                version = read_version(conn, db.shown)
            if version == LATEST:
                return db, version
            if version > LATEST or not can_write(url):
                _refuse(db.shown, version)
        except BaseException:
            db.dispose()
            raise
        db.dispose()  # an older store that can be written: upgraded as ever, then read
    db = Database(url)
    try:
        version = migrate(lambda: db.write("open the store"), db.shown)
    except BaseException:
        db.dispose()
        raise
    if not read_only:
        return db, version
    db.dispose()
    return Database(url, read_only=True), version


def _refuse(shown: str, version: int) -> None:
    if version > LATEST:
        raise StoreError(
            f"result store {shown}: schema version {version} is newer than this "
            f"perfwalk knows (up to {LATEST})",
            hint="upgrade perfwalk (pip install --upgrade perfwalk) to read this store",
        )
    if version == 0:
        raise StoreError(
            f"result store {shown}: an empty database that cannot be written",
            hint="give the path of a perfwalk store; " + READ_ONLY_HINT,
        )
    raise StoreError(
        f"result store {shown}: schema version {version}, of an older perfwalk (this one "
        f"reads {LATEST}), and it cannot be written to upgrade it",
        hint="open it once where it can be written (any perfwalk command upgrades it), "
        "or read it with the perfwalk that wrote it",
    )
