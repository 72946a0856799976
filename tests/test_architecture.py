"""ARCHITECTURE.md stays true: its code map names every package of src/perfwalk (and
every top-level module) and nothing that is not there, every test it names as the
keeper of an invariant exists, and the invariants a program can check hold: only
the front ends print or exit, and the pure packages reach nothing outside the
process."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "perfwalk"
MAP = ROOT / "ARCHITECTURE.md"

#: the front ends: the only modules that print or exit
FRONT_ENDS = ("cli", "__main__")
#: pure packages: numbers or text in, typed results out
PURE = ("analysis", "parsers", "regress", "drill")
#: what a pure package may not import: the ways out of the process
OUTSIDE = frozenset(
    {
        "os",
        "subprocess",
        "socket",
        "shutil",
        "pathlib",
        "time",
        "threading",
        "multiprocessing",
        "urllib",
        "http",
        "httpx",
        "sqlalchemy",
        "psycopg",
        "perfwalk.store",
        "perfwalk.hosts",
        "perfwalk.git",
    }
)


def _text() -> str:
    return MAP.read_text(encoding="utf-8")


def _code_map() -> str:
    text = _text()
    return text[text.index("## Code map") : text.index("## Invariants")]


def _packages() -> set[str]:
    """Every package below src/perfwalk, as ``report/pages``."""
    return {init.parent.relative_to(SRC).as_posix() for init in SRC.rglob("__init__.py")} - {"."}


def _modules(path: Path) -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(path.rglob("*.py"))]


def test_the_code_map_names_every_package_and_nothing_else() -> None:
    named = set(re.findall(r"^### `([a-z_/]+)/`$", _code_map(), re.M))
    print(sorted(named))
    assert named == _packages()


def test_the_code_map_names_every_top_level_module() -> None:
    code_map = _code_map()
    section = code_map[code_map.index("### The modules of `perfwalk/` itself") :]
    named = set(re.findall(r"`([a-z_]+)\.py`", section))
    modules = {p.stem for p in SRC.glob("*.py")} - {"__init__"}
    assert named == modules


def test_every_test_it_names_exists() -> None:
    named = set(re.findall(r"`(tests/[\w/]+\.py)`", _text()))
    assert named, "the invariants name the tests that keep them"
    assert [n for n in sorted(named) if not (ROOT / n).is_file()] == []


def _below_the_front_ends() -> list[tuple[Path, ast.Module]]:
    return [
        (path, tree)
        for path, tree in _modules(SRC)
        if path.relative_to(SRC).parts[0].removesuffix(".py") not in FRONT_ENDS
    ]


def test_nothing_below_the_front_ends_prints_or_exits() -> None:
    found = []
    for path, tree in _below_the_front_ends():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            called = node.func
            name = (
                called.id
                if isinstance(called, ast.Name)
                else f"{ast.unparse(called.value)}.{called.attr}"
                if isinstance(called, ast.Attribute)
                else ""
            )
            if name in ("print", "exit", "quit", "sys.exit"):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}: {name}()")
    assert found == []


@pytest.mark.parametrize("package", PURE)
def test_a_pure_package_reaches_nothing_outside_the_process(package: str) -> None:
    found = []
    for path, tree in _modules(SRC / package):
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Call) and ast.unparse(node.func) == "open":
                names = ["open()"]
            else:
                continue
            for name in names:
                if name == "open()" or any(
                    name == out or name.startswith(f"{out}.") for out in OUTSIDE
                ):
                    found.append(f"{path.relative_to(SRC)}:{node.lineno}: {name}")
    assert found == []


#: modules that are declared data, not code: the settings, the store's schema and
#: its migrations, the demo's story (ARCHITECTURE.md, Invariants)
DATA = frozenset({"config/settings.py", "store/schema.py", "store/migrations.py", "demo/story.py"})
#: the most lines a module of code holds
MOST_LINES = 600


def test_no_module_of_code_is_over_600_lines() -> None:
    sizes = {
        path.relative_to(SRC).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in SRC.rglob("*.py")
    }
    assert all(name in sizes for name in DATA)
    over = {name: n for name, n in sizes.items() if n > MOST_LINES and name not in DATA}
    assert over == {}, "split these by concern: " + ", ".join(f"{k} {v}" for k, v in over.items())
