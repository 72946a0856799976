"""Stores that cannot be written, or are damaged: read where they can be, and every
failure a StoreError naming the store and what to do (exit 2), never a traceback.

- A store opened only to read writes nothing, on either back-end.
- A store on read-only media (a read-only mount when root, where file modes do not
  stop anyone; a store and directory without write permission otherwise) is
  listed, shown, exported, analysed and published; a command that writes says
  the store is read-only.
- A damaged store (garbage, a truncated file, a row whose text is not UTF-8 read
  through the driver's own cursor) fails every command with a StoreError.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from perfwalk.cli import exits
from perfwalk.cli.main import main
from perfwalk.errors import StoreError
from perfwalk.store import LATEST_VERSION, Store, schema
from perfwalk.store.connect import Database
from perfwalk.store.migrations import MIGRATIONS, migrate
from tests.fixtures.synthetic_repo import make_known_values_repo
from tests.store.factories import new_series

CONFIG = """\
[project]
repo = "{repo}"
[store]
url = "sqlite:///{store}"
[build]
steps = ["sh build.sh"]
[run]
repetitions = 3
step = "commit/5"
[[test]]
name = "latency"
command = "sh bench.sh"
parser = "value"
"""

#: the commands that only read, each with what it must print
READS = [
    (["list"], "finished"),
    (["show"], "latency.latency [ms]"),
    (["status"], "repetitions 27 of 27"),
    (["export", "--format", "csv"], "latency,PASS,latency,ms,100"),
    (["changes"], "REGRESSION"),
    (["regress", "runs"], "no regress runs yet"),
]


def test_a_store_opened_to_read_writes_nothing(store_url: str) -> None:
    with Store.open(store_url) as store:
        series_id = store.create_series(new_series())
    with Store.open(store_url, read_only=True) as store:
        assert store.read_only
        assert store.series(series_id).id == series_id
        with pytest.raises(StoreError, match="read-only"):
            store.set_series_state(series_id, "finished")
    with Store.open(store_url, read_only=True) as regress:
        assert regress.regress.runs() == []
    with Store.open(store_url) as store:
        assert store.series(series_id).state == "running"


def test_a_store_of_another_schema_opened_to_read(store_url: str) -> None:
    """An older store that can be written is upgraded (as any open always did), a newer
    one refused; neither is read with the wrong schema."""
    db = Database(store_url)
    try:
        older = LATEST_VERSION - 1
        assert migrate(lambda: db.write("make"), db.shown, MIGRATIONS[:older]) == older
    finally:
        db.dispose()
    with Store.open(store_url, read_only=True) as store:
        assert store.schema_version == LATEST_VERSION
        assert store.list_series() == []
    engine = create_engine(store_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                schema.meta.update()
                .where(schema.meta.c.key == "schema_version")
                .values(value=str(LATEST_VERSION + 1))
            )
    finally:
        engine.dispose()
    with pytest.raises(StoreError, match="newer than this perfwalk knows"):
        Store.open(store_url, read_only=True)


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of one walk of the known-values project (read by the tests, on copies)."""
    root = tmp_path_factory.mktemp("read-only")
    known = make_known_values_repo(root / "project")
    config = root / "perfwalk.toml"
    config.write_text(CONFIG.format(repo=known.path, store=root / "store.db"))
    assert main(["run", "-c", str(config)]) == 0
    return root


def _config(walked: Path, store: Path, tmp_path: Path) -> Path:
    config = tmp_path / "perfwalk.toml"
    config.write_text(CONFIG.format(repo=walked / "project", store=store))
    return config


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_reading_a_writable_store_leaves_its_file_as_it_was(
    walked: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "store.db"
    shutil.copy(walked / "store.db", store)
    config = _config(walked, store, tmp_path)
    before = _digest(store)
    for argv, shown in READS:
        code, out, err = _run(capsys, *argv, "-c", str(config))
        assert shown in out, (argv, err)
        # changes: 1 for a regression, or 4 when a busy machine left a metric undecided
        assert code in (exits.OK, exits.FOUND, exits.UNDECIDED)
    assert _digest(store) == before


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A directory that cannot be written, and how: a read-only mount (root, who file
    modes do not stop), or no write permission (anyone else)."""
    where = tmp_path / "media"
    where.mkdir()
    if os.geteuid() != 0:
        yield where, "permissions"
        where.chmod(0o755)
        return
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"root, but cannot mount a tmpfs to make read-only: {mounted.stderr}")
    try:
        yield where, "mount"
    finally:
        subprocess.run(["umount", str(where)], check=True)


def _make_read_only(where: Path, how: str) -> None:
    if how == "mount":
        subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
    else:
        for path in where.iterdir():
            path.chmod(0o444)
        where.chmod(0o555)


def test_a_store_on_read_only_media_is_read_and_a_write_is_refused_clearly(
    walked: Path,
    tmp_path: Path,
    read_only_dir: tuple[Path, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    where, how = read_only_dir
    store = where / "store.db"
    shutil.copy(walked / "store.db", store)
    _make_read_only(where, how)
    config = _config(walked, store, tmp_path)
    before = _digest(store)
    for argv, shown in READS:
        code, out, err = _run(capsys, *argv, "-c", str(config))
        # changes: 1, a regression without a cause, or 4 when a busy machine left a
        # metric undecided
        assert code in (exits.OK, exits.FOUND, exits.UNDECIDED), (argv, err)
        assert shown in out, (argv, err)
    code, out, err = _run(capsys, "report", "-c", str(config), "--out", str(tmp_path / "site"))
    assert code == 0, err
    assert (tmp_path / "site" / "index.html").is_file()
    code, out, err = _run(capsys, "compare", "1:0", "1:8", "--config", str(config))
    assert code == 1, err  # 100 ms against 130 ms: proven
    for argv in (["run"], ["run", "--resume"], ["hosts"]):
        code, _out, err = _run(capsys, *argv, "-c", str(config))
        assert code == 2
        assert str(store) in err
        assert "read-only file system" in err if how == "mount" else "not writable" in err
        assert "commands that only read the store" in err
    assert _digest(store) == before
    assert sorted(p.name for p in where.iterdir()) == ["store.db"]


def test_an_older_store_on_read_only_media_is_refused_naming_why(
    tmp_path: Path, read_only_dir: tuple[Path, str]
) -> None:
    where, how = read_only_dir
    url = f"sqlite:///{where / 'store.db'}"
    db = Database(url)
    try:
        migrate(lambda: db.write("make"), db.shown, MIGRATIONS[: LATEST_VERSION - 1])
    finally:
        db.dispose()
    _make_read_only(where, how)
    with pytest.raises(StoreError, match="of an older perfwalk") as info:
        Store.open(url, read_only=True)
    assert "cannot be written to upgrade it" in info.value.message
    assert info.value.hint is not None
    assert "where it can be written" in info.value.hint


def _damage(store: Path, how: str) -> None:
    if how == "garbage":
        store.write_bytes(bytes(range(256)) * 64)
    elif how == "truncated":
        with store.open("r+b") as file:
            file.truncate(store.stat().st_size // 3)
    else:  # a flipped bit in a pack's text: not UTF-8, read through the driver's cursor
        with closing(sqlite3.connect(store)) as conn, conn:
            conn.execute("update checkout_pack set detail = cast(x'7b22ff22' as text)")


_COMMANDS = [["report"], ["list"], ["show"], ["changes"], ["export"], ["run", "--resume"]]


@pytest.mark.parametrize(
    ("how", "argv"),
    [
        *(
            pytest.param(how, argv, id=f"{how}-{argv[0]}")
            for how in ("garbage", "truncated")
            for argv in _COMMANDS
        ),
        # the pages read the packs through the driver's own cursor
        pytest.param("a damaged row", ["report"], id="damaged row-report"),
    ],
)
def test_a_damaged_store_is_a_store_error_naming_it(
    walked: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    how: str,
    argv: list[str],
) -> None:
    store = tmp_path / "store.db"
    shutil.copy(walked / "store.db", store)
    _damage(store, how)
    config = _config(walked, store, tmp_path)
    extra = ["--out", str(tmp_path / "site")] if argv == ["report"] else []
    code, _out, err = _run(capsys, *argv, *extra, "-c", str(config))
    assert code == 2, err
    assert f"result store sqlite:///{store}" in err
    assert "hint:" in err
    if how != "garbage":
        assert "damaged" in err
