"""Finding a tool's JSON document in captured output and reading it with checks.

Tools mix JSON with other text: fio prints notes before it, ``hyperfine
--export-json /dev/stdout`` interleaves its report and rewrites the document
after every command, pytest prints its progress on the same line. The parsers
therefore look for every JSON object in the text and take the LAST one that has
the tool's top-level keys. Every failure, including bad types deep inside the
document, is a :class:`~perfwalk.errors.ParseError` that names the path.
"""

from __future__ import annotations

import json
import math
import re
from typing import cast

from perfwalk.errors import ParseError

JsonObject = dict[str, object]


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
_WINDOW = 256  # first slice of text given to the decoder, grown while too short


def _decode_at(text: str, start: int) -> tuple[object, int] | int:
    """The JSON value at ``start`` and its end, or where to look on when there is none.

    The decoder is given a slice of the text, four times longer each time the
    JSON goes on past it: a decoding error costs time in proportion to the text
    before it, and output with many ``{`` must not cost time in the square of its
    length. Where the JSON is broken, the text up to the fault is valid JSON, so
    no top-level document starts in it: the search goes on from the fault.
    """
    window = _WINDOW
    while True:
        piece = text[start : start + window]
        try:
            document, end = _DECODER.raw_decode(piece)
        except json.JSONDecodeError as error:
            cut_short = error.pos >= len(piece) - 16 or error.msg.startswith("Unterminated")
            if cut_short and start + window < len(text):
                window *= 4
                continue
            return start + max(error.pos, 1)
        except ValueError:  # NaN, Infinity, an integer of thousands of digits
            return start + 1
        except RecursionError:  # nested deeper than any tool's output
            return _after_nesting(text, start)
        return document, start + end


_BRACKET = re.compile(r"[][{}]")


def _after_nesting(text: str, start: int) -> int:
    """Where the brackets opened at ``start`` are closed again (strings not minded).

    Skipping the inside of JSON nested too deep for the decoder keeps the search
    linear: each ``{`` in it would fail the same way.
    """
    depth = 0
    for bracket in _BRACKET.finditer(text, start):
        depth += 1 if bracket.group() in "{[" else -1
        if depth <= 0:
            return bracket.end()
    return len(text)


def find_object(text: str, keys: tuple[str, ...], tool: str) -> JsonObject:
    """The last JSON object in ``text`` that has all of ``keys`` at its top level.

    A candidate starts at any ``{``. A complete object is skipped as a whole, and
    so is the valid part of a broken one (truncated, say): objects nested in
    either are not top-level documents.
    """
    found: JsonObject | None = None
    start = text.find("{")
    while start != -1:
        decoded = _decode_at(text, start)
        if isinstance(decoded, int):
            start = text.find("{", decoded)
            continue
        document, end = decoded
        if isinstance(document, dict) and all(key in document for key in keys):
            found = cast(JsonObject, document)
        start = text.find("{", end)
    if found is None:
        wanted = ", ".join(repr(key) for key in keys)
        raise ParseError(f"no {tool} JSON found: looked for a JSON object with the keys {wanted}")
    return found


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def as_object(value: object, where: str) -> JsonObject:
    """``value`` if it is a JSON object, else ParseError naming ``where``."""
    if not isinstance(value, dict):
        raise ParseError(f"{where}: expected a JSON object, found {_type_name(value)}")
    return cast(JsonObject, value)


def member(obj: JsonObject, key: str, where: str) -> object:
    """``obj[key]``; ParseError naming ``where.key`` when it is missing."""
    if key not in obj:
        raise ParseError(f"{where}: no {key!r} in the JSON")
    return obj[key]


def object_at(obj: JsonObject, key: str, where: str) -> JsonObject:
    return as_object(member(obj, key, where), f"{where}.{key}")


def list_at(obj: JsonObject, key: str, where: str) -> list[object]:
    value = member(obj, key, where)
    if not isinstance(value, list):
        raise ParseError(f"{where}.{key}: expected a JSON list, found {_type_name(value)}")
    return cast(list[object], value)


def str_at(obj: JsonObject, key: str, where: str) -> str:
    value = member(obj, key, where)
    if not isinstance(value, str):
        raise ParseError(f"{where}.{key}: expected a string, found {_type_name(value)}")
    return value


def optional_number(obj: JsonObject, key: str, where: str) -> float | None:
    """``obj[key]`` as a finite float; None when missing or null."""
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParseError(f"{where}.{key}: expected a number, found {_type_name(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise ParseError(f"{where}.{key}: expected a finite number, found {value!r:.40}")
    return number


def number_at(obj: JsonObject, key: str, where: str) -> float:
    """``obj[key]`` as a finite float; ParseError when missing, null or not a number."""
    number = optional_number(obj, key, where)
    if number is None:
        raise ParseError(f"{where}: no number {key!r} in the JSON")
    return number
