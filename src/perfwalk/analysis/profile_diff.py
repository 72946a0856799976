"""The differential profile of two commits: which functions' share of the samples
changed, and the tree a differential flame graph draws.

Both profiles are folded stacks (:data:`perfwalk.folded.FoldedStacks`: ``"root;…;leaf"``
→ samples). Shares are percentages of each profile's own samples, so that two runs of
different lengths compare. Per function (a frame name, wherever it appears):

- **self** share: the samples whose innermost frame it is;
- **total** share: the samples of the stacks it appears in, each stack counted once
  however often the function recurs in it (inclusive time).

A function's change is ``after - before`` in percentage points; :func:`diff_functions`
sorts by the larger of its self and total change (in size), a growth before a loss of
the same size. The tree (:func:`diff_tree`) merges both profiles' stacks frame by frame:
each node has its ``name``, ``value`` (samples after: the width a flame graph gives it),
``before`` (samples before) and ``delta`` (its total share after minus before, in
points: what the colour says).

:func:`differential`, what pages and drills show, first takes the **unresolved** frames
out of the stacks (:func:`resolved_stacks`: ``[unknown]``, a bare address, a library's
name in brackets such as ``[libc.so.6]`` or ``[[kernel.kallsyms]]``, which a profiler
writes where it found no symbol): inside a stack they are left out, so that an unwinder
that found no symbol on one side only does not make every path below it new (and
paint a function red whose share fell); as the leaf they stay (the samples ran there),
an address named ``[unknown]``. Its table then keeps the functions whose share moved
by more than the sample counts can tell from chance (:func:`resolved`: a two-proportion
test at :data:`Z`, on the self or the total share), sorted by their self change, and
counts those it hid. Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, TypedDict

#: How many functions the differential table shows.
TOP = 20
#: The z a share's change must reach to be shown: 95 % two-sided, as ministat's
#: "Difference at 95.0% confidence".
Z = 1.96

#: a frame that is only an address: 0x…, or 8 hex digits or more
_ADDRESS = re.compile(r"0x[0-9a-f]+|[0-9a-f]{8,}", re.IGNORECASE)


@dataclass(frozen=True)
class FunctionShare:
    """One function's share of the samples before and after, in percent."""

    name: str
    self_before: float
    self_after: float
    total_before: float
    total_after: float

    @property
    def self_delta(self) -> float:
        return self.self_after - self.self_before

    @property
    def total_delta(self) -> float:
        return self.total_after - self.total_before

    @property
    def change(self) -> float:
        """The larger change (in size) of self and total, with its sign."""
        if abs(self.self_delta) >= abs(self.total_delta):
            return self.self_delta
        return self.total_delta

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> FunctionShare:
        """The share :meth:`as_dict` wrote (as a drill's answer keeps it)."""
        return cls(
            str(row["name"]),
            float(row["self_before"]),
            float(row["self_after"]),
            float(row["total_before"]),
            float(row["total_after"]),
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "self_delta": self.self_delta,
            "total_delta": self.total_delta,
        }


class DiffNode(TypedDict):
    """A frame path of the differential tree (JSON as it is)."""

    name: str
    value: int  # samples after
    before: int  # samples before
    delta: float  # total share after - before, in percentage points
    children: list[DiffNode]


def shares(stacks: Mapping[str, int]) -> dict[str, tuple[float, float]]:
    """Each function's (self, total) share of ``stacks``, in percent."""
    whole = sum(n for n in stacks.values() if n > 0)
    own: dict[str, int] = {}
    inclusive: dict[str, int] = {}
    for stack, samples in stacks.items():
        if samples <= 0:
            continue
        frames = stack.split(";")
        own[frames[-1]] = own.get(frames[-1], 0) + samples
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + samples
    if not whole:
        return {}
    return {
        name: (100.0 * own.get(name, 0) / whole, 100.0 * total / whole)
        for name, total in inclusive.items()
    }


def diff_functions(
    before: Mapping[str, int], after: Mapping[str, int], *, top: int | None = None
) -> list[FunctionShare]:
    """The functions of both profiles with their shares before and after, the largest
    change first (the first ``top`` only, when given)."""
    old, new = shares(before), shares(after)
    rows = [
        FunctionShare(
            name,
            self_before=old.get(name, (0.0, 0.0))[0],
            self_after=new.get(name, (0.0, 0.0))[0],
            total_before=old.get(name, (0.0, 0.0))[1],
            total_after=new.get(name, (0.0, 0.0))[1],
        )
        for name in old.keys() | new.keys()
    ]
    rows.sort(key=lambda r: (-round(abs(r.change), 9), -round(r.change, 9), r.name))
    return rows if top is None else rows[:top]


def unresolved(frame: str) -> bool:
    """Whether ``frame`` names no function: ``[unknown]``, a bare address, a library's
    name in brackets (``[libc.so.6]``, ``[[kernel.kallsyms]]``: what perf writes for a
    frame without a symbol); not the ``[… N frames]`` of a folded deep stack."""
    if _ADDRESS.fullmatch(frame):
        return True
    return frame.startswith("[") and frame.endswith("]") and not frame.startswith("[…")


def _leaf_name(frame: str) -> str:
    """An unresolved leaf under one name per place: an address (which moves from run to
    run) is ``[unknown]``, ``[[x]]`` is ``[x]``."""
    if _ADDRESS.fullmatch(frame):
        return "[unknown]"
    while frame.startswith("[[") and frame.endswith("]]"):
        frame = frame[1:-1]
    return frame


def resolved_stacks(stacks: Mapping[str, int]) -> tuple[dict[str, int], int]:
    """``stacks`` without their unresolved frames (:func:`unresolved`) between the root
    (the process) and the leaf; an unresolved leaf is kept (:func:`_leaf_name`). With
    the samples whose stack lost or renamed a frame."""
    kept: dict[str, int] = {}
    changed = 0
    for stack, samples in stacks.items():
        if samples <= 0:
            continue
        frames = stack.split(";")
        if len(frames) > 1:
            inner = [f for f in frames[1:-1] if not unresolved(f)]
            leaf = _leaf_name(frames[-1]) if unresolved(frames[-1]) else frames[-1]
            frames = [frames[0], *inner, leaf]
        joined = ";".join(frames)
        changed += samples if joined != stack else 0
        kept[joined] = kept.get(joined, 0) + samples
    return kept, changed


def one_sample(before_samples: int, after_samples: int) -> float:
    """The share of one sample of the smaller side, in percentage points: the least a
    share can move by (0 when a side has none)."""
    fewest = min(before_samples, after_samples)
    return 100.0 / fewest if fewest > 0 else 0.0


def _beyond_chance(before: float, after: float, counts: tuple[int, int]) -> bool:
    """Whether a share moving from ``before`` to ``after`` (percent of ``counts``
    samples) is beyond what counting alone gives, at :data:`Z` (two proportions,
    pooled)."""
    n_before, n_after = counts
    if n_before <= 0 or n_after <= 0:
        return False
    pooled = (before * n_before + after * n_after) / 100.0 / (n_before + n_after)
    spread = math.sqrt(max(pooled * (1 - pooled), 0.0) * (1 / n_before + 1 / n_after))
    change = abs(after - before) / 100.0
    return change > 0 and change >= Z * spread


def resolved(share: FunctionShare, before_samples: int, after_samples: int) -> bool:
    """Whether the counts (``before_samples``, ``after_samples``) tell ``share``'s self
    or total change from chance."""
    counts = (before_samples, after_samples)
    return _beyond_chance(share.self_before, share.self_after, counts) or _beyond_chance(
        share.total_before, share.total_after, counts
    )


def by_self_change(shares: Iterable[FunctionShare]) -> list[FunctionShare]:
    """``shares`` by their self change (in size, a growth first), then their total."""
    return sorted(
        shares,
        key=lambda r: (
            -round(abs(r.self_delta), 9),
            -round(r.self_delta, 9),
            -round(abs(r.total_delta), 9),
            -round(r.total_delta, 9),
            r.name,
        ),
    )


def shown_functions(
    shares: Iterable[FunctionShare], before_samples: int, after_samples: int, *, top: int = TOP
) -> tuple[tuple[FunctionShare, ...], int]:
    """The rows a differential table shows of ``shares``: those that moved beyond
    chance (:func:`resolved`), by self change, the first ``top``; and how many moved
    within it (hidden). An unresolved function counts where it is the leaf only (its
    self share: inside a stack it is left out), as a table of an older perfwalk did not."""
    changed = moved(_as_leaf(f) if unresolved(f.name) else f for f in shares)
    shown = [f for f in changed if resolved(f, before_samples, after_samples)]
    return tuple(by_self_change(shown)[:top]), len(changed) - len(shown)


def noise_text(before_samples: int, after_samples: int, hidden: int) -> str:
    """The noise of the counts in words, and the rows hidden within it: "53 vs 74
    samples: ±1 sample = 1.9 pp; 17 rows within the noise of 53 vs 74 samples hidden"."""
    counts = f"{before_samples} vs {after_samples} samples"
    said = f"{counts}: ±1 sample = {one_sample(before_samples, after_samples):.1f} pp"
    if hidden:
        said += f"; {hidden} row{'' if hidden == 1 else 's'} within the noise of {counts} hidden"
    return said


def _as_leaf(share: FunctionShare) -> FunctionShare:
    return FunctionShare(
        share.name, share.self_before, share.self_after, share.self_before, share.self_after
    )


def few_samples(samples: tuple[int, int], labels: tuple[str, str], minimum: int) -> str | None:
    """A warning when a side has fewer than ``minimum`` samples (``[test.profile]
    min_samples``), naming it by its label (before, after); None when both have enough."""
    short = [f"{n} at {label}" for n, label in zip(samples, labels, strict=True) if n < minimum]
    if not short:
        return None
    return (
        f"few samples: {' and '.join(short)}, fewer than the {minimum} of [test.profile] "
        f"min_samples; one sample moves a share by {one_sample(*samples):.1f} points, so "
        "only large changes show: raise [test.profile] frequency (samples per second) or "
        "profile a longer run"
    )


class _Frame:
    """A frame path while the tree is built: its samples per side, its callees."""

    __slots__ = ("callees", "samples")

    def __init__(self) -> None:
        self.samples = [0, 0]  # before, after
        self.callees: dict[str, _Frame] = {}


def diff_tree(before: Mapping[str, int], after: Mapping[str, int]) -> DiffNode:
    """The merged tree of both profiles' stacks under a root named ``all``; children in
    name order (as a flame graph lays them out)."""
    whole = [sum(n for n in before.values() if n > 0), sum(n for n in after.values() if n > 0)]
    root = _Frame()
    for side, stacks in ((0, before), (1, after)):
        for stack, samples in stacks.items():
            if samples <= 0:
                continue
            node = root
            node.samples[side] += samples
            for frame in stack.split(";"):
                child = node.callees.get(frame)
                if child is None:
                    child = node.callees[frame] = _Frame()
                child.samples[side] += samples
                node = child

    def made(name: str, node: _Frame) -> DiffNode:
        was, now = node.samples
        delta = (100.0 * now / whole[1] if whole[1] else 0.0) - (
            100.0 * was / whole[0] if whole[0] else 0.0
        )
        return {"name": name, "value": now, "before": was, "delta": delta, "children": []}

    # built without recursion: stacks may be thousands of frames deep
    top = made("all", root)
    pending: list[tuple[_Frame, DiffNode]] = [(root, top)]
    while pending:
        node, out = pending.pop()
        for name in sorted(node.callees):
            child = node.callees[name]
            built = made(name, child)
            out["children"].append(built)
            pending.append((child, built))
    return top


@dataclass(frozen=True)
class Differential:
    """What a page shows of two profiles (their unresolved frames out): the merged
    tree; the functions whose share moved beyond chance (the ``top`` by self change),
    and how many moved within it (``hidden``); each side's samples, and those whose
    stack lost an unresolved frame (``unresolved``: before, after)."""

    tree: DiffNode
    functions: tuple[FunctionShare, ...]
    before_samples: int
    after_samples: int
    hidden: int = 0
    unresolved: tuple[int, int] = (0, 0)


def moved(shares: Iterable[FunctionShare]) -> tuple[FunctionShare, ...]:
    """The functions of ``shares`` whose self or total share changed (a function
    whose shares are equal on both sides is no finding)."""
    return tuple(f for f in shares if f.self_delta != 0 or f.total_delta != 0)


def differential(
    before: Mapping[str, int], after: Mapping[str, int], *, top: int = TOP
) -> Differential:
    old, stripped_before = resolved_stacks(before)
    new, stripped_after = resolved_stacks(after)
    counts = (sum(old.values()), sum(new.values()))
    functions, hidden = shown_functions(diff_functions(old, new), *counts, top=top)
    return Differential(
        tree=diff_tree(old, new),
        functions=functions,
        before_samples=counts[0],
        after_samples=counts[1],
        hidden=hidden,
        unresolved=(stripped_before, stripped_after),
    )
