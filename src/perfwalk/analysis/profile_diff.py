"""The differential profile of two commits: which functions' share of the samples
changed, and the tree a differential flame graph draws.

Both profiles are folded stacks (:data:`perfwalk.folded.FoldedStacks`: ``"root;…;leaf"``
→ samples). Shares are percentages of each profile's own samples, so that two runs of
different lengths compare. Per function (a frame name, wherever it appears):

- **self** share: the samples whose innermost frame it is;
- **total** share: the samples of the stacks it appears in, each stack counted once
  however often the function recurs in it (inclusive time).

A function's change is ``after - before`` in percentage points; the table sorts by the
larger of its self and total change (in size), a growth before a loss of the same size.
The tree (:func:`diff_tree`) merges both profiles' stacks frame by frame: each node has
its ``name``, ``value`` (samples after: the width a flame graph gives it), ``before``
(samples before) and ``delta`` (its total share after minus before, in points: what
the colour says). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, TypedDict

#: How many functions the differential table shows.
TOP = 20


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
    """What a page shows of two profiles: the merged tree, the functions whose share
    moved (the ``top`` that moved most, none that did not), each side's samples."""

    tree: DiffNode
    functions: tuple[FunctionShare, ...]
    before_samples: int
    after_samples: int


def moved(shares: Iterable[FunctionShare]) -> tuple[FunctionShare, ...]:
    """The functions of ``shares`` whose self or total share changed (a function
    whose shares are equal on both sides is no finding)."""
    return tuple(f for f in shares if f.self_delta != 0 or f.total_delta != 0)


def differential(
    before: Mapping[str, int], after: Mapping[str, int], *, top: int = TOP
) -> Differential:
    return Differential(
        tree=diff_tree(before, after),
        functions=moved(diff_functions(before, after, top=top)),
        before_samples=sum(n for n in before.values() if n > 0),
        after_samples=sum(n for n in after.values() if n > 0),
    )
