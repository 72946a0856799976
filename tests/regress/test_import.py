"""`perfwalk regress import`: JUnit XML from pytest itself, TAP from prove, marker logs;
a malformed file is a clear error and stores nothing."""

from __future__ import annotations

import random
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config.load import load_config
from perfwalk.model import Status
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory
from tests.regress.conftest import GOLDEN, SOURCES
from tests.regress.test_junit import run_pytest_sample

CONFIG = """\
[project]
repo = "{repo}"
[store]
url = "sqlite:///{store}"
[[test]]
name = "unused"
command = "true"
parser = "value"
"""


@pytest.fixture
def config(tmp_path: Path, known_values_repo: KnownHistory) -> Path:
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG.format(repo=known_values_repo.path, store=tmp_path / "store.db"))
    return path


def _store(config: Path) -> Store:
    return Store.open(load_config(config).store.url)


def test_junit_xml_written_by_pytest(
    config: Path,
    tmp_path: Path,
    known_values_repo: KnownHistory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    xml = run_pytest_sample(tmp_path)
    argv = ["regress", "import", str(xml), "--host", "ci-amd64", "-c", str(config)]
    argv += ["--arch", "amd64", "--build", "stock", "--commit", "main~2"]
    assert main(argv) == 1
    assert "regress run 1 on ci-amd64: 10 tests" in capsys.readouterr().out
    with _store(config) as store:
        (run,) = store.regress.runs()
        results = {r.test: r.status for r in store.regress.results(run.id)}
    assert (run.origin, run.label, run.arch, run.build) == ("junit", "junit.xml", "amd64", "stock")
    assert run.commit == known_values_repo.first_parent[-3]
    assert results["pytest_sample.test_teardown_error"] is Status.NOCLEAN
    assert run.started_at.year == datetime.now(UTC).year  # the file's own timestamp


@pytest.mark.skipif(shutil.which("prove") is None, reason="prove (perl) is missing")
def test_tap_written_by_prove(config: Path, tmp_path: Path) -> None:
    shutil.copytree(SOURCES / "t", tmp_path / "t")
    tap = tmp_path / "nightly.tap"
    with tap.open("wb") as out:
        subprocess.run(
            ["prove", "-v", "t/"], cwd=tmp_path, stdout=out, stderr=subprocess.DEVNULL, check=False
        )
    argv = ["regress", "import", str(tap), "--host", "obsd", "--date", "2026-02-03T04:05"]
    assert main([*argv, "-c", str(config)]) == 1
    with _store(config) as store:
        (run,) = store.regress.runs()
        results = {r.test: r.status for r in store.regress.results(run.id)}
    assert run.origin == "tap"
    assert run.started_at == datetime(2026, 2, 3, 4, 5, tzinfo=UTC)
    assert results["t/a.t: second"] is Status.FAIL
    assert results["t/d.t"] is Status.NOEXIT


def test_a_marker_log(config: Path) -> None:
    log = GOLDEN / "markers" / "make-k.log"
    assert main(["regress", "import", str(log), "--host", "bsd", "-c", str(config)]) == 1
    with _store(config) as store:
        (run,) = store.regress.runs()
        results = {r.test: r.status for r in store.regress.results(run.id)}
        assert run.log_id is not None
        assert store.log(run.log_id).data == log.read_bytes()  # the imported file itself
    assert results == {
        "pass": Status.PASS,
        "fail": Status.FAIL,
        "xpass": Status.XPASS,
        "skip": Status.SKIP,
        "xfail": Status.XFAIL,
        "noexit": Status.NOEXIT,
        "hang": Status.NOEXIT,
    }


@pytest.mark.parametrize(
    ("name", "content", "error"),
    [
        ("cut.xml", b"<testsuite><testcase name='a'><failure>", "malformed XML at line 1"),
        ("twice.tap", b"1..2\nok 1\nok 2\n1..2\n", "a second plan"),
        ("other.tap", b"1..2\nok 1\n", "--format junit"),
    ],
)
def test_a_malformed_file_is_an_error_and_stores_nothing(
    config: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    *,
    name: str,
    content: bytes,
    error: str,
) -> None:
    good = GOLDEN / "junit" / "pytest.xml"
    assert main(["regress", "import", str(good), "--host", "h", "-c", str(config)]) == 1
    bad = tmp_path / name
    bad.write_bytes(content)
    argv = ["regress", "import", str(bad), "--host", "h", "-c", str(config)]
    if error == "--format junit":
        argv += ["--format", "junit"]
        error = "malformed XML"
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert error in err
    assert str(bad) in err
    assert "hint:" in err
    with _store(config) as store:
        assert len(store.regress.runs()) == 1  # only the good one


def _junk(tmp_path: Path, kind: str) -> Path:
    """A file that holds no test results: a program, random bytes, a crash message."""
    path = tmp_path / kind
    if kind == "program":
        shutil.copy(shutil.which("true") or "/bin/true", path)
    elif kind == "random":
        rng = random.Random("test-regress-import-junk")
        path.write_bytes(rng.randbytes(4096))
    elif kind == "random-text":  # no NUL byte: it is text to every format
        rng = random.Random("test-regress-import-junk-text")
        path.write_bytes(bytes(rng.choice(range(9, 127)) for _ in range(4096)))
    else:
        path.write_text("Segmentation fault\n")
    return path


@pytest.mark.parametrize("kind", ["program", "random", "random-text", "crash"])
@pytest.mark.parametrize("fmt", [None, "markers"])
def test_a_file_no_format_recognises_is_an_error_and_stores_nothing(
    config: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    fmt: str | None,
) -> None:
    """Each was once stored as one test that passes (100 %), against this very page."""
    junk = _junk(tmp_path, kind)
    argv = ["regress", "import", str(junk), "--host", "h", "-c", str(config)]
    assert main(argv + (["--format", fmt] if fmt else [])) == 2
    err = capsys.readouterr().err
    assert str(junk) in err
    assert "Traceback" not in err
    if fmt is None or kind in ("program", "random"):
        assert "not JUnit XML" in err
        assert "not TAP" in err
        assert "not a marker log" in err
    else:
        assert "no marker log found" in err
    assert "hint:" in err
    with _store(config) as store:
        assert store.regress.runs() == []


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["import", "--host", "h"], "import needs a FILE"),
        (["import", "x.xml"], "import needs --host"),
        (["import", "nowhere.xml", "--host", "h"], "cannot read nowhere.xml"),
        (["publish", "x.xml"], "unexpected argument"),
        (["import", "GOLDEN", "--host", "h", "--date", "yesterday"], "invalid date 'yesterday'"),
        (["import", "GOLDEN", "--host", "h", "--commit", "no-such-ref"], "--commit 'no-such-ref'"),
    ],
)
def test_usage_errors(
    config: Path, capsys: pytest.CaptureFixture[str], argv: list[str], error: str
) -> None:
    argv = [str(GOLDEN / "junit" / "pytest.xml") if a == "GOLDEN" else a for a in argv]
    assert main(["regress", *argv, "-c", str(config)]) == 2
    assert error in capsys.readouterr().err
