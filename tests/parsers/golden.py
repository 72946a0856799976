"""Golden cases of the parser tests: raw tool outputs and their expected parse.

``tests/golden/parsers/<parser>/<case>.out`` is the output captured from the
real tool by ``tests/golden/parsers/capture.sh``; ``<case>.options.json`` (if
any) the parser options; ``<case>.json`` the expected parse, a list of
``{name, value, unit}`` or ``{"error": message}`` for a ParseError.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from perfwalk.errors import ParseError
from perfwalk.parsers import get_parser

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "parsers"


@dataclass(frozen=True)
class Case:
    parser: str
    name: str
    out: Path

    @property
    def id(self) -> str:
        return f"{self.parser}/{self.name}"

    @property
    def expected_path(self) -> Path:
        return self.out.with_suffix(".json")

    def options(self) -> dict[str, object] | None:
        path = self.out.with_suffix(".options.json")
        return json.loads(path.read_text()) if path.exists() else None

    def text(self) -> str:
        return self.out.read_bytes().decode("utf-8", errors="replace")

    def actual(self) -> object:
        """The parse of the output in the golden file's form."""
        parser = get_parser(self.parser, self.options())
        try:
            values = parser(self.text())
        except ParseError as error:
            return {"error": error.message}
        return [{"name": v.name, "value": v.value, "unit": v.unit} for v in values]


def cases() -> list[Case]:
    return [Case(out.parent.name, out.stem, out) for out in sorted(GOLDEN.glob("*/*.out"))]


def dump(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class ProfileCase:
    """``perf-script/<case>.script``: the text of the real ``perf script``
    (recorded by ``capture.sh perf_script``); ``<case>.folded``: its expected
    folded stacks, in the folded text form (heaviest first)."""

    name: str
    script: Path

    @property
    def id(self) -> str:
        return f"perf-script/{self.name}"

    @property
    def expected_path(self) -> Path:
        return self.script.with_suffix(".folded")

    def text(self) -> str:
        return self.script.read_bytes().decode("utf-8", errors="replace")


def profile_cases() -> list[ProfileCase]:
    return [ProfileCase(path.stem, path) for path in sorted(GOLDEN.glob("perf-script/*.script"))]
