"""A newcomer finds each module of report/ in ARCHITECTURE.md's code map of report/
(its size is kept by tests/test_architecture.py: none over 600 lines)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "src" / "perfwalk" / "report"


def test_the_code_map_names_every_module_of_report() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text[text.index("### `report/`\n") : text.index("### `report/pages/`")]
    named = set(re.findall(r"`([a-z_]+)\*?`", section))
    prefixes = set(re.findall(r"`([a-z_]+)\*`", section))
    modules = {path.stem for path in REPORT.glob("*.py")} - {"__init__"}
    missing = {m for m in modules if m not in named and not any(m.startswith(p) for p in prefixes)}
    assert missing == set()
