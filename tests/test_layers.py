"""The layers of design.md hold: nothing imports upward, the bottom packages do not
import each other (but for the few edges listed here, each with its reason), the
packages form no cycle, and the commands that need no store start without one.

Every ``import`` of every module of src/perfwalk counts, at the top of a module or
inside a function, under ``if TYPE_CHECKING`` or not: a dependency is a dependency.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "perfwalk"

#: each package (or top-level module) of perfwalk and its layer, highest first
#: (design.md, "Layers"); a new package must be placed here before its first test
LAYERS: dict[str, int] = {
    # parse arguments, call a service; the only place that prints or exits
    "cli": 6,
    "__main__": 6,  # python -m perfwalk: the cli's entry
    "api": 6,  # the HTTP API: a front end like the cli, over the same use cases
    # use cases made of use cases: the daily cycle, the job dispatcher, the demo
    "composites": 5,
    # use cases, one each
    "services": 4,
    # compose the parts below
    "orchestrate": 3,
    "drill": 3,  # the drill scheduler (pure)
    "report": 3,
    "demo": 3,  # the demo's sample project and story
    # one concern each
    "config": 2,
    "git": 2,
    "hosts": 2,
    "parsers": 2,
    "store": 2,
    "analysis": 2,
    "regress": 2,
    "lab": 2,
    # frozen dataclasses, one error hierarchy, and the small things everyone uses
    "perfwalk": 1,  # the package itself: __version__
    "model": 1,
    "units": 1,
    "errors": 1,
    "interrupts": 1,
    "limits": 1,
    "letters": 1,
    "numbers": 1,
    "quantities": 1,
    "untrusted": 1,
    "served_names": 1,
    "change_ids": 1,
    "secret_text": 1,
    "text_files": 1,
    "folded": 1,
    "log_excerpt": 1,
    "policy": 1,
}
BOTTOM = 2

#: the imports allowed between two bottom packages, each with its reason
ALLOWED_SIDEWAYS: dict[tuple[str, str], str] = {
    # settings.py validates run.step, run.from/to and quirk dates with the git
    # package's own forms (git.steps), so that the file and the walk agree on them
    ("config", "git"): "the step and date forms a configuration is checked against",
    # a test's parser = "..." is checked against the parsers that exist
    ("config", "parsers"): "the parser names a configuration may give",
    # [regress] format = "..." is checked against the formats regress reads
    ("config", "regress"): "the result formats a configuration may give",
    # the store keeps the moments of each value set (analysis.summary.Moments) with
    # the values, so that a long series is summarised without reading them again
    ("store", "analysis"): "the moments the store keeps with the values",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> Iterator[str]:
    """The perfwalk modules ``path`` imports, wherever the import stands."""
    package = _module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else None
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the module's package
                base = (package or _module_name(path)).split(".")
                base = base[: len(base) - node.level + 1]
                names = [".".join([*base, node.module] if node.module else base)]
            else:
                names = [node.module or ""]
        else:
            continue
        yield from (name for name in names if name.split(".")[0] == "perfwalk")


def _unit(module: str) -> str:
    """The package (or top-level module) of ``module``: ``perfwalk.store.records`` →
    ``store``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _edges() -> dict[tuple[str, str], list[str]]:
    """(importing unit, imported unit) → the imports that make the edge."""
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(SRC.rglob("*.py")):
        module = _module_name(path)
        for imported in _imports(path):
            pair = (_unit(module), _unit(imported))
            if pair[0] != pair[1]:
                found[pair].append(f"{module} imports {imported}")
    return found


EDGES = _edges()


def test_every_package_has_a_layer() -> None:
    units = {_unit(_module_name(path)) for path in SRC.rglob("*.py")}
    assert sorted(units - set(LAYERS)) == [], "place it in LAYERS (design.md, Layers)"


def test_nothing_imports_upward() -> None:
    upward = [
        why
        for (low, high), whys in EDGES.items()
        if LAYERS.get(low, 0) < LAYERS.get(high, 0)
        for why in whys
    ]
    assert upward == []


def test_the_bottom_packages_do_not_import_each_other() -> None:
    sideways = [
        why
        for (one, other), whys in EDGES.items()
        if LAYERS.get(one) == LAYERS.get(other) == BOTTOM and (one, other) not in ALLOWED_SIDEWAYS
        for why in whys
    ]
    assert sideways == [], "an edge not in ALLOWED_SIDEWAYS (add it there with its reason?)"


def test_services_do_not_import_each_other() -> None:
    """A use case shares what it needs through orchestrate (the session, the plan, the
    changes), not through another use case; a use case made of use cases is a
    composite (design.md, Layers)."""
    crossing = [
        f"{module} imports {imported}"
        for path in sorted((SRC / "services").glob("*.py"))
        if (module := _module_name(path))
        for imported in _imports(path)
        if imported.startswith("perfwalk.services.") and imported != module
    ]
    assert crossing == []


def test_each_composite_is_made_of_use_cases() -> None:
    """A module of composites/ calls at least one use case of services/ (else it is a
    use case of its own, and belongs there)."""
    single = [
        _module_name(path)
        for path in sorted((SRC / "composites").glob("*.py"))
        if path.name != "__init__.py"
        and not any(imported.startswith("perfwalk.services.") for imported in _imports(path))
    ]
    assert single == []


def test_every_allowed_edge_is_still_used() -> None:
    """An edge that is gone is removed from the list, so that it cannot come back
    unnoticed."""
    assert [pair for pair in ALLOWED_SIDEWAYS if pair not in EDGES] == []


def _cycles(edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The cycles of the graph of ``edges`` (one per back edge a depth-first walk meets)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for one, other in edges:
        graph[one].add(other)
    state: dict[str, str] = {}
    cycles: list[list[str]] = []

    def visit(unit: str, path: list[str]) -> None:
        state[unit] = "open"
        for nxt in sorted(graph[unit]):
            if state.get(nxt) == "open":
                cycles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[unit] = "done"

    for unit in sorted(graph):
        if unit not in state:
            visit(unit, [unit])
    return cycles


def test_the_packages_form_no_cycle() -> None:
    cycles = _cycles(EDGES)
    assert cycles == [], "\n".join(" -> ".join(c) for c in cycles)


def _runtime_imports(path: Path) -> Iterator[str]:
    """The perfwalk modules ``path`` imports when it runs, wherever the import stands
    (in a function too), a name imported from a package counted as its module when it
    is one (``from perfwalk.cli import exits`` → ``perfwalk.cli.exits``); the imports
    for the type checker alone (``if TYPE_CHECKING:``) never run and are left out."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def resolved(name: str) -> str:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        return name

    def visit(node: ast.AST) -> Iterator[str]:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for other in node.orelse:
                yield from visit(other)
            return
        if isinstance(node, ast.Import):
            yield from (resolved(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - node.level + 1], *base.split(".")])
            for alias in node.names:
                yield resolved(f"{base.strip('.')}.{alias.name}")
        for child in ast.iter_child_nodes(node):
            yield from visit(child)

    tree = ast.parse(path.read_text(encoding="utf-8"))
    yield from (m for m in visit(tree) if m.startswith("perfwalk") and m != module)


MODULES = {_module_name(path) for path in SRC.rglob("*.py")}


def test_the_modules_form_no_cycle() -> None:
    """No two modules import each other, directly or through others, when they run
    (ARCHITECTURE.md, Invariants): a cycle hidden in a function's import counts."""
    edges = {
        (_module_name(path), imported)
        for path in SRC.rglob("*.py")
        for imported in _runtime_imports(path)
    }
    assert ("perfwalk.cli.change_commands", "perfwalk.cli.change_lines") in edges  # read right
    assert ("perfwalk.cli.entry", "perfwalk.cli.main") in edges  # inside a function
    cycles = _cycles(edges)
    assert cycles == [], "\n".join(" -> ".join(c) for c in cycles)


#: the rooms of orchestrate/, each a subpackage of one concern, and their level: a room
#: imports only rooms below it (ARCHITECTURE.md, Code map)
ORCHESTRATE_ROOMS: dict[str, int] = {
    # a stored walk's series measured further at its checkouts (run --extend)
    "extend": 7,
    # a walk's changes being confirmed: re-measures on top of a walk and its findings
    "confirm": 7,
    # a drill's measuring: its line searched through a walk of its own, the culprit's profiles
    "drilling": 7,
    # an adaptive walk: a walk measured one checkout at a time, each chosen from the
    # levels measured so far (it drives a walk, as a drill does)
    "adaptive": 7,
    # a walk: plan, preparation, repetitions, their order, measuring again
    "walk": 6,
    # what a checkout is made of; a use case's session (store, hosts, leases, end)
    "checkout": 5,
    "session": 5,
    # one test across its hosts in four phases
    "phases": 4,
    # measurements beside a test's values, profiles
    "instruments": 3,
    # commands run on hosts and recorded
    "steps": 2,
    # a run's hosts and their roles; the changes of stored series (from the store alone)
    "hosts": 1,
    "findings": 1,
}
#: the most modules a room holds, so that each stays one concern a newcomer can name
ROOM_SIZE = 12
ORCHESTRATE = SRC / "orchestrate"


def _room(module: str) -> str | None:
    """The room of orchestrate ``module``: ``perfwalk.orchestrate.walk.plan`` → ``walk``."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["perfwalk", "orchestrate"] and len(parts) > 3 else None


def _room_edges() -> dict[tuple[str, str], list[str]]:
    """(importing room, imported room) → the imports that make the edge."""
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(ORCHESTRATE.rglob("*.py")):
        module = _module_name(path)
        for imported in _imports(path):
            pair = (_room(module), _room(imported))
            if pair[0] and pair[1] and pair[0] != pair[1]:
                found[(pair[0], pair[1])].append(f"{module} imports {imported}")
    return found


ROOM_EDGES = _room_edges()


def test_orchestrate_is_in_rooms() -> None:
    """Every module of orchestrate/ lives in a room that is declared here, none flat
    beside them, and no room holds more than a dozen modules."""
    rooms = {init.parent.name for init in ORCHESTRATE.glob("*/__init__.py")}
    assert rooms == set(ORCHESTRATE_ROOMS)
    assert sorted(p.name for p in ORCHESTRATE.glob("*.py")) == ["__init__.py"]
    crowded = {
        room: size
        for room in rooms
        if (size := len(list((ORCHESTRATE / room).glob("*.py"))) - 1) > ROOM_SIZE
    }
    assert crowded == {}


def test_a_room_imports_only_the_rooms_below_it() -> None:
    upward = [
        why
        for (low, high), whys in ROOM_EDGES.items()
        if ORCHESTRATE_ROOMS[low] <= ORCHESTRATE_ROOMS[high]
        for why in whys
    ]
    assert upward == []


def test_the_rooms_form_no_cycle() -> None:
    cycles = _cycles(ROOM_EDGES)
    assert cycles == [], "\n".join(" -> ".join(c) for c in cycles)


def test_a_room_imports_nothing_when_imported() -> None:
    """A room's ``__init__.py`` is its docstring alone: importing one module of a room
    imports no other (the start-up time of bench/startup.py)."""
    heavy = [
        f"{init.relative_to(SRC)}: {type(node).__name__}"
        for init in sorted(ORCHESTRATE.glob("*/__init__.py"))
        for node in ast.parse(init.read_text(encoding="utf-8")).body
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
    ]
    assert heavy == []


def test_the_checks_see_an_upward_and_a_sideways_import() -> None:
    """The graph is read right: known edges are found (the checks are not vacuous)."""
    assert ("services", "store") in EDGES  # at the top of a module
    assert ("cli", "services") in EDGES  # inside the command handlers
    assert ("composites", "services") in EDGES
    assert ("config", "git") in EDGES
    assert ("walk", "phases") in ROOM_EDGES  # between the rooms of orchestrate
    assert all(layer in range(1, 7) for layer in LAYERS.values())


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["detect", "{dir}/points.txt"],
        ["compare", "{dir}/a.txt", "{dir}/b.txt"],
        ["compare", "--help"],
    ],
)
def test_detect_and_compare_start_without_the_store(tmp_path: Path, argv: list[str]) -> None:
    """Start-up time: commands that never touch a store import neither it nor
    SQLAlchemy, nor rich, which only the commands that draw import (bench/startup.py
    measures the time)."""
    (tmp_path / "points.txt").write_text("\n".join(["1"] * 10 + ["2"] * 10) + "\n")
    (tmp_path / "a.txt").write_text("1\n2\n3\n")
    (tmp_path / "b.txt").write_text("4\n5\n6\n")
    words = [word.format(dir=tmp_path) for word in argv]
    script = (
        "import sys\n"
        "from perfwalk.cli.main import main\n"
        "try:\n"
        f"    main({words!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "found = sorted(m for m in sys.modules if m.split('.')[0] in ('sqlalchemy', 'rich')\n"
        "               or m.startswith(('perfwalk.store', 'perfwalk.config')))\n"
        "print('imported:', *found, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stderr.splitlines()[-1] == "imported:"
