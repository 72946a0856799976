"""`perfwalk regress`: a real suite of shell tests run on this machine, runners whose
results files are read, and the suite's configuration errors."""

from __future__ import annotations

import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config.load import load_config
from perfwalk.errors import ConfigError
from perfwalk.hosts.fake import FakeHost, Rule
from perfwalk.model import Status
from perfwalk.orchestrate.phases.regress_suite import plan_suite, run_on_host
from perfwalk.store import Store
from tests.fixtures.commands import perfwalk
from tests.fixtures.synthetic_repo import KnownHistory
from tests.regress.conftest import SOURCES

BASE = """\
[project]
repo = "{repo}"
[store]
url = "sqlite:///{store}"
[[test]]
name = "unused"
command = "true"
parser = "value"
[regress]
dir = "{suite}"
"""

SHELL_SUITE = """\
command = "sh run.sh"
clean = "test ! -e .noclean"
timeout = 20
[[regress.test]]
dir = "pass"
[[regress.test]]
dir = "fail"
[[regress.test]]
dir = "xpass"
[[regress.test]]
dir = "skip"
[[regress.test]]
dir = "xfail"
[[regress.test]]
dir = "noexit"
[[regress.test]]
dir = "hang"
timeout = 1
[[regress.test]]
dir = "noclean"
[[regress.test]]
dir = "missing"
[[regress.test]]
name = "<script>alert(1)</script>"
command = "printf '<img src=x onerror=alert(2)>\\\\nFAILED\\\\n'"
[[regress.test]]
name = "norun"
command = "echo {too_long}"
"""

#: longer than one exec argument may be (MAX_ARG_STRLEN, 128 KiB): the kernel refuses
#: to start the shell, a real NORUN
TOO_LONG = "x" * 200_000


def write_config(tmp_path: Path, repo: Path, suite: Path, extra: str) -> Path:
    path = tmp_path / "perfwalk.toml"
    text = BASE.format(repo=repo, store=tmp_path / "store.db", suite=suite) + extra
    path.write_text(text, encoding="utf-8")
    return path


def stored(config: Path) -> list[tuple[str, Status, str]]:
    url = load_config(config).store.url
    with Store.open(url) as store:
        (run,) = store.regress.runs()
        return [(r.test, r.status, r.message) for r in store.regress.results(run.id)]


def test_a_shell_suite_gives_every_status(
    tmp_path: Path,
    shell_suite: Path,
    known_values_repo: KnownHistory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    suite = SHELL_SUITE.replace("{too_long}", TOO_LONG)
    config = write_config(tmp_path, known_values_repo.path, shell_suite, suite)
    code = main(["regress", "-c", str(config), "--commit", known_values_repo.first_parent[5]])
    out = capsys.readouterr().out
    assert code == 1  # tests fail
    assert "regress run 1 on local: 11 tests" in out
    found = {name: (status, message) for name, status, message in stored(config)}
    assert found == {
        "pass": (Status.PASS, ""),
        "fail": (Status.FAIL, "beta: wrong answer, delta: crashed"),
        "xpass": (Status.XPASS, "==== run-regress-gamma ===="),
        "skip": (Status.SKIP, "needs a network"),
        "xfail": (Status.XFAIL, "known bug 42"),
        "noexit": (Status.NOEXIT, "exit status 3 (FAILED: ==== run-regress-epsilon ====)"),
        "hang": (Status.NOTERM, "timed out after 1 s; its process group was killed"),
        "noclean": (Status.NOCLEAN, "clean command failed: exit status 1"),
        "missing": (Status.NOEXIST, f"no such directory: {shell_suite / 'missing'}"),
        "<script>alert(1)</script>": (Status.FAIL, "<img src=x onerror=alert(2)>"),
        "norun": (Status.NORUN, "cannot run 'sh': Argument list too long: sh"),
    }
    url = load_config(config).store.url
    with Store.open(url) as store:
        (run,) = store.regress.runs()
        assert run.commit == known_values_repo.first_parent[5]
        assert run.arch
        assert run.kernel
        assert run.os
        assert run.fingerprint["hostname"]
        logs = {r.test: r.log_id for r in store.regress.results(run.id)}
        hang = store.log(logs["hang"]).data
        assert b"started" in hang  # the partial output is kept
        assert b"never" not in hang
        assert b"about to fail" in store.log(logs["noexit"]).data  # stderr merged in


def test_a_test_that_cannot_start_or_loses_its_host_is_norun(
    tmp_path: Path, known_values_repo: KnownHistory
) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    extra = (
        '[[regress.test]]\nname = "a"\ncommand = "x"\n[[regress.test]]\nname = "b"\ncommand = "y"\n'
    )
    config = load_config(write_config(tmp_path, known_values_repo.path, suite, extra))
    host = FakeHost(
        [
            Rule(("test", "-d", str(suite))),
            Rule("perfwalk-fingerprint", stdout="kernel=Linux 6.1 #1 SMP x86_64\nos=Test OS\n"),
            Rule("git -C", returncode=128),
            Rule(lambda argv: argv[-1] == "x", returncode=None, error="cannot run 'sh': E2BIG"),
            Rule(lambda argv: argv[-1] == "y", returncode=None, host_lost=True, stdout="half"),
        ],
        strict=True,
    )
    new = run_on_host(
        config,
        host,
        plan_suite(config),
        None,
        lambda _d, _t, _o: None,
        clock=lambda: datetime(2026, 1, 1, tzinfo=UTC),
    )
    assert [(r.test, r.status, r.message) for r in new.results] == [
        ("a", Status.NORUN, "cannot run 'sh': E2BIG"),
        ("b", Status.NORUN, "the host was lost while the test ran (output kept)"),
    ]
    assert (new.arch, new.os, new.commit) == ("x86_64", "Test OS", None)


def test_a_runner_writing_junit_xml(
    tmp_path: Path, known_values_repo: KnownHistory, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "py"
    suite.mkdir()
    shutil.copy(SOURCES / "pytest_sample.py", suite)
    (suite / "pytest.ini").write_text("[pytest]\n")
    (suite / "results.xml").write_text("<stale/>")  # from an earlier run: never read
    runner = f"{sys.executable} -m pytest -q -p no:cacheprovider -c pytest.ini "
    runner += "--junitxml=results.xml pytest_sample.py"
    extra = f'runner = "{runner}"\nformat = "junit"\noutput = "results.xml"\n'
    config = write_config(tmp_path, known_values_repo.path, suite, extra)
    assert main(["regress", "-c", str(config)]) == 1
    found = {name: status for name, status, _m in stored(config)}
    assert found["pytest_sample.test_setup_error"] is Status.NOEXIST
    assert found["pytest_sample.test_xpass_strict"] is Status.XPASS
    assert len(found) == 10
    assert "pass rate 25.0%" in capsys.readouterr().out  # 2 PASS of 10 − SKIP − XFAIL


@pytest.mark.skipif(shutil.which("prove") is None, reason="prove (perl) is missing")
def test_a_runner_printing_tap(tmp_path: Path, known_values_repo: KnownHistory) -> None:
    suite = tmp_path / "perl"
    shutil.copytree(SOURCES / "t", suite / "t")
    extra = 'runner = "prove -v t/"\nformat = "tap"\n'
    config = write_config(tmp_path, known_values_repo.path, suite, extra)
    assert main(["regress", "-c", str(config)]) == 1
    found = {name: status for name, status, _m in stored(config)}
    assert found["t/a.t: second"] is Status.FAIL
    assert found["t/c.t"] is Status.SKIP
    assert found["t/e.t"] is Status.PASS


@pytest.mark.parametrize(
    ("runner", "status", "message"),
    [
        ("sleep 30", Status.NOTERM, "the runner timed out after 1 s"),
        ("echo no results here; exit 4", Status.NOEXIT, "exit status 4; no results: host"),
        ("printf '<testsuite><testcase' > out.xml", Status.NOEXIT, "malformed XML"),
    ],
)
def test_a_runner_that_fails_makes_a_suite_row(
    tmp_path: Path, known_values_repo: KnownHistory, runner: str, status: Status, message: str
) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    extra = f'timeout = 1\nrunner = "{runner}"\noutput = "out.xml"\n'
    config = write_config(tmp_path, known_values_repo.path, suite, extra)
    assert main(["regress", "-c", str(config)]) == 1
    ((name, found, text),) = stored(config)
    assert (name, found) == ("[suite]", status)
    assert message in text


@pytest.mark.parametrize(
    ("extra", "key", "text"),
    [
        ("", "regress", "no regress suite"),
        ('runner = "x"\n[[regress.test]]\ndir = "a"\n', "regress.runner", "both a runner"),
        ('[[regress.test]]\ncommand = "x"\n', "regress.test[0]", "needs a dir or a name"),
        ('[[regress.test]]\nname = "x"\n', "regress.test[0]", "neither dir nor command"),
        (
            '[[regress.test]]\ndir = "a"\n[[regress.test]]\ndir = "a"\n',
            "regress.test[1].name",
            "duplicate",
        ),
    ],
)
def test_a_suite_that_cannot_run_is_a_config_error(
    tmp_path: Path, known_values_repo: KnownHistory, extra: str, key: str, text: str
) -> None:
    config = load_config(write_config(tmp_path, known_values_repo.path, tmp_path, extra))
    with pytest.raises(ConfigError, match=text) as info:
        plan_suite(config)
    assert info.value.key == key
    assert str(config.path) in info.value.message


def test_a_missing_suite_directory_is_a_config_error(
    tmp_path: Path, known_values_repo: KnownHistory, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = '[[regress.test]]\ndir = "a"\n'
    config = write_config(tmp_path, known_values_repo.path, tmp_path / "nowhere", extra)
    assert main(["regress", "-c", str(config)]) == 2
    err = capsys.readouterr().err
    assert "regress.dir" in err
    assert "no such directory on host local" in err


def test_the_matrix_is_published_in_the_configured_site_wherever_regress_runs(
    tmp_path: Path, shell_suite: Path, known_values_repo: KnownHistory
) -> None:
    """`perfwalk regress publish` without --site writes the matrix in regress/ of the
    configuration's [watch] site, the one `watch` and `report` publish and whose first
    page links to it, from whatever folder it runs (it wrote ./site/regress: a second
    site in the current folder, never linked from the published one)."""
    suite = (
        'command = "sh run.sh"\n[[regress.test]]\ndir = "pass"\n[[regress.test]]\ndir = "fail"\n'
    )
    config = write_config(tmp_path, known_values_repo.path, shell_suite, suite)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = perfwalk("-c", str(config), "regress", cwd=elsewhere)
    assert done.returncode == 1, done.stderr  # a test fails
    assert "regress run 1 on local: 2 tests" in done.stdout
    assert list(elsewhere.iterdir()) == [], "a run without --site publishes nothing"

    done = perfwalk("-c", str(config), "regress", "publish", cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    matrix = tmp_path / "site" / "regress" / "index.html"  # [watch] site: next to the file
    assert f"matrix: {matrix}" in done.stdout
    assert matrix.exists()
    assert not (elsewhere / "site").exists(), "a second site in the current folder"
    done = perfwalk("-c", str(config), "report", cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert 'href="regress/index.html"' in index  # one site: its first page links the matrix

    # a configured [watch] site, as `perfwalk watch` publishes it
    text = config.read_text(encoding="utf-8")
    config.write_text(text + '[watch]\nsite = "public/site"\n', encoding="utf-8")
    done = perfwalk("-c", str(config), "regress", "publish", cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "public" / "site" / "regress" / "index.html").exists()
    assert not (elsewhere / "site").exists()
    # --site still chooses, relative to where the command runs
    done = perfwalk("-c", str(config), "regress", "publish", "--site", "mine", cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert (elsewhere / "mine" / "regress" / "index.html").exists()
