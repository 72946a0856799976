"""The first error line and the last lines of a failure's log."""

from __future__ import annotations

import pytest

from perfwalk.log_excerpt import LINE_LIMIT, excerpt, first_error_line, last_lines


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            "cc -c a.c\na.c:3:1: error: expected ';'\nmake: *** [a.o] Error 1\n",
            "a.c:3:1: error: expected ';'",
        ),
        (
            "ld main.o\nmain.o: undefined reference to `foo'\ncollect2: ld returned 1\n",
            "main.o: undefined reference to `foo'",
        ),
        ("checking\nfatal: not a git repository\n", "fatal: not a git repository"),
        (
            'x\nTraceback (most recent call last):\n  File "t.py"\nValueError: no\n',
            "Traceback (most recent call last):",
        ),
        ("run\n./bench: No such file or directory\n", "./bench: No such file or directory"),
        ("test_a PASSED\ntest_b FAILED\n", "test_b FAILED"),
        ("gcc: fatal error: no input files\n", "gcc: fatal error: no input files"),
        ("building\n  step 2\n\n  exit status 2  \n\n", "exit status 2"),  # the last non-empty line
        ("", ""),
        ("\n\n  \n", ""),
    ],
)
def test_first_error_line(text: str, line: str) -> None:
    assert first_error_line(text) == line


def test_words_that_only_contain_error_are_not_errors() -> None:
    text = "terror alerts: 0\nerrors=0 warnings=0\nall done\n"
    assert first_error_line(text) == "all done"


def test_a_long_line_is_cut() -> None:
    line = first_error_line("error: " + "x" * 5000)
    assert len(line) == LINE_LIMIT
    assert line.endswith("…")


def test_last_lines_leave_out_the_trailing_empty_ones() -> None:
    text = "\n".join(f"line {n}" for n in range(50)) + "\n\n\n"
    assert last_lines(text, 3) == ("line 47", "line 48", "line 49")
    assert last_lines("one\n", 20) == ("one",)
    assert last_lines("", 20) == ()
    assert last_lines("a\nb", 0) == ()


def test_excerpt_keeps_untrusted_text_as_it_is() -> None:
    found = excerpt("<script>alert(1)</script>\nerror: <b>bold</b>\n")
    assert found.first_error == "error: <b>bold</b>"
    assert found.tail == ("<script>alert(1)</script>", "error: <b>bold</b>")
