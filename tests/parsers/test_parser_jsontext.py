"""Finding a JSON document in other text, whatever its size and layout."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from perfwalk.parsers.jsontext import find_object

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=300)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=30,
)
PLAIN_TEXT = st.text(alphabet=st.characters(blacklist_characters="{"), max_size=300)


@settings(max_examples=300, deadline=None, database=None)
@given(
    body=st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=6),
    before=PLAIN_TEXT,
    after=PLAIN_TEXT,
    indent=st.sampled_from([None, 0, 2, "\t"]),
    ascii_only=st.booleans(),
)
def test_a_document_among_plain_text_is_found(
    body: dict[str, object], before: str, after: str, indent: int | str | None, ascii_only: bool
) -> None:
    document = {**body, "wanted": True}
    text = before + json.dumps(document, indent=indent, ensure_ascii=ascii_only) + after
    assert find_object(text, ("wanted",), "tool") == document


def test_long_strings_and_numbers_across_slice_ends() -> None:
    """The decoder's slices of the text end inside strings, escapes and numbers."""
    for size in range(200, 1400, 7):
        document = {"s": 'é\\"' * (size // 3), "n": 12345678901234567890, "x": [0.5] * (size // 5)}
        text = "progress {\n" + json.dumps(document) + "\n"
        assert find_object(text, ("s", "n"), "tool") == document


def test_a_document_after_broken_and_deep_json() -> None:
    deep = "[" * 5000 + "]" * 5000
    text = '{"half": [1, 2\n{"a": ' + deep + "}\n" + json.dumps({"wanted": 1})
    assert find_object(text, ("wanted",), "tool") == {"wanted": 1}
