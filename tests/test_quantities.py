"""The one way perfwalk writes a number for a person: the golden cases of
tests/golden/number_format.json, written alike by src/perfwalk/quantities.py and, run
by node, by the site's src/perfwalk/report/static/format.js (so the two cannot drift)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from perfwalk.quantities import (
    format_bytes,
    format_change,
    format_difference,
    format_share,
    format_unit,
    format_value,
    read_bytes,
)

ROOT = Path(__file__).resolve().parents[1]
CASES = json.loads((ROOT / "tests" / "golden" / "number_format.json").read_text())
FORMAT_JS = ROOT / "src" / "perfwalk" / "report" / "static" / "format.js"


def _number(text: str | None) -> float | None:
    return None if text is None else float(text)


@pytest.mark.parametrize(("value", "unit", "expected"), CASES["values"])
def test_value(value: str | None, unit: str, expected: str) -> None:
    assert format_value(_number(value), unit) == expected


@pytest.mark.parametrize(("value", "unit", "expected"), CASES["differences"])
def test_difference(value: str | None, unit: str, expected: str) -> None:
    assert format_difference(_number(value), unit) == expected


@pytest.mark.parametrize(("fraction", "expected"), CASES["changes"])
def test_change(fraction: str | None, expected: str) -> None:
    assert format_change(_number(fraction)) == expected


@pytest.mark.parametrize(("fraction", "expected"), CASES["shares"])
def test_share(fraction: str | None, expected: str) -> None:
    assert format_share(_number(fraction)) == expected


def test_one_change_one_text() -> None:
    """-37.98 % is -38.0 % whichever fraction gave it: no -37.9, no -37.98."""
    assert {format_change(f) for f in (-0.3798, -0.37975, -0.37984)} == {"-38.0 %"}


def test_no_scientific_notation_for_ordinary_values() -> None:
    for power in range(-6, 14):
        for unit in ("", "s", "bytes/sec", "cycles", "%"):
            assert "e" not in format_value(1.2345 * 10.0**power, unit).split(" ")[0]


_NODE_SCRIPT = """
const fs = require("fs"), vm = require("vm");
const window = {};
vm.runInNewContext(fs.readFileSync(process.argv[1], "utf8"), { window: window });
const f = window.perfwalk.format;
const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const num = (t) => (t === null ? null : Number(t));
const out = {
  values: cases.values.map((c) => f.value(num(c[0]), c[1])),
  differences: cases.differences.map((c) => f.difference(num(c[0]), c[1])),
  changes: cases.changes.map((c) => f.change(num(c[0]))),
  shares: cases.shares.map((c) => f.share(num(c[0]))),
  axis: [f.axis("cycles")(1.5e9), f.axis("bytes/sec")(1.5e9)],
  units: ["us", "bytes/sec", "MB/s", "kbytes", "cycles", "%", ""].map(f.unit),
};
process.stdout.write(JSON.stringify(out));
"""


def test_format_js_writes_the_same() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: format.js's cases are not checked (apt install nodejs)")
    done = subprocess.run(
        [node, "-e", _NODE_SCRIPT, str(FORMAT_JS), str(ROOT / "tests/golden/number_format.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    written = json.loads(done.stdout)
    assert written["values"] == [c[2] for c in CASES["values"]]
    assert written["differences"] == [c[2] for c in CASES["differences"]]
    assert written["changes"] == [c[1] for c in CASES["changes"]]
    assert written["shares"] == [c[1] for c in CASES["shares"]]
    # an axis names its unit: a unit format.js does not know is left to the name
    assert written["axis"] == ["1.50 G", "1.50 GB/s"]
    # a unit as the values beside it spell it, alike in both
    assert written["units"] == [format_unit(u) for u in UNITS] == SPELLED


UNITS = ("us", "bytes/sec", "MB/s", "kbytes", "cycles", "%", "")
SPELLED = ["µs", "B/s", "MB/s", "KiB", "cycles", "%", ""]


def test_a_unit_is_spelled_as_its_values() -> None:
    assert [format_unit(u) for u in UNITS] == SPELLED


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("4096", 4096),
        ("500M", 500 << 20),
        ("500MiB", 500 << 20),
        ("2GiB", 2 << 30),
        ("2 g", 2 << 30),
        ("1.5GB", 1_500_000_000),
        ("10kB", 10_000),
        (".5k", 512),
    ],
)
def test_sizes_are_read_as_people_write_them(word: str, expected: int) -> None:
    assert read_bytes(word) == expected


@pytest.mark.parametrize("word", ["", "x", "-3", "nan", "1e9", "5 X", "2 GiB!"])
def test_a_size_that_is_none_says_what_is_expected(word: str) -> None:
    with pytest.raises(ValueError, match="expected a size such as 500M, 2GiB"):
        read_bytes(word)


def test_stored_bytes_are_written_with_binary_prefixes() -> None:
    assert [format_bytes(n) for n in (512, 1536, 2 << 30)] == ["512.0 B", "1.50 KiB", "2.00 GiB"]
