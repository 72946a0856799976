"""A checkout whose build failed or whose test did not pass, on the site: counted in
the index's worst status per test, explained (first error line, last lines of the
log) in its checkout's data, marked in the plot data. The fixed store's daily walk
did not build at checkout 1 (its log an ``error:`` line of hostile text), its fs test
FAILed at checkout 3 and its ping test timed out (NOTERM)."""

from __future__ import annotations

import re

from perfwalk.model import Status
from perfwalk.report.failures import counted, walk_counts
from tests.report.conftest import Published
from tests.report.history import HOSTILE
from tests.report.site_data import read_data


def _walk_row(index: str, series: int) -> str:
    found = re.search(rf'<tr class="[a-z]+" data-series="{series}">.*?</tr>', index)
    assert found
    return found.group()


def test_the_index_counts_a_failed_build_in_the_worst_status(published: Published) -> None:
    row = _walk_row((published.site / "index.html").read_text(encoding="utf-8"), 1)
    # iperf passed at every checkout that built: its worst is the failed build
    assert (
        'class="NOEXIST"><a href="series-1.html#test-b686a33b89" '
        'title="checkouts by worst status: NOEXIST ×1 · PASS ×5">NOEXIST ×1</a>'
    ) in row
    zoom = _walk_row((published.site / "index.html").read_text(encoding="utf-8"), 2)
    assert 'title="checkouts by worst status: PASS ×3">PASS</a>' in zoom  # nothing failed


def test_the_index_says_what_the_failure_markers_mean(published: Published) -> None:
    index = (published.site / "index.html").read_text(encoding="utf-8")
    assert "✕ at the bottom: a checkout whose build failed" in index


def test_walk_counts_make_a_failed_build_a_noexist_of_every_test() -> None:
    counts = walk_counts([({"a": {"1": 3}, "b": {"1": 2, "5": 1}}, 1), ({"a": {"1": 2}}, 0)])
    assert counts == {
        "a": {Status.PASS: 5, Status.NOEXIST: 1},
        "b": {Status.PASS: 2, Status.FAIL: 1, Status.NOEXIST: 1},
    }
    assert counted(counts["b"]) == "NOEXIST ×1 · FAIL ×1 · PASS ×2"


def test_the_checkout_data_carry_the_failed_build_s_error_line_as_text(
    published: Published,
) -> None:
    _call, data = read_data(published.site / "series-1" / "data" / "checkouts-0.js")
    by_idx = {c["idx"]: c for c in data["c"]}
    (build,) = by_idx[1]["fail"]
    assert build["what"] == "build"
    assert build["status"] == "NOEXIST"
    assert build["line"] == "error: " + HOSTILE  # text in JSON: pages.js shows it as text
    assert build["tail"] == ["error: " + HOSTILE]
    assert build["log"] is not None
    assert "fail" not in by_idx[0]  # a checkout that built and passed has none


def test_a_test_that_did_not_pass_is_explained_by_its_own_output(published: Published) -> None:
    _call, data = read_data(published.site / "series-1" / "data" / "checkouts-0.js")
    failed = {f["what"]: f for c in data["c"] for f in c.get("fail", [])}
    ping = failed["ping"]
    assert ping["status"] == "NOTERM"
    assert ping["line"] == "timed out after 600 s"  # its message: no line looks like an error
    assert len(ping["tail"]) == 20
    assert ping["tail"][-1] == "line 1199 of a long output"


def test_the_plot_data_mark_the_failed_build(published: Published) -> None:
    marked = []
    for path in sorted((published.site / "series-1" / "data").glob("*-0.js")):
        if path.name.startswith(("checkouts", "logs", "commits", "meta")):
            continue
        _call, data = read_data(path)
        marked.append(data.get("f"))
    assert marked
    for marks in marked:
        assert marks is not None
        position, severity, what = marks[0]
        assert data["c"][position][0] == 1  # checkout 1
        assert severity == int(Status.NOEXIST)
        assert what == f"build failed (NOEXIST) — error: {HOSTILE}"
