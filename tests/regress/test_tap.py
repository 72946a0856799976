"""TAP and prove output: plain streams, prove itself on real test scripts, malformed input."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from perfwalk.errors import ParseError
from perfwalk.model import Status
from perfwalk.regress.tap import parse_tap
from tests.regress.conftest import SOURCES


def _statuses(text: str) -> list[tuple[str, Status, str]]:
    return [(o.name, o.status, o.message) for o in parse_tap(text, "x.tap").outcomes]


def test_plain_tap_with_directives_and_diagnostics() -> None:
    text = (
        "TAP version 13\n"
        "1..6\n"
        "ok 1 - alpha\n"
        "not ok 2 - beta\n"
        "  ---\n  message: 'expected 3, got 4'\n  ...\n"
        "ok 3 - gamma # SKIP no network\n"
        "not ok 4 - delta # TODO later\n"
        "ok 5 - epsilon # todo fixed\n"
        "ok 6 hash \\# in name\n"
    )
    assert _statuses(text) == [
        ("alpha", Status.PASS, ""),
        ("beta", Status.FAIL, "'expected 3, got 4'"),
        ("gamma", Status.SKIP, "no network"),
        ("delta", Status.XFAIL, "later"),
        ("epsilon", Status.XPASS, "fixed"),
        ("hash # in name", Status.PASS, ""),
    ]


def test_stream_wide_problems_make_a_row_of_the_default_name() -> None:
    assert _statuses("1..3\nok 1 - a\nBail out! database gone\n")[-1] == (
        "[suite]",
        Status.NOEXIT,
        "Bail out! database gone",
    )
    assert _statuses("1..3\nok 1 - a\n")[-1] == (
        "[suite]",
        Status.FAIL,
        "planned 3 tests but ran 1",
    )
    assert _statuses("ok 1 - a\n")[-1] == (
        "[suite]",
        Status.FAIL,
        "no plan (1..N): the output may be cut short",
    )
    assert _statuses("1..0 # SKIP no database\n") == [("[suite]", Status.SKIP, "no database")]
    assert _statuses("1..2\nok 2 - b\nok 1 - a\n")[-1][:2] == ("[suite]", Status.FAIL)
    assert len(_statuses("1..2\nok 1 - a\nok 2 - b\n")) == 2  # nothing wrong: no extra row


def test_repeated_descriptions_get_numbered_names() -> None:
    names = [name for name, _s, _m in _statuses("1..3\nok 1 - same\nok 2 - same\nok 3\n")]
    assert names == ["same", "same (2)", "test 3"]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "no TAP found"),
        ("hello\nworld\n", "no TAP found"),
        ("1..2\nok 1\nok 2\n1..2\n", "line 4: a second plan"),
        ("1..x\nok 1\n", "line 1: bad plan '1..x'"),
        ("TAP version 99\n1..1\nok 1\n", "line 1: unknown TAP version '99'"),
    ],
)
def test_malformed_tap_is_a_clear_error(text: str, error: str) -> None:
    with pytest.raises(ParseError, match=error) as info:
        parse_tap(text, "results.tap")
    assert "results.tap" in info.value.message
    assert info.value.hint


@pytest.mark.skipif(shutil.which("prove") is None, reason="prove (perl) is missing")
def test_prove_itself_on_real_test_scripts(tmp_path: Path) -> None:
    shutil.copytree(SOURCES / "t", tmp_path / "t")
    done = subprocess.run(
        ["prove", "-v", "--merge", "t/"], cwd=tmp_path, capture_output=True, check=False
    )
    assert done.returncode != 0  # t/a.t fails on purpose
    found = {o.name: o for o in parse_tap(done.stdout.decode(), "prove").outcomes}
    assert found["t/a.t: first"].status is Status.PASS
    assert found["t/a.t: second"].status is Status.FAIL
    assert found["t/a.t: second"].message == "Failed test 'second'"
    assert found["t/a.t: future"].status is Status.XFAIL
    assert found["t/b.t: todo passes"].status is Status.XPASS
    assert found["t/c.t"].status is Status.SKIP
    assert found["t/a.t"].status is Status.NOEXIT
    assert found["t/d.t"].status is Status.NOEXIT
    assert found["t/e.t"].status is Status.PASS
    assert found['t/e.t: <b>bold</b> & "quoted"'].source == "t/e.t"
