"""The ``perfwalk.toml`` that ``perfwalk init`` writes: every setting, with its help.

It is generated from the declarations, so it shows every setting there is, and it
runs as written in any git repository: nothing to build, and one test that times
``git log`` with ``time -p``.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from perfwalk.config.settings import SECTIONS, Form, Section, toml_value
from perfwalk.parsers import PARSER_NAMES

#: The settings whose template value is not their default.
_VALUES: dict[str, object] = {
    "build.steps": [],
    "run.step": "1week",
    "test.name": "git-log",
    "test.command": "time -p git log --oneline > /dev/null",
    "test.parser": "time-p",
    "test.metrics.<name>.summary": "median",
}

#: What the template shows for optional settings it leaves unset, where the
#: declared example would not fit the example test.
_UNSET: dict[str, object] = {
    "test.metrics.<name>.unit": "s",
    "test.metrics.<name>.direction": "lower",
    "test.role": "dut",
    "test.service.role": "dut",
    "quirk.test.<name>.command": "time -p git log --oneline --first-parent > /dev/null",
    "quirk.test.<name>.parser": "",
}

#: The name given to the example table of each ``[<section>.<name>]`` section.
_NAMES: dict[str, str] = {
    "test.metrics": "real",
    "hosts": "dut",
    "install": "dut",
    "test.roles": "dut",
    "quirk.test": "git-log",
}

#: The sections the template shows commented out: they need a lab, a suite or a name.
_COMMENTED = (
    "snapshot",
    "quirk",
    "release",
    "walk",
    "variant",
    "environment",
    "regress",
    "hosts",
    "install",
    "test.service",
    "test.roles",
    "test.instrument",
    "test.derived",
)

#: A line of advice after a setting.
_NOTES: dict[str, str] = {
    "build.steps": 'e.g. steps = ["./configure", "make -j2"]',
    "run.from": 'e.g. from = "2024-01-01" to start at a date, from = "v1.0" at a tag',
    "run.step": "or commit (every commit), commit/10 (every 10th), 1day, 1month…",
    "test.command": "time -p prints real, user and sys seconds; the parser reads them",
    "test.parser": "parsers: " + ", ".join(PARSER_NAMES),
    "test.metrics.<name>.summary": "this table is named after real, a value time-p gives: "
    "name it after one your test's parser gives (a walk that never produces real says so "
    "at its end and in perfwalk show)",
}

_HEADER = """\
# perfwalk.toml for {name}, as `perfwalk init` wrote it.
#
# Every setting is here with its help. A line "# key = value" is an optional
# setting left unset; remove the "# " to set it. Relative paths are relative to
# this file's directory. docs/configuration.md is the full reference.
#
# As written, it walks the repository's history week by week and times `git log`
# five times at each checkout. Try it: perfwalk run"""


def example_config(repo_dir: Path) -> str:
    """A commented configuration for the repository ``repo_dir``, to be saved in it."""
    values = {**_VALUES, "project.name": repo_dir.name or "project"}
    lines = _HEADER.format(name=repo_dir.name or "this repository").splitlines()
    for section in SECTIONS:
        lines += _section(section, section.key, values, commented=False)
    return "\n".join(lines) + "\n"


def _section(section: Section, path: str, values: dict[str, object], commented: bool) -> list[str]:
    commented = commented or path in _COMMENTED
    off = "# " if commented else ""
    if section.form is Form.NAMED:
        header, path = f"[{path}.{_NAMES[path]}]", f"{path}.<name>"
    elif section.form is Form.ARRAY:
        header = f"[[{path}]]"
    else:
        header = f"[{path}]"
    lines = ["", *_comment(section.help), off + header]
    for setting in section.settings:
        dotted = f"{path}.{setting.key}"
        lines += _comment(setting.help)
        if dotted in values:
            line = f"{off}{setting.key} = {toml_value(values[dotted])}"
        elif setting.required or setting.default is None or commented:
            line = f"# {setting.key} = {toml_value(_UNSET.get(dotted, setting.sample))}"
        else:
            line = f"{off}{setting.key} = {toml_value(setting.default)}"
        lines.append(line)
        if dotted in _NOTES:
            lines += _comment(_NOTES[dotted])
    for child in section.sections:
        lines += _section(child, f"{path}.{child.key}", values, commented)
    return lines


def _comment(text: str) -> list[str]:
    return ["# " + line for line in textwrap.wrap(text, 86, break_on_hyphens=False)]
