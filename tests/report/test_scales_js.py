"""The rule that splits a plot by scale (src/perfwalk/report/static/scales.js), run by
node: values of one unit whose medians differ by more than 3 times get plots of their
own, so that a step in the smaller is not a flat line on the larger's axis."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

SCALES_JS = Path(__file__).parents[2] / "src" / "perfwalk" / "report" / "static" / "scales.js"

_NODE_SCRIPT = """
const fs = require("fs"), vm = require("vm");
const window = {};
vm.runInNewContext(fs.readFileSync(process.argv[1], "utf8"), { window: window });
const s = window.perfwalk.scales;
const cases = JSON.parse(process.argv[2]);
process.stdout.write(JSON.stringify({
  factor: s.FACTOR,
  groups: cases.map((named) => s.groups(named)),
}));
"""

#: (the plot's values in its order: [name, summaries]; the groups expected)
CASES: list[tuple[list[tuple[str, list[float | None]]], list[list[str]]]] = [
    # a library's compression and decompression speeds: 11 times apart
    ([("compress", [350, 352, 349]), ("decompress", [3900, 3920])], [["compress"], ["decompress"]]),
    # the plot's order is kept: the first value's group first
    ([("decompress", [3900]), ("compress", [350])], [["decompress"], ["compress"]]),
    # 2.5 times apart (iperf's sender and receiver, a read and a write): one axis
    ([("sender", [100, 101]), ("receiver", [250, 251])], [["sender", "receiver"]]),
    # exactly 3 times: still one axis; just over: two
    ([("a", [10]), ("b", [30])], [["a", "b"]]),
    ([("a", [10]), ("b", [30.5])], [["a"], ["b"]]),
    # groups chained from the smallest: 1 and 2.9 together, 9 alone, 30 alone
    (
        [("p", [30]), ("q", [1]), ("r", [9]), ("s", [2.9])],
        [["p"], ["q", "s"], ["r"]],
    ),
    # the median, not the mean: a spike does not move a value to another group
    ([("a", [100, 100, 100, 100, 50000]), ("b", [110])], [["a", "b"]]),
    # magnitudes: a negative value's scale is its size
    ([("gain", [-350, -360]), ("loss", [3900])], [["gain"], ["loss"]]),
    # 0 is a scale of its own: a flat zero is not drawn on a 5's axis
    ([("zero", [0, 0]), ("five", [5])], [["zero"], ["five"]]),
    # a value without numbers (every checkout failed) joins the first group
    ([("none", [None]), ("a", [1]), ("b", [10])], [["none", "a"], ["b"]]),
    ([("none", [])], [["none"]]),
    # ten values of one scale: one plot
    ([(f"v{n}", [100 + n]) for n in range(10)], [[f"v{n}" for n in range(10)]]),
]


def test_values_apart_by_more_than_three_times_are_grouped_apart() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: scales.js is not checked (apt install nodejs)")
    done = subprocess.run(
        [node, "-e", _NODE_SCRIPT, str(SCALES_JS), json.dumps([named for named, _ in CASES])],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    written = json.loads(done.stdout)
    assert written["factor"] == 3
    for (named, expected), got in zip(CASES, written["groups"], strict=True):
        assert got == expected, named
