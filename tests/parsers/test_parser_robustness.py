"""Whatever the text, a parser returns finite values or raises ParseError, nothing else."""

from __future__ import annotations

import json
import math
import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfwalk.errors import ParseError
from perfwalk.model import Value
from perfwalk.parsers import PARSER_NAMES, Parser, get_parser
from tests.parsers.golden import GOLDEN, cases

REGEX_OPTIONS = {"pattern": r"(?P<name>\w+)=(?P<value>\S+) (?P<unit>\S+)", "name": "x"}
JSON_PARSERS = ("iperf3", "hyperfine", "fio", "gbench", "pytest-benchmark")
# One golden output per JSON parser that is a single document and nothing else.
PURE_JSON = {
    "iperf3": "iperf3/tcp.out",
    "hyperfine": "hyperfine/file-one-run.out",
    "fio": "fio/seqread.out",
    "gbench": "gbench/plain.out",
    "pytest-benchmark": "pytest-benchmark/two-tests.out",
}
FUZZ = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def parser_of(name: str) -> Parser:
    return get_parser(name, REGEX_OPTIONS if name == "regex" else None)


def outcome(parser: Parser, text: str) -> tuple[Value, ...] | ParseError:
    """The parse, or the ParseError; any other exception fails the test."""
    failure: ParseError | None = None
    try:
        values = parser(text)
    except ParseError as error:
        failure = error
    if failure is not None:
        assert failure.message
        return failure
    assert isinstance(values, tuple)
    assert values
    for value in values:
        assert isinstance(value, Value)
        assert isinstance(value.value, float)
        assert math.isfinite(value.value)
        assert value.name
        assert value.unit
    return values


@pytest.mark.parametrize("name", PARSER_NAMES)
@pytest.mark.parametrize("text", ["", " ", "\n\n", "\x00\x01", "{}", "[]", "null", '{"a":'])
def test_no_value_in_trivial_text(name: str, text: str) -> None:
    with pytest.raises(ParseError, match=r"\S"):
        parser_of(name)(text)


@pytest.mark.parametrize("name", PARSER_NAMES)
@pytest.mark.parametrize("seed", range(5))
def test_random_bytes(name: str, seed: int) -> None:
    data = random.Random(seed).randbytes(4096)
    outcome(parser_of(name), data.decode("utf-8", errors="replace"))


@pytest.mark.parametrize("name", JSON_PARSERS)
def test_truncated_json(name: str) -> None:
    text = (GOLDEN / PURE_JSON[name]).read_text()
    parser = parser_of(name)
    assert parser(text)
    end = text.rindex("}")
    for cut in [*range(1, end, max(1, end // 40)), end - 1, end]:
        with pytest.raises(ParseError):
            parser(text[:cut])


@pytest.mark.parametrize("name", JSON_PARSERS)
def test_deeply_nested_json(name: str) -> None:
    depth = 5 * sys.getrecursionlimit()
    with pytest.raises(ParseError):
        parser_of(name)('{"a": ' * depth + "1" + "}" * depth)


@pytest.mark.parametrize("name", PARSER_NAMES)
@FUZZ
@given(text=st.text())
def test_any_text(name: str, text: str) -> None:
    outcome(parser_of(name), text)


#: a value per group, the name group a prefix, a scale that can overflow
GROUPS_OPTIONS = {
    "pattern": r"(?:(?P<name>\w+)#)?(?P<a>\S+) ?,(?P<b>\S*)",
    "units": {"a": "MB/s"},
    "unit": "s",
    "scale": {"b": 1e300},
}


@FUZZ
@given(text=st.text(alphabet=st.sampled_from("0123456789.,e+-# nNaIif\r\nx"), max_size=200))
def test_any_text_with_value_groups(text: str) -> None:
    outcome(get_parser("regex", GROUPS_OPTIONS), text)


GOLDEN_TEXTS = [case.text() for case in cases()]


@pytest.mark.parametrize("name", PARSER_NAMES)
@FUZZ
@given(
    source=st.sampled_from(GOLDEN_TEXTS),
    cut=st.tuples(st.floats(0, 1), st.floats(0, 1)),
    noise=st.text(max_size=50),
)
def test_damaged_tool_output(name: str, source: str, cut: tuple[float, float], noise: str) -> None:
    """A slice of a real output with text inserted: still values or ParseError."""
    a, b = sorted(int(f * len(source)) for f in cut)
    outcome(parser_of(name), source[:a] + noise + source[b:])


JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10)
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)


def _nodes(document: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    found = [path]
    if isinstance(document, dict):
        for key, item in document.items():
            found += _nodes(item, (*path, key))
    elif isinstance(document, list):
        for index, item in enumerate(document):
            found += _nodes(item, (*path, index))
    return found


def _replaced(document: object, path: tuple[object, ...], new: object) -> object:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(document, dict):
        return {k: _replaced(v, rest, new) if k == head else v for k, v in document.items()}
    assert isinstance(document, list)
    return [_replaced(v, rest, new) if i == head else v for i, v in enumerate(document)]


@pytest.mark.parametrize("name", JSON_PARSERS)
@FUZZ
@given(choice=st.integers(min_value=0), new=JSON_VALUES)
def test_json_with_a_part_replaced(name: str, choice: int, new: object) -> None:
    """Any node of a real document replaced by any JSON value: values or ParseError."""
    document = json.loads((GOLDEN / PURE_JSON[name]).read_text())
    nodes = _nodes(document)
    damaged = _replaced(document, nodes[choice % len(nodes)], new)
    outcome(parser_of(name), json.dumps(damaged))
