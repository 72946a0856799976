"""The regress parsers on results files written by pytest, prove and make
(see tests/golden/regress/capture.sh).

``pytest tests/regress --regen-golden`` rewrites the expected ``<case>.json``
from the current parse instead of comparing; read the diff before committing.
"""

from __future__ import annotations

import json

import pytest

from perfwalk.regress.formats import FORMAT_NAMES, detect
from tests.regress.golden import Case, cases, dump


@pytest.mark.parametrize("case", cases(), ids=lambda case: case.id)
def test_golden(case: Case, regen_golden: bool) -> None:
    actual = case.actual()
    if regen_golden:
        case.expected_path.write_text(dump(actual), encoding="utf-8")
        return
    assert case.expected_path.exists(), (
        f"{case.expected_path} is missing: run pytest tests/regress --regen-golden"
    )
    assert actual == json.loads(case.expected_path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", cases(), ids=lambda case: case.id)
def test_each_file_is_recognised_as_its_format(case: Case) -> None:
    assert detect(case.path.read_bytes()) == case.format


def test_every_format_has_golden_cases() -> None:
    assert {case.format for case in cases()} == set(FORMAT_NAMES)
