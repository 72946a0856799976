import io
import re

import pytest

from perfwalk.cli.progress import ProgressBar, failed_builds_line
from perfwalk.model import Direction, Status, Value
from perfwalk.orchestrate.walk.walk_progress import (
    BUILD_FAILED,
    CHECKOUT_DONE,
    VALUES_LOST,
    Progress,
    results_summary,
)
from perfwalk.store.records import NewResult

ESCAPE = re.compile(r"\x1b")
SGR = re.compile(r"\x1b\[[0-9;]*m")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def _walk(bar: ProgressBar) -> None:
    """Three checkouts of two repetitions, the second's build failed."""
    bar(Progress(0, 6, 1, 3, "building", commit="a" * 40))
    bar(Progress(1, 6, 1, 3, "repetition 1", commit="a" * 40))
    bar(Progress(2, 6, 1, 3, "repetition 2", commit="a" * 40))
    bar(Progress(2, 6, 1, 3, "bench.compress 577.4 MB/s", CHECKOUT_DONE, "a" * 40))
    bar(Progress(2, 6, 2, 3, "building", commit="b" * 40))
    bar(Progress(4, 6, 2, 3, "build failed (NOEXIST): make", BUILD_FAILED, "b" * 40))
    bar(Progress(5, 6, 3, 3, "repetition 1", commit="c" * 40))
    bar(Progress(6, 6, 3, 3, "repetition 2", commit="c" * 40))
    bar(Progress(6, 6, 3, 3, "bench.compress 581 MB/s", CHECKOUT_DONE, "c" * 40))


def test_an_adaptive_walk_counts_its_checkouts_against_the_most_it_may_measure() -> None:
    out = io.StringIO()
    bar = ProgressBar(out, terminal=False, clock=Clock())
    # the checkout at index 57 of the line, the 7th measured of at most 30
    bar(Progress(18, 150, 58, 30, "bench.t 1 ms", CHECKOUT_DONE, "d" * 40, 30, 7, 7, True))
    assert "repetitions 18/150, checkout 7 of at most 30, ETA" in out.getvalue()
    assert out.getvalue().startswith("checkout 57 dddddddddd: bench.t 1 ms")


def test_bar_redraws_one_line_with_counts_eta_and_the_last_summary() -> None:
    out = io.StringIO()
    bar = ProgressBar(out, terminal=True, width=100, clock=Clock())
    _walk(bar)
    bar.close()
    text = out.getvalue()
    assert "6/6" in text
    assert "checkout 3/3" in text
    assert "ETA" in text
    assert "#2 ccccccc: bench.compress 581 MB/s" in text
    # the failed build stays as a line of its own; the bar is redrawn, not repeated
    assert "checkout 1 bbbbbbbbbb: build failed (NOEXIST): make" in text
    assert text.count("\n") <= 3
    for piece in re.split(r"[\r\n]", re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)):
        assert len(piece) <= 100
    assert [(f.idx, f.commit[:1]) for f in bar.failed] == [(1, "b")]


def test_bar_fits_a_narrow_terminal() -> None:
    out = io.StringIO()
    bar = ProgressBar(out, terminal=True, width=40, clock=Clock())
    _walk(bar)
    bar.close()
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    assert max(len(piece) for piece in re.split(r"[\r\n]", plain)) <= 40
    assert "…" in plain  # the summary cut to fit


def test_not_a_terminal_one_plain_line_per_checkout_and_failed_build() -> None:
    out = io.StringIO()  # isatty() is False
    bar = ProgressBar(out, clock=Clock())
    _walk(bar)
    bar.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("checkout 0 aaaaaaaaaa: bench.compress 577.4 MB/s · ")
    assert "repetitions 2/6, checkout 1/3, ETA " in lines[0]
    assert lines[1].startswith("checkout 1 bbbbbbbbbb: build failed (NOEXIST): make · ")
    assert lines[2].startswith("checkout 2 cccccccccc: bench.compress 581 MB/s · ")
    assert ESCAPE.search(out.getvalue()) is None


def test_untrusted_text_is_neither_markup_nor_control() -> None:
    out = io.StringIO()
    bar = ProgressBar(out, terminal=True, width=120, clock=Clock())
    message = "build failed (NOEXIST): [bold red]x[/] \x1b]0;title\x07"
    bar(Progress(1, 2, 1, 1, message, BUILD_FAILED, "d" * 40))
    bar.close()
    text = out.getvalue()
    assert "[bold red]x[/]" in text
    assert "\x1b]0;" not in text
    assert "\\x1b]0;title\\x07" in text


def test_no_color_draws_without_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    out = io.StringIO()
    bar = ProgressBar(out, terminal=True, width=80, clock=Clock())
    _walk(bar)
    bar.close()
    assert SGR.search(out.getvalue()) is None
    assert "[" + "#" in out.getvalue()  # the bar's ends show without colour


def test_the_last_words_name_the_failed_checkouts_and_the_commands() -> None:
    out = io.StringIO()
    bar = ProgressBar(out, clock=Clock())
    _walk(bar)
    line = failed_builds_line(bar.failed, 7)
    assert line is not None
    assert "checkout 1 (bbbbbbbbbb)" in line
    assert "`perfwalk log 7:1 --build`" in line
    assert "`perfwalk show 7`" in line
    assert failed_builds_line([], 7) is None


def test_a_checkouts_summary_names_its_medians_and_failures() -> None:
    def result(test: str, status: Status, *values: float) -> NewResult:
        return NewResult(
            test=test,
            status=status,
            values=tuple((Value("rate", v, "MB/s"), Direction.HIGHER) for v in values),
        )

    ran = [result("bench", Status.PASS, 1.0), result("bench", Status.PASS, 3.0)]
    assert results_summary(ran) == "bench.rate 2.00 MB/s"
    assert results_summary([*ran, result("smoke", Status.FAIL)]) == (
        "bench.rate 2.00 MB/s, smoke FAIL"
    )
    assert results_summary([]) == "no result"


def test_not_a_terminal_a_quiet_log_is_told_what_the_walk_is_doing() -> None:
    # a walk in rounds: no checkout finishes before the last round, steps a minute apart
    class Minutes(Clock):
        def __call__(self) -> float:
            self.now += 31.0
            return self.now

    out = io.StringIO()
    bar = ProgressBar(out, clock=Minutes())
    for done, checkout in enumerate((1, 2, 3, 1, 2, 3)):
        bar(Progress(done, 6, checkout, 3, f"repetition {done // 3 + 1}", commit="a" * 40))
    lines = out.getvalue().splitlines()
    assert 2 <= len(lines) <= 4  # every minute or so, not every step
    assert lines[0].startswith("checkout 0 aaaaaaaaaa: repetition 1 · repetitions 0/6")
    assert "repetition 2 · repetitions " in lines[-1]


LOST = "latency: parser found 1 of the 2 metrics the previous checkouts had: missing p99"


def test_values_a_parser_lost_stay_as_a_line_of_their_own() -> None:
    for terminal in (True, False):
        out = io.StringIO()
        bar = ProgressBar(out, terminal=terminal, width=120, clock=Clock())
        bar(Progress(1, 4, 1, 2, "repetition 1", commit="a" * 40))
        bar(Progress(3, 4, 2, 2, LOST + "\x1b[2J", VALUES_LOST, "b" * 40))
        bar(Progress(4, 4, 2, 2, "repetition 2", commit="b" * 40))
        bar.close()
        plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
        said = f"checkout 1 bbbbbbbbbb: warning: {LOST}\\x1b[2J"
        assert said in plain, (terminal, plain)
        assert "\x1b[2J" not in out.getvalue()  # the parser's words are neutralised
        if not terminal:
            assert plain.splitlines()[0].startswith(said + " · repetitions 3/4")
