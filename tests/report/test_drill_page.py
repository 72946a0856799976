"""The drill section of a drill series' page: the change, the answer with its evidence,
the culprit's message and files, every commit tried in order; untrusted text escaped."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from perfwalk.model import Commit
from perfwalk.report import layout
from perfwalk.report.context import SeriesContext
from perfwalk.report.pages.drill import drill_section
from perfwalk.report.pages.table import level_texts
from perfwalk.report.site import drill_level_starts
from perfwalk.store import SeriesRow
from perfwalk.store.proofs import ProofRow

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
LO, HI = "1" * 40, "2" * 40
HOSTILE = '<script>alert(1)</script> "q" \x1b[31mred'


def _series() -> SeriesRow:
    return SeriesRow(
        id=7,
        name="drill x",
        project="p",
        repo="/r",
        from_spec="0" * 40,
        to_spec="3" * 40,
        step="drill",
        repetitions=12,
        between="keep",
        host="local",
        state="finished",
        started_at=T0,
        finished_at=T0,
        config_hash="h",
        config_text="",
        commands={},
        fingerprint={},
        parent_id=3,
        kind="drill",
    )


def _drill(verdict: str | None) -> dict[str, Any]:
    placements = [
        {
            "position": 1,
            "commit": LO,
            "values": 9,
            "median": 10,
            "side": "before",
            "evidence": -12,
            "confirmed": True,
        },
        {
            "position": 2,
            "commit": HI,
            "values": 9,
            "median": 13,
            "side": "after",
            "evidence": 12,
            "confirmed": True,
        },
    ]
    return {
        "test": "net",
        "name": "receiver",
        "change": {
            "id": "3:15",
            "before_idx": 14,
            "after_idx": 15,
            "kind": "regression",
            "unit": "bit/s",
            "before": 10.0,
            "after": 13.0,
            "relative": 0.3,
            "commits": 3,
            "before_sha": "0" * 40,
            "after_sha": "3" * 40,
        },
        "verdict": verdict,
        "answer": None
        if verdict is None
        else {
            "verdict": verdict,
            "reason": f"because {HOSTILE}",
            "lo": LO,
            "hi": HI,
            "lo_position": 1,
            "hi_position": 2,
            "culprit": HI,
            "before": 10.0,
            "after": 13.0,
            "relative": 0.3,
            "noise": 0.1,
            "change_low": 2.8,
            "change_high": 3.2,
            "ends_p": 1e-6,
            "step": {"estimate": 3.0, "low": 2.9, "high": 3.1},
            "confidence": 0.9999,
            "builds": 4,
            "repetitions": 26,
            "reused": 10,
            "placements": placements,
        },
        "steps": [
            {
                "position": 1,
                "commit": LO,
                "asked": 2,
                "reason": "bisect",
                "values": [10.1, 9.9],
                "skipped": None,
            },
            {
                "position": 2,
                "commit": HI,
                "asked": 2,
                "reason": HOSTILE,
                "values": [],
                "skipped": "does not build",
            },
        ],
    }


def _culprit() -> Commit:
    return Commit(
        HI, T0, f"Mallory {HOSTILE} <m@x>", f"Slow {HOSTILE}", f"body {HOSTILE}\n", ("src/<b>.c",)
    )


def test_the_answer_the_culprit_and_every_step_are_shown_escaped() -> None:
    ctx = SeriesContext(_series(), (), commit_url="https://git.example/c/{commit}")
    at = layout.series_page(7)
    html = drill_section(at, ctx, _drill("culprit"), {HI: _culprit()})
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "\x1b" not in html
    assert "CULPRIT" in html
    assert "change 3:15" in html
    assert "+30.0 %" in html  # the change as the parent saw it
    assert "99.99 %" in html
    assert "4 builds, 26 repetitions; 10 stored values reused" in html
    assert f"https://git.example/c/{HI}" in html
    assert "src/&lt;b&gt;.c" in html
    rows = re.findall(r"<tr><td>(\d+)</td>", html)
    assert rows == ["1", "2"]  # the commits tried, in order
    assert "does not build" in html
    assert layout.href(at, layout.checkout_page(7, 1)) in html
    assert layout.href(at, layout.checkout_page(3, 14)) in html  # the parent's checkouts


def test_the_proofs_on_later_tips_are_listed_newest_first_with_their_tries() -> None:
    ctx = SeriesContext(_series(), ())
    at = layout.series_page(7)

    def proof(n: int, outcome: Any, try_id: int | None, **answer: Any) -> ProofRow:
        figures = {"metric": "bench.latency", "step": 0.3, **answer}
        return ProofRow(7, HI, f"main{HOSTILE}", "3" * 40, T0, try_id, outcome, figures, id=n)

    still = proof(1, "still", 9, change=-0.23, low=-0.25, high=-0.21, share=0.98)
    conflict = proof(2, "conflict", None, message=f"patch failed: cost.txt:1 {HOSTILE}")
    html = drill_section(at, ctx, _drill("culprit"), {HI: _culprit()}, proofs=[still, conflict])
    assert "<script>" not in html
    assert "\x1b" not in html
    items = re.findall(r'<li class="proof proof-(\w+)">', html)
    assert items == ["conflict", "still"]  # newest first
    assert "gives back bench.latency -23.0 % [-25.0 %, -21.0 %]: 98 % of the drilled step" in html
    assert "does not revert cleanly on main&lt;script&gt;" in html
    assert html.count("its try") == 1  # the conflict measured nothing
    assert layout.href(at, layout.series_page(9)) in html
    assert "On later tips" not in drill_section(at, ctx, _drill("culprit"), {})


def test_a_drill_that_was_stopped_says_so() -> None:
    ctx = SeriesContext(_series(), ())
    html = drill_section(layout.series_page(7), ctx, _drill(None), {})
    assert "stopped before it ended" in html


def test_a_drills_statistics_are_per_level_never_over_both() -> None:
    answer = {"lo_position": 2, "hi_position": 3}
    assert drill_level_starts("culprit", answer) == (3,)
    assert drill_level_starts("range", {"lo_position": 1, "hi_position": 4}) == (2, 4)
    assert drill_level_starts("no-change", answer) == ()
    assert drill_level_starts(None, None) == ()
    ctx = SeriesContext(
        series=_series(), checkouts=(), drilled=drill_level_starts("culprit", answer)
    )
    # every metric of the drill's series, whichever it drilled, by the drill's answer
    assert ctx.level_starts("t", "any") == (3,)
    points = [10.0, 10.1, 9.9, 20.0, 20.2, 19.8]
    since, median, rsd, extremes, n = level_texts(range(6), points, ctx.level_starts("t", "v"))
    assert "#3" in since
    assert (median, extremes, n) == ("20.0", "19.8 … 20.2", "3")  # the new level's only
    assert rsd == "±1.0 %"
