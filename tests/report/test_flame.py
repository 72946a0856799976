"""Flame graphs' data: a profile's data file carries its folded stacks whole, the
differential's tree and table add up, and every name is escaped on the page."""

from __future__ import annotations

import base64
import json
import re
import zlib

from perfwalk.analysis.profile_diff import diff_tree, differential
from perfwalk.report import layout
from perfwalk.report.assets import site_assets
from perfwalk.report.context import SeriesContext
from perfwalk.report.flame_data import (
    compress_folded,
    diff_data_file,
    folded_text,
    profile_data_file,
)
from perfwalk.report.html import has_flame
from perfwalk.report.pages.drill import drill_section
from perfwalk.report.pages.profiles import (
    ProfilePair,
    profile_diff_file,
    profile_section,
    profile_shell_page,
)
from perfwalk.report.pages.series import series_page
from tests.report.test_drill_page import _series

HOSTILE = "<script>window.__pwned=1</script>"
BEFORE = {"main;work;hot_function": 100, "main;work;cold": 300, f"main;{HOSTILE}": 100}
AFTER = {"main;work;hot_function": 500, "main;work;cold": 300, f"main;{HOSTILE}": 100}


def _call(text: str, name: str) -> tuple[str, dict[str, object]]:
    """The key and the document of a data file ``perfwalk.<name>(key, {...});``."""
    found = re.fullmatch(rf'perfwalk\.{name}\("([A-Za-z0-9]+)",(.*)\);\n', text, re.S)
    assert found is not None, text[:200]
    return found.group(1), json.loads(found.group(2))


def test_folded_text_is_sorted_and_a_stack_is_one_line() -> None:
    assert folded_text({"b;c": 2, "a": 1}) == b"a 1\nb;c 2\n"
    text = folded_text({"a;evil\nb 99": 3, "x\r": 1})
    assert text == b"a;evil\\x0ab 99 3\nx\\x0d 1\n"


def test_a_profile_data_file_carries_its_stacks_whole_in_ascii() -> None:
    folded = {**AFTER, "main;caf\u00e9;\x1b[31m": 7}
    text = profile_data_file(7, compress_folded(folded), test="net <b>", checkout=3, what="r 2")
    assert text.isascii()
    key, doc = _call(text, "flame")
    assert key == layout.profile_key(7) == "p7"
    assert doc["test"] == "net <b>"
    assert doc["c"] == 3
    assert doc["what"] == "r 2"
    assert isinstance(doc["z"], str)
    assert zlib.decompress(base64.b64decode(doc["z"])) == folded_text(folded)
    assert layout.profile_data(2, 7) == "series-2/data/profile-7.js"
    assert layout.profile_page(2, 7) == "series-2/profile.html#p=7"


def test_the_differential_tree_holds_both_sides() -> None:
    tree = diff_tree(BEFORE, AFTER)
    assert (tree["name"], tree["before"], tree["value"]) == ("all", 500, 900)
    [main] = tree["children"]
    work = next(c for c in main["children"] if c["name"] == "work")
    assert (work["before"], work["value"]) == (400, 800)
    hot = next(c for c in work["children"] if c["name"] == "hot_function")
    assert (hot["before"], hot["value"], hot["children"]) == (100, 500, [])
    assert next(c for c in main["children"] if c["name"] == HOSTILE)["value"] == 100


def test_the_functions_that_moved_most_come_first_with_their_shares() -> None:
    changes = differential(BEFORE, AFTER).functions
    first = changes[0]
    assert first.name == "hot_function"
    assert first.self_before == first.total_before == 100 * 100 / 500
    assert first.self_after == first.total_after == 100 * 500 / 900
    assert [c.name for c in changes][:2] == ["hot_function", "cold"]
    assert changes[1].self_delta < 0
    assert "main" not in {c.name for c in changes}  # 100 % on both sides: not moved
    recursive = differential({"a;f;f;f": 100, "a;g": 100}, {"a;f;f;f": 300, "a;g": 100})
    f = next(c for c in recursive.functions if c.name == "f")
    assert (f.total_before, f.total_after) == (50.0, 75.0)  # a stack counts once
    many = differential(
        {f"main;f{i}": 10 * (i + 1) for i in range(40)},
        {f"main;f{i}": 10 * (40 - i) for i in range(40)},
    )
    assert len(many.functions) == 20


def test_the_differential_data_file_leaves_out_what_vanished() -> None:
    after = {"main;work;hot_function": 5}
    diff = differential({"main;gone": 5, "main;work;hot_function": 1}, after)
    text = diff_data_file(
        "net <b>",
        diff.tree,
        before="aaaa",
        after="bbbb",
        samples=(diff.before_samples, diff.after_samples),
    )
    assert text.isascii()
    key, doc = _call(text, "flame")
    assert key == layout.profile_diff_key("net <b>")
    assert (doc["tb"], doc["ta"], doc["before"], doc["after"]) == (6, 5, "aaaa", "bbbb")
    tree = doc["tree"]
    assert isinstance(tree, dict)
    assert [c["n"] for c in tree["c"][0]["c"]] == ["work"]  # "gone" has no width after
    assert tree["c"][0]["c"][0]["b"] == 1


def _pair() -> ProfilePair:
    return ProfilePair.of(f"net {HOSTILE}", "1111aaaa", "2222bbbb", differential(BEFORE, AFTER))


def test_the_profile_section_escapes_every_name_and_points_at_its_data() -> None:
    at = layout.series_page(7)
    html = profile_section(at, 7, _pair())
    assert "<script>" not in html
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in html
    path, _text = profile_diff_file(7, _pair(), differential(BEFORE, AFTER).tree)
    assert f'data-src="{path}"' in html
    assert has_flame(html)
    assert "red, a larger share" in html
    assert "blue, a smaller share" in html
    rows = re.findall(r"<tr><td class=\"name\"><code>(.*?)</code>", html)
    assert rows[0] == "hot_function"
    assert profile_section(at, 7, None) == ""


def test_a_page_loads_the_renderer_only_with_a_flame_graph() -> None:
    ctx = SeriesContext(_series(), ())
    at = layout.series_page(7)
    drill = {"test": "net", "name": "x", "change": {}, "verdict": None, "steps": []}
    plain = series_page(ctx, [], "", drill_section(at, ctx, drill, {}))
    assert layout.FLAME_JS not in plain
    assert not has_flame(plain)
    section = drill_section(at, ctx, drill, {}, _pair())
    assert "<h2>Profile</h2>" in section
    drawn = series_page(ctx, [], "", section)
    for name in (layout.FLAME_JS, layout.FLAME_LIBRARY_JS, layout.SELECTION_JS, layout.FLAME_CSS):
        assert f'"{name}"' in drawn
    shell = profile_shell_page(ctx)
    assert 'src="../flame.js"' in shell
    assert 'id="pw-profile"' in shell


def test_the_site_carries_the_renderer_and_its_licences() -> None:
    assets = site_assets()
    for name in (layout.FLAME_JS, layout.FLAME_LIBRARY_JS, layout.SELECTION_JS, layout.FLAME_CSS):
        assert assets[name]
    licences = assets["d3-flamegraph-LICENSE.txt"].decode()
    assert "== d3-flame-graph ==" in licences
    assert "== d3-selection ==" in licences
    assert "Apache License" in licences
