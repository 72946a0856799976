"""The terminal at hyperfine's standard, as people see it: `changes`, `show`, `status`
and `list` in a real pty of 80 and 120 columns never write a line wider than it, in
colour unless ``NO_COLOR`` (or ``--color=never``), and ``--color=always`` colours a
pipe; into a pipe without COLUMNS the lines stay whole (scripts read them); a walk
ends with one line naming the regression it walked over.

The store is made by a real walk of a real repository whose benchmark prints seeded
values (tests/fixtures/noisy_repo.py): 12 commits, +20 % from commit 6 on."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fixtures.noisy_repo import CONFIG, noisy_history
from tests.fixtures.terminal import ESCAPES, SGR, in_a_pty, terminal_env

STEP = 6  # the commit that makes the benchmark 20 % slower
SLOWER_AUTHOR = "Grace Hopper <grace@example.org>"


@dataclass(frozen=True)
class Walked:
    path: Path
    step_commit: str
    out: str  # what the walk wrote on its standard output (a pipe)


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> Walked:
    path = tmp_path_factory.mktemp("fit")
    ids = noisy_history(
        path / "repo",
        commits=12,
        step_at=STEP,
        size=20,
        salt=5,
        slower="Make it slower, with a subject long enough to overflow a line of eighty",
        slower_author=SLOWER_AUTHOR,
    )
    (path / "perfwalk.toml").write_text(CONFIG.format(repo=path / "repo"), encoding="utf-8")
    name = "a walk whose name is long enough to push a status line past the edge"
    done = subprocess.run(
        [sys.executable, "-m", "perfwalk", "run", "--name", name],
        cwd=path,
        env=terminal_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return Walked(path, ids[STEP], done.stdout)


def test_a_walk_ends_with_one_line_naming_the_regression_it_found(walked: Walked) -> None:
    last = walked.out.splitlines()[-1]
    print(last)
    assert re.fullmatch(
        rf"1 regression: \+\d+\.\d % \(walk 1\) latency\.latency at {walked.step_commit[:8]} "
        r"by Grace Hopper \(confirmed\)",
        last,
    ), walked.out


@pytest.mark.parametrize("command", ["changes", "show", "status", "list"])
@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("no_color", [False, True])
def test_every_line_fits_the_terminal_in_colour_unless_no_color(
    walked: Walked, command: str, columns: int, no_color: bool
) -> None:
    env = terminal_env(NO_COLOR="1") if no_color else terminal_env()
    code, written = in_a_pty(walked.path, columns, env, command, timeout=120)
    assert code in (0, 1), written.decode(errors="replace")
    text = ESCAPES.sub(b"", written).decode().replace("\r\n", "\n")
    lines = text.split("\n")
    widest = max(lines, key=len)
    print(f"{command} at {columns}: widest {len(widest)}: {widest}")
    assert len(widest) <= columns, widest
    assert (SGR.search(written) is None) == no_color
    if command == "status":  # its state whole, wherever the line is wrapped
        assert re.search(r"(^|\s)finished$", text, re.MULTILINE), text
    if command == "changes":  # what the table must keep at any width
        assert "latency.latency [ms]" in text
        assert re.search(r"\+\d+\.\d % \(walk 1\) worse", text)
        assert walked.step_commit[:10] in text


def test_color_always_colours_a_pipe_and_never_leaves_a_terminal_plain(walked: Walked) -> None:
    for argv in (["--color=always", "changes"], ["changes", "--color", "always"]):
        piped = subprocess.run(
            [sys.executable, "-m", "perfwalk", *argv],
            cwd=walked.path,
            env=terminal_env(NO_COLOR="1"),  # an option given says more than NO_COLOR
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert piped.returncode == 1, piped.stderr
        assert re.search(rb"\x1b\[31mREGRESSION 1:6\x1b\[0m", piped.stdout), piped.stdout
        assert b"\x1b[1mconfirmed\x1b[0m" in piped.stdout
    code, written = in_a_pty(walked.path, 120, terminal_env(), "--color=never", "changes")
    assert code == 1
    assert SGR.search(written) is None


def test_a_pipe_without_columns_keeps_every_line_and_column_whole(walked: Walked) -> None:
    piped = subprocess.run(
        [sys.executable, "-m", "perfwalk", "changes"],
        cwd=walked.path,
        env=terminal_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = piped.stdout.splitlines()
    assert lines[0].startswith("REGRESSION 1:6 (confirmed) in series 1 ")
    assert lines[0].endswith(", 1 commit")  # one line, however long
    (header,) = [line for line in lines if line.lstrip().startswith("metric")]
    assert header.split() == [
        *("metric", "before", "after", "change", "95%", "interval"),
        *("confidence", "verdict", "checkouts"),
    ]
    assert b"\x1b" not in piped.stdout.encode()
