"""The language of derived metrics: arithmetic on numbers, value names and sweep
parameters with the usual precedence, read by its own parser (never Python's eval);
a value it cannot compute at a repetition is Missing with its reason."""

from __future__ import annotations

import pytest

from perfwalk.config.derived import MOST_CHARACTERS, ExpressionError, Missing, parse

VALUES = {
    "receiver": 9.4e9,
    "sender": 9.5e9,
    "sweep.size": 1500.0,
    "sink.rx": 2.0,
    "BM_copy/64": 10.0,
    "zero": 0.0,
}

CASES = [
    ("receiver / 10e9 * 100", 94.0),
    ("receiver / 8 / sweep.size", 9.4e9 / 8 / 1500),
    ("1 + 2 * 3", 7.0),
    ("(1 + 2) * 3", 9.0),
    ("10 - 4 - 3", 3.0),  # left to right
    ("24 / 4 / 2", 3.0),
    ("-sink.rx + 5", 3.0),
    ("--2", 2.0),
    ("+.5e1", 5.0),
    ("'BM_copy/64' * 2", 20.0),
    ('"BM_copy/64" / 4', 2.5),
    ("(sender - receiver) / sender * 100", (9.5e9 - 9.4e9) / 9.5e9 * 100),
    ("  receiver/receiver  ", 1.0),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_an_expression_computes_as_arithmetic_does(text: str, expected: float) -> None:
    assert parse(text).evaluate(VALUES) == pytest.approx(expected)


def test_an_expression_knows_the_names_it_reads() -> None:
    assert parse("(a + 'b c') / sweep.size - a").names == {"a", "b c", "sweep.size"}


# a repetition where the value cannot be computed: the reason, never a crash
MISSING = [
    ("receiver / zero", "division by zero (zero is 0)"),
    ("receiver / (sink.rx - 2)", "division by zero (sink.rx - 2 is 0)"),
    ("receiver / (sink.rx * 0)", "division by zero (sink.rx * 0 is 0)"),
    ("receivr * 2", "no value 'receivr' at this repetition"),
    ("1e308 * 10", "is not a finite number (inf)"),
    ("1e308 * 10 - 1e308 * 10", "is not a finite number (nan)"),
]


@pytest.mark.parametrize(("text", "reason"), MISSING)
def test_a_value_that_cannot_be_computed_is_missing_with_its_reason(text: str, reason: str) -> None:
    with pytest.raises(Missing) as caught:
        parse(text).evaluate(VALUES)
    print(f"{text}: {caught.value}")
    assert reason in str(caught.value)


# what is refused when the file is loaded, and where
WRONG = [
    ("__import__('os').system('id')", "unexpected '.' at character 17"),
    ("__import__('os')", "unexpected '(' at character 11"),
    ("receiver ** 2", "unexpected '*' at character 11"),
    ("receiver % 2", "unexpected '%' at character 10"),
    ("receiver 2", "unexpected '2' at character 10"),
    ("lambda: 1", "unexpected ':' at character 7"),
    ("[1, 2]", "unexpected '['"),
    ("receiver /", "ends too early"),
    ("", "ends too early"),
    ("(1 + 2", "the ( at character 1 is never closed"),
    ("1 + 2)", "unexpected ')' at character 6"),
    ("'unclosed", "a quoted name without its closing ' at character 1"),
    ("'' + 1", "an empty quoted name"),
    ("1e999", "beyond a float's range"),
    ("(" * 30 + "1" + ")" * 30, "nested more than 64 deep"),
    ("x" * (MOST_CHARACTERS + 1), f"an expression has {MOST_CHARACTERS} at most"),
]


@pytest.mark.parametrize(("text", "said"), WRONG)
def test_what_is_no_expression_is_refused_saying_where(text: str, said: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        parse(text)
    print(f"{text[:40]!r}: {caught.value}")
    assert said in str(caught.value)
