"""The fs_mark parser on the real fs_mark (Debian's fsmark), run by the test in folders
of its own: its table, and what it writes when it fails."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from perfwalk.errors import ParseError
from perfwalk.parsers import get_parser

TIMEOUT = 120.0


def fs_mark(where: Path, *options: str) -> str:
    """fs_mark's output, stdout and stderr joined; its log goes to ``where``."""
    done = subprocess.run(
        ["fs_mark", *options],
        cwd=where,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    print(done.stdout)
    return done.stdout


def column(text: str, index: int) -> list[float]:
    """A column of the rows under the table's header, read here by hand."""
    rows = text.split("App Overhead\n", 1)[1].split("\n")
    return [float(row.split()[index]) for row in rows if row.strip()]


def test_the_mean_of_the_iterations(short_folder: Path, tmp_path: Path) -> None:
    text = fs_mark(tmp_path, "-d", str(short_folder / "d"), "-s", "4096", "-n", "100", "-L", "3")
    files, overhead = column(text, 3), column(text, 4)
    assert len(files) == 3
    found = {v.name: (v.value, v.unit) for v in get_parser("fs_mark")(text)}
    print(found)
    assert found == {
        "files": (pytest.approx(sum(files) / 3), "files/sec"),
        "app_overhead": (pytest.approx(sum(overhead) / 3), "us"),
    }
    assert found["files"][0] > 0


def test_a_directory_that_cannot_be_made_is_the_line_fs_mark_wrote(tmp_path: Path) -> None:
    text = fs_mark(tmp_path, "-d", "/nonexistent/fsm", "-n", "10")
    number = text.split("\n").index(
        "fill_dir:mkdir /nonexistent/fsm failed: No such file or directory"
    )
    with pytest.raises(ParseError) as caught:
        get_parser("fs_mark")(text)
    print(caught.value.message)
    assert caught.value.message == (
        f"fs_mark: line {number + 1}: not a row of fs_mark's table (5 numbers): "
        "'fill_dir:mkdir /nonexistent/fsm failed: No such file or directory'"
    )


def test_a_refused_option_has_no_table(tmp_path: Path) -> None:
    text = fs_mark(tmp_path, "-d", "/tmp/" + "x" * 40, "-n", "10")
    assert "must be less than 40 bytes" in text
    with pytest.raises(ParseError) as caught:
        get_parser("fs_mark")(text)
    print(caught.value.message)
    assert caught.value.message.startswith("no value found: looked for fs_mark's table")


def test_a_row_cut_short_is_named(short_folder: Path, tmp_path: Path) -> None:
    text = fs_mark(tmp_path, "-d", str(short_folder / "d"), "-s", "4096", "-n", "50", "-L", "2")
    lines = text.rstrip("\n").split("\n")
    cut = "\n".join([*lines[:-1], lines[-1][:20]])
    with pytest.raises(ParseError) as caught:
        get_parser("fs_mark")(cut)
    print(caught.value.message)
    assert caught.value.message.startswith(f"fs_mark: line {len(lines)}: not a row of fs_mark's")
