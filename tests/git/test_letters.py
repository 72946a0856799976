"""Quirk letters: A…Z, a…z, then A′… with one more prime per wrap."""

from __future__ import annotations

import pytest

from perfwalk.letters import PRIME, quirk_index, quirk_letter


@pytest.mark.parametrize(
    ("index", "letter"),
    [
        (0, "A"),
        (1, "B"),
        (25, "Z"),
        (26, "a"),
        (51, "z"),
        (52, "A′"),
        (77, "Z′"),
        (78, "a′"),
        (103, "z′"),
        (104, "A′′"),
        (156, "A′′′"),
    ],
)
def test_quirk_letter(index: int, letter: str) -> None:
    assert quirk_letter(index) == letter
    assert quirk_index(letter) == index


def test_prime_is_u2032() -> None:
    assert PRIME == "\u2032"
    assert quirk_letter(52)[1] == "\u2032"


def test_letters_are_unique_and_round_trip() -> None:
    letters = [quirk_letter(i) for i in range(500)]
    assert len(set(letters)) == 500
    assert [quirk_index(letter) for letter in letters] == list(range(500))


def test_negative_index() -> None:
    with pytest.raises(ValueError, match="0 or more"):
        quirk_letter(-1)


@pytest.mark.parametrize("text", ["", "AA", "A'", "1", "′", "A′x", "Ä"])
def test_not_a_letter(text: str) -> None:
    with pytest.raises(ValueError, match="not a quirk letter"):
        quirk_index(text)
