"""Tables for the terminal: numbers aligned on their decimal point, wrapped to the
width, colour only on a terminal that wants it."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from perfwalk.cli import tables
from perfwalk.cli.main import main
from perfwalk.cli.tables import format_table, print_table, show_style
from perfwalk.services.push import PushRequest, store_push
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory
from tests.services.walks import finished

ROWS = [
    ["#", "commit", "bench.rate [MB/s]", "size"],
    ["0", "5269d871ee", "577.4 ±0.3% n=5", "12"],
    ["1", "e0781fbe12", "12.35 ±10.0%! n=5", "7"],
    ["10", "0000000000", "NOEXIST", "-"],
    ["11", "1111111111", "1e+308 ±0.0% n=2", "1024"],
]


def test_numbers_line_up_on_their_decimal_point() -> None:
    lines = format_table(ROWS).splitlines()
    points = {line.index(".") for line in lines[1:3]}
    assert len(points) == 1  # 577.4 and 12.35 share the column of their point
    assert lines[1].index("±") == lines[2].index("±") == lines[4].index("±")
    assert lines[1].split()[0] == "0"
    # a column of numbers (and "-") is right-aligned, its header too
    assert lines[0].endswith("size")
    assert lines[1].endswith("  12")
    assert lines[3].endswith("   -")
    assert lines[4].endswith("1024")
    assert lines[0].startswith(" #")
    # a commit id starting with digits and a status are text, not numbers
    assert "  5269d871ee  " in lines[1]
    assert "NOEXIST" in lines[3]


def test_a_wide_table_is_cut_into_blocks_that_fit_keeping_the_first_columns() -> None:
    text = format_table(ROWS, width=36, keep=2)
    blocks = text.split("\n\n")
    assert len(blocks) == 2
    for block in blocks:
        assert all(len(line) <= 36 for line in block.splitlines())
        assert "commit" in block.splitlines()[0]  # the kept columns in every block
    assert "bench.rate" in blocks[0]
    assert "size" in blocks[1]
    assert format_table(ROWS, width=200) == format_table(ROWS)


def test_a_column_can_be_cut_to_fit() -> None:
    rows = [["#", "subject"], ["0", "a very long subject " * 5]]
    lines = format_table(rows, width=40, fit=1).splitlines()
    assert max(len(line) for line in lines) <= 40
    assert lines[1].endswith("…")


def test_control_characters_are_shown_not_sent() -> None:
    text = format_table([["name"], ["a\x1b[31mred"]])
    assert "\x1b" not in text
    assert "\\x1b[31mred" in text


def test_colour_only_on_a_terminal_that_wants_it(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", "200")
    shown = Terminal()
    print_table(ROWS, stream=shown, style=show_style)
    assert "\x1b[" in shown.getvalue()
    plain = io.StringIO()
    print_table(ROWS, stream=plain, style=show_style)
    assert plain.getvalue() == format_table(ROWS, width=200) + "\n"
    monkeypatch.setenv("NO_COLOR", "1")
    uncoloured = Terminal()
    print_table(ROWS, stream=uncoloured, style=show_style)
    assert uncoloured.getvalue() == plain.getvalue()


def test_columns_is_honoured_when_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "32")
    out = io.StringIO()
    print_table(ROWS, stream=out, keep=2)
    blocks = format_table(ROWS, width=32, keep=2).splitlines()
    # a block of one column still wider than the line is cut: never wider than COLUMNS
    cut = [line if len(line) <= 32 else line[:31] + "…" for line in blocks]
    assert out.getvalue().splitlines() == cut
    monkeypatch.delenv("COLUMNS")
    out = io.StringIO()
    print_table(ROWS, stream=out, keep=2)
    assert out.getvalue() == format_table(ROWS) + "\n"  # a file: no limit


def test_show_labels_its_cells_and_fits_columns(
    tmp_path: Path,
    known_values_repo_copy: KnownHistory,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = tmp_path / "perfwalk.toml"
    config.write_text(
        f'[project]\nrepo = "{known_values_repo_copy.path}"\n[build]\nsteps = ["sh build.sh"]\n'
        '[run]\nrepetitions = 2\nstep = "commit/10"\n[[test]]\nname = "latency"\n'
        'command = "sh bench.sh"\nparser = "value"\n'
        '[[test]]\nname = "again"\ncommand = "sh bench.sh"\nparser = "value"\n'
        '[test.metrics.latency]\nsummary = "median"\n'
    )
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(["run", "-c", str(config)]) == 0
    capsys.readouterr()
    assert main(["show", "-c", str(config)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "again.latency [ms]" in lines[1]
    assert "latency.latency [ms]" in lines[1]
    # each metric by its summary policy: median for again's ([test.metrics]), else mean
    assert lines[2].split() == ["median", "±rsd", "n", "mean", "±rsd", "n"]
    assert "100.0 ms ±0.0 % n=2" in lines[3]
    monkeypatch.setenv("COLUMNS", "70")
    assert main(["show", "-c", str(config)]) == 0
    out = capsys.readouterr().out
    body = out.splitlines()[1:]
    assert max(map(len, body)) <= 70
    assert out.count("date") >= 2  # blocks, each with the checkout's columns
    assert tables.SHOW_KEPT == 3


def test_a_pushed_name_of_255_characters_keeps_list_s_columns_bounded(
    tmp_path: Path, known_values_repo_copy: KnownHistory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI push with a branch and a host name of 255 characters each (what the API takes):
    `perfwalk list` cuts the name in its middle (…), its other columns stay where a short name puts
    them; the whole name stays in `perfwalk export --format json`."""
    config = tmp_path / "perfwalk.toml"
    config.write_text(
        f'[project]\nrepo = "{known_values_repo_copy.path}"\nname = "p"\n[build]\nsteps = []\n'
        '[[test]]\nname = "t"\ncommand = "true"\nparser = "value"\n',
        encoding="utf-8",
    )
    branch, host = "b" * 254 + "\u00e9", "h" * 255
    with Store.open(f"sqlite:///{tmp_path}/perfwalk.db") as store:
        for project, where in (("p", "main"), ("p", branch)):
            request = PushRequest(
                format="hyperfine",
                text=json.dumps({"results": [{"command": "a", "mean": 1.0}]}),
                commit="ab" * 20,
                branch=where,
                host=host if where == branch else "ci",
                project=project,
                date=datetime(2026, 1, 1, tzinfo=UTC),
            )
            store_push(store, request)
    monkeypatch.setenv("COLUMNS", "200")  # a wide terminal: one block, each row whole
    code, out, err = finished("list", "-c", str(config))
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 3
    assert max(map(len, lines)) < 200, out
    long_row = next(line for line in lines if line.split()[2].startswith("bbb"))
    name = long_row.split()[2]
    assert len(name) == tables.MAX_CELL
    assert name == "b" * 29 + "…" + "h" * 30  # its start and its end
    # the state column comes right after the name's, at most MAX_CELL wide
    assert lines[0].index("state") == len("id  kind  ") + tables.MAX_CELL + 2
    code, out, err = finished("export", "-c", str(config), "--format", "json")
    assert code == 0, err
    names = [series["name"] for series in json.loads(out)["series"]]
    assert f"{branch} on {host}" in names
