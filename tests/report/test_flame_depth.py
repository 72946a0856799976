"""The differential's data file of stacks thousands of frames deep (a profile stored
before profiles were bounded, or a recursion as deep as the bound allows): written
without recursion, the same JSON as a shallow tree's."""

from __future__ import annotations

import json
import re

from perfwalk.analysis.profile_diff import diff_tree
from perfwalk.report.flame_data import diff_data_file


def _document(text: str) -> str:
    found = re.fullmatch(r'perfwalk\.flame\("[A-Za-z0-9]+",(.*)\);\n', text, re.S)
    assert found is not None, text[:200]
    return found.group(1)


def test_a_shallow_tree_is_written_as_flame_js_reads_it() -> None:
    tree = diff_tree({"main;a": 1, "main;b;c": 2, "main;gone": 4}, {"main;a": 3, "main;b;c": 5})
    text = diff_data_file("t", tree, before="x", after="y", samples=(7, 8))
    assert json.loads(_document(text)) == {
        "test": "t",
        "before": "x",
        "after": "y",
        "tb": 7,
        "ta": 8,
        "tree": {
            "n": "all",
            "v": 8,
            "b": 7,
            "c": [
                {
                    "n": "main",
                    "v": 8,
                    "b": 7,
                    "c": [
                        {"n": "a", "v": 3, "b": 1},
                        {"n": "b", "v": 5, "b": 2, "c": [{"n": "c", "v": 5, "b": 2}]},
                    ],
                }
            ],
        },
    }


def test_a_tree_20000_frames_deep_is_written() -> None:
    deep = ";".join(["main", *(f"r{i}" for i in range(20_000)), "</script>\u2028"])
    tree = diff_tree({deep: 1, "main;x": 1}, {deep: 2, "main;x": 1})
    text = diff_data_file("t", tree, before="x", after="y", samples=(2, 3))
    document = _document(text)
    assert text.isascii()
    assert document.count('"n":"r') == 20_000
    leaf = '{"n":"</script>\\u2028","v":2,"b":1}'  # a name stays a string, in ASCII
    assert document.endswith(leaf + "]}" * 20_000 + ',{"n":"x","v":1,"b":1}]}]}}')
