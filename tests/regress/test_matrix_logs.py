"""The log packs behind the matrix's cells: every log of the store reads back from
them as log.js reads it, runs split over packs, a large log alone, truncated logs,
two processes writing what one writes, incremental and full publishes, and damaged
stores refused (the browser side: tests/browser/test_matrix_logs_in_chromium.py)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, update

from perfwalk.errors import StoreError
from perfwalk.model import Log, Status
from perfwalk.report import matrix, matrix_logs, matrix_paths
from perfwalk.report.matrix import MatrixOptions, publish_matrix
from perfwalk.report.matrix_logs import Packer, RunFacts
from perfwalk.store import Store, schema
from perfwalk.store.regress import NewRegressResult, NewRegressRun, StoredLogs
from tests.regress.packs import call_arguments, check_every_log, index_of, read_log

DAY0 = datetime(2026, 3, 1, 3, 0, tzinfo=UTC)
#: incompressible: its zlib stream is larger than the small packs of these tests
LARGE = random.Random(7).randbytes(6000)
CUT = Log(data=b"head\n[... cut ...]\ntail\n", total=10_000_000, truncated=True)
STATUSES = (Status.PASS, Status.FAIL, Status.SKIP, Status.NOTERM)


def night(number: int, host: str) -> NewRegressRun:
    """A run of up to 30 tests; some are absent some nights, one log is large, one cut."""
    results = []
    for test in range(30):
        if (test + number) % 7 == 0:
            continue  # not run that night
        status = STATUSES[(test * number) % len(STATUSES)]
        log = Log.of(f"night {number} test {test} on {host}\n".encode() * (1 + test % 3))
        if test == 10 and number == 3 and host == "h1":
            log = Log.of(LARGE)
        if test == 12:
            log = CUT
        message = f"test {test} <b>broke</b>" if status is Status.FAIL else ""
        results.append(NewRegressResult(f"t{test:02d}", status, log, message))
    started = DAY0 + timedelta(days=number, minutes=len(host))
    return NewRegressRun(
        host=host,
        started_at=started,
        finished_at=started + timedelta(minutes=20),
        results=tuple(results),
        arch="amd64",
        log=Log.of(f"runner of night {number} on {host}\n".encode()) if number % 2 else None,
    )


def build(url: str, nights: int = 6, hosts: tuple[str, ...] = ("h1", "h2")) -> None:
    with Store.open(url) as store:
        for number in range(nights):
            for host in hosts:
                store.regress.add_run(night(number, host))


@pytest.fixture
def url(store_url: str) -> str:
    """A store (SQLite, PostgreSQL) with six nights of two hosts."""
    build(store_url)
    return store_url


def publish(url: str, out: Path, *, full: bool = False) -> matrix.MatrixReport:
    with Store.open(url) as store:
        return publish_matrix(store, out, MatrixOptions(full=full))


def packs(site: Path) -> dict[str, bytes]:
    folder = site / matrix_logs.DIR
    return {
        p.name: p.read_bytes() for p in folder.iterdir() if matrix_logs.PACK_NAME.fullmatch(p.name)
    }


def test_every_log_reads_back_from_one_pack(url: str, tmp_path: Path) -> None:
    report = publish(url, tmp_path / "site")
    assert report.runs_written == 12
    assert len(packs(tmp_path / "site")) == 1  # a few KB: one pack
    with Store.open(url) as store:
        read = check_every_log(tmp_path / "site", store)
    runs = [night(number, host) for number in range(6) for host in ("h1", "h2")]
    assert read == sum(len(run.results) + (run.log is not None) for run in runs)


def test_small_packs_split_runs_and_a_large_log_goes_alone(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(matrix_logs, "PACK_BYTES", 400)
    site = tmp_path / "site"
    publish(url, site)
    found = packs(site)
    assert len(found) > 10
    index = index_of(site)
    assert any(len(parts) > 1 for parts in index.values())  # a run over several packs
    with Store.open(url) as store:
        check_every_log(site, store)
        large_run = next(
            r.id for r in store.regress.runs() if r.started_at.day == 4 and r.host == "h1"
        )
        test_id = next(r.test_id for r in store.regress.results(large_run) if r.test == "t10")
    alone = read_log(site, large_run, test_id).pack
    _name, runs, _data = call_arguments(site / matrix_logs.pack_path(alone), "pack")
    assert list(runs) == [str(large_run)]
    assert runs[str(large_run)]["sizes"] == [len(zlib.compress(LARGE, 6))]
    small = [len(data) for name, data in found.items() if name != f"{alone}.js"]
    assert max(small) < 400 * 4 // 3 + 1500  # the data, in base64, and what says where


def test_two_processes_write_what_one_writes(url: str, tmp_path: Path) -> None:
    """The fork happens in a fresh interpreter: this one may run threads (chromium's)."""
    forked = tmp_path / "forked"
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from perfwalk.report import matrix, matrix_logs\n"
        "from perfwalk.store import Store\n"
        "matrix.SHARED_FROM = 2\n"
        "matrix_logs.PACK_BYTES = 3000\n"
        "with Store.open(sys.argv[1]) as store:\n"
        "    out = Path(sys.argv[2])\n"
        "    publisher = matrix._Publisher(store, out, matrix.MatrixOptions(), None)\n"
        "    assert publisher.can_fork(), 'cannot fork here'\n"
        "    print(publisher.publish().runs_written)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, url, str(forked)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    if "cannot fork here" in done.stderr:
        pytest.skip("this machine has one core: the runs are written by one process")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["12"]
    with Store.open(url) as store:
        check_every_log(forked, store)
        runs = sorted(r.id for r in store.regress.runs())
    firsts = {parts[0][0] for parts in index_of(forked).values()}
    assert len({name.split("-")[0] for name in firsts}) >= 2
    serial = tmp_path / "serial"
    publish(url, serial)
    for run in runs:  # the same run pages, whoever wrote them
        page = matrix_paths.run_page(run)
        assert (forked / page).read_bytes() == (serial / page).read_bytes()


def test_publishing_again_adds_a_pack_and_full_removes_what_is_stale(
    url: str, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    publish(url, site)
    old = packs(site)
    legacy = site / matrix_logs.DIR / "7"  # the log folder of a run, as older publishes wrote
    legacy.mkdir()
    (legacy / "b-0.js").write_text("perfwalkLogs.bundle(7, 0, {});\n")
    again = publish(url, site)
    assert again.runs_written == 0
    assert packs(site) == old
    with Store.open(url) as store:
        new_run = store.regress.add_run(night(6, "h1"))
    assert publish(url, site).runs_written == 1
    now = packs(site)
    assert set(now) - set(old) == {f"{new_run}-0.js"}
    assert all(now[name] == data for name, data in old.items())
    assert not legacy.exists()
    full = publish(url, site, full=True)
    assert full.runs_written == 13
    assert set(packs(site)) == {f"{p[0]}.js" for parts in index_of(site).values() for p in parts}
    assert len(packs(site)) == 1
    with Store.open(url) as store:
        check_every_log(site, store)


def test_a_site_without_its_list_of_runs_is_written_again(url: str, tmp_path: Path) -> None:
    site = tmp_path / "site"
    publish(url, site)
    (site / matrix_paths.PUBLISHED).write_text("{not json")
    assert publish(url, site).runs_written == 12


def test_a_summary_that_disagrees_with_the_logs_is_a_damaged_run() -> None:
    packer = Packer(lambda _path, _text: None)
    stored = StoredLogs(data=[b"x"], counts={5: 1}, cut={}, runner={})
    with pytest.raises(StoreError, match=r"regress run 5 is damaged: its summary counts 2"):
        packer.add(stored, [(5, RunFacts(bytes([0, 1, 5]), {}))])


def test_a_log_in_an_unknown_compression_is_refused_by_name(url: str, tmp_path: Path) -> None:
    engine = create_engine(url)
    with Store.open(url) as store:
        run = store.regress.runs()[-1]
        result = store.regress.results(run.id)[0]
    with engine.begin() as conn:
        conn.execute(
            update(schema.log).where(schema.log.c.id == result.log_id).values(compression="zstd")
        )
    engine.dispose()
    with pytest.raises(
        StoreError, match=f"test id {result.test_id} of regress run {run.id}"
    ) as err:
        publish(url, tmp_path / "site")
    assert err.value.hint == "upgrade perfwalk to read it"


def test_a_site_of_another_store_is_written_afresh(url: str, tmp_path: Path) -> None:
    """Runs with the same ids but another host or date: every pack is written again
    (a pack of the old site may hold runs of both)."""
    site = tmp_path / "site"
    publish(url, site)
    other = f"sqlite:///{tmp_path / 'other.db'}"
    build(other, nights=3, hosts=("h1", "h3"))
    assert publish(other, site).runs_written == 6
    assert len(index_of(site)) == 6
    with Store.open(other) as store:
        check_every_log(site, store)
