"""The section of an environment drill's page: its verdict, each effect and each
median, every name escaped (environment names and comments come from the file, the
change's metric from the tests' output)."""

from __future__ import annotations

from perfwalk.report import layout
from perfwalk.report.pages.environments import env_drill_section
from perfwalk.store.env_drills import EnvDrillRow

HOSTILE = '<script>alert(1)</script> "q"'


def _effect(of: str, to: str, where: str, change: float, counts: bool) -> dict[str, object]:
    low, high = change - 0.02, change + 0.02
    return {"of": of, "to": to, "where": where, "change": change, "low": low, "high": high,
            "proven": counts, "counts": counts}  # fmt: skip


def _row(answer: dict[str, object] | None) -> EnvDrillRow:
    return EnvDrillRow(
        series_id=9,
        test="bench",
        name=f"time{HOSTILE}",
        change={"series": 1, "before_sha": "a" * 40, "after_sha": "b" * 40},
        sides=((0, "before", "old"), (1, "after", "old")),
        environments=(
            {"name": "old", "comment": HOSTILE, "host": "", "image": ""},
            {"name": f"new{HOSTILE}", "host": f"dut{HOSTILE}", "image": f"ci:13{HOSTILE}"},
        ),
        answer=answer,
    )


def test_the_verdict_the_effects_and_the_medians_are_shown_escaped() -> None:
    answer = {
        "verdict": "environment",
        "moved_by": ["old", f"new{HOSTILE}"],
        "share": 0.98,
        "commits": [_effect("before", "after", "old", 0.01, False)],
        "environments": [_effect("old", f"new{HOSTILE}", "after", -0.49, True)],
        "medians": [["before", "old", 17.66e6, 5], ["after", f"new{HOSTILE}", 9.01e6, 5]],
        "unit": "instructions",
    }
    at = layout.series_page(9)
    html = env_drill_section(at, _row(answer))
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert "ENVIRONMENT" in html
    assert "<strong>old</strong>: &lt;script&gt;" in html  # no host nor image of its own
    assert "on <code>dut&lt;script&gt;" in html
    assert "in the image <code>ci:13&lt;script&gt;" in html
    assert "the step follows old → new&lt;script&gt;" in html
    assert "98 % of the walk's step" in html
    assert "-49.0 % [-51.0 %, -47.0 %]" in html
    assert "within min_change or not proven" in html
    assert "17.7 M instructions" in html  # each median in its unit
    assert layout.href(at, layout.series_page(1)) in html
    assert "[95 % interval]" in html  # a drill stored before each effect had its own
    together = {**answer, "confidence": 95.0, "each_confidence": 98.75}
    html = env_drill_section(at, _row(together))
    assert "[98.75 % interval]" in html
    assert "each effect at 98.75 % confidence: 95 % for all of them together" in html


def test_a_drill_stopped_before_its_answer_says_so() -> None:
    assert "stopped before it ended" in env_drill_section(layout.series_page(9), _row(None))
