"""Golden cases of the regress parsers: results files written by the real tools
(tests/golden/regress/capture.sh) and their expected parse (<case>.json)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from perfwalk.errors import ParseError
from perfwalk.regress.formats import reader
from perfwalk.regress.outcome import ParsedSuite
from tests.regress.conftest import GOLDEN

FOLDERS = {"junit": "xml", "tap": "tap", "markers": "log"}


@dataclass(frozen=True)
class Case:
    format: str
    path: Path

    @property
    def id(self) -> str:
        return f"{self.format}/{self.path.name}"

    @property
    def expected_path(self) -> Path:
        return self.path.with_suffix(".json")

    def actual(self) -> object:
        try:
            parsed = reader(self.format)(self.path.read_bytes(), self.path.name, "[suite]")
        except ParseError as error:
            return {"error": error.message}
        return as_data(parsed)


def as_data(parsed: ParsedSuite) -> dict[str, object]:
    return {
        "started": parsed.started.isoformat() if parsed.started else None,
        "hostname": parsed.hostname,
        "outcomes": [
            {
                "name": o.name,
                "status": o.status.name,
                "message": o.message,
                "source": o.source,
                "duration": o.duration,
                "log": o.log.decode("utf-8", errors="replace"),
            }
            for o in parsed.outcomes
        ],
    }


def cases() -> list[Case]:
    return [
        Case(fmt, path)
        for fmt, ext in FOLDERS.items()
        for path in sorted((GOLDEN / fmt).glob(f"*.{ext}"))
    ]


def dump(data: object) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
