"""The data files of the site's flame graphs, drawn by ``flame.js``.

A profile travels as its folded stacks in text (``root;frame;…;leaf samples`` a
line, as ``stackcollapse`` writes them), zlib-compressed; the browser inflates and
parses it (``DecompressionStream``, as for logs). A profile stored compressed that
way is published without being read: :func:`profile_data_file` only wraps its
bytes in base64, which keeps a site of a thousand profiles quick to write.

A differential carries its tree (:mod:`perfwalk.analysis.profile_diff`): per frame its
name, its samples after (the width of its box) and before.

Data files are scripts of one call each, ``perfwalk.flame(key, {...})``, JSON in
ASCII: any name stays a string, whatever it holds.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Mapping

from perfwalk.analysis.profile_diff import DiffNode
from perfwalk.report import layout

#: the zlib level of a profile compressed here (what `compress_folded` gives)
LEVEL = 6


def folded_text(folded: Mapping[str, int]) -> bytes:
    """``folded`` as text, one ``stack samples`` line each, sorted by stack. A line
    break or carriage return inside a stack (never in a real profile) is written as
    a visible ``\\x0a`` / ``\\x0d`` so that it cannot make a line of its own."""
    stacks = sorted(folded)
    text = "".join([f"{stack} {folded[stack]}\n" for stack in stacks])
    if text.count("\n") != len(stacks) or "\r" in text:
        text = "".join([f"{_one_line(stack)} {folded[stack]}\n" for stack in stacks])
    return text.encode("utf-8", "replace")  # a lone surrogate: "?"


def _one_line(stack: str) -> str:
    return stack.replace("\n", "\\x0a").replace("\r", "\\x0d")


def compress_folded(folded: Mapping[str, int]) -> bytes:
    """``folded`` as the data file carries it: its text, zlib-compressed."""
    return zlib.compress(folded_text(folded), LEVEL)


def profile_data_file(
    profile_id: int,
    compressed: bytes,
    *,
    test: str,
    checkout: int | None = None,
    what: str = "",
) -> str:
    """``perfwalk.flame("p<id>", {...})``: a profile's folded stacks as
    :func:`compress_folded` gives them (zlib, of :func:`folded_text`), the test it
    profiled, the checkout it was taken at (its page's link) and a few words on it
    (``what``: the repetition, the command)."""
    head = _json({"test": test, "c": checkout, "what": what})
    body = base64.b64encode(compressed).decode("ascii")
    return f'perfwalk.flame("{layout.profile_key(profile_id)}",{head[:-1]},"z":"{body}"}});\n'


def diff_data_file(
    test: str, tree: DiffNode, *, before: str, after: str, samples: tuple[int, int]
) -> str:
    """``perfwalk.flame("d…", {...})``: the differential of ``test``'s profiles,
    ``before`` and ``after`` naming the two sides (e.g. the parent's and the culprit's
    short sha), ``samples`` the samples of each. A frame present only before has no
    width after: it is left out of the tree (the table of functions tells what shrank
    to nothing)."""
    head = _json({"test": test, "before": before, "after": after, "tb": samples[0]})
    document = f'{head[:-1]},"ta":{samples[1]},"tree":{_tree_json(tree)}}}'
    return f'perfwalk.flame("{layout.profile_diff_key(test)}",{document});\n'


def _tree_json(tree: DiffNode) -> str:
    """The tree as flame.js reads it (``n`` name, ``v`` samples after, ``b`` before,
    ``c`` children with samples after), as JSON written without recursion: stacks may
    be thousands of frames deep, deeper than ``json.dumps`` can nest."""
    out: list[str] = []
    pending: list[DiffNode | str] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, str):  # the end of a list of children, or a comma
            out.append(node)
            continue
        out.append(f'{{"n":{_json(node["name"])},"v":{node["value"]},"b":{node["before"]}')
        kept = [child for child in node["children"] if child["value"] > 0]
        if not kept:
            out.append("}")
            continue
        out.append(',"c":[')
        pending.append("]}")
        for number, child in reversed(list(enumerate(kept))):
            pending.append(child)
            if number:
                pending.append(",")
    return "".join(out)


def _json(document: object) -> str:
    """Compact JSON, ASCII only: safe in a script file whatever the text holds."""
    return json.dumps(document, separators=(",", ":"), allow_nan=False)
