"""Opening a store: bad URLs, unreachable servers and unusable files are StoreErrors."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from perfwalk.errors import StoreError
from perfwalk.store import Store
from perfwalk.store.connect import hide_password


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port  # nothing listens there any more


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("results.db", "not a store URL"),
        ("", "not a store URL"),
        ("mysql://user@host/db", "unsupported database 'mysql'"),
        ("postgresql+asyncpg://user@host/db", "unsupported PostgreSQL driver 'asyncpg'"),
        ("sqlite+aiosqlite:///x.db", "unsupported SQLite driver"),
        # no such dialect in SQLAlchemy: told as the others, not its ImportError
        ("nosuch://user@host/db", "unsupported database 'nosuch'"),
        ("sqlite+nosuch:///x.db", "unsupported SQLite driver"),
        ("postgresql+nosuch://user@host/db", "unsupported PostgreSQL driver 'nosuch'"),
    ],
)
@pytest.mark.parametrize("read_only", [False, True])
def test_bad_urls(url: str, message: str, read_only: bool) -> None:
    with pytest.raises(StoreError, match=message) as info:
        Store.open(url, read_only=read_only)
    assert info.value.hint is not None
    assert "sqlite:///" in info.value.hint or "psycopg" in info.value.hint


def test_missing_directory(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/missing/results.db"
    with pytest.raises(StoreError, match=f"directory {tmp_path}/missing does not exist") as info:
        Store.open(url)
    assert url in str(info.value)
    assert info.value.hint == "create the directory or fix the path"


def test_directory_instead_of_file(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory") as info:
        Store.open(f"sqlite:///{tmp_path}")
    assert info.value.hint is not None
    assert "results.db" in info.value.hint


def test_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError, match=f"{path}.*not a database") as info:
        Store.open(f"sqlite:///{path}")
    assert info.value.hint is not None
    assert "not a SQLite database" in info.value.hint
    assert path.read_bytes().startswith(b"these are my notes")


def test_unreachable_server_hides_the_password() -> None:
    port = _closed_port()
    url = f"postgresql+psycopg://walker:s3cret-pw@127.0.0.1:{port}/perf"
    with pytest.raises(StoreError) as info:
        Store.open(url)
    message = str(info.value)
    assert "s3cret-pw" not in message
    assert "s3cret-pw" not in (info.value.hint or "")
    assert f"postgresql+psycopg://walker:***@127.0.0.1:{port}/perf" in message
    assert info.value.hint is not None
    assert "server is running" in info.value.hint


def test_a_password_in_the_query_is_not_shown(tmp_path: Path) -> None:
    url = f"postgresql://postgres@/perf?host={tmp_path}/nowhere&password=hunter22"
    with pytest.raises(StoreError, match="cannot open the store") as info:
        Store.open(url)
    assert "hunter22" not in str(info.value)
    assert "password=***" in str(info.value)


def test_missing_socket_directory(tmp_path: Path) -> None:
    url = f"postgresql://postgres@/perf?host={tmp_path}/nowhere"
    with pytest.raises(StoreError, match="cannot open the store") as info:
        Store.open(url)
    assert "nowhere" in str(info.value)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:pw@h/db", "postgresql://u:***@h/db"),
        ("postgresql://u@h/db", "postgresql://u@h/db"),
        ("not a url at all", "not a url at all"),
        ("x://a:b:c@h", "x://a:***@h"),
        (
            "postgresql://u@h/db?password=pw&sslmode=off",
            "postgresql://u@h/db?password=***&sslmode=off",
        ),
    ],
)
def test_hide_password(url: str, shown: str) -> None:
    assert hide_password(url) == shown
