"""Folded stacks: the one plain shape of a profile, and its text form.

A profile is ``dict[str, int]``: a call stack ``"root;…;leaf"`` (frames joined by
``;``, the outermost first, the process name as the root frame when the profiler
gives one) → the number of samples seen in it. Its text form is Brendan Gregg's
folded format, one ``<stack> <count>`` line per stack: what ``stackcollapse-*``,
``py-spy record -f raw`` and ``perf script | stackcollapse-perf.pl`` write, and what
the store keeps (compressed). Frames never hold ``;`` nor a line break: the parsers
turn a ``;`` in a name into ``:`` and drop control characters. Pure functions.
"""

from __future__ import annotations

import re

#: stack → samples; frames joined by ";", root first
FoldedStacks = dict[str, int]

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def clean_frame(name: str) -> str:
    """``name`` fit for a frame: no ``;`` (made ``:``), no control character, trimmed."""
    return _CONTROL.sub("", name.replace(";", ":")).strip()


def parse_folded(text: str) -> FoldedStacks:
    """The stacks of folded text (``a;b;c 12`` lines).

    The count is the last space-separated word, so frames may hold spaces (C++
    signatures). Lines without a non-negative integer count (blank lines, comments,
    a truncated last line) are skipped; a stack seen on several lines adds up;
    stacks of zero samples are dropped. Never raises.
    """
    stacks: FoldedStacks = {}
    for line in text.splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        stack = stack.rstrip()
        if not stack or not count.isascii() or not count.isdigit():
            continue
        samples = int(count)
        if samples > 0:
            stacks[stack] = stacks.get(stack, 0) + samples
    return stacks


def format_folded(stacks: FoldedStacks) -> str:
    """The folded text of ``stacks``: one ``<stack> <count>`` line each, heaviest
    first (ties by stack), so that a cut text keeps what weighs most."""
    ordered = sorted(stacks.items(), key=lambda item: (-item[1], item[0]))
    return "".join(f"{stack} {count}\n" for stack, count in ordered)


def total_samples(stacks: FoldedStacks) -> int:
    return sum(stacks.values())
