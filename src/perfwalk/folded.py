"""Folded stacks: the one plain shape of a profile, and its text form.

A profile is ``dict[str, int]``: a call stack ``"root;…;leaf"`` (frames joined by
``;``, the outermost first, the process name as the root frame when the profiler
gives one) → the number of samples seen in it. Its text form is Brendan Gregg's
folded format, one ``<stack> <count>`` line per stack: what ``stackcollapse-*``,
``py-spy record -f raw`` and ``perf script | stackcollapse-perf.pl`` write, and what
the store keeps (compressed). Frames never hold ``;`` nor a line break: the parsers
turn a ``;`` in a name into ``:`` and drop control characters. Pure functions.

A profile is bounded before it is kept: at most :data:`MOST_PROFILE_BYTES` of a
profiler's output read, a stack at most :data:`MOST_FRAMES` deep, a count at most
:data:`MOST_SAMPLES` (:func:`bound_stacks`); what a bound changed is said in a note.
"""

from __future__ import annotations

import re

#: stack → samples; frames joined by ";", root first
FoldedStacks = dict[str, int]

#: The most samples a stack, or a whole profile, counts: 2^31 - 1, what the store's
#: integer holds (25 days of one CPU at perf's 999 samples a second). A count beyond it is
#: the profiler's error (or a hostile one): counted as it, and said.
MOST_SAMPLES = 2**31 - 1
#: The deepest stack kept (frames): a deeper one keeps its outermost
#: ``MOST_FRAMES - 2`` frames and its leaf, the frames between folded into one frame
#: ``[… N frames]``: a recursion thousands of calls deep stays drawable.
MOST_FRAMES = 1024
#: The most bytes of a profiler's output read back: the first and last halves of more.
MOST_PROFILE_BYTES = 512 << 20
#: a count of this many digits (without leading zeros) is beyond MOST_SAMPLES
_MOST_DIGITS = len(str(MOST_SAMPLES)) + 1

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def clean_frame(name: str) -> str:
    """``name`` fit for a frame: no ``;`` (made ``:``), no control character, trimmed."""
    return _CONTROL.sub("", name.replace(";", ":")).strip()


def parse_folded(text: str) -> FoldedStacks:
    """The stacks of folded text (``a;b;c 12`` lines).

    The count is the last space-separated word, so frames may hold spaces (C++
    signatures). Lines without a non-negative integer count (blank lines, comments,
    a truncated last line) are skipped; a stack seen on several lines adds up, to at
    most :data:`MOST_SAMPLES` (a larger count too); stacks of zero samples are
    dropped. Never raises.
    """
    stacks: FoldedStacks = {}
    for line in text.splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        stack = stack.rstrip()
        if not stack or not count.isascii() or not count.isdigit():
            continue
        digits = count.lstrip("0")
        samples = int(digits or "0") if len(digits) < _MOST_DIGITS else MOST_SAMPLES
        if samples > 0:
            stacks[stack] = min(stacks.get(stack, 0) + samples, MOST_SAMPLES)
    return stacks


def bound_stacks(stacks: FoldedStacks) -> tuple[FoldedStacks, list[str]]:
    """``stacks`` within the bounds (each at most :data:`MOST_FRAMES` deep, the frames
    beyond folded into one; each count at most :data:`MOST_SAMPLES`), and a note for
    each bound that changed something (a total beyond :data:`MOST_SAMPLES` too: the
    store counts it as that)."""
    bounded: FoldedStacks = {}
    deeper = 0
    deepest = 0
    clamped = 0
    for stack, count in stacks.items():
        clamped += count >= MOST_SAMPLES
        kept = stack
        if stack.count(";") >= MOST_FRAMES:
            frames = stack.split(";")
            deeper += 1
            deepest = max(deepest, len(frames))
            folded = len(frames) - MOST_FRAMES + 1
            kept = ";".join([*frames[: MOST_FRAMES - 2], f"[… {folded} frames]", frames[-1]])
        bounded[kept] = min(bounded.get(kept, 0) + count, MOST_SAMPLES)
    notes = []
    total = sum(bounded.values())
    if deeper:
        notes.append(
            f"{_stacks(deeper)} deeper than {MOST_FRAMES} frames (up to {deepest}): the frames "
            f"between the {MOST_FRAMES - 2} outermost and the leaf folded into one"
        )
    if clamped:
        notes.append(
            f"{_stacks(clamped)} with a count of {MOST_SAMPLES} samples or more (no "
            f"profiler takes that many: its error) counted as {MOST_SAMPLES}"
        )
    if total > MOST_SAMPLES:
        notes.append(f"{total} samples in all, more than {MOST_SAMPLES}: counted as {MOST_SAMPLES}")
    return bounded, notes


def _stacks(count: int) -> str:
    return f"{count} stack{'' if count == 1 else 's'}"


def format_folded(stacks: FoldedStacks) -> str:
    """The folded text of ``stacks``: one ``<stack> <count>`` line each, heaviest
    first (ties by stack), so that a cut text keeps what weighs most."""
    ordered = sorted(stacks.items(), key=lambda item: (-item[1], item[0]))
    return "".join(f"{stack} {count}\n" for stack, count in ordered)


def total_samples(stacks: FoldedStacks) -> int:
    return sum(stacks.values())
