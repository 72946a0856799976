"""A real walk as people see it: in a terminal (a pty of 80 columns) one progress bar
line redrawn in place, never wider than the terminal, in colour unless ``NO_COLOR``;
in a log file one plain line per checkout; ``run --dry-run`` lists the checkouts the
walk then measures without storing anything; ``status`` while a walk runs."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KNOWN_BROKEN_AT, KnownHistory
from tests.fixtures.terminal import ESCAPES, SGR, in_a_pty, terminal_env

CONFIG = """\
[project]
repo = "{repo}"
[build]
steps = ["sh build.sh"]
[run]
repetitions = 1
step = "commit/4"
[[test]]
name = "latency"
command = "{command}"
parser = "value"
"""

CHECKOUTS = 11  # commits 0, 4, … 36 and 39 of the known history
BROKEN = KNOWN_BROKEN_AT // 4  # the checkout whose build fails
SHOW_CURSOR = b"\x1b[?25h"  # what the bar writes when it stops


@pytest.fixture
def walk_dir(tmp_path: Path, known_values_repo_copy: KnownHistory) -> Path:
    command = "sh bench.sh"
    (tmp_path / "perfwalk.toml").write_text(
        CONFIG.format(repo=known_values_repo_copy.path, command=command)
    )
    return tmp_path


def _env(**more: str) -> dict[str, str]:
    return terminal_env(**more)


def _in_a_pty(cwd: Path, columns: int, env: dict[str, str]) -> tuple[int, bytes]:
    """``perfwalk run`` on a terminal of ``columns`` × 24: its exit status and all it wrote."""
    return in_a_pty(cwd, columns, env)


def test_the_bar_redraws_in_place_and_fits_80_columns(walk_dir: Path) -> None:
    code, written = _in_a_pty(walk_dir, 80, _env())
    assert code == 1, written.decode(errors="replace")  # a build failed
    bar, _, after = written.partition(SHOW_CURSOR)
    assert after, "the bar never stopped"
    plain = ESCAPES.sub(b"", bar).decode()
    pieces = re.split(r"[\r\n]+", plain)
    assert max(len(piece) for piece in pieces) <= 80, max(pieces, key=len)
    # redrawn in place: a newline for the failed build's line and one at the end, not
    # one per update (a building, a repetition and a summary per checkout)
    assert bar.count(b"\n") <= 3
    assert bar.count(b"\r") >= CHECKOUTS
    assert f"checkout {BROKEN} " in plain
    assert "build failed (NOEXIST)" in plain
    assert f"{CHECKOUTS}/{CHECKOUTS}" in plain
    assert SGR.search(bar)  # in colour on a terminal
    words = ESCAPES.sub(b"", after).decode()
    assert f"`perfwalk log 1:{BROKEN} --build`" in words
    assert "`perfwalk show 1`" in words


def test_no_color_on_a_terminal_draws_without_colour(walk_dir: Path) -> None:
    code, written = _in_a_pty(walk_dir, 100, _env(NO_COLOR="1"))
    assert code == 1
    assert SGR.search(written) is None
    bar = written.partition(SHOW_CURSOR)[0]
    assert bar.count(b"\n") <= 3


def test_dry_run_stores_nothing_and_lists_what_the_walk_then_measures(
    walk_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(walk_dir)
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(["run", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert not (walk_dir / "perfwalk.db").exists()
    rows = [line.split() for line in out.splitlines() if re.match(r"\s*\d+\s+\d{4}-", line)]
    planned = [row[3] for row in rows]
    assert len(planned) == CHECKOUTS
    assert "Break the build" in " ".join(rows[BROKEN])  # its subject
    assert f"it would run {CHECKOUTS} builds and {CHECKOUTS} repetitions" in out

    # not a terminal: one plain line per checkout on standard error, no escape code
    done = subprocess.run(
        [sys.executable, "-m", "perfwalk", "run"],
        cwd=walk_dir,
        env=_env(),
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    lines = done.stderr.decode().splitlines()
    assert len(lines) == CHECKOUTS, lines
    assert all(line.startswith(f"checkout {n} ") for n, line in enumerate(lines))
    assert "build failed (NOEXIST)" in lines[BROKEN]
    assert f"repetitions {CHECKOUTS}/{CHECKOUTS}, checkout {CHECKOUTS}/{CHECKOUTS}" in lines[-1]
    assert b"\x1b" not in done.stdout + done.stderr
    store = Store.open(f"sqlite:///{walk_dir / 'perfwalk.db'}", read_only=True)
    try:
        (series,) = store.list_series()
        measured = [row.sha[:12] for row in store.checkouts(series.id)]
    finally:
        store.close()
    assert measured == planned


def test_status_counts_planned_and_done_with_an_eta_while_it_runs(
    walk_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = walk_dir / "perfwalk.toml"
    config.write_text(config.read_text().replace("sh bench.sh", "sleep 0.3; sh bench.sh"))
    monkeypatch.chdir(walk_dir)
    walk = subprocess.Popen(
        [sys.executable, "-m", "perfwalk", "run"],
        cwd=walk_dir,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        seen = ""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and walk.poll() is None:
            if (walk_dir / "perfwalk.db").exists() and main(["status"]) == 0:
                seen = capsys.readouterr().out
                found = re.search(r"repetitions (\d+) of 11", seen)
                if found and 3 <= int(found.group(1)) < 9 and "running" in seen:
                    break
            time.sleep(0.2)
        else:
            pytest.fail(f"the walk ended before status saw it run: {seen}")
    finally:
        assert walk.wait(timeout=300) == 1
    assert re.search(r"checkouts \d+ of 11 planned \(built \d+, build failed [01]\)", seen), seen
    assert re.search(r"ETA \S+ at the measured times \(\S+ a repetition, \S+ a build\)", seen)
    assert main(["status"]) == 0
    finished = capsys.readouterr().out
    assert "repetitions 10 of 11 (1 not run: build failed)" in finished
    assert "ETA" not in finished  # it no longer runs
