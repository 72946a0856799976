"""``perfwalk parse``: a parser and its options tried on a saved output, before a walk:
the values as a table or JSON (exit 0), the parser's reason when there is none (exit 1),
a bad option's ConfigError (exit 2); the standard input as ``-``; a test's parser,
options and metric directions with ``--test``."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from tests.fixtures.synthetic_repo import KnownHistory
from tests.parsers.golden import GOLDEN

LZ4_OUT = GOLDEN / "regex" / "lz4-1.10-bench.out"
LZ4_PATTERN = r"(?P<compress>[0-9.]+) MB/s ?, ?(?P<decompress>[0-9.]+) MB/s\r *(?P<name>\d+)#"
LZ4_OPTIONS = ["--options-toml", f"pattern = '{LZ4_PATTERN}'", "--option", "unit=MB/s"]
LZ4_TABLE = """\
name          value        unit  direction
1.compress    558.1  MB/s  MB/s  higher
1.decompress    5.42 GB/s  MB/s  higher
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_table_of_the_values(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "parse", "--parser", "regex", *LZ4_OPTIONS, str(LZ4_OUT)) == (
        0,
        LZ4_TABLE,
        "",
    )


def test_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "parse", "--parser", "time-p", "--format", "json", "-c", "x.toml",
                       str(GOLDEN / "time-p" / "two-blocks.out"))  # fmt: skip
    assert code == 0
    found = json.loads(out)
    assert found["parser"] == "time-p"
    assert found["reason"] is None
    assert [v["name"] for v in found["values"]] == ["real", "user", "sys"]
    assert {(v["unit"], v["direction"], v["direction_from"]) for v in found["values"]} == {
        ("s", "lower", "unit")
    }


def test_the_standard_input_as_written(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-`` reads the bytes as they are: the \\r of a progress line is kept."""
    stdin = io.TextIOWrapper(io.BytesIO(LZ4_OUT.read_bytes()))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert run(capsys, "parse", "--parser", "regex", *LZ4_OPTIONS, "-") == (0, LZ4_TABLE, "")


def test_options_one_by_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "parse", "--parser", "regex", str(LZ4_OUT),
                       "--option", f"pattern={LZ4_PATTERN}",
                       "--option", "units.compress=MB/s", "--option", "units.decompress='MB/s'",
                       "--option", "scale.decompress=0.001")  # fmt: skip
    assert code == 0
    assert out.splitlines()[1:] == [
        "1.compress    558.1  MB/s  MB/s  higher",
        "1.decompress    5.42 MB/s  MB/s  higher",
    ]


def test_no_value_prints_the_parsers_reason_and_exits_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "parse", "--parser", "gotest", str(LZ4_OUT))
    assert (code, err) == (1, "")
    assert out.startswith("no value found: looked for ")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (
            [
                "--parser",
                "regex",
                "--option",
                "pattern=(?P<compress>\\d+)",
                "--option",
                "units.compres=MB/s",
            ],
            "parser_options.units.compres: no group 'compres' in the pattern; its groups: "
            "compress\nhint: did you mean compress?",
        ),
        (["--parser", "regex", "--option", "unit=s"], "parser_options.pattern: required"),
        (["--parser", "fio", "--option", "x=1"], "the fio parser takes no options"),
        (["--parser", "regex", "--option", "pattern"], "--option 'pattern': expected KEY=VALUE"),
        (["--parser", "regex", "--options-toml", "pattern = '"], "--options-toml: not TOML"),
        (["--parser", "regex", "--timeout", "nan", *LZ4_OPTIONS], "--timeout"),
        (["--parser", "regex", "--test", "t"], "not allowed with argument"),
        (["--test", "t", *LZ4_OPTIONS], "--option and --options-toml go with --parser"),
        (["--parser", "nope"], "invalid choice: 'nope'"),
    ],
)
def test_bad_options_are_user_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    try:
        code = main(["parse", *argv, str(LZ4_OUT)])
    except SystemExit as stop:  # argparse's own errors
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert words in err
    assert "Traceback" not in err


def test_a_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "parse", "--parser", "value", str(tmp_path / "gone.out"))
    assert code == 2
    assert "gone.out: no such file" in err


def test_a_pattern_that_backtracks_for_ever_is_stopped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_file = tmp_path / "digits.out"
    out_file.write_text("1" * 40 + "!\n")
    code, out, _ = run(capsys, "parse", "--parser", "regex", "--option",
                       r"pattern=(?P<speed>(\d+)+)x$", "--option", "unit=MB/s",
                       "--timeout", "0.5", str(out_file))  # fmt: skip
    assert code == 1
    assert out == "parser 'regex': no answer after 0.5 s (--timeout); the parse was stopped\n"


CONFIG = """\
[project]
repo = "{repo}"
[[test]]
name = "lz4"
command = "lz4 -b1 corpus"
parser = "regex"
parser_options = {{ pattern = '{pattern}', unit = "MB/s" }}
[test.metrics."1.decompress"]
direction = "lower"
unit = "MiB/s"
[[test]]
name = "other"
command = "true"
parser = "value"
"""


def test_a_tests_parser_options_and_metrics(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, known_values_repo: KnownHistory
) -> None:
    config = tmp_path / "perfwalk.toml"
    config.write_text(CONFIG.format(repo=known_values_repo.path, pattern=LZ4_PATTERN))
    code, out, _ = run(capsys, "parse", "-c", str(config), "--test", "lz4", "--format", "json",
                       str(LZ4_OUT))  # fmt: skip
    assert code == 0
    assert json.loads(out)["values"] == [
        {
            "name": "1.compress",
            "value": 558.1,
            "unit": "MB/s",
            "direction": "higher",
            "direction_from": "unit",
        },
        {
            "name": "1.decompress",
            "value": 5415.6,
            "unit": "MiB/s",
            "direction": "lower",
            "direction_from": "metrics",
        },
    ]
    code, _, err = run(capsys, "parse", "-c", str(config), "--test", "lz5", str(LZ4_OUT))
    assert code == 2
    assert "--test lz5: no such test" in err
    assert "lz4, other" in err


SWEPT = """\
[project]
repo = "{repo}"

[[test]]
name = "udp"
command = "./udp {{sweep.size}} {{sweep.streams}}"
parser = "value"
[test.sweep]
size = [64, 1500]
streams = [1, 10]
[[test.derived]]
name = "pps"
expression = "receiver / 8 / sweep.size"
unit = "packets/s"
[[test.derived]]
name = "per_extra_stream"
expression = "receiver / (sweep.streams - 1)"
unit = "bits/sec"
"""


def test_a_sweeps_member_shows_its_derived_metrics_and_why_one_is_missing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, known_values_repo: KnownHistory
) -> None:
    config = tmp_path / "perfwalk.toml"
    config.write_text(SWEPT.format(repo=known_values_repo.path))
    output = tmp_path / "udp.out"
    output.write_text("VALUE 96000 bits/sec receiver\n")
    code, out, _ = run(capsys, "parse", "-c", str(config), "--test", "udp", str(output))
    assert code == 0  # the sweep's first member: size 64, 1 stream
    assert out.splitlines()[2].split()[:3] == ["pps", "187.5", "packets/s"]
    assert out.endswith(
        "derived per_extra_stream left out: division by zero (sweep.streams - 1 is 0)\n"
    )
    member = "udp[size=1500,streams=10]"
    code, out, _ = run(capsys, "parse", "-c", str(config), "--test", member, "--format", "json",
                       str(output))  # fmt: skip
    assert code == 0
    found = json.loads(out)
    assert [(v["name"], v["value"]) for v in found["values"]] == [
        ("receiver", 96000.0),
        ("pps", 8.0),
        ("per_extra_stream", 96000.0 / 9),
    ]
    assert found["reason"] is None
