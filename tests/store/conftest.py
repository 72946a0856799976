"""Store fixtures: every store test runs on SQLite and on PostgreSQL.

The PostgreSQL URL comes from ``PERFWALK_TEST_PG_URL`` (``make test`` sets it;
by hand: ``export PERFWALK_TEST_PG_URL="$(scripts/pg-server start /tmp/pwpg)"``).
Each test gets a schema of its own in that database, dropped afterwards. Without
the variable the PostgreSQL variants are skipped, except under CI, where they fail.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url

from perfwalk.store import Store
from perfwalk.store.connect import Database

PG_ENV = "PERFWALK_TEST_PG_URL"
PG_MISSING = "PostgreSQL not started: run `make test` or scripts/pg-server start"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def pg_base_url() -> str:
    """The PostgreSQL test URL, or skip (fail under CI) when there is none."""
    url = os.environ.get(PG_ENV, "").strip()
    if not url:
        if in_ci():
            pytest.fail(f"{PG_ENV} is not set but CI is: {PG_MISSING}", pytrace=False)
        pytest.skip(PG_MISSING)
    return url


@pytest.fixture(scope="session")
def pg_admin() -> Iterator[Engine]:
    """An engine on the PostgreSQL test database, to create and drop test schemas."""
    engine = create_engine(pg_base_url(), isolation_level="AUTOCOMMIT")
    try:
        yield engine
    finally:
        engine.dispose()


def _pg_schema_url(request: pytest.FixtureRequest) -> Iterator[str]:
    base = pg_base_url()
    admin: Engine = request.getfixturevalue("pg_admin")
    schema = f"pwtest_{uuid.uuid4().hex[:16]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text("SET lock_timeout = '20s'"))
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture(
    params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)],
)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty store: a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/store.db"
    else:
        yield from _pg_schema_url(request)


@pytest.fixture
def raw(store_url: str) -> Iterator[Engine]:
    """A plain engine on the store's database, to look behind the Store's back."""
    engine = create_engine(store_url)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture
def db(store_url: str) -> Iterator[Database]:
    """The store's database as the migrations see it (to migrate it step by step)."""
    database = Database(store_url)
    try:
        yield database
    finally:
        database.dispose()


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with Store.open(store_url) as opened:
        yield opened
