"""The differential of two profiles, as a flame graph and a table draw it.

A profile is folded stacks: ``"root;frame;…;leaf" → samples``. The differential
compares *before* (the culprit's parent, side A of a try) with *after* (the culprit,
side B): a tree of frames (one node per distinct path from the root) with the
samples of each side, and per function (a frame name, wherever it appears) its
*self* share (the samples where it is the leaf) and its *total* share (the samples
of the stacks that hold it at least once) on each side. Shares, not samples: the
two sides rarely have the same number of samples.

Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

#: the functions the table shows
TOP = 20


@dataclass
class FrameNode:
    """One frame on one path from the root: its samples (itself and everything it
    called) before and after, and its callees by name."""

    name: str
    before: int = 0
    after: int = 0
    children: dict[str, FrameNode] = field(default_factory=dict)


@dataclass(frozen=True)
class FunctionChange:
    """A function's shares of all samples (0…1) before and after."""

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
    def moved(self) -> float:
        """How far it moved: the larger of its self and its total share's change."""
        return max(abs(self.self_delta), abs(self.total_delta))


@dataclass(frozen=True)
class Differential:
    """The tree (its root named ``all``), the functions that moved most, and each
    side's samples."""

    tree: FrameNode
    changes: tuple[FunctionChange, ...]
    before_samples: int
    after_samples: int


def differential(
    before: Mapping[str, int], after: Mapping[str, int], *, top: int = TOP
) -> Differential:
    return Differential(
        tree=differential_tree(before, after),
        changes=tuple(function_changes(before, after, top=top)),
        before_samples=sum(before.values()),
        after_samples=sum(after.values()),
    )


def differential_tree(before: Mapping[str, int], after: Mapping[str, int]) -> FrameNode:
    """Both profiles in one tree of frames under a root named ``all``."""
    root = FrameNode("all")
    for stack, samples in before.items():
        node = root
        node.before += samples
        for frame in stack.split(";"):
            child = node.children.get(frame)
            if child is None:
                child = node.children[frame] = FrameNode(frame)
            child.before += samples
            node = child
    for stack, samples in after.items():
        node = root
        node.after += samples
        for frame in stack.split(";"):
            child = node.children.get(frame)
            if child is None:
                child = node.children[frame] = FrameNode(frame)
            child.after += samples
            node = child
    return root


def function_changes(
    before: Mapping[str, int], after: Mapping[str, int], *, top: int = TOP
) -> list[FunctionChange]:
    """The ``top`` functions whose self or total share changed most, the largest
    change first (ties: by name)."""
    self_b, total_b, n_b = _shares(before)
    self_a, total_a, n_a = _shares(after)
    names = set(total_b) | set(total_a)
    found = [
        FunctionChange(
            name=name,
            self_before=self_b.get(name, 0) / n_b if n_b else 0.0,
            self_after=self_a.get(name, 0) / n_a if n_a else 0.0,
            total_before=total_b.get(name, 0) / n_b if n_b else 0.0,
            total_after=total_a.get(name, 0) / n_a if n_a else 0.0,
        )
        for name in names
    ]
    found.sort(key=lambda f: (-f.moved, f.name))
    return [f for f in found[:top] if f.moved > 0]


def _shares(folded: Mapping[str, int]) -> tuple[dict[str, int], dict[str, int], int]:
    """Per function its self samples and its total samples (a recursive function
    counted once per stack), and all samples."""
    own: dict[str, int] = {}
    total: dict[str, int] = {}
    samples = 0
    for stack, n in folded.items():
        samples += n
        frames = stack.split(";")
        leaf = frames[-1]
        own[leaf] = own.get(leaf, 0) + n
        for name in set(frames):
            total[name] = total.get(name, 0) + n
    return own, total, samples
