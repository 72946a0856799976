"""The command line: every command has --help, user errors exit 2 with a message that
names the key, never a traceback."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.cli.registry import all_commands
from tests.fixtures.synthetic_repo import KnownHistory

CONFIG = """\
[project]
repo = "{repo}"
[build]
steps = ["sh build.sh"]
[run]
repetitions = 1
step = "commit/10"
[[test]]
name = "latency"
command = "sh bench.sh"
parser = "value"
"""


@pytest.fixture
def config(tmp_path: Path, known_values_repo_copy: KnownHistory) -> Path:
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG.format(repo=known_values_repo_copy.path))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", sorted(all_commands()))
def test_every_command_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    assert command in capsys.readouterr().out


@pytest.mark.parametrize(
    ("change", "names"),
    [
        (("[run]\n", "[run]\nrepetitons = 3\n"), ["run.repetitons", "repetitions"]),
        (('step = "commit/10"', 'step = "fortnight"'), ["run.step", "fortnight"]),
        (("repetitions = 1", 'repetitions = "many"'), ["run.repetitions", "integer"]),
        (('parser = "value"', 'parser = "nope"'), ["test[0].parser", "nope"]),
        (("[run]\n", '[run]\nfrom = "2024-13-45"\n'), ["run.from", "2024-13-45"]),
    ],
)
def test_bad_config_names_file_and_key(
    config: Path, capsys: pytest.CaptureFixture[str], change: tuple[str, str], names: list[str]
) -> None:
    config.write_text(config.read_text().replace(*change, 1))
    code, _out, err = run(capsys, "run", "-c", str(config))
    assert code == 2
    assert str(config) in err
    for name in names:
        assert name in err
    assert "Traceback" not in err
    assert "hint:" in err


def test_missing_repository(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config.write_text(config.read_text().replace('repo = "', 'repo = "/nonexistent'))
    code, _out, err = run(capsys, "run", "-c", str(config))
    assert code == 2
    assert "project.repo" in err
    assert "/nonexistent" in err


def test_bad_arguments_are_user_errors(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "run", "-c", str(config), "--step", "7parsecs")
    assert (code, "7parsecs" in err) == (2, True)
    code, _out, err = run(capsys, "run", "-c", str(config), "--from", "no-such-branch")
    assert (code, "no-such-branch" in err) == (2, True)
    code, _out, err = run(capsys, "run", "-c", str(config), "--resume")
    assert (code, "nothing to resume" in err) == (2, True)
    code, _out, err = run(capsys, "show", "-c", str(config), "42")
    assert code == 2
    assert "42" in err
    assert "Traceback" not in err


def test_list_and_status_agree_on_an_empty_store(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = [run(capsys, command, "-c", str(config)) for command in ("list", "status")]
    assert said[0] == said[1] == (0, "no series yet; start one with `perfwalk run`\n", "")


def test_run_then_inspect(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "run", "-c", str(config))
    assert code == 0  # commit/10 misses the broken build: everything PASS
    assert "series 1 finished" in out
    code, out, _err = run(capsys, "status", "-c", str(config))
    assert code == 0
    assert "repetitions 5 of 5" in out
    code, out, _err = run(capsys, "list", "-c", str(config))
    assert "finished" in out
    code, out, _err = run(capsys, "show", "-c", str(config))
    assert "latency.latency [ms]" in out
    assert "100.0 ms ±0.0 %" in out
    code, out, _err = run(capsys, "export", "-c", str(config))
    document = json.loads(out)
    assert (document["format"], document["version"]) == ("perfwalk-export", 4)
    assert len(document["series"][0]["checkouts"]) == 5


def test_log_prints_a_checkouts_stored_outputs(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "run", "-c", str(config))[0] == 0
    code, out, err = run(capsys, "log", "1:0", "-c", str(config))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert re.fullmatch(r"series 1 '.*', checkout 0 \([0-9a-f]{12}\)", lines[0])
    assert re.fullmatch(
        r"== repetition 0 · latency · PASS · exit 0 · [0-9.]+ [mµ]?s · stdout \(\d+ bytes\)",
        lines[1],
    )
    assert lines[2] == "$ sh bench.sh"
    assert any("ms" in line for line in lines[3:])
    code, out, _err = run(capsys, "log", ":0", "--build", "-c", str(config))
    assert code == 0
    assert out.splitlines()[1].startswith("== build · PASS (")
    code, out, _err = run(
        capsys, "log", "1:0", "--test", "latency", "--repetition", "0", "-c", str(config)
    )
    assert code == 0
    assert out.count("== repetition 0 · latency") == 1


def test_init_writes_a_config_that_runs(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    known_values_repo_copy: KnownHistory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(known_values_repo_copy.path)
    code, out, _err = run(capsys, "init")
    assert code == 0
    assert "perfwalk.toml" in out
    code, _out, err = run(capsys, "init")
    assert code == 2
    assert "--force" in err
    code, out, err = run(capsys, "run", "-n", "1", "--step", "commit/20")
    assert code == 0, err
    status = subprocess.run(
        ["git", "status", "--porcelain"], capture_output=True, text=True, check=True
    ).stdout
    assert "value.txt" not in status
