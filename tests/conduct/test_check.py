"""``perfwalk conduct --check``: a master file and its player files read, nothing
connected; unknown [Test] keys are warnings (Conductor ignores them), mistakes exit 2
naming the file, section and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config.conduct import read_master

MASTER = "[Test]\ntrials: 3\nduration: 10\n[Clients]\nsource: source.cfg\n"
# 192.0.2.1 is TEST-NET-1: nothing answers there, and --check must not try.
SOURCE = (
    "[Master]\nplayer: 192.0.2.1\nconductor: 192.0.2.9\n"
    "[Startup]\nstep1: hostname\n[Run]\ntimeout20: iperf3 -c 192.0.2.2\nspawn1: tcpdump\n"
    "[Reset]\nstep1: true\n"
)


def _write(tmp_path: Path, master: str = MASTER, source: str = SOURCE) -> Path:
    (tmp_path / "master.cfg").write_text(master)
    (tmp_path / "source.cfg").write_text(source)
    return tmp_path / "master.cfg"


def test_check_reads_the_files_and_warns_of_unknown_test_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    master = _write(tmp_path)
    assert main(["conduct", "--check", str(master)]) == 0
    captured = capsys.readouterr()
    assert f"{master}: [Test] unknown key 'duration' ignored" in captured.err
    assert "warning" in captured.err
    assert f"{master}: 3 trials, 1 players" in captured.out
    row = next(line for line in captured.out.splitlines() if line.startswith("source"))
    assert row.split() == ["source", "192.0.2.1", str(tmp_path / "source.cfg"), "1", "2", "0", "1"]
    assert not (tmp_path / "perfwalk.db").exists()  # nothing stored, nothing connected


def test_read_master_keeps_the_warning_and_reads_the_rest(tmp_path: Path) -> None:
    config = read_master(_write(tmp_path, master=MASTER.replace("duration", "trails")))
    assert config.trials == 3
    (warning,) = config.warnings
    assert "[Test] unknown key 'trails'" in warning
    assert "did you mean 'trials'?" in warning


@pytest.mark.parametrize(
    ("master", "source", "said"),
    [
        (MASTER, SOURCE.replace("player:", "playr:"), "source.cfg: [Master] unknown key 'playr'"),
        (MASTER, SOURCE.replace("[Run]", "[Rnu]"), "source.cfg: unknown section [Rnu]"),
        (MASTER.replace("trials: 3", "trials: x"), SOURCE, "master.cfg: [Test] trials"),
        (MASTER.replace("source.cfg", "sink.cfg"), SOURCE, "master.cfg: player 'source'"),
    ],
)
def test_check_mistakes_exit_2_naming_file_section_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], master: str, source: str, said: str
) -> None:
    assert main(["conduct", "--check", str(_write(tmp_path, master, source))]) == 2
    err = capsys.readouterr().err
    assert said in err
    assert "hint" in err.lower()
    assert "Traceback" not in err
