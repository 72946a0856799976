"""The regress tables of the store, on SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import create_engine, func, select

from perfwalk.errors import StoreError
from perfwalk.model import Log, Status
from perfwalk.store import Store, schema
from perfwalk.store.regress import NewRegressResult, NewRegressRun

T0 = datetime(2026, 3, 1, 3, 0, tzinfo=UTC)
HOSTILE = "<script>alert('x')</script>\x00\ud800 & \"q\""


def _run(host: str, day: int, results: dict[str, Status], **extra: object) -> NewRegressRun:
    return NewRegressRun(
        host=host,
        started_at=T0 + timedelta(days=day),
        finished_at=T0 + timedelta(days=day, minutes=20),
        results=tuple(
            NewRegressResult(
                test=name,
                status=status,
                log=Log.of(f"log of {name} on day {day}\n".encode(errors="replace")),
                message="" if status is Status.PASS else f"{name} broke",
                duration=1.5,
                source=f"src/{name}" if name.isalnum() else None,
            )
            for name, status in results.items()
        ),
        arch="amd64",
        os="Debian 12",
        kernel="Linux 6.1.0 #1 SMP Debian x86_64",
        build="stock",
        commit="a" * 40,
        label="nightly",
        fingerprint={"hostname": host, "cores": "2"},
        **extra,  # type: ignore[arg-type]
    )


def test_a_run_is_stored_whole_and_read_back(store_url: str) -> None:
    with Store.open(store_url) as store:
        first = store.regress.add_run(_run("h1", 0, {"a": Status.PASS, "b": Status.FAIL}))
        second = store.regress.add_run(
            _run("h1", 1, {"b": Status.PASS, "c": Status.NOTERM, HOSTILE: Status.SKIP}),
        )
        other = store.regress.add_run(
            _run("h2", 2, {"a": Status.XFAIL}, log=Log.of(b"runner output"))
        )
        runs = store.regress.runs()
        assert [r.id for r in runs] == [other, second, first]
        assert runs[1].counts == {Status.PASS: 1, Status.NOTERM: 1, Status.SKIP: 1}
        assert [r.id for r in store.regress.runs("h1")] == [second, first]
        run = store.regress.run(other)
        assert (run.host, run.arch, run.build, run.commit) == ("h2", "amd64", "stock", "a" * 40)
        assert run.fingerprint == {"hostname": "h2", "cores": "2"}
        assert run.log_id is not None
        assert store.log(run.log_id).data == b"runner output"
        results = {r.test: r for r in store.regress.results(second)}
        assert set(results) == {"b", "c", HOSTILE.replace("\x00", "\ufffd").replace("\ud800", "?")}
        assert results["c"].status is Status.NOTERM
        assert results["c"].message == "c broke"
        logs = dict(store.regress.result_logs(second))
        assert logs[results["c"].test_id].data == b"log of c on day 1\n"
        matrix = store.regress.matrix()
        assert [m.run.id for m in matrix.runs] == [other, second, first]
        ids = {t.name: t.id for t in matrix.tests}
        column = matrix.runs[1].statuses
        assert column[ids["c"]] == Status.NOTERM
        assert column[ids["a"]] == 0  # not run that day
        assert matrix.runs[1].messages[ids["c"]] == "c broke"
        assert {t.name: t.source for t in matrix.tests}["a"] == "src/a"


def test_hostile_names_are_kept_as_text(store_url: str) -> None:
    with Store.open(store_url) as store:
        run_id = store.regress.add_run(_run("h", 0, {HOSTILE: Status.FAIL}))
        (result,) = store.regress.results(run_id)
    assert result.test.startswith("<script>alert('x')</script>")


def test_a_failed_write_leaves_nothing_behind(store_url: str) -> None:
    with Store.open(store_url) as store:
        bad = _run("h", 0, {"a": Status.PASS, "b": Status.FAIL})
        naive = NewRegressRun(**{**bad.__dict__, "started_at": datetime(2026, 1, 1)})
        with pytest.raises(StoreError, match="naive datetime"):
            store.regress.add_run(naive)
        assert store.regress.runs() == []
    engine = create_engine(store_url)
    try:
        with engine.connect() as conn:
            for table in (schema.regress_test, schema.regress_result, schema.log):
                assert conn.scalar(select(func.count()).select_from(table)) == 0, table.name
    finally:
        engine.dispose()


def test_unknown_run_and_repeated_names_are_refused(store_url: str) -> None:
    with Store.open(store_url) as store:
        with pytest.raises(StoreError, match="no regress run with id 99"):
            store.regress.run(99)
        twice = _run("h", 0, {"a": Status.PASS})
        twice = NewRegressRun(**{**twice.__dict__, "results": twice.results * 2})
        with pytest.raises(ValueError, match="repeat"):
            store.regress.add_run(twice)
