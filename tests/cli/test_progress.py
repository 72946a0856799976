import io

from perfwalk.cli.progress import ProgressBar
from perfwalk.orchestrate.walk_progress import Progress


def test_bar_draws_counts_and_eta_on_a_terminal() -> None:
    out = io.StringIO()
    bar = ProgressBar(out, enabled=True)
    bar(Progress(0, 10, 1, 5, "building"))
    bar(Progress(4, 10, 2, 5, "repetition 2"))
    bar.close()
    text = out.getvalue()
    assert "4/10" in text
    assert "checkout 2/5" in text
    assert "ETA" in text
    assert text.endswith("\n")


def test_bar_is_quiet_when_not_a_terminal() -> None:
    out = io.StringIO()  # isatty() is False
    bar = ProgressBar(out)
    bar(Progress(1, 2, 1, 1, "x"))
    bar.close()
    assert out.getvalue() == ""
