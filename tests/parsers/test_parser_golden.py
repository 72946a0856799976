"""Every parser on outputs captured from the real tools (see tests/golden/parsers).

``pytest tests/parsers --regen-golden`` rewrites the expected ``<case>.json``
from the current parse instead of comparing; review the diff before committing.
"""

from __future__ import annotations

import json

import pytest

from perfwalk.parsers import PARSER_NAMES
from tests.parsers.golden import GOLDEN, Case, cases, dump


@pytest.mark.parametrize("case", cases(), ids=lambda case: case.id)
def test_golden(case: Case, regen_golden: bool) -> None:
    actual = case.actual()
    if regen_golden:
        case.expected_path.write_text(dump(actual))
        return
    assert case.expected_path.exists(), (
        f"{case.expected_path} is missing: run pytest tests/parsers --regen-golden"
    )
    assert actual == json.loads(case.expected_path.read_text())


def test_every_parser_has_golden_cases() -> None:
    covered = {case.parser for case in cases()}
    assert covered == set(PARSER_NAMES)


def test_every_expected_file_has_its_output() -> None:
    outputs = {case.expected_path for case in cases()}
    expected = {p for p in GOLDEN.glob("*/*.json") if not p.name.endswith(".options.json")}
    assert expected <= outputs
