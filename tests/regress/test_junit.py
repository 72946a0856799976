"""JUnit XML: written by pytest itself, and malformed files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from perfwalk.errors import ParseError
from perfwalk.model import Status
from perfwalk.regress.junit import parse_junit
from tests.regress.conftest import SOURCES

EXPECTED = {
    "pytest_sample.test_pass": Status.PASS,
    "pytest_sample.test_fail": Status.FAIL,
    "pytest_sample.test_skip": Status.SKIP,
    "pytest_sample.test_xfail": Status.XFAIL,
    "pytest_sample.test_xpass_strict": Status.XPASS,
    "pytest_sample.test_setup_error": Status.NOEXIST,
    "pytest_sample.test_teardown_error": Status.NOCLEAN,
    "pytest_sample.test_param[1]": Status.PASS,
    "pytest_sample.test_param[2]": Status.FAIL,
    "pytest_sample.test_hostile_output": Status.FAIL,
}


def run_pytest_sample(directory: Path, *options: str) -> Path:
    """Run pytest on the sample suite in ``directory``; its JUnit XML file."""
    (directory / "pytest_sample.py").write_bytes((SOURCES / "pytest_sample.py").read_bytes())
    (directory / "pytest.ini").write_text("[pytest]\n")
    xml = directory / "junit.xml"
    subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", "pytest.ini"),
            *(f"--junitxml={xml}", *options, "pytest_sample.py"),
        ],
        cwd=directory,
        capture_output=True,
        check=False,
        timeout=120,
    )
    return xml


def test_pytest_junitxml_of_every_outcome(tmp_path: Path) -> None:
    xml = run_pytest_sample(tmp_path, "-o", "junit_logging=all")
    parsed = parse_junit(xml.read_bytes(), str(xml))
    found = {o.name: o for o in parsed.outcomes}
    assert {name: o.status for name, o in found.items()} == EXPECTED
    assert found["pytest_sample.test_fail"].message == "AssertionError: one is not two"
    assert b"computing the answer" in found["pytest_sample.test_fail"].log
    assert parsed.started is not None
    assert parsed.started.tzinfo is not None


def test_duplicate_test_cases_are_one_test_with_the_worst_status() -> None:
    xml = (
        b'<testsuite name="s"><testcase classname="c" name="t" time="0.5"/>'
        b'<testcase classname="c" name="t"><error message="failed on teardown with x"/>'
        b"</testcase></testsuite>"
    )
    (outcome,) = parse_junit(xml, "x.xml").outcomes
    assert (outcome.name, outcome.status, outcome.duration) == ("c.t", Status.NOCLEAN, 0.5)


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"", "malformed XML at line 1"),
        (b'<testsuite><testcase name="a">', "malformed XML at line 1, column 30"),
        (b"<testsuite>\n<testcase name='a'></testsuite>", "malformed XML at line 2"),
        (b"<html><body/></html>", "the root element is <html>"),
        (b"<testsuites><testsuite/></testsuites>", "no <testcase>"),
        (b"<testsuite><testcase classname='c'/></testsuite>", "<testcase> number 1 has no name"),
        (
            b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
            b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><testsuite>&lol2;</testsuite>',
            "DOCTYPE",
        ),
    ],
)
def test_malformed_xml_is_a_clear_error(data: bytes, error: str) -> None:
    with pytest.raises(ParseError, match=error) as info:
        parse_junit(data, "report.xml")
    assert info.value.message.startswith("report.xml: ")
    assert info.value.hint
