"""What a walk really ran: a real walk of a real repository whose C program is built
by cc at each checkout, one commit adding a function; the kernel, compiler and symbols
rows of its pages."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.analysis.symbols import parse_nm
from perfwalk.config import load_config
from perfwalk.model import Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.report import layout
from perfwalk.services.export import export
from perfwalk.services.publish import publish_site
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import CommitSpec, make_repo

pytestmark = pytest.mark.skipif(
    shutil.which("cc") is None or shutil.which("nm") is None, reason="needs cc and nm"
)

PROGRAM = """\
#include <stdio.h>

int work(int n) { return n * 2; }
{extra}
int main(void) { printf("VALUE %d ms latency\\n", work(21){call}); return 0; }
"""


def _program(helper: bool) -> str:
    extra = "int helper(int n) { return n + 1; }\n" if helper else ""
    call = " + helper(0) - 1" if helper else ""
    return PROGRAM.replace("{extra}", extra).replace("{call}", call)


def c_project(tmp_path: Path) -> tuple[Path, list[str]]:
    """Four commits: the program, a README, the program with a function added, a README."""
    start = datetime(2024, 3, 1, tzinfo=UTC)
    spec = [
        CommitSpec(start, "program", {"prog.c": _program(False)}),
        CommitSpec(start + timedelta(hours=1), "readme", {"README": "one\n"}),
        CommitSpec(start + timedelta(hours=2), "add helper", {"prog.c": _program(True)}),
        CommitSpec(start + timedelta(hours=3), "readme again", {"README": "two\n"}),
    ]
    repo = tmp_path / "repo"
    return repo, make_repo(repo, spec)


def c_config(tmp_path: Path, repo: Path, symbols: str) -> Path:
    path = tmp_path / "perfwalk.toml"
    path.write_text(
        f"""\
[project]
repo = {json.dumps(str(repo))}

[build]
steps = ["cc -O0 -o prog prog.c"]
symbols = {json.dumps(symbols)}

[run]
step = "commit"
repetitions = 1

[[test]]
name = "run"
command = "./prog"
parser = "value"
""",
        encoding="utf-8",
    )
    return path


def _first_line(argv: list[str]) -> str:
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    return next(line.strip() for line in out.splitlines() if line.strip())


def _row(table: str, name: str) -> list[str]:
    """The cells of the checkouts table's row ``name`` (its name cell left out)."""
    found = re.search(rf'<tr><td class="name">{name}</td>(.*?)</tr>', table, re.S)
    assert found is not None, f"no row {name}"
    return re.findall(r"<td[^>]*>.*?</td>", found.group(1), re.S)


def test_a_walk_records_kernel_compiler_and_symbols(tmp_path: Path) -> None:
    repo, commits = c_project(tmp_path)
    config = load_config(c_config(tmp_path, repo, "prog"))
    result = run_series(config, RunOptions())
    assert result.worst is Status.PASS
    assert result.checkouts == 4
    kernel = _first_line(["uname", "-srv"])
    compiler = _first_line(["cc", "--version"])
    with Store.open(config.store.url) as store:
        facts = store.build_facts.of_series(result.series_id)
        idxs = [row.idx for row in store.checkouts(result.series_id)]
    assert sorted(facts) == idxs
    for idx in idxs:
        (host,) = facts[idx].hosts
        assert (host.kernel, host.compiler) == (kernel, compiler)
    symbols = [facts[idx].symbols for idx in idxs]
    assert all(s is not None and s.count for s in symbols)
    first, plain, added, plain_again = symbols
    assert first is not None
    assert not first.compared
    for same in (plain, plain_again):
        assert same is not None
        assert (same.added, same.removed, same.moved) == (0, 0, 0)
    assert added is not None
    assert (added.added, added.removed) == (1, 0)
    assert added.count == first.count + 1

    site = tmp_path / "site"
    publish_site(config, site)
    table = (site / layout.series_page(result.series_id)).read_text()
    kernels = _row(table, "kernel")
    assert len(kernels) >= 4
    assert all(f'title="{html.escape(kernel)}"' in cell for cell in kernels[:4])
    assert all(f'title="{html.escape(compiler)}"' in c for c in _row(table, "compiler")[:4])
    cells = _row(table, "symbols")[:4]
    assert f"{first.count} symbols" in cells[0]
    assert "+0 \u22120 ~0" in cells[1]
    assert "+0 \u22120 ~0" in cells[3]
    assert "+1 \u22120 ~" in cells[2]
    assert 'class="changed"' in cells[2]
    assert added.diff_log_id is not None
    diff = (site / layout.log_text(result.series_id, added.diff_log_id)).read_text()
    assert re.search(r"^\+[0-9a-f]{16} T helper$", diff, re.M)
    assert layout.log_text(result.series_id, added.diff_log_id).split("/")[1] in cells[2]
    assert commits  # four real commits walked
    with Store.open(config.store.url, read_only=True) as store:
        document = json.loads(export(store, [result.series_id], "json"))
    ran = [c["ran"] for c in document["series"][0]["checkouts"]]
    assert [r["hosts"][0]["kernel"] for r in ran] == [kernel] * 4
    assert [r["hosts"][0]["compiler"] for r in ran] == [compiler] * 4
    assert [(r["symbols"]["added"], r["symbols"]["removed"]) for r in ran] == [
        (None, None),
        (0, 0),
        (1, 0),
        (0, 0),
    ]


def test_a_missing_binary_keeps_the_build_and_says_why(tmp_path: Path) -> None:
    repo, _commits = c_project(tmp_path)
    config = load_config(c_config(tmp_path, repo, "no-such-binary"))
    result = run_series(config, RunOptions(to="HEAD~2"))
    assert result.worst is Status.PASS  # the build keeps its status
    with Store.open(config.store.url) as store:
        rows = store.checkouts(result.series_id)
        facts = store.build_facts.of_series(result.series_id)
    assert all(row.build_status is Status.PASS for row in rows)
    for row in rows:
        s = facts[row.idx].symbols
        assert s is not None
        assert s.count is None
        assert "nm failed" in s.message
    site = tmp_path / "site"
    publish_site(config, site)
    table = (site / layout.series_page(result.series_id)).read_text()
    cells = _row(table, "symbols")[: len(rows)]
    assert cells
    assert all("no list: nm failed" in cell for cell in cells)


def test_an_nm_without_sizes_still_gives_the_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ``nm`` that knows no ``-S`` (first on PATH, the real one behind it) gives the
    list without sizes, as before sizes were kept."""
    real = shutil.which("nm")
    assert real is not None
    tools = tmp_path / "tools"
    tools.mkdir()
    fake = tools / "nm"
    fake.write_text(
        "#!/bin/sh\n"
        'for arg; do [ "$arg" = -S ] && { echo "nm: invalid option -- S" >&2; exit 1; }; done\n'
        f'exec {real} "$@"\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    repo, _commits = c_project(tmp_path)
    config = load_config(c_config(tmp_path, repo, "prog"))
    result = run_series(config, RunOptions(to="HEAD~2"))
    with Store.open(config.store.url) as store:
        facts = store.build_facts.of_series(result.series_id)
        listed = facts[0].symbols
        assert listed is not None
        assert listed.list_log_id is not None, listed
        symbols = parse_nm(store.log(listed.list_log_id).text())
    print(listed, [(s.name, s.size) for s in symbols if s.name in ("main", "work")])
    assert {s.name for s in symbols} >= {"main", "work"}
    assert all(s.size is None for s in symbols)
