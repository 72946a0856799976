"""docs/configuration.md is generated from the declarations and covers every setting."""

from __future__ import annotations

import re
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


def test_every_setting_the_docs_name_is_declared() -> None:
    """A guide's `[run] confirm_wait` is a setting of config/settings.py, not a memory of one."""
    declared = {name for name, _, _ in walk()}
    docs = Path(__file__).resolve().parents[2]
    named = re.compile(r"`\[\[?([a-z_.]+(?:\.<[a-z_]+>)?)\]?\]\s+([a-z_]+)")
    unknown = []
    for page in [docs / "README.md", *sorted((docs / "docs").glob("*.md"))]:
        for match in named.finditer(page.read_text(encoding="utf-8")):
            table = re.sub(r"<[a-z_]+>", "<name>", match.group(1))
            if f"{table}.{match.group(2)}" not in declared:
                unknown.append(f"{page.name}: {match.group(0)}")
    assert not unknown, unknown
