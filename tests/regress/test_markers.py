"""The status rules of a test command, and marker-style logs."""

from __future__ import annotations

import pytest

from perfwalk.errors import ParseError
from perfwalk.model import Status
from perfwalk.regress.markers import judge_command, parse_markers

EVERY_MARKER = "sub-x\nUNEXPECTED_PASS\nsub-s\nSKIPPED\nsub-f\nFAILED\nsub-e\nEXPECTED_FAIL\n"


@pytest.mark.parametrize(
    ("output", "kwargs", "status", "message"),
    [
        ("all good\n", {"returncode": 0}, Status.PASS, ""),
        ("a\nEXPECTED_FAIL\n", {"returncode": 0}, Status.XFAIL, "a"),
        ("a\nEXPECTED_FAILED\n", {"returncode": 0}, Status.XFAIL, "a"),
        ("needs root\nSKIPPED\n", {"returncode": 0}, Status.SKIP, "needs root"),
        ("g\nUNEXPECTED_PASSED  \n", {"returncode": 0}, Status.XPASS, "g"),
        ("one\nFAILED\nok\ntwo\nFAILED\n", {"returncode": 0}, Status.FAIL, "one, two"),
        ("FAILED\n", {"returncode": 0}, Status.FAIL, "(unnamed subtest)"),
        # first matching rule wins: NOTERM, NOEXIT, FAIL, XPASS, SKIP, XFAIL, PASS
        (EVERY_MARKER, {"returncode": 0}, Status.FAIL, "sub-f"),
        (EVERY_MARKER.replace("FAILED", "x"), {"returncode": 0}, Status.XPASS, "sub-x"),
        ("s\nSKIPPED\ne\nEXPECTED_FAIL\n", {"returncode": 0}, Status.SKIP, "s"),
        (EVERY_MARKER, {"returncode": 2}, Status.NOEXIT, "exit status 2 (FAILED: sub-f)"),
        ("x\n", {"returncode": -9}, Status.NOEXIT, "killed by signal 9"),
        (
            EVERY_MARKER,
            {"returncode": None, "timed_out": True, "timeout": 5},
            Status.NOTERM,
            "timed out after 5 s; its process group was killed",
        ),
        ("", {"returncode": None, "error": "cannot run 'sh'"}, Status.NORUN, "cannot run 'sh'"),
    ],
)
def test_rules(output: str, kwargs: dict[str, object], status: Status, message: str) -> None:
    verdict = judge_command(output, **kwargs)  # type: ignore[arg-type]
    assert (verdict.status, verdict.message) == (status, message)


def test_a_marker_must_be_the_whole_line() -> None:
    output = "test FAILED on purpose\n  SKIPPED\nFAILED: no\n"
    assert judge_command(output, returncode=0).status is Status.PASS


def test_a_log_with_sections_of_both_kinds_and_verdict_lines() -> None:
    log = (
        "preamble line\n"
        "START\tsys/kern/a\n\nsub-1\nFAILED\n\nFAIL\tsys/kern/a\tsub-1\n"
        "START\tsys/kern/b\n\nrunning\n\nNOTERM\tsys/kern/b\tTest running too long, aborted\n"
        "===> sys/net/c\nSKIPPED\n"
        "===> sys/net/d\nmake: *** [Makefile:9: run] Error 2\n"
        "NOEXIST\tsys/net/gone\tChdir to '/usr/src/regress/sys/net/gone' failed\n"
    )
    parsed = parse_markers(log, "[suite]")
    assert [(o.name, o.status, o.message) for o in parsed.outcomes] == [
        ("sys/kern/a", Status.FAIL, "sub-1"),
        ("sys/kern/b", Status.NOTERM, "Test running too long, aborted"),
        ("sys/net/c", Status.SKIP, "(unnamed subtest)"),
        ("sys/net/d", Status.NOEXIT, "make: *** [Makefile:9: run] Error 2"),
        ("sys/net/gone", Status.NOEXIST, "Chdir to '/usr/src/regress/sys/net/gone' failed"),
    ]
    assert parsed.outcomes[0].log.startswith(b"START\tsys/kern/a\n")
    assert b"preamble" not in b"".join(o.log for o in parsed.outcomes)


def test_a_log_without_sections_is_one_test() -> None:
    parsed = parse_markers("step one\nstep two\nFAILED\n", "nightly")
    assert [(o.name, o.status, o.message) for o in parsed.outcomes] == [
        ("nightly", Status.FAIL, "step two")
    ]


def test_repeated_sections_get_numbered_names() -> None:
    parsed = parse_markers("===> a\nok\n===> a\nFAILED\n", "[suite]")
    assert [(o.name, o.status) for o in parsed.outcomes] == [
        ("a", Status.PASS),
        ("a (2)", Status.FAIL),
    ]


def test_an_empty_log_is_an_error() -> None:
    with pytest.raises(ParseError, match="empty"):
        parse_markers("  \n", "x.log")
