"""Change ids: SERIES:CHECKOUT for a walk, SERIES:COMMIT for a push series (as many
hex digits as name the commit among its series'), either form taken for any series."""

from __future__ import annotations

import pytest

from perfwalk.change_ids import change_id, commit_digits, id_series, names_change

GIT = ["4a84497e1f3c9d2b" + "0" * 24, "9ca8cea9d55130ce" + "1" * 24]
#: made-up ids, as tests and benches push them: they share their first digits
MADE_UP = [f"{n:040x}" for n in (1, 2, 0x1000000000000000000000000000)]


def test_a_commit_is_named_by_twelve_digits_or_as_many_as_tell_it_apart() -> None:
    assert commit_digits(GIT) == {GIT[0]: 12, GIT[1]: 12}
    assert commit_digits(MADE_UP) == {MADE_UP[0]: 40, MADE_UP[1]: 40, MADE_UP[2]: 13}
    short = ["abcd", "abcd" + "e" * 36]  # a start pushed beside the whole id
    assert commit_digits(short) == {"abcd": 4, short[1]: 12}
    assert change_id(34, 8, GIT[0], digits=12) == "34:4a84497e1f3c"
    assert change_id(3, 14, GIT[0], digits=None) == "3:14"


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("34:8", True),  # the checkout index
        ("34:4a84", True),  # four hex digits or more of the commit
        ("34:4A84497E1F3C", True),
        (" 34:4a84497e1f3c ", True),
        ("34:4a8", False),  # too short to be a commit, not the index
        ("34:9", False),
        ("35:8", False),
        ("34:9ca8", False),
        ("34:", False),
        ("34:8:1", False),
        ("x:8", False),
        ("34:../8", False),
    ],
)
def test_either_form_names_a_change(text: str, named: bool) -> None:
    assert names_change(text, 34, 8, GIT[0]) is named


def test_the_series_of_an_id() -> None:
    assert id_series("34:8") == id_series("34:4a84497e1f3c") == 34
    assert id_series("34") is None
    assert id_series("34:zz") is None
