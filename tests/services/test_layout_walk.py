"""Layouts in real walks of a small C project built by make at each checkout: one walk
measures the plain build (as built) beside variants built sorted, aligned and at
random; the build receives each layout in its environment, and with ``layout =
"random"`` every repetition is measured on a layout of its own, its seed kept.

The benchmark prints where its timed function ``work`` lies in its page (the offset
a layout moves): what is checked is where the layouts put it, never a speed.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.analysis.symbols import parse_nm
from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.errors import ConfigError
from perfwalk.model import Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.orchestrate.walk.preparation import LAYOUT_STEP
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import CommitSpec, make_repo

pytestmark = pytest.mark.skipif(
    any(shutil.which(tool) is None for tool in ("cc", "make", "nm", "awk")),
    reason="needs cc, make, nm and awk (Debian: apt-get install gcc make binutils mawk)",
)

MAIN = """\
#include <stdint.h>
#include <stdio.h>
long work(long n);
int main(void) {
  printf("VALUE %lu B offset\\n", (unsigned long)((uintptr_t)&work & 4095));
  printf("VALUE %ld n work\\n", work(1000));
  return 0;
}
"""
WORK = (
    "long work(long n) { long s = 0; for (long i = 0; i < n; i++) s += i ^ (s >> 3); return s; }\n"
)
#: the objects linked in this order as built; with layout = "random" in a seeded
#: shuffled order (a recipe of docs/layout.md), the flags of the layout added
MAKEFILE = """\
OBJS = pad_a.o pad_b.o work.o pad_c.o main.o
CFLAGS = -O2 $(PERFWALK_LAYOUT_CFLAGS)
SHUFFLED = printf '%s\\n' $(OBJS) \\
  | awk -v seed=$(PERFWALK_LAYOUT_SEED) 'BEGIN { srand(seed) } { print rand() "\\t" $$0 }' \\
  | sort -n | cut -f2
ORDER = $(if $(PERFWALK_LAYOUT_SEED),$(shell $(SHUFFLED)),$(OBJS))
bench: $(OBJS)
\t$(CC) $(CFLAGS) $(PERFWALK_LAYOUT_LDFLAGS) -o $@ $(ORDER)
\t@echo "layout $(PERFWALK_LAYOUT) seed $(PERFWALK_LAYOUT_SEED) order $(ORDER)"
"""


def _pad(name: str, lines: int) -> str:
    """A function of ``lines`` statements: code of its own size before or after work."""
    body = "".join(f"  v = v * {i} + (v >> {i % 7});\n" for i in range(1, lines + 1))
    return f"long pad_{name}(long v) {{\n{body}  return v;\n}}\n"


def _files(pads: tuple[int, int, int]) -> dict[str, str]:
    return {
        "Makefile": MAKEFILE,
        "main.c": MAIN,
        "work.c": WORK,
        **{f"pad_{n}.c": _pad(n, size) for n, size in zip("abc", pads, strict=True)},
    }


VARIANTS = """
[[variant]]
name = "sorted"
layout = "sort"

[[variant]]
name = "aligned"
layout = "align"
"""


def layout_project(
    tmp_path: Path,
    commits: list[CommitSpec] | None = None,
    repetitions: int = 4,
    variants: str = VARIANTS,
) -> Path:
    """The project at ``commits`` (by default two, the second only grows pad_c, after
    work); its config, with ``variants`` besides a random layout's."""
    start = datetime(2024, 5, 1, tzinfo=UTC)
    make_repo(
        tmp_path / "repo",
        commits
        or [
            CommitSpec(start, "bench", _files((7, 11, 5))),
            CommitSpec(start + timedelta(hours=1), "grow pad_c", _files((7, 11, 9))),
        ],
    )
    path = tmp_path / "perfwalk.toml"
    path.write_text(
        f"""\
[project]
repo = {json.dumps(str(tmp_path / "repo"))}

[build]
steps = ["make -B -s"]
symbols = "bench"
layout_align = 64
relink = "rm -f bench && make -s bench"

[run]
step = "commit"
repetitions = {repetitions}

[[test]]
name = "bench"
command = "./bench"
parser = "value"
{variants}
[[variant]]
name = "shuffled"
layout = "random"
""",
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """One walk of the project with its three layout variants: the config, and each
    variant's series by name (``base``: the walk's own)."""
    path = layout_project(tmp_path_factory.mktemp("layouts"))
    config = load_config(path)
    result = run_series(config, RunOptions(variants=("sorted", "aligned", "shuffled")))
    assert result.worst is Status.PASS
    with Store.open(config.store.url) as store:
        series = {row.variant: row.id for row in store.variant_series(result.series_id)}
    return path, {"base": result.series_id, **series}


def _offsets(path: Path, series_id: int) -> dict[int, list[float]]:
    """The offsets of work in its page, by checkout, in repetition order."""
    with Store.open(load_config(path).store.url) as store:
        rows = store.passed_values(series_id)
    found: dict[int, list[float]] = {}
    for idx, _rep, _test, name, _unit, value, _direction in sorted(rows):
        if name == "offset":
            found.setdefault(idx, []).append(value)
    return found


def _seeds(path: Path, series_id: int) -> dict[int, list[tuple[int, str]]]:
    """The layout seed of each repetition (from its step) and what laid it out, by
    checkout."""
    found: dict[int, list[tuple[int, str]]] = {}
    with Store.open(load_config(path).store.url) as store:
        for checkout in store.checkouts(series_id):
            for rep in store.repetitions(checkout.id):
                steps = [s for s in store.steps(rep.id) if s.name.startswith(LAYOUT_STEP)]
                for step in steps:
                    assert step.status is Status.PASS, step
                    seed = int(step.name.removeprefix(LAYOUT_STEP))
                    found.setdefault(checkout.idx, []).append((seed, step.command))
    return found


def test_each_repetition_of_a_random_layout_has_its_own_seed_and_layout(
    walked: tuple[Path, dict[str, int]],
) -> None:
    path, series = walked
    seeds = _seeds(path, series["shuffled"])
    offsets = _offsets(path, series["shuffled"])
    print("seeds", seeds)
    print("offsets", offsets)
    assert sorted(seeds) == sorted(offsets) == [0, 1]
    for idx, laid in seeds.items():
        assert len(laid) == 4  # one step a repetition, each with its seed
        assert len({seed for seed, _ in laid}) == 4, laid  # a new seed each time
        # the first repetition runs on the build itself, the others relinked
        assert laid[0][1] == ""
        assert {command for _, command in laid[1:]} == {"rm -f bench && make -s bench"}
        # the layouts differ: work is not at one place in all of them
        assert len(set(offsets[idx])) > 1, offsets[idx]
    # the other layouts keep no seed: a build is laid out once
    for name in ("base", "sorted", "aligned"):
        assert _seeds(path, series[name]) == {}, name


def test_a_fixed_layout_keeps_work_at_one_place(walked: tuple[Path, dict[str, int]]) -> None:
    path, series = walked
    for name in ("base", "sorted", "aligned"):
        offsets = _offsets(path, series[name])
        print(name, offsets)
        for idx, values in offsets.items():
            assert len(values) == 4, (name, idx, values)
            assert len(set(values)) == 1, (name, idx, values)
    aligned = _offsets(path, series["aligned"])
    assert all(value % 64 == 0 for values in aligned.values() for value in values)


def test_sort_links_the_functions_in_the_order_of_their_names(
    walked: tuple[Path, dict[str, int]],
) -> None:
    path, series = walked
    with Store.open(load_config(path).store.url) as store:
        listed = {}
        for name in ("base", "sorted"):
            row = store.build_facts.of_series(series[name])[0].symbols
            assert row is not None
            assert row.list_log_id is not None, row
            listed[name] = parse_nm(store.log(row.list_log_id).text())
    for name, symbols in listed.items():
        ours = [s.name for s in symbols if s.name.startswith(("pad_", "work"))]
        print(name, ours)
        assert sorted(ours) == ["pad_a", "pad_b", "pad_c", "work"]
        if name == "sorted":
            assert ours == sorted(ours)
        else:  # as built: in the order of the objects
            assert ours == ["pad_a", "pad_b", "work", "pad_c"]


def test_the_build_is_told_its_layout(walked: tuple[Path, dict[str, int]]) -> None:
    path, series = walked
    said = {}
    with Store.open(load_config(path).store.url) as store:
        for name, series_id in series.items():
            checkout = store.checkouts(series_id)[0]
            assert checkout.build_log_id is not None
            text = store.log(checkout.build_log_id).text()
            said[name] = re.findall(r"^layout (\S*) seed (\S*)", text, re.MULTILINE)
    print(said)
    assert said["base"] == [("as-built", "")]
    assert said["sorted"] == [("sort", "")]
    assert said["aligned"] == [("align", "")]
    ((mode, seed),) = said["shuffled"]
    assert mode == "random"
    assert int(seed) > 0


def test_a_relink_without_a_random_layout_is_refused(tmp_path: Path) -> None:
    path = layout_project(tmp_path)
    text = path.read_text().replace('layout = "random"', 'layout = "sort"')
    path.write_text(text)
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    print(raised.value)
    assert "build.relink" in str(raised.value)
    assert 'layout = "random"' in str(raised.value)


#: a cost the benchmark computes from where work lies (as a loop that straddles a
#: boundary would cost more), the same in every run of one build: the layout's effect
#: without this machine's noise
COST = """\
#include <stdint.h>
#include <stdio.h>
long work(long n);
int main(void) {
  printf("VALUE %ld ms cost\\n", 100 + 30 * (long)(((uintptr_t)&work >> 4) & 1));
  return 0;
}
"""


@pytest.mark.slow
def test_under_random_layouts_a_move_of_code_is_noise_not_a_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Eight commits, the fifth grows pad_a (before work) by 16 bytes: as built, work
    moves there and its cost steps (pad_b's odd number of 16-byte blocks lets every
    order of the objects put work at either cost); laid out at random for each
    repetition, its cost varies inside every checkout instead. The change's verdict
    says what the random layouts saw."""
    start = datetime(2024, 5, 1, tzinfo=UTC)
    commits = [
        CommitSpec(
            start + timedelta(hours=i),
            f"commit {i}",
            {**_files((7 if i < 4 else 8, 12, 5)), "main.c": COST, "notes.txt": f"{i}\n"},
        )
        for i in range(8)
    ]
    path = layout_project(tmp_path, commits, repetitions=12, variants="")
    config = load_config(path)
    result = run_series(config, RunOptions(variants=("shuffled",)))
    assert result.worst is Status.PASS
    with Store.open(config.store.url) as store:
        (shuffled,) = store.variant_series(result.series_id)
        costs = {}
        for series_id in (result.series_id, shuffled.id):
            by_checkout: dict[int, set[float]] = {}
            for idx, _rep, _test, _name, _unit, value, _direction in store.passed_values(series_id):
                by_checkout.setdefault(idx, set()).add(value)
            costs[series_id] = by_checkout
    print("costs", costs)
    capsys.readouterr()  # what the walk printed
    as_built = costs[result.series_id]
    assert all(len(values) == 1 for values in as_built.values())  # one layout a build
    assert as_built[0] != as_built[4]  # the commit that moved work moved its cost
    assert {as_built[i] == as_built[0] for i in range(4)} == {True}
    assert {as_built[i] == as_built[4] for i in range(4, 8)} == {True}
    # one layout a repetition: the cost varies inside most checkouts
    assert sum(len(values) > 1 for values in costs[shuffled.id].values()) >= 6

    main(["changes", "-c", str(path), "--format", "json"])
    events = json.loads(capsys.readouterr().out)["changes"]
    found = [
        metric
        for event in events
        if event["series"] == result.series_id and event["after"]["idx"] == 4
        for metric in event["metrics"]
    ]
    print(json.dumps(found, indent=1))
    assert [metric["name"] for metric in found] == ["cost"]
    verdict = found[0]["verdict"]
    told = f"under random layouts (series {shuffled.id} (shuffled)): "
    assert told in verdict["chain"][0]
    # a layout artefact exactly when the random layouts saw it vanish
    vanished = "→ it vanished" in verdict["chain"][0]
    assert (verdict["state"] == "layout artefact") is vanished
