"""A walk that could not see never says "no changes found": a step walked on a machine
that a real CPU load keeps busy is found, or its metric is undecided with the smallest
change the walk could have seen there (exit 4); and ``[run] exclude_loaded`` on a walk
whose every repetition was loaded keeps the values it was told to leave out rather than
read the emptiness as a clean result.

The load is real (CPU-bound processes started by the test, stopped by their PIDs); what
is checked is what perfwalk guarantees of what it measured, never this machine's speed
or noise: one metric replays the values a C benchmark gave under a load of about 10 on 2
cores (its commit 4 doubled its work: medians 50.7, 51.6, 55.7, 32.9, 92.8, 85.7, 62.3,
102.8 ms), the other is this machine's own timing of work that doubles at commit 4.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from perfwalk.analysis.adaptive_walk import MOST
from perfwalk.cli import exits
from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import numbered_repo
from tests.services.test_machine_load import Hogs
from tests.services.walks import walk_config

CHECKOUTS = 8
STEP = 4  # the first commit that does twice the work
#: three repetitions per checkout of the benchmark measured under a load of about 10
REPLAYED = (
    (44.6, 50.7, 55.3),
    (56.8, 48.0, 51.6),
    (55.7, 63.5, 50.1),
    (30.3, 36.5, 32.9),
    (92.8, 80.7, 98.4),
    (93.4, 85.7, 75.4),
    (56.1, 66.7, 62.3),
    (102.8, 113.1, 93.5),
)
BENCH = """\
import pathlib, sys, time
n = int(pathlib.Path("n.txt").read_text())
count = pathlib.Path(sys.argv[1]) / f"count-{n}"
rep = int(count.read_text()) if count.exists() else 0
count.write_text(str(rep + 1))
print(f"VALUE {sys.argv[2 + 3 * n + rep % 3]} ms replayed")
began = time.perf_counter()
total = 0
for i in range(200_000 * (2 if n >= STEP else 1)):
    total += i
print(f"VALUE {(time.perf_counter() - began) * 1000:.3f} ms work")
"""


def _project(tmp_path: Path, command: str, *, repetitions: int, run: str = "") -> Path:
    numbered_repo(tmp_path / "repo", CHECKOUTS)
    path = tmp_path / "perfwalk.toml"
    text = walk_config(
        tmp_path / "repo", command, test="bench", repetitions=repetitions, run=run, timeout=None
    )
    path.write_text(text, "utf-8")
    return path


def _loaded_walk(path: Path, capsys: pytest.CaptureFixture[str], *options: str) -> str:
    """`perfwalk run` (with ``options``) while CPU-bound processes keep every core busy:
    its output."""
    hogs = Hogs()
    try:
        hogs.start(2 * (os.cpu_count() or 1))
        time.sleep(0.5)  # the load is on before the first repetition
        code = main(["run", "-c", str(path), *options])
    finally:
        hogs.stop()
    out = capsys.readouterr().out
    assert code in (exits.OK, exits.UNDECIDED), out
    return out


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def _replayed_project(tmp_path: Path) -> Path:
    """The project whose benchmark replays :data:`REPLAYED` (3 repetitions a checkout)."""
    script = tmp_path / "bench.py"
    script.write_text(BENCH.replace("STEP", str(STEP)), "utf-8")
    counts = tmp_path / "counts"
    counts.mkdir()
    values = " ".join(str(v) for reps in REPLAYED for v in reps)
    return _project(tmp_path, f"{sys.executable} {script} {counts} {values}", repetitions=3)


# not alone: the load is the test's own and keeps every core busy throughout; the other
# tests of the run only add to it, and what is checked holds under any load
@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc (Linux)")
def test_a_doubling_walked_under_load_is_found_or_undecided_with_its_floor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)  # lines whole, as in a file
    path = _replayed_project(tmp_path)
    c = str(path)
    walked = _loaded_walk(path, capsys)

    code, text = _cli(capsys, "changes", "-c", c)
    with capsys.disabled():  # what it said, in the test's log
        print(f"\nchanges: exit {code}\n{text}")
    assert "no changes found" not in text
    listed = {
        m for line in text.splitlines() for m in ("bench.replayed", "bench.work") if m in line
    }
    assert listed == {"bench.replayed", "bench.work"}, text  # each found, or undecided
    code_json, out = _cli(capsys, "changes", "-c", c, "--format", "json")
    document = json.loads(out)
    assert code_json == code
    found = {f"{m['test']}.{m['name']}" for e in document["changes"] for m in e["metrics"]}
    floors = {f"{f['test']}.{f['name']}": f for f in document["floors"]}
    assert set(floors) == {"bench.replayed", "bench.work"}
    undecided = []
    for metric, floor in floors.items():
        if metric in found:
            continue
        # not found: undecided, with the smallest change the walk could have seen, which
        # is above the change that matters (else the step, 100 %, would have been found)
        assert floor["floor"] is None or floor["floor"] > floor["min_change"], floor
        assert floor["undecided"].startswith("undecided: too "), floor
        assert f"of {3 * CHECKOUTS} repetitions loaded" in floor["undecided"], floor
        if floor["floor"] is not None:
            assert "too noisy to see changes below " in floor["undecided"]
            assert "(load " in floor["undecided"], floor  # the machine's load, in words
        assert floor["undecided"] in text
        assert floor["undecided"] in walked  # the walk says so at its end
        undecided.append(metric)
    if undecided:  # nothing to act on would be exit 0: undecided is not "no change"
        assert code in (exits.FOUND, exits.UNDECIDED), text
        code_md, markdown = _cli(capsys, "changes", "-c", c, "--format", "markdown")
        assert code_md == code
        assert "No regression or improvement found." not in markdown
        assert (
            "Undecided (no change found in these metrics, but one that matters could not"
            " have been seen):" in markdown
        )
    # status and show say, per metric, what the walk could see
    for command in ("status", "show"):
        code, out = _cli(capsys, command, "-c", c)
        assert code == exits.OK
        for metric, floor in floors.items():
            (line,) = [x for x in out.splitlines() if x.startswith(f"  {metric}: ")]
            if metric in undecided:  # said after the metric's name, not again in it
                said = floor["undecided"].replace(f" in {metric}", "").replace(f" of {metric}", "")
                assert said in line, line
                assert line.count(metric) == 1, line
            else:
                assert "could see " in line

    # the pages: the index names each undecided metric; the series page says per metric
    site = tmp_path / "site"
    assert main(["report", "-c", c, "--out", str(site)]) == exits.OK
    capsys.readouterr()
    index = (site / "index.html").read_text("utf-8")
    if not found:
        assert "no changes found" not in index
    for metric in undecided:
        assert floors[metric]["undecided"] in index
    (page,) = site.glob("series-*.html")
    html = page.read_text("utf-8")
    assert '<h2 id="sight">What the walk could see</h2>' in html
    for metric in floors:
        assert f"{metric}: " in html


# not alone, as the one above
@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc (Linux)")
def test_an_adaptive_walk_under_load_finds_the_doubling_or_says_undecided_within_bounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The adaptive walk's choices (which checkouts, how many more repetitions beside a
    located step) read loaded values: whatever they chose, it stays within its budget
    of checkouts and :data:`MOST` times the repetitions at each, and never says "no
    changes found" of the step it could not see."""
    monkeypatch.delenv("COLUMNS", raising=False)  # lines whole, as in a file
    path = _replayed_project(tmp_path)
    _loaded_walk(path, capsys, "--adaptive", "--budget", "6")

    code, text = _cli(capsys, "changes", "-c", str(path))
    with capsys.disabled():  # what it said, in the test's log
        print(f"\nchanges: exit {code}\n{text}")
    assert "no changes found" not in text
    listed = {
        m for line in text.splitlines() for m in ("bench.replayed", "bench.work") if m in line
    }
    assert listed == {"bench.replayed", "bench.work"}, text  # each found, or undecided
    config = load_config(path)
    with Store.open(config.store.url) as store:
        (series,) = store.list_series()
        rows = store.checkouts(series.id)
        done = Counter(idx for idx, _rep in store.done_repetitions(series.id))
    assert len(rows) <= 6
    assert all(done[row.idx] <= MOST * 3 for row in rows), done
    assert all((row.planned_repetitions or 0) <= MOST * 3 for row in rows)


ALL_LOADED_STEP = f"n=$(cat n.txt); echo VALUE $(( n < {STEP} ? 100 : 200 )) ms latency"


# not alone, as the one above: every repetition is loaded whatever else runs
@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc (Linux)")
def test_exclude_loaded_on_a_walk_loaded_throughout_never_says_no_changes_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)  # lines whole, as in a file
    path = _project(tmp_path, ALL_LOADED_STEP, repetitions=2, run="exclude_loaded = true")
    c = str(path)
    walked = _loaded_walk(path, capsys)
    assert f"warning: {2 * CHECKOUTS} of {2 * CHECKOUTS} repetitions were measured on a " in (
        walked
    )  # every one loaded: exclude_loaded leaves every value out

    code, text = _cli(capsys, "changes", "-c", c)
    with capsys.disabled():  # what it said, in the test's log
        print(f"\nchanges: exit {code}\n{text}")
    assert "no changes found" not in text
    assert code == exits.UNDECIDED, text  # nothing decided: neither a change nor none
    code, out = _cli(capsys, "changes", "-c", c, "--format", "json")
    document = json.loads(out)
    (floor,) = document["floors"]
    assert (floor["excluded"], floor["values"], floor["kept"]) == (16, 16, True)
    if document["changes"]:  # found only with the loaded values kept: suspect
        for metric in (m for e in document["changes"] for m in e["metrics"]):
            assert "found only with 16 loaded repetitions kept" in metric["suspect"], metric
        assert "found only with 16 loaded repetitions kept" in text
    else:
        assert floor["undecided"].startswith("undecided: 16 of 16 repetitions ")
        assert floor["undecided"] in text

    code, markdown = _cli(capsys, "changes", "-c", c, "--format", "markdown")
    assert code == exits.UNDECIDED
    assert "No regression or improvement found." not in markdown

    code, out = _cli(capsys, "status", "-c", c)
    (line,) = [x for x in out.splitlines() if x.startswith("  bench.latency: ")]
    assert "16 loaded repetitions kept" in line or "16 of 16 repetitions" in line, line

    site = tmp_path / "site"
    assert main(["report", "-c", c, "--out", str(site)]) == exits.OK
    capsys.readouterr()
    index = (site / "index.html").read_text("utf-8")
    assert "no changes found" not in index
    (page,) = site.glob("series-*.html")
    html = page.read_text("utf-8")
    assert "16 loaded repetitions kept" in html or "16 of 16 repetitions" in html


def test_a_walk_too_short_to_see_says_so_and_exits_4_when_it_judges_its_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    # 8 checkouts, of which the walk takes 3: no level on each side of any step
    path = _project(tmp_path, ALL_LOADED_STEP, repetitions=2)
    path.write_text(path.read_text("utf-8").replace('step = "commit"', 'step = "commit/3"'))
    blind = (
        "series 1 'repo commit/3': undecided: too few checkouts to see a change in bench.latency"
    )
    code, out = _cli(capsys, "run", "-c", str(path))
    assert code == exits.OK, out  # a walk that does not judge its changes
    assert [line for line in out.splitlines() if line.startswith(blind)], out
    path.write_text(path.read_text("utf-8").replace("[run]\n", "[run]\nconfirm = true\n"))
    code, out = _cli(capsys, "run", "-c", str(path), "--name", "again")
    assert code == exits.UNDECIDED, out  # one that does: neither a change nor none
    assert "series 2 'again': undecided: too few checkouts to see a change in " in out
    # the site and the report say the walk could not have seen a change, never that
    # "none that matters could be seen" (read as: nothing that matters was there)
    code, markdown = _cli(capsys, "changes", "-c", str(path), "--format", "markdown")
    assert code == exits.UNDECIDED
    said = "Undecided (no change found in these metrics, but one that matters could not have"
    assert said + " been seen):" in markdown
    site = tmp_path / "site"
    assert main(["report", "-c", str(path), "--out", str(site)]) == exits.OK
    index = (site / "index.html").read_text("utf-8")
    said = "Undecided: no change found in these metrics, but one that matters could not have"
    assert said + " been seen:" in index
    assert "none that matters could be seen" not in index + markdown
    assert "### perfwalk: repo: no change found, 2 metrics undecided\n" in markdown  # 2 walks
