"""docs/configuration.md is generated from the declarations and covers every setting."""

from __future__ import annotations

from pathlib import Path

from perfwalk.config.reference import reference
from perfwalk.config.settings import walk

DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def test_the_committed_reference_is_the_generated_one(regen_golden: bool) -> None:
    if regen_golden:
        DOC.write_text(reference(), encoding="utf-8")
    assert DOC.read_text(encoding="utf-8") == reference(), (
        "docs/configuration.md is stale: run pytest tests/config --regen-golden"
    )


def test_the_reference_has_a_row_per_setting() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name, section, setting in walk():
        table = name.rsplit(".", 1)[0]
        title = f"## `[[{table}]]`" if section.form.value == "array" else f"## `[{table}]`"
        start = text.index(title)
        end = text.find("\n## ", start + 1)
        assert f"| `{setting.key}` |" in text[start:end], name
