"""The cachegrind parser on what the instrument read back of real valgrind runs
(tests/golden/parsers/cachegrind, recorded by ``capture.sh cachegrind``): one
process, a tree of four, and the outputs no capture gives whole: cut at any point,
empty, of another shape.

``pytest tests/parsers --regen-golden`` rewrites the expected ``<case>.counts`` (JSON).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfwalk.parsers.cachegrind import TreeCounts, parse_tree
from tests.parsers.golden import GOLDEN, dump

CASES = sorted((GOLDEN / "cachegrind").glob("*.txt"))


def _expected(counts: TreeCounts) -> dict[str, int]:
    return {
        "processes": counts.processes,
        "incomplete": counts.incomplete,
        "instructions": counts.instructions,
        "cycles": counts.cycles,
    }


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.stem)
def test_golden(case: Path, regen_golden: bool) -> None:
    actual = dump(_expected(parse_tree(case.read_text())))
    expected = case.with_suffix(".counts")
    if regen_golden:
        expected.write_text(actual)
        return
    assert expected.exists(), f"{expected} is missing: run pytest tests/parsers --regen-golden"
    assert actual == expected.read_text()


def _text(name: str) -> str:
    return (GOLDEN / "cachegrind" / f"{name}.txt").read_text()


def test_a_tree_is_the_sum_of_its_processes() -> None:
    tree = parse_tree(_text("process-tree"))
    print(tree)
    assert (tree.processes, tree.incomplete) == (4, 0)
    # the program alone, as one process, is one of the four
    alone = parse_tree(_text("one-process"))
    assert alone.processes == 1
    parts = _text("process-tree").split("==> ")[1:]
    assert sum(parse_tree("==> " + part).instructions for part in parts) == tree.instructions
    assert any(parse_tree("==> " + part).totals == alone.totals for part in parts)
    # the estimate: Ir + 10 per first-level miss + 100 per last-level miss
    t = alone.totals
    l1, ll = t["I1mr"] + t["D1mr"] + t["D1mw"], t["ILmr"] + t["DLmr"] + t["DLmw"]
    assert alone.cycles == t["Ir"] + 10 * l1 + 100 * ll
    assert alone.cycles > alone.instructions


def test_a_whole_file_without_headers_is_one_process() -> None:
    lines = _text("one-process").splitlines()[1:]
    head = "desc: I1 cache: 32768 B\ncmd: ./work\nfl=work.c\nfn=main\n7 1 0 0\n"
    whole = head + "".join(f"{line}\n" for line in lines)
    assert parse_tree(whole) == parse_tree(_text("one-process"))


def test_an_output_cut_short_is_incomplete_never_summed() -> None:
    text = _text("process-tree")
    whole = parse_tree(text)
    sums = _partial_sums(text)
    last = text.rindex("summary:")
    for cut in range(len(text) + 1):
        counts = parse_tree(text[:cut])
        if cut < last:  # the last output lost its summary (or more went)
            assert counts.processes < whole.processes, cut
        assert counts.instructions <= whole.instructions, cut
        # an output is summed whole or not at all (a summary cut in its last number too)
        assert counts.cycles in sums, (cut, text[:cut][-60:])


def _partial_sums(text: str) -> set[int]:
    """The cycles of every subset of the outputs in ``text``."""
    sums = {0}
    for part in text.split("==> ")[1:]:
        cycles = parse_tree("==> " + part).cycles
        sums |= {s + cycles for s in sums}
    return sums


def test_an_empty_output_is_incomplete() -> None:
    text = "==> /tmp/x.out.1 <==\n" + _text("process-tree")
    counts = parse_tree(text)
    assert (counts.processes, counts.incomplete) == (4, 1)
    cut = _text("one-process").rsplit("summary:", 1)[0]
    assert parse_tree(cut) == TreeCounts(0, 1, {})


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "garbage\x00\xff",
        "summary: 1 2 3\n",  # no events
        "events: Ir\nsummary: 5\n",  # no cache simulation
        "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nsummary: 1 2 3\n",  # short
        "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nsummary: 1 2 3 4 5 6 7 8 -9\n",
        "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nsummary: 1 2 3 4 5 6 7 8 9.5\n",
        "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nsummary: 1 2 3 4 5 6 7 8 ٩\n",
    ],
)
def test_garbage_gives_no_counts(text: str) -> None:
    counts = parse_tree(text)
    assert counts.processes == 0
    assert counts.instructions == 0
    assert json.dumps(_expected(counts))
