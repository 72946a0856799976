"""Where options may stand and what is chosen without one: -c/--config before or
after the command's name, options between a command's arguments, -n 0 refused,
show and status on the newest walk (not the newest drill)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config.load import load_config
from perfwalk.errors import UsageError
from perfwalk.services.run import RunOptions, run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory
from tests.store.factories import new_series

CONFIG = """\
[project]
repo = "{repo}"
[store]
url = "sqlite:///{store}"
[build]
steps = ["sh build.sh"]
[run]
repetitions = 1
step = "commit/20"
[[test]]
name = "latency"
command = "sh bench.sh"
parser = "value"
"""

TAP = "1..2\nok 1 - first\nnot ok 2 - second\n"


@pytest.fixture
def config(tmp_path: Path, known_values_repo_copy: KnownHistory) -> Path:
    path = tmp_path / "elsewhere.toml"  # not ./perfwalk.toml: only -c finds it
    path.write_text(CONFIG.format(repo=known_values_repo_copy.path, store=tmp_path / "w.db"))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def walked(config: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """``config`` with one walk stored, series 1."""
    code, out, err = run(capsys, "run", "-n", "3", "-c", str(config))
    assert code == 0, err
    assert "series 1 finished" in out
    return config


def test_config_before_the_command(
    walked: Path,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    before = run(capsys, "-c", str(walked), "list")
    after = run(capsys, "list", "-c", str(walked))
    assert before == after
    assert before[0] == 0
    assert "finished" in before[1]
    assert run(capsys, "--config", str(walked), "status", "1")[0] == 0


def test_the_same_config_before_and_after_is_one_config(
    walked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = run(capsys, "-c", str(walked), "show", "-c", str(walked))
    assert code == 0
    assert "latency.latency [ms]" in out


def test_two_configs_are_refused_naming_both(
    walked: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    other = tmp_path / "other.toml"
    code, _out, err = run(capsys, "-c", str(other), "list", "-c", str(walked))
    assert code == 2
    assert "-c/--config given twice" in err
    assert str(other) in err
    assert str(walked) in err
    assert "Traceback" not in err


def test_a_config_for_a_command_that_reads_none_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = run(capsys, "-c", str(tmp_path / "x.toml"), "lab", "status")
    assert code == 2
    assert "`perfwalk lab` reads no configuration file" in err


def test_compare_takes_the_config_before_its_name(
    walked: Path,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """compare's own -c is its confidence level: the configuration comes before."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "-c", str(walked), "compare", "-c", "95", "1:0", "1:0")
    assert code == 0, err
    assert "No difference proven at 95.0% confidence" in out


def test_regress_import_with_options_between_its_arguments(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tap = tmp_path / "suite.tap"
    tap.write_text(TAP)
    code, out, err = run(capsys, "regress", "import", "-c", str(config), str(tap), "--host", "h")
    assert code == 1, err  # one test failed
    assert "regress run 1 on h: 2 tests" in out
    code, out, err = run(capsys, "regress", "--host", "h", "import", str(tap), "-c", str(config))
    assert code == 1, err
    assert "regress run 2 on h: 2 tests" in out


def test_zero_repetitions_is_refused_naming_the_option(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:  # argparse's own refusal
        main(["run", "-n", "0", "-c", str(config)])
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert "argument -n/--repetitions: expected 1 to 10000, got 0" in err
    assert "series" not in out


def test_zero_repetitions_asked_of_the_service_is_refused(config: Path) -> None:
    """The service does not take 0 for "not given" (the configured 1 would run)."""
    with pytest.raises(UsageError, match="--repetitions: 0 repetitions"):
        run_series(load_config(config), RunOptions(repetitions=0))
    with Store.open(load_config(config).store.url) as store:
        assert store.list_series() == []


def test_show_and_status_default_to_the_newest_walk_not_a_drill(
    walked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(load_config(walked).store.url) as store:
        (walk,) = store.list_series()
        drill = new_series(
            name="drill of series 1",
            kind="drill",
            parent_id=walk.id,
            step="commit",
            started_at=walk.started_at + timedelta(minutes=5),
        )
        assert store.create_series(replace(drill, quirks=())) == 2
    code, out, _err = run(capsys, "show", "-c", str(walked))
    assert code == 0
    assert out.startswith("series 1 ")
    code, out, _err = run(capsys, "status", "-c", str(walked))
    assert code == 0
    assert out.startswith("series 1 ")
    code, out, _err = run(capsys, "status", "2", "-c", str(walked))
    assert out.startswith("series 2 ")
