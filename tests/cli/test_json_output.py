"""Every JSON perfwalk prints is strict JSON: no NaN, no Infinity (``null`` instead)."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path
from typing import Any

import pytest

from perfwalk.cli.main import main
from perfwalk.numbers import finite_document, json_text

SRC = Path(__file__).resolve().parents[2] / "src" / "perfwalk"
#: json.dumps calls that make no output: the configuration's hash input
NOT_OUTPUT = {"config/load.py"}


def strict(text: str) -> Any:
    """``text`` read as strict JSON: NaN and Infinity are refused."""

    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def _numbers(value: Any) -> list[float]:
    if isinstance(value, dict):
        return [n for item in value.values() for n in _numbers(item)]
    if isinstance(value, list):
        return [n for item in value for n in _numbers(item)]
    return [value] if isinstance(value, float) else []


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (["1e308"] * 3, ["-1e308"] * 3),  # the difference overflows
        (["1", "2", "3"], ["1e308", "1.5e308", "1.7e308"]),
        (["1e308"] * 3, ["1e308"] * 3),
        (["5"] * 4, ["5"] * 4),  # no spread at all
        (["0"] * 4, ["1", "2", "3", "4"]),  # a base of 0: no percentage
    ],
)
def test_compare_json_is_strict_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], a: list[str], b: list[str]
) -> None:
    files = []
    for name, values in (("a", a), ("b", b)):
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(values) + "\n", encoding="utf-8")
        files.append(str(path))
    code = main(["compare", "--format", "json", *files])
    out = capsys.readouterr().out
    assert code in (0, 1)
    document = strict(out)
    assert all(math.isfinite(n) for n in _numbers(document))
    assert document["a"]["n"] == len(a)


def test_detect_json_is_strict_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "steps.txt"
    path.write_text("0\n" * 20 + "5\n" * 20, encoding="utf-8")  # no noise: an endless z
    assert main(["detect", "--format", "json", str(path)]) == 1
    document = strict(capsys.readouterr().out)
    (change,) = document["changes"]
    assert change["index"] == 20
    assert change["relative"] is None  # from 0: no finite percentage


def test_finite_document() -> None:
    document = {"a": [1.0, math.inf, (math.nan, -math.inf)], "b": {"c": 2, "d": "x"}}
    assert finite_document(document) == {"a": [1.0, None, [None, None]], "b": {"c": 2, "d": "x"}}
    assert strict(json_text({"x": math.nan})) == {"x": None}


def test_every_json_dumps_refuses_nan() -> None:
    """NaN or infinity cannot come back into an output: every json.dumps of the
    package passes allow_nan=False (or goes through numbers.json_text)."""
    lenient = []
    for path in sorted(SRC.rglob("*.py")):
        where = path.relative_to(SRC).as_posix()
        if where in NOT_OUTPUT:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("dumps", "dump")
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "json"
            ):
                keywords = {k.arg: k.value for k in node.keywords}
                refused = keywords.get("allow_nan")
                if not (isinstance(refused, ast.Constant) and refused.value is False):
                    lenient.append(f"{where}:{node.lineno}")
    assert lenient == []
