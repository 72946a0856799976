"""docs/parsers.md cannot drift: every parser has its section, and every example's
``perfwalk parse`` prints exactly what the doc shows.

The doc's fenced blocks are read: a ```` ```text title="NAME" ```` block is the file
NAME (a saved output), a ```` ```console ```` block holds commands (``$ …``) run by
bash in a folder holding those files, each followed by the lines it prints.
``pytest tests/parsers --regen-golden`` rewrites the printed lines from the current
output instead of comparing; read the diff before committing.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from perfwalk.parsers import PARSER_NAMES, get_parser

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "parsers.md"
_FENCE = re.compile(r"^```(?P<info>.*)$")
_TITLE = re.compile(r'^text\s+title="(?P<name>[^"]+)"$')


@dataclass
class Example:
    """One ``$ …`` command of a console block and the lines the doc says it prints."""

    section: str
    command: str
    first: int  # index in the doc's lines of the first printed line
    printed: list[str] = field(default_factory=list)


@dataclass
class Doc:
    lines: list[str]
    files: dict[str, str]
    examples: list[Example]
    sections: list[str]
    tomls: list[str] = field(default_factory=list)


def read_doc(text: str) -> Doc:
    lines = text.split("\n")
    files: dict[str, str] = {}
    examples: list[Example] = []
    sections: list[str] = []
    tomls: list[str] = []
    section = ""
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("## "):
            section = line[3:].strip().strip("`")
            sections.append(section)
        fence = _FENCE.match(line)
        if fence is None:
            index += 1
            continue
        info = fence["info"].strip()
        end = lines.index("```", index + 1)
        body = lines[index + 1 : end]
        title = _TITLE.match(info)
        if title is not None:
            assert title["name"] not in files, f"two files named {title['name']}"
            files[title["name"]] = "\n".join(body) + "\n"
        elif info == "toml":
            tomls.append("\n".join(body))
        elif info == "console":
            assert body, f"line {index + 1}: an empty console block"
            assert body[0].startswith("$ "), f"line {index + 2}: output before a command"
            for offset, text_line in enumerate(body):
                if text_line.startswith("$ "):
                    examples.append(Example(section, text_line[2:], index + offset + 2))
                else:
                    examples[-1].printed.append(text_line)
        index = end + 1
    return Doc(lines, files, examples, sections, tomls)


DOCUMENT = read_doc(DOC.read_text(encoding="utf-8"))


def run_example(example: Example, folder: Path) -> subprocess.CompletedProcess[str]:
    for name, content in DOCUMENT.files.items():
        if not (folder / name).exists():
            (folder / name).write_text(content, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), *sys.path])}
    script = f'perfwalk() {{ "{sys.executable}" -m perfwalk "$@"; }}\n{example.command}\n'
    return subprocess.run(
        ["bash", "-c", script],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_every_parser_has_a_section_with_an_example() -> None:
    assert [s for s in DOCUMENT.sections if s in PARSER_NAMES] == list(PARSER_NAMES)
    for name in PARSER_NAMES:
        commands = [e.command for e in DOCUMENT.examples if e.section == name]
        assert any(f"--parser {name} " in c for c in commands), f"no example of {name}"


def test_the_configurations_shown_are_accepted() -> None:
    """The doc's [[test]] tables name a parser and options that it takes."""
    assert DOCUMENT.tomls
    for text in DOCUMENT.tomls:
        for test in tomllib.loads(text)["test"]:
            get_parser(test["parser"], test.get("parser_options"))


def test_the_examples_print_what_the_doc_says(tmp_path: Path, regen_golden: bool) -> None:
    """In the doc's order, in one folder: a command may use a file an earlier one made."""
    outputs = []
    for example in DOCUMENT.examples:
        done = run_example(example, tmp_path)
        assert done.stderr == "", f"{example.command}: {done.stderr}"
        printed = done.stdout.rstrip("\n").split("\n") if done.stdout else []
        # values under the table's header (or a command that prints nothing), else
        # the parser's reason, with exit status 1
        found = not printed or printed[0].split()[:2] == ["name", "value"]
        assert done.returncode == (0 if found else 1), example.command
        outputs.append(printed)
        assert regen_golden or printed == example.printed, example.command
    if regen_golden:
        lines = list(DOCUMENT.lines)
        pairs = list(zip(DOCUMENT.examples, outputs, strict=True))
        for example, printed in reversed(pairs):  # from the end: indexes stay valid
            lines[example.first : example.first + len(example.printed)] = printed
        DOC.write_text("\n".join(lines), encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "files", "commands"),
    [
        (
            '## `x`\n```text title="a.out"\nVALUE 1 s x\n```\n```console\n$ perfwalk parse a\n'
            "name\n$ echo\n\n```\n",
            {"a.out": "VALUE 1 s x\n"},
            [("x", "perfwalk parse a", ["name"]), ("x", "echo", [""])],
        ),
    ],
)
def test_the_doc_is_read_as_meant(
    text: str, files: dict[str, str], commands: list[tuple[str, str, list[str]]]
) -> None:
    doc = read_doc(text)
    assert doc.files == files
    assert [(e.section, e.command, e.printed) for e in doc.examples] == commands
